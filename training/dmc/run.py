"""A DMC run: the trainer, its checkpoints (:mod:`..qnet_state`) and ``speed.json``."""

from __future__ import annotations

from pathlib import Path

from sam_env.utils.extras import import_extra

from ..checkpoints import learn_and_save, read_trainer_state
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from ..qnet_state import restore_qnet, save_qnet_checkpoint
from ..speed import report_speed
from .config import DMCConfig
from .trainer import DMCTrainer


def train(config: DMCConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``; with ``tables: ray``,
    its tables in Ray actors (:mod:`.ray_tables`, which needs the ``rllib`` extra)."""
    if config.tables == "ray":
        what = "tables: ray"
        ray_tables = import_extra(
            ".ray_tables", package=__package__, extra="rllib", needs=("ray",), what=what, error=ConfigError
        )
        return ray_tables.train(config, run_dir, resume)
    return train_with(DMCTrainer, config, run_dir, resume)


def train_with(
    trainer_class: type[DMCTrainer], config: DMCConfig, run_dir: Path, resume: Path | None, where: str = ""
) -> TrainResult:
    """Build a trainer of ``trainer_class`` (restored from ``resume``), learn, save, and write ``speed.json`` (with
    the trainer's own ``speed_info()`` where it has one); ``where``: where the tables play, for the first line."""
    state = None if resume is None else read_trainer_state(resume)
    start_step = 0 if state is None else int(state["num_timesteps"])
    trainer = trainer_class(config, start_step, logger=tensorboard_logger(run_dir))
    if resume is not None and state is not None:
        restore_qnet(resume, state, trainer)
        print(f"resuming {run_dir.name} at step {trainer.num_timesteps:,}")
    where = where or f"{config.num_tables} tables"
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} moves of self-play on {where} (Deep Monte-Carlo, epsilon "
        f"{config.epsilon}), learner on {trainer.device}; logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, run_dir, save_qnet_checkpoint)
    report_speed(
        trainer,
        run_dir,
        num_tables=config.num_tables,
        trained_decisions=trainer.trained_decisions,
        decisions_per_second=round(trainer.decisions_per_second(), 1),
        learner_device=str(trainer.device),
        **(trainer.speed_info() if hasattr(trainer, "speed_info") else {}),
    )
    print(f"{trainer.decisions_per_second():,.0f} decisions trained on per second (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)
