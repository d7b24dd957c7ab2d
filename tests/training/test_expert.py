"""The expert-iteration trainer (``trainer: expert``): ``train.py`` end to end, resume, bad configs, and the
distillation, which must move the network toward the search's targets."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from policy_files import ROOT
from train_script import run_train, smoke_fixture

from sam_env import N_ACTIONS, RuleConfig, VectorEnv
from sam_env.agents.networks.policy.checkpoint import PolicyArch, load_policy
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.panel import PANEL
from sam_env.agents.registry import load_bot
from sam_env.training.config import ConfigError
from sam_env.training.expert.config import ExpertConfig
from sam_env.training.expert.distill import DistillSettings, Samples, distill, losses, policy_targets
from sam_env.training.expert.trainer import ExpertTrainer
from sam_env.training.trainers import config_from_dict, load_config

SMOKE = ("--config", "tests/training/configs/expert_smoke.yaml")


smoke = smoke_fixture(*SMOKE)
"""One run of tests/training/configs/expert_smoke.yaml (two iterations): its folder and what it printed."""


def _checkpoints(run: Path) -> list[Path]:
    return sorted((run / "checkpoints").iterdir())


def test_smoke_run_searches_distills_evaluates_and_saves_loadable_policies(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("expert_smoke__s7__")
    assert "expert iteration from a fresh network" in stdout
    assert "iteration 0, step 0" in stdout and "iteration 2, step" in stdout  # an evaluation per iteration
    assert "random x3" in stdout and "95% CI" in stdout
    trainer = json.loads((run / "final" / "trainer.json").read_text())
    assert trainer["trainer"] == "expert" and trainer["iteration"] == 2
    assert trainer["num_timesteps"] >= 250 and trainer["searched_decisions"] >= 2 * 8
    assert [row["iteration"] for row in trainer["history"]] == [0, 1, 2]
    speed = json.loads((run / "speed.json").read_text())
    assert speed["searched_decisions"] == trainer["searched_decisions"]
    assert list(run.glob("events.out.tfevents.*"))
    assert len(_checkpoints(run)) == 2
    for folder in [*_checkpoints(run), run / "final"]:
        policy = load_policy(folder / "policy.json")  # the batched trainer's format: sam-eval, load_bot take it
        assert policy.arch == PolicyArch((32,), (32,), "tanh")
        assert policy.metadata["training"]["trainer"] == "expert"
        assert load_bot(str(folder / "policy.json")).name == str(folder / "policy.json")
    first, final = (json.loads((f / "policy.json").read_text()) for f in (_checkpoints(run)[0], run / "final"))
    assert first["weights"]["sha256"] != final["weights"]["sha256"]  # the second iteration trained


def test_resume_trains_exactly_what_the_uninterrupted_run_did(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    copy = tmp_path / run.name
    shutil.copytree(run, copy)
    shutil.rmtree(copy / "final")
    first = _checkpoints(copy)[0]
    stdout = run_train(tmp_path, "--resume", str(first), "--set", "final_eval_deals=0")
    assert f"resuming {run.name} at step" in stdout and "after iteration 1" in stdout
    resumed = json.loads((copy / "final" / "trainer.json").read_text())
    original = json.loads((run / "final" / "trainer.json").read_text())
    for key in ("num_timesteps", "iteration", "searched_decisions"):
        assert resumed[key] == original[key]
    assert [row["iteration"] for row in resumed["history"]] == [0, 1, 2]
    sha = [json.loads((r / "final" / "policy.json").read_text())["weights"]["sha256"] for r in (run, copy)]
    assert sha[0] == sha[1]


def test_resume_from_a_damaged_checkpoint_fails_with_a_message(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    damaged = tmp_path / "run" / "checkpoints" / "step_1"
    shutil.copytree(_checkpoints(run)[0], damaged)
    (damaged / "trainer.safetensors").write_bytes((damaged / "trainer.safetensors").read_bytes()[:64])
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(damaged)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert f"error: cannot resume: {damaged}: cannot read the trainer state" in out.stderr
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["checkpoints"]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"rule_bot_share": 0.5}, r"rule_bot_share = 0.5 .* at most a quarter of the seats"),
        ({"candidates": 1}, r"candidates = 1 .*one candidate is no choice"),
        ({"play": "greedy"}, r"play = 'greedy' .* one of \['search', 'network'\]"),
        ({"target_temperature": -1}, r"target_temperature = -1 .* a number >= 0"),
        ({"decisions_per_iteration": 0}, r"decisions_per_iteration = 0 .* an int > 0"),
        ({"search_models": "ppo_v1"}, r"search_models = 'ppo_v1' .* a list of"),
        ({"eval_opponents": []}, r"eval_opponents = \[\] .* a non-empty list"),
        ({"init_from": ""}, r"init_from = '' .* null or a network bot"),
        ({"critic": "oracle"}, r"of another trainer with trainer: expert: critic \(batched\)"),
        ({"target_margin": -1}, r"target_margin = -1 .* a number of X >= 0"),
        ({"target_margin": 2, "target_temperature": 1}, r"the margin picks between two moves, so it needs"),
    ],
)
def test_a_bad_config_is_refused_naming_the_field(override: dict[str, object], message: str) -> None:
    data = {**load_config(ROOT / "tests/training/configs/expert_smoke.yaml").to_dict(), **override}
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data)


@pytest.mark.parametrize("name", PANEL)
def test_no_panel_bot_is_a_teacher_or_a_start(name: str) -> None:
    with pytest.raises(ConfigError, match=rf"search_models names {name}: the held-out panel"):
        ExpertConfig(search_models=("heuristic", name))
    with pytest.raises(ConfigError, match=rf"init_from names {name}: the held-out panel"):
        ExpertConfig(init_from=name)


@pytest.mark.parametrize(
    ("init_from", "message"),
    [
        ("greedy", r"init_from: 'greedy' is not a policy network"),
        ("ppo", r"init_from: 'ppo' has layers .* the config .*\(32,\)"),
    ],
)
def test_a_start_that_is_not_a_fitting_network_is_refused(init_from: str, message: str) -> None:
    config = load_config(ROOT / "tests/training/configs/expert_smoke.yaml", [f"init_from={init_from}"])
    with pytest.raises(ConfigError, match=message):
        ExpertTrainer(config)


def _decisions(k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``k`` decisions with a choice, from random play at ``VectorEnv`` tables."""
    venv = VectorEnv(64, RuleConfig())
    rng = np.random.default_rng(seed)
    batch = venv.reset(seed=seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < k:
        choice = batch.action_mask.sum(axis=1) > 1
        obs.append(batch.observation[choice].copy())
        masks.append(batch.action_mask[choice].copy())
        noise = np.where(batch.action_mask, rng.random(batch.action_mask.shape), -1.0)
        batch = venv.step(noise.argmax(axis=1))
    return np.concatenate(obs)[:k], np.concatenate(masks)[:k]


def _search_like_samples(k: int, seed: int) -> Samples:
    """Decisions whose "search" chose a random legal move (two candidates scored: the move, worth more)."""
    obs, mask = _decisions(k, seed)
    rng = np.random.default_rng(seed + 1)
    noise = np.where(mask, rng.random(mask.shape), -1.0)
    order = np.argsort(-noise, axis=1)
    move, other = order[:, 0], order[:, 1]
    values = np.stack([rng.normal(0, 3, k), np.full(k, np.nan)], axis=1).astype(np.float32)
    values[:, 1] = values[:, 0] - rng.uniform(0.5, 4, k)
    return Samples(obs, mask, move, np.stack([move, other], axis=1), values)


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_distillation_moves_the_network_toward_the_search(temperature: float) -> None:
    """The policy's divergence from the search's targets and the critic's error to its values fall on a fixed
    batch, and the network comes to pick the search's move where it did not."""
    torch.set_num_threads(1)  # torch's thread pool spin-waits on a busy 2-core box
    torch.manual_seed(0)
    samples = _search_like_samples(128, seed=3)
    net = ActorCritic.fresh(PolicyArch((64,), (64,), "tanh"), samples.obs.shape[1], N_ACTIONS)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    settings = DistillSettings(n_epochs=30, batch_size=32, max_grad_norm=0.5, temperature=temperature, reward_scale=0.1)
    target = policy_targets(samples, temperature)
    entropy = float(-(target * np.log(np.where(target > 0, target, 1.0))).sum(axis=1).mean())
    tensors = (
        torch.from_numpy(samples.obs),
        torch.from_numpy(samples.mask),
        torch.from_numpy(target),
        torch.from_numpy(samples.value * np.float32(0.1)),
    )
    with torch.no_grad():
        policy_before, value_before, _, agree_before = losses(net, *tensors)
    logs = distill(net, optimizer, samples, settings, np.random.default_rng(0))
    with torch.no_grad():
        policy_after, value_after, _, agree_after = losses(net, *tensors)
    assert float(policy_after) - entropy < 0.4 * (float(policy_before) - entropy)  # KL(target || policy)
    assert float(value_after) < 0.3 * float(value_before)
    assert float(agree_before) < 0.5 and float(agree_after) > 0.8
    assert logs["samples"] == 128 and logs["target_agreement"] > 0.8


def test_policy_targets_are_the_searchs_move_or_a_softmax_over_the_scored_candidates() -> None:
    samples = _search_like_samples(32, seed=5)
    rows = np.arange(samples.size)
    one_hot = policy_targets(samples, 0.0)
    assert (one_hot.sum(axis=1) == 1).all() and (one_hot[rows, samples.move] == 1).all()
    soft = policy_targets(samples, 1.0)
    np.testing.assert_allclose(soft.sum(axis=1), 1.0, rtol=1e-6)
    best, other = soft[rows, samples.candidates[:, 0]], soft[rows, samples.candidates[:, 1]]
    np.testing.assert_allclose(best + other, 1.0, rtol=1e-6)  # nothing on moves the search did not score
    gap = samples.values[:, 0] - samples.values[:, 1]
    np.testing.assert_allclose(best / other, np.exp(gap), rtol=1e-4)
    assert (soft[~samples.mask] == 0).all()


def test_a_margin_keeps_the_networks_move_where_the_search_barely_prefers_another() -> None:
    base = _search_like_samples(64, seed=7)
    network_move, other = base.candidates[:, 0], base.candidates[:, 1]
    gap = np.linspace(-3, 3, base.size).astype(np.float32)  # the other move's value minus the network's move's
    values = np.stack([base.values[:, 0], base.values[:, 0] + gap], axis=1)
    search_move = np.where(gap > 0, other, network_move)
    samples = Samples(base.obs, base.mask, search_move, base.candidates, values)
    np.testing.assert_array_equal(policy_targets(samples, 0.0).argmax(axis=1), search_move)
    kept = policy_targets(samples, 0.0, margin=1.0).argmax(axis=1)
    np.testing.assert_array_equal(kept, np.where(gap >= 1.0, other, network_move))
