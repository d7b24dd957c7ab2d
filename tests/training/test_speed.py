"""``speed.json`` (training/speed.py): learner steps/s over the run and after the warm-up iteration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sam_env.training import speed as speed_module
from sam_env.training.speed import SPEED_FILE, SpeedMeter


def test_the_rate_after_warm_up_leaves_out_the_first_iteration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clock = iter([10.0, 30.0, 32.0, 34.0])  # a slow first iteration (20 s), then 2 s each
    monkeypatch.setattr(speed_module.time, "perf_counter", lambda: next(clock))
    meter = SpeedMeter()
    for step in (500, 1500, 2500, 3500):  # a resumed run starts at 500
        meter.mark(step)
    written = meter.write(tmp_path, "batched", num_tables=16)
    assert json.loads((tmp_path / SPEED_FILE).read_text()) == written
    assert written == {
        "trainer": "batched",
        "learner_steps": 3000,
        "seconds": 24.0,
        "iterations": 3,
        "learner_steps_per_second": 125.0,
        "learner_steps_per_second_after_warm_up": 500.0,
        "warm_up": {"learner_steps": 1000, "seconds": 20.0},
        "num_tables": 16,
    }


def test_a_run_of_one_iteration_has_no_rate_after_warm_up() -> None:
    meter = SpeedMeter()
    assert meter.summary()["learner_steps_per_second"] is None
    meter.mark(0)
    meter.mark(100)
    summary = meter.summary()
    assert summary["iterations"] == 1 and summary["learner_steps_per_second"] > 0
    assert summary["learner_steps_per_second_after_warm_up"] is None
