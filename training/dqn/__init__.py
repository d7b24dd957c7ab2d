"""DQN on the single-agent view (``trainer: dqn``), with Tianshou's algorithm as its authors ship it.

One learner seat per table of :class:`sam_env.SingleAgentEnv` (a different seat every hand), the other
seats drawn per hand from the rule bots; the legal moves travel in the observation
(:class:`sam_env.single_agent.MaskInObservation`), where Tianshou's ``DiscreteQLearningPolicy`` masks its
greedy moves, its exploration and its double-Q targets with them.

* :mod:`.config` — :class:`~.config.DQNConfig`, the fields this trainer reads;
* :mod:`.run` — the run and its checkpoints;
* :mod:`.trainer` — the loop around Tianshou's collector and update, evaluations, logs, the export;
* :mod:`.tables` — the learner's tables and their opponents.

Tianshou is the ``clients`` extra: it is imported when a run starts, so that the other trainers need
only the ``train`` extra. The Q-network plays as a bot in numpy (:class:`sam_env.agents.networks.qnet.bot.QBot`,
``load_bot(path)``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sam_env.utils.extras import import_extra

from ..config import ConfigError, TrainResult

if TYPE_CHECKING:
    from .config import DQNConfig


def train(config: DQNConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` (:func:`.run.train`); refused with the install command without Tianshou."""
    run = import_extra(
        ".run", package=__name__, extra="clients", needs=("tianshou",), what="trainer: dqn", error=ConfigError
    )
    return run.train(config, run_dir, resume)


__all__ = ["train"]
