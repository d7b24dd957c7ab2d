"""The Deep Monte-Carlo trainer (``trainer: dmc``): its targets on a trajectory worked out by hand, a smoke run
of ``train.py`` whose checkpoints play legal moves through ``load_bot``, and bad configs."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file
from train_script import run_train, smoke_fixture

import sam_env
from sam_env import RuleConfig
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import load_qnet
from sam_env.agents.registry import load_bot
from sam_env.evaluation.tournament import play_out
from sam_env.training.common.trajectories import SeatTrajectories
from sam_env.training.config import ConfigError
from sam_env.training.dmc.config import DMCConfig
from sam_env.training.dmc.targets import Decisions, monte_carlo_returns, renumber
from sam_env.training.dmc.trainer import DMCTrainer
from sam_env.training.qnet_state import restore_qnet
from sam_env.training.trainers import load_config
from sam_env.utils.files import file_sha256

SMOKE = ("--config", "tests/training/configs/dmc_smoke.yaml")


def _money(**seats: float) -> np.ndarray:
    """Money of one step at two tables of two seats: keys like ``t0s1``."""
    out = np.zeros((2, 2), dtype=np.float32)
    for key, amount in seats.items():
        out[int(key[1]), int(key[3])] = amount
    return out


def test_targets_are_each_seats_money_from_its_decision_to_the_end_of_the_hand() -> None:
    """Table 0, two seats. Seat 0 decides (d0); seat 1 decides (d1) and chops seat 0 for 4 X; seat 0 decides
    (d2); seat 1's forced move is stored nowhere; seat 0 decides (d3) and goes out: it wins 10 X from seat 1.
    Seat 0's targets: d0 = -4 + 10 = 6, d2 = 10, d3 = 10; seat 1's: d1 = +4 - 10 = -6. Table 1: seat 0's
    decision (d4) waits for its hand, which ends later (+3 X to seat 0, after its next decision d5)."""
    decisions = Decisions.allocate(2, 3)
    trajectories = SeatTrajectories(decisions, num_tables=2, n_players=2)
    none = np.array([], dtype=np.int64)

    def decide(table: int, seat: int) -> int:
        """Store a decision whose observation is its own position (to see which target goes with which)."""
        [position] = decisions.append(np.full((1, 3), decisions.size, np.float32), np.array([7]))
        trajectories.record(np.array([table]), np.array([seat]), np.array([position]))
        return int(position)

    d0 = decide(0, 0)
    trajectories.credit(_money(), none)
    d1 = decide(0, 1)
    trajectories.credit(_money(t0s0=-4, t0s1=4), none)
    d2 = decide(0, 0)
    trajectories.credit(_money(), none)
    trajectories.credit(_money(), none)  # seat 1's forced move: no decision
    d4 = decide(1, 0)
    d3 = decide(0, 0)
    trajectories.credit(_money(t0s0=10, t0s1=-10), np.array([0]))
    assert (d0, d1, d2, d4, d3) == (0, 1, 2, 3, 4)

    obs, actions, targets, moved = decisions.take_finished()
    np.testing.assert_array_equal(targets, [6, -6, 10, 10])
    np.testing.assert_array_equal(obs[:, 0], [0, 1, 2, 4])  # each target beside its own decision
    np.testing.assert_array_equal(actions, [7, 7, 7, 7])
    np.testing.assert_array_equal(moved, [-1, -1, -1, 0, -1])
    renumber(trajectories.last, moved)
    assert decisions.size == 1 and trajectories.last[1, 0] == 0 and trajectories.last[0, 0] == -1

    d5 = decide(1, 0)  # the waiting decision is linked to the next one at its new position
    trajectories.credit(_money(t1s0=3, t1s1=-3), np.array([1]))
    obs, _, targets, _ = decisions.take_finished()
    assert d5 == 1
    np.testing.assert_array_equal(targets, [3, 3])
    np.testing.assert_array_equal(obs[:, 0], [3, 1])  # d4 (stored at 3) moved to 0, d5 stored at 1
    assert decisions.size == 0


def test_returns_of_an_unfinished_trajectory_stay_open() -> None:
    returns, closed = monte_carlo_returns(
        np.array([1.0, 2.0, 5.0]), np.array([2, -1, -1]), np.array([False, True, False])
    )
    np.testing.assert_array_equal(closed, [False, True, False])
    assert returns[1] == 2.0


smoke = smoke_fixture(*SMOKE)


def test_smoke_run_trains_evaluates_and_saves_networks_that_play_legal_moves(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("dmc_smoke__s7__")
    assert "Deep Monte-Carlo" in stdout and "decisions trained on per second" in stdout
    assert "random x3" in stdout and "95% CI" in stdout
    state = json.loads((run / "final" / "trainer.json").read_text())
    assert state["trainer"] == "dmc" and state["num_timesteps"] >= 3000 and state["trained_decisions"] > 500
    assert [row["step"] for row in state["history"]] == [0]
    speed = json.loads((run / "speed.json").read_text())
    assert speed["decisions_per_second"] > 0
    folders = [*sorted((run / "checkpoints").iterdir()), run / "final"]
    assert len(folders) == 2
    rules = RuleConfig()
    for folder in folders:
        checkpoint = load_qnet(folder / "policy.json")
        assert checkpoint.arch.kind == "dmc" and checkpoint.metadata["network"]["layers"] == [32]
        bot = load_bot(str(folder), seed=0, rules=rules)
        assert isinstance(bot, QBot)
        env = sam_env.env(rules=rules)
        for hand in range(3):
            env.reset(seed=hand)
            play_out(env, lambda seat, observation, view, bot=bot: legal(bot.act(observation, view), observation))


def legal(action: int, observation: dict[str, np.ndarray]) -> int:
    assert observation["action_mask"][action], f"illegal action {action}"
    return action


def test_bad_configs_and_resume_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="epsilon"):
        DMCConfig(epsilon=1.5)
    with pytest.raises(ConfigError, match="another trainer"):
        load_config(Path("tests/training/configs/dmc_smoke.yaml"), ["learner_share=0.5"])
    from sam_env.training.dmc import train

    with pytest.raises(ConfigError, match="cannot read the trainer state"):
        train(DMCConfig(), tmp_path, resume=tmp_path)


def test_a_run_resumes_from_its_checkpoint_with_network_optimizer_and_history(
    smoke: tuple[Path, str], tmp_path: Path
) -> None:
    run = tmp_path / smoke[0].name
    shutil.copytree(smoke[0], run)  # the other tests read the smoke run as it was
    before = json.loads((run / "final" / "trainer.json").read_text())
    trainer = DMCTrainer(load_config(run / "final" / "config.yaml", saved=True), before["num_timesteps"])
    restore_qnet(run / "final", before, trainer)
    saved = load_qnet(run / "final" / "policy.json").tensors
    assert all(np.array_equal(value, saved[key]) for key, value in trainer.net.tensors().items())
    moments = load_file(str(run / "final" / "trainer.safetensors"))
    for key, value in trainer.state_tensors().items():
        if key.startswith("optimizer."):
            assert torch.equal(value, moments[key]), key
    assert (trainer.num_timesteps, trainer.history) == (before["num_timesteps"], before["history"])

    parent_sha256 = file_sha256(run / "final" / "policy.safetensors")
    total = before["num_timesteps"] + 2000
    stdout = run_train(
        tmp_path, "--resume", str(run), "--set", f"total_timesteps={total}", "--set", "overlap_update=true"
    )
    assert f"resuming {run.name} at step {before['num_timesteps']:,}" in stdout
    after = json.loads((run / "final" / "trainer.json").read_text())
    assert after["num_timesteps"] >= total and after["n_updates"] > before["n_updates"]
    assert after["history"][: len(before["history"])] == before["history"], "the curve goes on from the checkpoint"
    steps = [key for key in moments if key.endswith(".step")]
    resumed = load_file(str(run / "final" / "trainer.safetensors"))
    assert steps and all(resumed[key] > moments[key] for key in steps), "Adam's step counts go on too"
    [record] = load_qnet(run / "final" / "policy.json").metadata["lineage"]
    assert record["how"] == "resume" and record["steps"] == before["num_timesteps"]
    assert record["weights_sha256"] == parent_sha256, "the lineage names the checkpoint it resumed from"


def test_a_run_starts_from_another_q_network_and_records_it_in_its_lineage(smoke: tuple[Path, str]) -> None:
    final = smoke[0] / "final"
    parent = load_qnet(final / "policy.json")
    config = load_config(final / "config.yaml", [f"init_from={final}"], saved=True)
    trainer = DMCTrainer(config)
    assert all(np.array_equal(value, parent.tensors[key]) for key, value in trainer.net.tensors().items())
    [record] = trainer.snapshot().metadata["lineage"]
    assert record["how"] == "init_from" and record["steps"] == parent.metadata["num_timesteps"]
    assert record["weights_sha256"] == file_sha256(final / "policy.safetensors")
    assert trainer.num_timesteps == 0 and trainer.history == [], "a new run: its counts start at zero"


def test_init_from_refuses_what_is_not_a_q_network_of_the_configs_layers(smoke: tuple[Path, str]) -> None:
    with pytest.raises(ConfigError, match="init_from"):
        DMCConfig(init_from="")
    with pytest.raises(ConfigError, match="init_from: 'ppo_v1' is a policy network, not a Q-network"):
        DMCTrainer(DMCConfig(num_tables=4, init_from="ppo_v1"))
    with pytest.raises(ConfigError, match="set pi_layers and activation to the network's"):
        DMCTrainer(DMCConfig(num_tables=4, init_from=str(smoke[0] / "final")))  # layers [32], the config's [256, 256]


def test_a_resume_refuses_a_checkpoint_of_another_network(smoke: tuple[Path, str], tmp_path: Path) -> None:
    state = json.loads((smoke[0] / "final" / "trainer.json").read_text())
    wider = load_config(smoke[0] / "final" / "config.yaml", ["pi_layers=[64]"], saved=True)
    with pytest.raises(ConfigError, match="differs from the config's"):
        restore_qnet(smoke[0] / "final", state, DMCTrainer(wider, state["num_timesteps"]))


def test_a_resume_refuses_a_checkpoint_without_optimizer_state(smoke: tuple[Path, str]) -> None:
    state = json.loads((smoke[0] / "final" / "trainer.json").read_text())
    del state["optimizer_param_groups"]
    config = load_config(smoke[0] / "final" / "config.yaml", saved=True)
    with pytest.raises(ConfigError, match="no optimizer state to resume from"):
        restore_qnet(smoke[0] / "final", state, DMCTrainer(config, state["num_timesteps"]))


def _small(**fields: object) -> DMCConfig:
    return DMCConfig(num_tables=32, n_steps=16, batch_size=256, pi_layers=(32,), epsilon=0.2, seed=3, **fields)


def test_overlap_update_plays_one_update_behind_and_is_the_same_learning_one_iteration_later() -> None:
    """With ``overlap_update`` an iteration fits the decisions that ended before its collection while the tables
    play the network as it was before that fit. So its first iteration fits nothing, and its second fits exactly
    what the in-turn trainer's first did, from the same weights and the same draws: the same weights after."""
    in_turn, overlap, frozen = DMCTrainer(_small()), DMCTrainer(_small(overlap_update=True)), DMCTrainer(_small())
    assert overlap.actor is not overlap.net and in_turn.actor is in_turn.net
    start = overlap.net.tensors()
    with overlap.update_thread() as pool:
        assert isinstance(pool, ThreadPoolExecutor)
        _, losses, targets = overlap.iterate(pool)
        assert losses == [] and len(targets) == 0
        assert all(np.array_equal(v, start[k]) for k, v in overlap.net.tensors().items())
        _, overlap_losses, overlap_targets = overlap.iterate(pool)
    for _ in range(2):
        frozen.selfplay.collect(16)  # the starting weights throughout
    tables = overlap.selfplay.batch.observation
    assert np.array_equal(tables, frozen.selfplay.batch.observation), "the second collection played the old weights"
    _, in_turn_losses, in_turn_targets = in_turn.iterate(None)
    assert len(in_turn_targets) > 0 and np.array_equal(overlap_targets, in_turn_targets)
    assert overlap_losses == in_turn_losses
    trained = in_turn.net.tensors()
    assert any(not np.array_equal(v, start[k]) for k, v in trained.items())
    assert all(np.array_equal(v, trained[k]) for k, v in overlap.net.tensors().items())
    assert all(np.array_equal(v, trained[k]) for k, v in overlap.actor.tensors().items()), "the tables catch up"
    in_turn.iterate(None)  # its second collection plays the updated weights: other moves, other tables
    assert not np.array_equal(in_turn.selfplay.batch.observation, tables)


def test_a_resumed_overlapping_run_plays_the_checkpoints_network(smoke: tuple[Path, str]) -> None:
    final = smoke[0] / "final"
    state = json.loads((final / "trainer.json").read_text())
    config = load_config(final / "config.yaml", ["overlap_update=true"], saved=True)
    trainer = DMCTrainer(config, state["num_timesteps"])
    restore_qnet(final, state, trainer)
    saved = load_qnet(final / "policy.json").tensors
    assert all(np.array_equal(value, saved[key]) for key, value in trainer.actor.tensors().items())


def test_overlap_update_runs_repeat_to_the_last_bit() -> None:
    """Two threads, one seed: every draw keeps its thread and its order, so two runs train the same weights."""
    weights = []
    for _ in range(2):
        trainer = DMCTrainer(_small(overlap_update=True, total_timesteps=3000, eval_every=0, progress_bar=False))
        trainer.learn()
        assert trainer.trained_decisions > 500
        weights.append(trainer.net.tensors())
    assert all(np.array_equal(v, weights[1][k]) for k, v in weights[0].items())


def test_overlap_update_must_be_true_or_false() -> None:
    with pytest.raises(ConfigError, match="overlap_update"):
        DMCConfig(overlap_update="yes")  # type: ignore[arg-type]
