"""``train.py`` end to end in a subprocess: a few hundred steps, checkpoints, a resume, and reproducibility."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from policy_files import ROOT
from train_script import run_train, smoke_fixture

from sam_env import ENCODING_VERSION
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.registry import load_bot

SMOKE = "tests/training/configs/smoke.yaml"  # run from the repository root


smoke = smoke_fixture("--config", SMOKE)
"""One run of tests/training/configs/smoke.yaml (256 steps): its folder and what it printed."""


def test_smoke_run_writes_logs_checkpoints_and_the_evaluation(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("smoke__s7__")
    assert "vs heuristic x3" in stdout and "95% CI" in stdout
    for line in ("random x3", "greedy x3", "heuristic x3"):
        assert line in stdout
    assert list(run.glob("events.out.tfevents.*"))
    assert (run / "learning_curve.png").stat().st_size > 0
    assert json.loads((run / "evaluation.json").read_text())["steps"] == 256
    speed = json.loads((run / "speed.json").read_text())
    assert speed["trainer"] == "sb3" and speed["learner_steps"] == 256 and speed["iterations"] == 4
    assert speed["learner_steps_per_second"] > 0 and speed["learner_steps_per_second_after_warm_up"] > 0

    checkpoint = run / "checkpoints" / "step_000000128"
    assert (checkpoint / "config.yaml").is_file()
    for weights in ("policy.safetensors", "trainer.safetensors"):  # not 0600: the mode of any new file
        assert (checkpoint / weights).stat().st_mode & 0o777 == (checkpoint / "config.yaml").stat().st_mode & 0o777
    policy = load_policy(checkpoint / "policy.json")
    assert policy.metadata["encoding_version"] == ENCODING_VERSION
    assert policy.metadata["num_timesteps"] == 128
    assert policy.metadata["training"]["name"] == "smoke"
    assert load_bot(str(checkpoint / "policy.json")).name == str(checkpoint / "policy.json")


def test_resume_continues_the_step_count_and_the_schedules(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    checkpoint = run / "checkpoints" / "step_000000128"
    resume = ["--resume", str(checkpoint), "--set", "total_timesteps=384", "--set", "final_eval_deals=0"]
    stdout = run_train(tmp_path, *resume)
    assert "resuming smoke__s7__" in stdout and "at step 128 with 2 snapshots" in stdout
    assert "step       256: vs heuristic" in stdout  # evaluations stay on the run's step schedule
    trainer = json.loads((run / "final" / "trainer.json").read_text())
    assert trainer["num_timesteps"] == 384
    assert trainer["n_updates"] == 384 // 64  # one epoch per 64-step rollout, counted on from the checkpoint's 2
    assert trainer["optimizer_param_groups"][0]["lr"] == pytest.approx(3e-4)
    assert (run / "checkpoints" / "step_000000256" / "policy.json").is_file()


def test_the_same_seed_trains_the_same_weights(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    run_train(tmp_path, "--config", SMOKE, "--set", "total_timesteps=128", "--set", "final_eval_deals=0")
    [again] = list(tmp_path.iterdir())
    first = json.loads((run / "checkpoints" / "step_000000128" / "policy.json").read_text())
    second = json.loads((again / "final" / "policy.json").read_text())
    assert first["weights"]["sha256"] == second["weights"]["sha256"]


def test_resume_from_a_damaged_checkpoint_fails_with_a_message(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    damaged = tmp_path / "run" / "checkpoints" / "step_000000128"
    shutil.copytree(run / "checkpoints" / "step_000000128", damaged)
    (damaged / "trainer.safetensors").write_bytes((damaged / "trainer.safetensors").read_bytes()[:64])
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(damaged)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert f"error: cannot resume: {damaged}: cannot read the trainer state" in out.stderr
    assert "Traceback" not in out.stderr
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["checkpoints"]  # nothing written into the run


def test_resume_with_another_network_is_refused_before_writing(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(copy / "checkpoints" / "step_000000128")]
    out = subprocess.run([*command, "--set", "pi_layers=[16]"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert "the checkpoint's network" in out.stderr and "differs from the config's" in out.stderr
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before  # config.yaml, events untouched


@pytest.mark.parametrize("total", ["128", "64"])
def test_resume_with_nothing_left_to_train_is_refused_before_writing(
    smoke: tuple[Path, str], tmp_path: Path, total: str
) -> None:
    run, _ = smoke
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(copy / "checkpoints" / "step_000000128")]
    out = subprocess.run([*command, "--set", f"total_timesteps={total}"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert f"is at step 128 and total_timesteps is {total}: nothing left to train" in out.stderr
    assert "--set total_timesteps=256" in out.stderr
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before  # final/ and config.yaml untouched


def test_the_progress_bar_ends_at_its_total(tmp_path: Path) -> None:
    # 200 steps in rollouts of 2 x 32: SB3 runs to 256, and the bar's total says so
    args = ["--config", SMOKE, "--set", "total_timesteps=200", "--set", "final_eval_deals=0"]
    command = [
        sys.executable,
        str(ROOT / "train.py"),
        *args,
        "--set",
        "progress_bar=true",
        "--set",
        f"run_dir={tmp_path}",
    ]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    counts = re.findall(r"(\d+)/(\d+) \[", out.stderr)
    assert counts and counts[-1] == ("256", "256")
    assert all(int(done) <= int(total) for done, total in counts)


def test_eval_every_zero_never_evaluates(tmp_path: Path) -> None:
    """``eval_every: 0`` means no evaluation during the run, not even the one a fresh run makes at step 0."""
    stdout = run_train(
        tmp_path,
        "--config",
        SMOKE,
        "--set",
        "total_timesteps=64",
        "--set",
        "eval_every=0",
        "--set",
        "final_eval_deals=0",
        "--set",
        "checkpoint_every=0",
    )
    assert "vs heuristic x3" not in stdout
