"""A batched run: build the trainer (or restore it from a checkpoint), learn, save the final policy."""

from __future__ import annotations

import time
from pathlib import Path

from ..checkpoints import prune_checkpoints, read_trainer_state, step_folder
from ..config import TrainResult
from .config import BatchedConfig
from .state import restore_batched, save_batched_checkpoint
from .trainer import BatchedTrainer, tensorboard_logger


def train(config: BatchedConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    trainer = build_trainer(BatchedTrainer, config, run_dir, resume)
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} learner steps, {config.num_tables} tables (batched, "
        f"{trainer.device}); logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, config, run_dir)
    split = ", ".join(f"{k} {v:.0f} s" for k, v in trainer.seconds.items())
    print(f"time split: {split}")
    speed = trainer.speed.write(run_dir, config.trainer, num_tables=config.num_tables, device=str(trainer.device))
    print(f"{speed['learner_steps_per_second_after_warm_up']} learner steps/s after the first iteration (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)


def build_trainer(
    trainer_class: type[BatchedTrainer], config: BatchedConfig, run_dir: Path, resume: Path | None
) -> BatchedTrainer:
    """A trainer of ``trainer_class`` (the batched trainer or one sharing its state, as the Ray path's), from
    scratch or restored from the checkpoint folder ``resume``, logging to ``run_dir``."""
    state = None if resume is None else read_trainer_state(resume)
    start_step = 0 if state is None else int(state["num_timesteps"])
    trainer = trainer_class(config, start_step, logger=tensorboard_logger(run_dir))
    if resume is not None and state is not None:
        restore_batched(resume, state, trainer)
        print(
            f"resuming {run_dir.name} at step {trainer.num_timesteps:,} with {len(trainer.pool)} snapshots in the pool"
        )
    return trainer


def learn_and_save(trainer: BatchedTrainer, config: BatchedConfig, run_dir: Path) -> tuple[Path, float]:
    """Learn to ``total_timesteps`` with checkpoints on the way; the final policy's folder and the seconds it took."""
    started = time.perf_counter()

    def checkpoint(step: int) -> None:
        save_batched_checkpoint(step_folder(run_dir, step), trainer, run_dir.name)
        prune_checkpoints(run_dir, config.keep_checkpoints)

    trainer.learn(config.total_timesteps, on_checkpoint=checkpoint, label=config.policy_label)
    seconds = time.perf_counter() - started
    return save_batched_checkpoint(run_dir / "final", trainer, run_dir.name), seconds
