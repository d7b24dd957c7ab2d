"""``speed.json``: every trainer's learner steps per wall second, over the run and after its warm-up.

A trainer marks the step count when learning starts and after every iteration (a rollout and its
update); the first iteration is the warm-up (compiled kernels loaded, Ray actors started, RLlib
built, the first evaluation), so the rate after it is the one to compare between trainers and
machines. A resumed run measures its own session. Learner steps are what ``total_timesteps``
counts for that trainer (the moves of the seats being trained; opponents' moves are not counted).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

SPEED_FILE = "speed.json"


class SpeedMeter:
    """The step count and wall clock at the start of learning and after each iteration."""

    def __init__(self) -> None:
        self.marks: list[tuple[int, float]] = []

    def mark(self, step: int) -> None:
        """Record ``step`` learner steps now: call it when learning starts and after every iteration."""
        self.marks.append((int(step), time.perf_counter()))

    def summary(self) -> dict[str, Any]:
        """Learner steps, seconds and steps/s over the run and after the first iteration (``None`` before two)."""
        if len(self.marks) < 2:
            return {"learner_steps": 0, "seconds": 0.0, "iterations": 0, "learner_steps_per_second": None}
        (step0, t0), (step1, t1), (step_n, t_n) = self.marks[0], self.marks[1], self.marks[-1]
        after = (step_n - step1) / (t_n - t1) if len(self.marks) > 2 and t_n > t1 else None
        return {
            "learner_steps": step_n - step0,
            "seconds": round(t_n - t0, 2),
            "iterations": len(self.marks) - 1,
            "learner_steps_per_second": round((step_n - step0) / max(t_n - t0, 1e-9), 1),
            "learner_steps_per_second_after_warm_up": None if after is None else round(after, 1),
            "warm_up": {"learner_steps": step1 - step0, "seconds": round(t1 - t0, 2)},
        }

    def write(self, run_dir: Path, trainer: str, **details: Any) -> dict[str, Any]:
        """Write ``run_dir/speed.json`` (the summary, the trainer's name and its ``details``); return it."""
        speed = {"trainer": trainer, **self.summary(), **details}
        (run_dir / SPEED_FILE).write_text(json.dumps(speed, indent=2) + "\n", encoding="utf-8")
        return speed


def report_speed(
    trainer: Any, run_dir: Path, unit: str = "learner steps", split: str = "time split", **details: Any
) -> dict[str, Any]:
    """After a run: print the trainer's time split (its ``seconds``, under the heading ``split``), write
    ``speed.json`` (:meth:`SpeedMeter.write` of its ``speed``, with ``details``) and print the rate after the
    warm-up in ``unit``; the speed written."""
    print(f"{split}: " + ", ".join(f"{k} {v:.0f} s" for k, v in trainer.seconds.items()))
    speed = trainer.speed.write(run_dir, trainer.config.trainer, **details)
    print(f"{speed['learner_steps_per_second_after_warm_up']} {unit}/s after the first iteration (speed.json)")
    return speed
