"""The Ray trainer's config (``trainer: ray``): every field of the batched trainer's, and where its tables run.

It imports no Ray, so a config is checked (and its errors reported) without the ``rllib`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..batched.config import BatchedConfig


@dataclass(frozen=True)
class RayConfig(BatchedConfig):
    """The batched trainer (:mod:`~sam_env.training.batched`) with its tables in Ray actors (:mod:`.ray_actors`).

    Every field of :class:`~sam_env.training.batched.config.BatchedConfig`, with these meanings where the
    Ray trainer gives them one: ``num_tables`` is the tables of *each* env runner (a rollout holds
    ``num_env_runners * num_tables * n_steps`` table steps, so adding runners adds data per update,
    as adding machines should); ``device`` is the learner's (``cuda``: the PPO update on the GPU of
    the machine that runs ``train.py``); the env runners always play on their CPU; ``torch_threads``
    is the learner's threads (each env runner uses one). ``fixed_opponents`` checkpoint paths must
    exist on every node (shipped names always do); ``init_from`` is read by the learner only.

    Attributes:
        num_env_runners: Ray actors that play the rollouts, one CPU each, spread over the cluster's
            nodes. With one, a run plays and learns exactly as ``trainer: batched`` with the same
            config (the same deals, moves and updates).
        num_cpus: CPUs of the local Ray this run starts (ignored when joining a cluster with
            ``--address``); at least ``num_env_runners``, since each runner holds one. The learner
            runs in the driver process and holds none.
    """

    trainer: str = "ray"
    num_env_runners: int = 1
    num_cpus: int = 2

    def check(self) -> None:
        super().check()
        self._require_int("num_env_runners", 1, "an int > 0")
        self._require_int("num_cpus", 1, "an int > 0")
