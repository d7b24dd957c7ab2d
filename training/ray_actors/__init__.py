"""The batched trainer with its tables on Ray (``trainer: batched``, ``tables: ray``; :mod:`sam_env.training.tables`):
env runner actors that step a :class:`sam_env.VectorEnv`, one learner, the weights sent to every runner before each
rollout.

The rollouts and the PPO are :mod:`sam_env.training.batched`'s own, not a second copy: each env runner
holds the batched trainer's tables, seat draws, frozen snapshots, compiled heuristic and
:class:`~sam_env.training.batched.rollout.Collector` (hundreds of tables, the learner's seats in one
batched forward pass, money credited to the seat it belongs to), and the learner runs the batched
trainer's loop and :func:`~sam_env.training.batched.ppo.update` on the runners' joined decisions. Configs are
the batched trainer's (``tables``, ``table_workers``, ``num_cpus``), checkpoints are its checkpoints, and
``--resume`` works.
Why not RLlib's env runners: docs/rllib.md (measured by ``benchmarks/bench_rllib_runners.py``).

Needs the ``rllib`` extra (Ray); importing this package imports no Ray.

* :mod:`.run` — :func:`train`'s run: start or join Ray, learn, checkpoints, ``speed.json``;
* :mod:`.learner` — :class:`~.learner.RayTrainer`, the batched trainer whose collector is the runners;
* :mod:`.group` — :class:`~.group.RunnerGroup`: weights out, rollouts back, joined into one buffer;
* :mod:`.runner` — :class:`~.runner.EnvRunner`, one actor's tables (no Ray inside).
"""

from __future__ import annotations

from pathlib import Path

from sam_env.utils.extras import import_extra

from ..batched.config import BatchedConfig
from ..config import ConfigError, TrainResult


def train(config: BatchedConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` on Ray (:func:`.run.train`).

    Ray is imported here, so a missing extra is one line saying how to install it, not a traceback.
    """
    run = import_extra(".run", package=__name__, extra="rllib", needs=("ray",), what="tables: ray", error=ConfigError)
    return run.train(config, run_dir, resume)


__all__ = ["train"]
