"""``train.py`` with ``trainer: rllib`` end to end in a subprocess: a local Ray, one env runner, export, a match."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import ray.rllib  # noqa: F401 - the rllib extra, which CI installs: missing, these tests fail instead of skipping
from policy_files import ROOT

import sam_env
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.registry import load_bot
from sam_env.core import SeatView
from sam_env.evaluation.tournament import play_out

SMOKE = "tests/training/configs/rllib_smoke.yaml"  # run from the repository root


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The rllib_smoke fixture with one env runner (a Ray actor, as on a cluster): its folder and output."""
    runs = tmp_path_factory.mktemp("rllib_runs")
    command = [sys.executable, "train.py", "--config", SMOKE, "--set", f"run_dir={runs}"]
    command += ["--set", "num_env_runners=1", "--set", "num_cpus=2"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, env=_without_ray_address())
    assert out.returncode == 0, out.stderr[-4000:]
    [run_dir] = list(runs.iterdir())
    return run_dir, out.stdout


def _without_ray_address() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}


def test_the_smoke_run_trains_with_an_env_runner_and_snapshots(run: tuple[Path, str]) -> None:
    run_dir, stdout = run
    assert run_dir.name.startswith("rllib_smoke__s7__")
    assert "1 env runner(s) on a local Ray on 2 CPUs" in stdout
    speed = json.loads((run_dir / "speed.json").read_text())
    assert speed["trainer"] == "rllib" and speed["num_env_runners"] == 1
    assert speed["learner_steps_per_second"] > 0 and speed["learner_steps_per_second_after_warm_up"] > 0
    assert speed["learner_steps"] >= 300
    # Every environment step is one decision of one module (RLlib's own module counts exceed it by
    # about 3 a hand), less the moves of up to 3 seats still waiting for their next observation.
    assert speed["env_steps"] - 3 <= sum(speed["decisions_by_module"].values()) <= speed["env_steps"]
    assert speed["decisions_by_module"]["learner"] == speed["learner_steps"]
    assert all(step >= 128 for step in speed["snapshot_steps"])  # both slots were refreshed from the learner
    lines = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert lines and all(np.isfinite(line["policy_loss"]) for line in lines)
    for opponent in ("random x3", "greedy x3", "heuristic x3"):
        assert opponent in stdout


def test_the_exported_policy_loads_and_plays_50_hands_without_an_illegal_move(run: tuple[Path, str]) -> None:
    run_dir, _ = run
    path = run_dir / "final" / "policy.json"
    checkpoint = load_policy(path)
    assert checkpoint.metadata["training"]["trainer"] == "rllib"
    assert checkpoint.metadata["num_timesteps"] >= 300
    bots = [load_bot(str(path), seed=seat) for seat in range(4)]
    env = sam_env.env()  # the engine raises IllegalMoveError on any illegal move
    decisions = 0

    def choose(seat: int, observation: dict, view: SeatView) -> int:
        nonlocal decisions
        action = bots[seat].act(observation, view)
        assert observation["action_mask"][action] == 1
        decisions += 1
        return action

    for hand in range(50):
        env.reset(seed=hand)
        assert play_out(env, choose) is not None
    assert decisions > 50 * 4


def test_a_bad_field_is_refused_before_ray_starts() -> None:
    command = [sys.executable, "train.py", "--config", SMOKE, "--set", "num_env_runners=-1"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    message = f"error: {SMOKE}: config field num_env_runners = -1 is not allowed; expected an int >= 0"
    assert message in out.stderr
    assert "Traceback" not in out.stderr and "Started a local Ray" not in out.stderr


def test_more_env_runners_than_local_cpus_is_refused_instead_of_waiting_forever(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    command = [sys.executable, "train.py", "--config", SMOKE, "--set", "num_env_runners=3", "--set", f"run_dir={runs}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120, env=_without_ray_address())
    assert out.returncode == 2
    assert "error: 3 env runners need 3 CPUs of the local Ray, but num_cpus = 1" in out.stderr
    assert list(runs.iterdir()) == [], "a run refused by its trainer leaves no run folder behind"
