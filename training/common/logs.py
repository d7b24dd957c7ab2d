"""A run's statistics as TensorBoard events in its folder, through SB3's logger (the SB3 trainer's own), so that
:mod:`sam_env.training.curves` plots every trainer's run from the same tags."""

from __future__ import annotations

from pathlib import Path

from stable_baselines3.common.logger import Logger, configure


def tensorboard_logger(run_dir: Path) -> Logger:
    """A logger that writes TensorBoard events into ``run_dir``."""
    return configure(str(run_dir), ["tensorboard"])
