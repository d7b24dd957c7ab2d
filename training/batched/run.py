"""A batched run: build the trainer (or restore it from a checkpoint), learn, save the final policy."""

from __future__ import annotations

import time
from pathlib import Path

from ..checkpoints import read_trainer_state
from ..config import TrainResult
from .config import BatchedConfig
from .state import restore_batched, save_batched_checkpoint
from .trainer import BatchedTrainer, tensorboard_logger


def train(config: BatchedConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    run_name = run_dir.name
    state = None if resume is None else read_trainer_state(resume)
    start_step = 0 if state is None else int(state["num_timesteps"])
    trainer = BatchedTrainer(config, start_step, logger=tensorboard_logger(run_dir))
    if resume is not None and state is not None:
        restore_batched(resume, state, trainer)
        print(f"resuming {run_name} at step {trainer.num_timesteps:,} with {len(trainer.pool)} snapshots in the pool")
    print(
        f"run {run_name}: {config.total_timesteps:,} learner steps, {config.num_tables} tables (batched, "
        f"{trainer.device}); logs in {run_dir}"
    )
    started = time.perf_counter()

    def checkpoint(step: int) -> None:
        save_batched_checkpoint(run_dir / "checkpoints" / f"step_{step:09d}", trainer, run_name)

    trainer.learn(config.total_timesteps, on_checkpoint=checkpoint, label=config.policy_label)
    seconds = time.perf_counter() - started
    final = save_batched_checkpoint(run_dir / "final", trainer, run_name)
    split = ", ".join(f"{k} {v:.0f} s" for k, v in trainer.seconds.items())
    print(f"time split: {split}")
    speed = trainer.speed.write(run_dir, config.trainer, num_tables=config.num_tables, device=str(trainer.device))
    print(f"{speed['learner_steps_per_second_after_warm_up']} learner steps/s after the first iteration (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)
