"""Multi-agent PPO on Ray RLlib's current API stack (``trainer: rllib``): every seat a module, self-play
against frozen snapshots.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``); importing this package (or its
:mod:`.config`) imports no Ray, so a config is checked, and every other trainer runs, without it.

* :mod:`.config` — :class:`~.config.RLlibConfig`, the fields this trainer reads;
* :mod:`.run` — the run on Ray (what :func:`train` calls): PPO built from the config, the loop, the export;
* :mod:`.env` — the AEC environment as an RLlib ``MultiAgentEnv`` (the rollouts are RLlib's);
* :mod:`.module` — the masked actor-critic RLModule (:mod:`sam_env.agents.networks.policy.network`'s network);
* :mod:`.selfplay` — the seat mapping and the pool of frozen snapshots (the opponents);
* :mod:`.export` — the learner's weights in our checkpoint format.
"""

from __future__ import annotations

from pathlib import Path

from sam_env.utils.extras import import_extra

from ..config import ConfigError, TrainResult
from .config import RLlibConfig


def train(config: RLlibConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` on Ray (:func:`.run.train`).

    Ray is imported here, so a missing extra is one line saying how to install it, not a traceback.
    """
    run = import_extra(
        ".run", package=__name__, extra="rllib", needs=("ray",), what="trainer: rllib", error=ConfigError
    )
    return run.train(config, run_dir, resume)


__all__ = ["train"]
