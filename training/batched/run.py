"""A batched run: build the trainer (or restore it from a checkpoint), learn, save the final policy."""

from __future__ import annotations

from pathlib import Path

from ..checkpoints import learn_and_save, read_trainer_state
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from ..speed import report_speed
from .config import BatchedConfig
from .state import restore_batched, save_batched_checkpoint
from .trainer import BatchedTrainer


def train(config: BatchedConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``, its tables in this
    process (``tables: ray``: :mod:`sam_env.training.ray_actors`, which the registry picks)."""
    if config.tables != "local":
        raise ConfigError("tables: ray runs through sam_env.training.ray_actors.train (train.py picks it), not here")
    trainer = build_trainer(BatchedTrainer, config, run_dir, resume)
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} learner steps, {config.num_tables} tables (batched, "
        f"{trainer.device}); logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, run_dir, save_batched_checkpoint, config.total_timesteps)
    report_speed(trainer, run_dir, num_tables=config.num_tables, device=str(trainer.device))
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
