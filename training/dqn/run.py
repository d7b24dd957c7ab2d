"""A DQN run: the trainer, inside the Q-network runs' scaffolding (:mod:`..qnet_run`)."""

from __future__ import annotations

from pathlib import Path

from ..config import ConfigError, TrainResult
from ..qnet_run import run_qnet_trainer
from .config import DQNConfig
from .trainer import DQNTrainer


def train(config: DQNConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` from scratch (DQN runs do not resume: the replay buffer is not saved)."""
    if resume is not None:
        raise ConfigError("trainer: dqn runs cannot be resumed; start a new run with --config")
    from ..batched.trainer import tensorboard_logger

    trainer = DQNTrainer(config, logger=tensorboard_logger(run_dir))
    mix = ", ".join(f"{name} {weight:g}" for name, weight in config.opponents.weights().items() if weight)
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} learner steps on {config.n_envs} tables "
        f"(Tianshou DQN; opponents {mix}); logs in {run_dir}"
    )
    try:
        return run_qnet_trainer(
            trainer, run_dir, lambda: {"n_envs": config.n_envs, "gradient_steps": trainer.n_updates}
        )
    finally:
        trainer.tables.close()
