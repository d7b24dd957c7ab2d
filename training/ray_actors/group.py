"""The env runners as the learner sees them: a collector whose tables play in Ray actors.

:class:`RunnerGroup` stands where the batched trainer's :class:`~sam_env.training.batched.rollout.Collector`
stands (``collect()`` returns the rollout's statistics and leaves its decisions in ``buffer``), so the
batched trainer's loop, PPO update, pool, evaluations and checkpoints run unchanged on the learner
(:class:`.learner.RayTrainer`). Each rollout the learner's weights are put in Ray's object store
once and every runner plays its tables with them; the runners' decisions come back and are joined
into one buffer for the update. Runners play at the same time and the learner waits for all of
them: the rollout is on-policy, as the local trainer's.
"""

from __future__ import annotations

import time

import numpy as np
import ray

from sam_env import N_ACTIONS

from ..batched.config import BatchedConfig
from ..batched.network import OracleCritic
from ..batched.rollout import RolloutBuffer, RolloutStats
from .runner import EnvRunner, Weights, concatenate

SYNC = "sync"
"""The learner's seconds spent on a rollout beyond the runners' own (weights out, decisions back, waiting)."""


class RemoteRunner(EnvRunner):
    """An env runner that can say where it runs (the actor class)."""

    def node_id(self) -> str:
        return ray.get_runtime_context().get_node_id()


class RunnerGroup:
    """``config.table_workers`` env runner actors, one CPU each, spread over the cluster's nodes."""

    def __init__(
        self,
        config: BatchedConfig,
        start_step: int,
        net: object,
        oracle: OracleCritic | None,
        obs_size: int,
        hidden_size: int,
    ) -> None:
        actor = ray.remote(num_cpus=1)(RemoteRunner)
        self.runners = [
            actor.options(scheduling_strategy="SPREAD").remote(config, start_step, i)
            for i in range(config.table_workers)
        ]
        self.net, self.oracle = net, oracle
        self.buffer = RolloutBuffer.allocate(0, obs_size, N_ACTIONS, hidden_size)

    def nodes(self) -> list[str]:
        """The Ray node id of every runner, in runner order."""
        return ray.get([r.node_id.remote() for r in self.runners])

    def add_to_pool(self, step: int, tensors: dict[str, np.ndarray]) -> None:
        """Send a snapshot of the learner to every runner's pool (once, through the object store)."""
        stored = ray.put(tensors)
        for runner in self.runners:
            runner.add_to_pool.remote(step, stored)

    def weights(self) -> Weights:
        weights = {"net": self.net.tensors()}
        if self.oracle is not None:
            weights["oracle"] = self.oracle.tensors()
        return weights

    def collect(self) -> RolloutStats:
        """One rollout of every runner with the learner's current weights; the decisions land in :attr:`buffer`."""
        clock = time.perf_counter()
        stored = ray.put(self.weights())
        results = ray.get([runner.sample.remote(stored) for runner in self.runners])
        self.buffer = concatenate([part for part, _ in results])
        stats = RolloutStats(seconds={key: 0.0 for key in (*RolloutStats().seconds, SYNC)})
        for _, part in results:
            for key, seconds in part.seconds.items():
                stats.seconds[key] += seconds / len(results)  # the runners play at once: their mean
            stats.decisions += part.decisions
            stats.learner_steps += part.learner_steps
            stats.metrics += part.metrics
        played = sum(v for k, v in stats.seconds.items() if k != SYNC)
        stats.seconds[SYNC] = max(0.0, time.perf_counter() - clock - played)
        return stats
