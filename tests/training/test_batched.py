"""The batched trainer: money reaches the right seat's decisions, advantages follow each seat's
trajectory, its network is SB3's, and ``train.py`` runs it end to end (smoke, resume)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from policy_files import ROOT, write_checkpoint
from train_script import run_train, smoke_fixture

from sam_env import N_ACTIONS, RuleConfig, VectorEnv
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.networks.policy.sb3 import build_policy
from sam_env.agents.registry import load_bot
from sam_env.apps import exploit
from sam_env.apps.exploit import main as exploit_main
from sam_env.core.combos import combo_index
from sam_env.training.batched.ppo import advantages, update
from sam_env.training.batched.rollout import RolloutBuffer
from sam_env.training.batched.state import restore_batched, save_batched_checkpoint
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.common.masking import masked
from sam_env.training.common.trajectories import SeatTrajectories
from sam_env.training.config import ConfigError
from sam_env.training.curves import evaluation_series, plot_bot_curves
from sam_env.training.trainers import config_from_dict, load_config

# tests/scenarios/chops.yaml, chop_single_two_with_quad: seat 0 leads its 2S, seat 1 chops it with
# quad 5 (seat 0 pays 4X at once), everyone passes, seat 1 goes out: net [-13, +33, -10, -10].
CHOP_DEAL = [
    ["2S", "3S", "4S", "6S", "7S", "9S", "10S", "JS", "QS", "8H"],
    ["5S", "5C", "5D", "5H", "8C", "9C", "10C", "JC", "QC", "KC"],
    ["3C", "4C", "6C", "7C", "AC", "2C", "3D", "4D", "6D", "7D"],
    ["3H", "4H", "6H", "7H", "AH", "2H", "8D", "9D", "10D", "KS"],
]
CHOP_MOVES = [
    (0, "decline_sam"),
    (1, "decline_sam"),
    (2, "decline_sam"),
    (3, "decline_sam"),
    (0, "single:2"),
    (1, "quad:5"),
    (2, "pass"),
    (3, "pass"),
    (0, "pass"),
    (1, "straight:8-K"),
]


def test_a_chop_is_credited_to_the_chopper_and_the_chopped_seat_at_once() -> None:
    # Table 0 plays the scenario; table 1 the same cards one seat further round (seat s -> s + 1).
    venv = VectorEnv(num_tables=2, rules=RuleConfig(), seed=0)
    shifted = CHOP_DEAL[-1:] + CHOP_DEAL[:-1]
    batch = venv.reset(options={"hands": [CHOP_DEAL, shifted], "leader": [0, 1]})
    buffer = RolloutBuffer.allocate(2 * len(CHOP_MOVES), venv.observation_size, N_ACTIONS)
    trajectories = SeatTrajectories(buffer, 2, 4)
    tables = np.arange(2)
    where: dict[tuple[int, int], list[int]] = {}  # (table, seat) -> positions of its decisions
    for k, (seat, move) in enumerate(CHOP_MOVES):
        seats = np.array([seat, (seat + 1) % 4])
        assert batch.current_seat.tolist() == seats.tolist()
        positions = np.array([2 * k, 2 * k + 1])
        trajectories.record(tables, seats, positions)
        for t in (0, 1):
            where.setdefault((t, int(seats[t])), []).append(int(positions[t]))
        batch = venv.step(np.full(2, combo_index(move)))
        trajectories.credit(batch.rewards.copy(), np.flatnonzero(batch.terminated))
        if move == "quad:5":  # the chop: seat 0 pays seat 1 4X at once, before anyone else moves
            for t in (0, 1):
                chopped, chopper = where[(t, t)], where[(t, (1 + t) % 4)]
                assert buffer.reward[chopped[-1]] == -4.0 and buffer.reward[chopper[-1]] == 4.0
    assert batch.terminated.all()
    net = [-13, 33, -10, -10]
    for t in (0, 1):
        for seat in range(4):
            mine = where[(t, (seat + t) % 4)]
            assert buffer.reward[mine].sum() == net[seat], (t, seat)
            assert buffer.next[mine[:-1]].tolist() == mine[1:] and buffer.next[mine[-1]] == -1
            assert buffer.done[mine].tolist() == [False] * (len(mine) - 1) + [True]
        chopped = where[(t, t)]
        assert buffer.reward[chopped].tolist() == [0.0, -4.0, -9.0]  # decline, single:2 (chopped), last pass


def test_advantages_follow_each_seats_trajectory() -> None:
    # Two interleaved trajectories: A at 0 -> 2 (done), B at 1 -> 3 (cut by the rollout: boot).
    buf = RolloutBuffer.allocate(4, 3, N_ACTIONS)
    buf.size = 4
    buf.value[:] = [1.0, 2.0, 3.0, 4.0]
    buf.reward[:] = [0.5, 0.0, -1.0, 2.0]
    buf.done[:] = [False, False, True, False]
    buf.next[:] = [2, 3, -1, -1]
    buf.boot[3] = 10.0
    lam = 0.5
    adv = advantages(buf, gamma=1.0, lam=lam)
    a2 = -1.0 - 3.0
    a3 = 2.0 + 10.0 - 4.0
    a0 = 0.5 + 3.0 - 1.0 + lam * a2
    a1 = 0.0 + 4.0 - 2.0 + lam * a3
    np.testing.assert_allclose(adv, [a0, a1, a2, a3], rtol=1e-6)


def test_the_network_is_sb3s_maskable_policy_and_the_numpy_bots() -> None:
    config = load_config(ROOT / "tests/training/configs/batched_smoke.yaml")
    trainer = BatchedTrainer(config)
    checkpoint = trainer.snapshot()
    policy = build_policy(checkpoint)  # strict load_state_dict: every SB3 tensor name and shape
    obs = trainer.venv.observe(0)[:5]
    with torch.no_grad():
        ours = trainer.net.logits(torch.from_numpy(obs)).numpy()
        sb3 = policy.action_net(policy.mlp_extractor.forward_actor(torch.from_numpy(obs))).numpy()
        values = policy.predict_values(torch.from_numpy(obs)).squeeze(-1).numpy()
    np.testing.assert_allclose(ours, sb3, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(trainer.net.value(torch.from_numpy(obs)).detach().numpy(), values, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(PPOBot(checkpoint).logits(obs[0]), ours[0], rtol=1e-4, atol=1e-5)


def test_the_batched_trainer_refuses_python_bots_as_opponents() -> None:
    match = r"opponents.*with trainer: batched, weights for \['self_play', 'random', 'heuristic'\]"
    with pytest.raises(ValueError, match=match):
        config_from_dict({"trainer": "batched", "opponents": {"self_play": 1, "greedy": 1}})


def test_a_rollout_stores_only_the_learners_moves_with_a_choice_and_the_update_trains_on_them() -> None:
    """Forced moves (one legal action) are played but not stored; they still count as learner steps.
    The update then makes its minibatch steps over exactly what was stored and raises the
    clipped-surrogate objective on it (the exact update is held to SB3's in test_ppo_update.py)."""
    overrides = ["eval_every=0", "learner_share=0", "opponents={heuristic: 1.0}"]
    trainer = BatchedTrainer(load_config(ROOT / "tests/training/configs/batched_smoke.yaml", overrides))
    stats = trainer.collector.collect()
    buf = trainer.collector.buffer
    assert 0 < buf.size < stats.learner_steps
    assert (buf.mask[: buf.size].sum(axis=1) >= 2).all()
    assert buf.mask[np.arange(buf.size), buf.action[: buf.size]].all()

    settings = trainer.settings
    adv = torch.from_numpy(advantages(buf, settings.gamma, settings.gae_lambda))
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    obs, mask = torch.from_numpy(buf.obs[: buf.size]), torch.from_numpy(buf.mask[: buf.size])
    actions = torch.from_numpy(buf.action[: buf.size])

    def surrogate() -> float:
        """The PPO objective on the stored decisions (the ratio to the policy that played them, clipped)."""
        with torch.no_grad():
            log_prob = torch.log_softmax(masked(trainer.net.logits(obs), mask), -1).gather(-1, actions[:, None])
            ratio = torch.exp(log_prob.squeeze(-1) - torch.from_numpy(buf.log_prob[: buf.size]))
            return float(torch.min(adv * ratio, adv * ratio.clamp(0.8, 1.2)).mean())

    before = {k: v.clone() for k, v in trainer.net.state_dict().items()}
    assert surrogate() == pytest.approx(0.0, abs=1e-5)  # the policy that played: every ratio is 1
    logs = update(trainer.net, trainer.optimizer, buf, settings, trainer.device, trainer.generator)
    assert logs["samples"] == buf.size
    sizes = [min(settings.batch_size, buf.size - start) for start in range(0, buf.size, settings.batch_size)]
    minibatches = settings.n_epochs * sum(size >= 2 for size in sizes)  # a minibatch of one is skipped
    assert {int(s["step"]) for s in trainer.optimizer.state.values()} == {minibatches}
    assert all(not torch.equal(before[k], v) for k, v in trainer.net.state_dict().items())
    assert surrogate() > 0  # gradient ascent on it: decisions with positive advantages became likelier
    assert all(np.isfinite(v) for v in logs.values()) and 0 <= logs["clip_fraction"] <= 1


def test_the_oracle_critic_starts_as_the_observation_critic_and_learns_from_the_hidden_hands() -> None:
    overrides = ["eval_every=0", "critic=oracle", "learner_share=0", "opponents={heuristic: 1.0}"]
    trainer = BatchedTrainer(load_config(ROOT / "tests/training/configs/batched_smoke.yaml", overrides))
    venv, oracle = trainer.venv, trainer.oracle
    obs, hidden = torch.from_numpy(venv.observe(0)), torch.from_numpy(venv.hidden_hands(0))
    with torch.no_grad():
        np.testing.assert_allclose(oracle(obs, hidden).numpy(), trainer.net.value(obs).numpy(), rtol=1e-5, atol=1e-6)
    trainer.learn(trainer.num_timesteps + 1)
    buf = trainer.collector.buffer
    assert buf.hidden.shape[1] == venv.hidden_size and buf.hidden[: buf.size].any()
    first = oracle.body[0].weight[:, venv.observation_size :]
    assert first.abs().sum() > 0, "the hidden hands' weights moved off zero"
    with torch.no_grad():  # the two critics now differ, and both were trained
        assert not torch.allclose(oracle(obs, hidden), trainer.net.value(obs))


def test_an_oracle_run_saves_its_critic_and_resumes_only_with_it(tmp_path: Path) -> None:
    config = load_config(ROOT / "tests/training/configs/batched_smoke.yaml", ["eval_every=0", "critic=oracle"])
    trainer = BatchedTrainer(config)
    trainer.learn(1000)
    save_batched_checkpoint(tmp_path, trainer, "oracle_run")
    state = json.loads((tmp_path / "trainer.json").read_text())
    resumed = BatchedTrainer(config, start_step=trainer.num_timesteps)
    restore_batched(tmp_path, state, resumed)
    for key, value in trainer.oracle.tensors().items():
        np.testing.assert_array_equal(resumed.oracle.tensors()[key], value)
    saved, restored = trainer.optimizer.state_dict()["state"], resumed.optimizer.state_dict()["state"]
    assert saved.keys() == restored.keys() and len(saved) == len(resumed.optimizer.param_groups[0]["params"])
    for index, moments in saved.items():  # the oracle's moments (the last indices) included, in order
        for name in ("exp_avg", "exp_avg_sq"):
            torch.testing.assert_close(restored[index][name], moments[name])
    without = BatchedTrainer(load_config(ROOT / "tests/training/configs/batched_smoke.yaml", ["eval_every=0"]))
    with pytest.raises(ConfigError, match="trained with critic: oracle, but the config says critic: observation"):
        restore_batched(tmp_path, state, without)
    assert load_policy(tmp_path / "policy.json").tensors.keys() == trainer.net.tensors().keys()


def test_a_bad_critic_is_refused_naming_the_choices() -> None:
    with pytest.raises(ConfigError, match=r"critic.*'seer'.*one of \['observation', 'oracle'\]"):
        config_from_dict({"trainer": "batched", "critic": "seer"})
    with pytest.raises(ConfigError, match=r"with trainer: sb3: critic \(batched\)"):
        config_from_dict({"trainer": "sb3", "critic": "oracle"})


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize("critic", ["observation", "oracle"])
def test_a_rollout_and_an_update_on_cuda(critic: str) -> None:
    overrides = ["device=cuda", "eval_every=0", f"critic={critic}"]
    config = load_config(ROOT / "tests/training/configs/batched_smoke.yaml", overrides)
    trainer = BatchedTrainer(config)
    trainer.learn(500)
    assert trainer.num_timesteps >= 500 and next(trainer.net.parameters()).is_cuda
    assert trainer.oracle is None or next(trainer.oracle.parameters()).is_cuda


smoke = smoke_fixture("--config", "tests/training/configs/batched_smoke.yaml")


def test_smoke_run_trains_evaluates_and_writes_checkpoints_bots_load(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert "batched" in stdout and "random x3" in stdout and "95% CI" in stdout
    assert "time split: env" in stdout
    steps = json.loads((run / "evaluation.json").read_text())["steps"]
    assert steps >= 3000
    speed = json.loads((run / "speed.json").read_text())
    assert speed["trainer"] == "batched" and speed["learner_steps"] == steps and speed["iterations"] >= 3
    assert speed["learner_steps_per_second"] > 0 and speed["learner_steps_per_second_after_warm_up"] > 0
    assert "learner steps/s after the first iteration (speed.json)" in stdout
    assert list(run.glob("events.out.tfevents.*")) and (run / "learning_curve.png").stat().st_size > 0
    [checkpoint] = list((run / "checkpoints").iterdir())
    policy = load_policy(checkpoint / "policy.json")
    assert policy.metadata["training"]["trainer"] == "batched"
    assert 2000 <= policy.metadata["num_timesteps"] < steps
    bot = load_bot(str(run / "final"), rules=RuleConfig())
    venv = VectorEnv(num_tables=1, rules=RuleConfig(), seed=3)
    batch = venv.reset()
    for _ in range(200):  # the saved policy plays legal moves only (step() refuses anything else)
        legal = np.flatnonzero(batch.action_mask[0])
        action = legal[int(np.argmax(bot.logits(batch.observation[0])[legal]))]
        batch = venv.step(np.array([action]))


def test_resume_restores_the_learner_pool_and_step_count(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    [checkpoint] = list((run / "checkpoints").iterdir())
    saved = json.loads((checkpoint / "trainer.json").read_text())
    start = saved["num_timesteps"]
    stdout = run_train(tmp_path, "--resume", str(checkpoint), "--set", f"total_timesteps={start + 1500}")
    assert f"resuming {run.name} at step {start:,} with {len(saved['pool_steps'])} snapshots" in stdout
    resumed = json.loads((run / "final" / "trainer.json").read_text())
    assert resumed["num_timesteps"] >= start + 1500
    assert resumed["n_updates"] > saved["n_updates"]
    config = load_config(checkpoint / "config.yaml", saved=True)
    trainer = BatchedTrainer(config, start_step=start)
    restore_batched(checkpoint, saved, trainer)
    before = load_policy(checkpoint / "policy.json").tensors
    for key, value in trainer.net.tensors().items():
        np.testing.assert_array_equal(value, before[key])
    assert trainer.num_timesteps == start and len(trainer.pool) == len(saved["pool_steps"])
    assert trainer.optimizer.state_dict()["state"], "the optimizer's moments are restored"


def test_exploit_trains_a_best_response_and_reports_its_margin(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bot = write_checkpoint(tmp_path, rules=RuleConfig(n_players=3))
    out = tmp_path / "exploit.json"
    small = ["num_tables=8", "n_steps=32", "batch_size=64", "progress_bar=false"]
    argv = ["--bot", str(bot), "--players", "3", "--steps", "300", "--deals", "3", "--out", str(out)]
    assert exploit_main([*argv, *[a for s in small for a in ("--set", s)]]) == 0
    record = json.loads(out.read_text())
    assert record["players"] == 3 and record["steps"] >= 300 and record["summary"]["deals"] == 3
    assert record["config"] == "exploit.yaml" and not record["from_scratch"] and record["network"] == str(bot)
    assert "approximate exploitability of" in capsys.readouterr().out
    # From scratch the learner takes the larger steps of a run that learns from scratch.
    assert exploit_main([*argv, "--from-scratch", *[a for s in small for a in ("--set", s)]]) == 0
    record = json.loads(out.read_text())
    assert record["config"] == "exploit_scratch.yaml" and record["from_scratch"]
    scratch = load_config(exploit.SCRATCH_CONFIG)  # package data of sam_env.apps, not a path in the checkout
    assert scratch.learning_rate > load_config(exploit.CONFIG).learning_rate


def test_exploit_refuses_a_bot_that_is_not_a_network(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        exploit_main(["--bot", "heuristic", "--steps", "10"])
    assert exit_info.value.code == 2
    assert "--bot: 'heuristic' is not a network" in capsys.readouterr().err


@pytest.mark.parametrize("field", ["init_from", "fixed_opponents"])
def test_a_bot_that_is_not_a_network_is_refused_naming_the_field(field: str) -> None:
    value = "heuristic" if field == "init_from" else "[heuristic]"
    config = load_config(ROOT / "tests/training/configs/batched_smoke.yaml", [f"{field}={value}"])
    with pytest.raises(ConfigError, match=f"^{field}: 'heuristic' is not a policy network"):
        BatchedTrainer(config)


def test_the_bot_curves_figure_plots_a_runs_evaluations(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    [series] = evaluation_series(run).values()
    assert series["steps"].size >= 2 and np.all(series["low"] <= series["high"])
    plot_bot_curves({"smoke": run}, tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 0
