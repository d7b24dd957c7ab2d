"""The step schedule of a run: when the next snapshot, evaluation and checkpoint are due.

The trainers that count steps (``sb3``, ``batched``, ``rollout_advantage``, ``dmc``, ``dqn``) do their
periodic work between iterations, at the first iteration boundary at or past a multiple of the job's
period, so a checkpoint at step N holds a policy trained on exactly N steps, and resuming from it (``sb3``,
``batched``, ``rollout_advantage`` and ``dmc`` resume; ``dqn`` does not: its replay buffer is not saved) loses
nothing.
"""

from __future__ import annotations

from typing import Protocol

JOBS = ("snapshot", "eval", "checkpoint")


def next_due(step: int, every: int) -> int | float:
    """The first multiple of ``every`` after ``step``; never (infinity) when ``every`` is 0."""
    return (step // every + 1) * every if every else float("inf")


class Periods(Protocol):
    """What the schedule reads of a config (a frozen dataclass): its periods in steps (0: never)."""

    @property
    def eval_every(self) -> int: ...

    @property
    def checkpoint_every(self) -> int: ...


class StepSchedule:
    """The step at which each job is next due, from the config's ``snapshot_every`` (a trainer without a
    self-play pool has none: never), ``eval_every`` and ``checkpoint_every``. A fresh run is evaluated once
    before learning (the curve's first point), unless ``eval_every`` is 0 (never); a resumed run continues
    on the same multiples."""

    def __init__(self, config: Periods, step: int) -> None:
        self.every = {
            "snapshot": getattr(config, "snapshot_every", 0),
            "eval": config.eval_every,
            "checkpoint": config.checkpoint_every,
        }
        self.next = {job: next_due(step, every) for job, every in self.every.items()}
        if step == 0 and config.eval_every:
            self.next["eval"] = 0

    def due(self, job: str, step: int) -> bool:
        """Whether ``job`` is due at ``step``; if it is, the next one is scheduled (the caller does it now)."""
        if step < self.next[job]:
            return False
        self.next[job] = next_due(step, self.every[job])
        return True
