"""A DQN run: the trainer, its checkpoints (:mod:`..qnet_state`) and ``speed.json``."""

from __future__ import annotations

from pathlib import Path

from ..checkpoints import learn_and_save
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from ..qnet_state import save_qnet_checkpoint
from ..speed import report_speed
from .config import DQNConfig
from .trainer import DQNTrainer


def train(config: DQNConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` from scratch (DQN runs do not resume: the replay buffer is not saved)."""
    if resume is not None:
        raise ConfigError("trainer: dqn runs cannot be resumed; start a new run with --config")
    trainer = DQNTrainer(config, logger=tensorboard_logger(run_dir))
    mix = ", ".join(f"{name} {weight:g}" for name, weight in config.opponents.weights().items() if weight)
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} learner steps on {config.n_envs} tables "
        f"(Tianshou DQN; opponents {mix}); logs in {run_dir}"
    )
    try:
        final, seconds = learn_and_save(trainer, run_dir, save_qnet_checkpoint)
        report_speed(trainer, run_dir, n_envs=config.n_envs, gradient_steps=trainer.n_updates)
    finally:
        trainer.tables.close()
    return TrainResult(final, trainer.num_timesteps, seconds)
