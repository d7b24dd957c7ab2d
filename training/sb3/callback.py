"""The SB3 callback: self-play snapshots, evaluations and checkpoints on the run's step schedule, logs.

The callback does its work between rollouts (:class:`sam_env.training.schedule.StepSchedule`), so a
checkpoint at step N holds a policy trained on exactly N steps, and resuming from it loses nothing.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint

from ..checkpoints import prune_checkpoints, step_folder
from ..config import OPPONENT_KINDS
from ..evaluate import evaluate
from ..schedule import StepSchedule
from ..speed import SpeedMeter
from .checkpoints import save_checkpoint, snapshot_of
from .config import SB3Config


class TrainingSchedule(BaseCallback):
    """Everything that happens on a step schedule, done between rollouts.

    Scheduled work runs at the *start* of a rollout, after the previous update, so a checkpoint
    at step N holds a policy trained on exactly N steps and resuming from it loses nothing.
    """

    def __init__(
        self, config: SB3Config, run_dir: Path, run_name: str, pool: list[tuple[int, PolicyCheckpoint]]
    ) -> None:
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.run_name = run_name
        self.pool = pool
        self.money: list[float] = []
        self.bar: tqdm | None = None
        self.last_eval = ""
        self._clock = time.perf_counter()
        self._seconds = {"rollout": 0.0, "update": 0.0, "eval": 0.0, "checkpoint": 0.0}
        self._opponent_seconds = dict.fromkeys(OPPONENT_KINDS, 0.0)
        """Seconds spent in this run (since start or resume); the opponents' are summed over environments."""
        self.speed = SpeedMeter()
        """Learner steps at the start and after every update (``speed.json``)."""

    def _on_training_start(self) -> None:
        step, c = self.num_timesteps, self.config
        self.schedule = StepSchedule(c, step)
        self.start_step, self.start_time = step, time.perf_counter()
        self.speed.mark(step)
        # SB3 stops at the first whole rollout past total_timesteps, so the bar's total is that step,
        # never less than what the run does (the bar never runs past it).
        rollout = self.model.n_steps * self.training_env.num_envs
        last_step = step + -(-(c.total_timesteps - step) // rollout) * rollout
        self.bar = tqdm(total=last_step, initial=step, unit="step", disable=not c.progress_bar, dynamic_ncols=True)

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        self._seconds["update"] += now - self._clock
        step, c = self.num_timesteps, self.config
        if step > self.speed.marks[-1][0]:  # an update just ended
            self.speed.mark(step)
        if self.schedule.due("snapshot", step):
            self.add_snapshot(step)
        if self.schedule.due("eval", step):
            self.run_eval(step)
        if self.schedule.due("checkpoint", step):
            started = time.perf_counter()
            save_checkpoint(step_folder(self.run_dir, step), self.model, c, self.run_name, self.pool)
            prune_checkpoints(self.run_dir, c.keep_checkpoints)
            self._seconds["checkpoint"] += time.perf_counter() - started
        self._clock = time.perf_counter()

    def add_snapshot(self, step: int) -> None:
        snapshot = snapshot_of(self.model, self.config, step)
        self.pool.append((step, snapshot))
        del self.pool[: -self.config.pool_size]
        self.training_env.env_method("add_snapshot", snapshot)
        self.logger.record("charts/pool_size", len(self.pool))

    def run_eval(self, step: int) -> None:
        started = time.perf_counter()
        c = self.config
        [s] = evaluate(snapshot_of(self.model, c, step), c.policy_label, ["heuristic"], c.eval_deals, c.eval_seed)
        self._seconds["eval"] += time.perf_counter() - started
        for key, value in (("x_per_hand", s.x_per_hand), ("ci_low", s.ci_low), ("ci_high", s.ci_high)):
            self.logger.record(f"eval/{key}_vs_heuristic", value)
        self.logger.record("eval/win_rate_vs_heuristic", s.win_rate)
        self.logger.dump(step)
        self.last_eval = f"{s.x_per_hand:+.2f} [{s.ci_low:+.2f}, {s.ci_high:+.2f}]"
        if self.bar is not None:
            self.bar.write(
                f"step {step:>9,}: vs heuristic x3, {s.deals} deals: {self.last_eval} X/hand, "
                f"win {100 * s.win_rate:.1f}%"
            )

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "money" in info:
                self.money.append(info["money"])
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self._seconds["rollout"] += now - self._clock
        self._clock = now
        if self.money:
            mean = float(np.mean(self.money))
            self.logger.record("charts/money_per_hand", mean)
            self.logger.record("charts/hands", len(self.money))
            self.bar.set_postfix_str(f"X/hand {mean:+.2f} | eval vs heuristic {self.last_eval or '-'}", refresh=False)
            self.money.clear()
        elapsed = now - self.start_time
        self.logger.record("charts/steps_per_second", (self.num_timesteps - self.start_step) / max(elapsed, 1e-9))
        for key, seconds in self._seconds.items():
            self.logger.record(f"perf/{key}_seconds", seconds)
        for timings in self.training_env.env_method("pop_timings"):
            for kind, seconds in timings.items():
                self._opponent_seconds[kind] += seconds
        for kind, seconds in self._opponent_seconds.items():
            self.logger.record(f"perf/opponent_{kind}_seconds", seconds)

    def _on_training_end(self) -> None:
        self._seconds["update"] += time.perf_counter() - self._clock
        self.speed.mark(self.num_timesteps)
        if self.bar is not None:
            self.bar.close()
