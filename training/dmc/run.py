"""A DMC run: the trainer, its checkpoints (:mod:`..qnet_state`) and ``speed.json``."""

from __future__ import annotations

from pathlib import Path

from ..checkpoints import learn_and_save, read_trainer_state
from ..common.logs import tensorboard_logger
from ..config import TrainResult
from ..qnet_state import restore_qnet, save_qnet_checkpoint
from ..speed import report_speed
from .config import DMCConfig
from .trainer import DMCTrainer


def train(config: DMCConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    state = None if resume is None else read_trainer_state(resume)
    start_step = 0 if state is None else int(state["num_timesteps"])
    trainer = DMCTrainer(config, start_step, logger=tensorboard_logger(run_dir))
    if resume is not None and state is not None:
        restore_qnet(resume, state, trainer)
        print(f"resuming {run_dir.name} at step {trainer.num_timesteps:,}")
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} moves of self-play on {config.num_tables} tables "
        f"(Deep Monte-Carlo, epsilon {config.epsilon}); logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, run_dir, save_qnet_checkpoint)
    report_speed(
        trainer,
        run_dir,
        num_tables=config.num_tables,
        trained_decisions=trainer.trained_decisions,
        decisions_per_second=round(trainer.decisions_per_second(), 1),
    )
    print(f"{trainer.decisions_per_second():,.0f} decisions trained on per second (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)
