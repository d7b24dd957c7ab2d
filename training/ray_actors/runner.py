"""An env runner: one Ray actor's tables, played exactly as the batched trainer plays its own.

The runner holds a :class:`sam_env.training.batched.trainer.BatchedTrainer` built from the run's config
(on the CPU, no ``init_from``: the learner sends its weights before every rollout) and uses
only its rollout side: the :class:`sam_env.VectorEnv`, the seat draws, the frozen networks of the
pool, the compiled heuristic and the :class:`~sam_env.training.batched.rollout.Collector` that plays them
all in batch and credits money to the seat it belongs to. So a runner's rollout is the local
trainer's, decision for decision; there is one rollout code and one PPO.

Runner 0 is seeded as the local trainer is (deals, seat draws, sampling, from ``(seed, step)``),
so a one-runner run repeats a local run exactly; runner ``i > 0`` plays with a seed derived from
``(seed, i)``. This module imports no Ray: :mod:`.group` makes the class an actor.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, policy_metadata

from ..batched.config import BatchedConfig
from ..batched.rollout import RolloutBuffer, RolloutStats
from ..batched.trainer import BatchedTrainer
from ..common.ray_cluster import runner_seed

BUFFER_FIELDS = tuple(f.name for f in dataclasses.fields(RolloutBuffer) if f.name != "size")
"""The arrays of a rollout, one row per learner decision, sent from a runner to the learner."""

Weights = dict[str, dict[str, np.ndarray]]
"""The learner's tensors by network: ``{"net": …}``, plus ``"oracle"`` with an oracle critic."""


class EnvRunner:
    """Tables, seats, opponents and sampling of one runner; the learner's weights arrive with every rollout.

    Args:
        config: the run's config.
        start_step: learner steps already trained (a resumed run seeds its tables from it).
        index: the runner's number (0 … ``table_workers - 1``).
    """

    def __init__(self, config: BatchedConfig, start_step: int, index: int) -> None:
        torch.set_num_threads(1)  # the one CPU this actor holds
        self.config = config
        own = dataclasses.replace(config, seed=runner_seed(config.seed, index), device="cpu", init_from=None)
        self.trainer = BatchedTrainer(own, start_step)

    def add_to_pool(self, step: int, tensors: dict[str, np.ndarray]) -> None:
        """A snapshot of the learner at ``step`` joins the pool, as it joined the learner's."""
        c = self.config
        meta = policy_metadata(
            c.rule_config, c.arch, c.to_dict(), encoding_version=c.encoding_version, num_timesteps=step
        )
        self.trainer.add_to_pool(step, PolicyCheckpoint.in_memory(tensors, meta, f"snapshot at step {step}"))

    def sample(self, weights: Weights) -> tuple[dict[str, np.ndarray], RolloutStats]:
        """Play one rollout with the learner's ``weights``: its decisions (the filled rows) and statistics."""
        self.trainer.net.load_tensors(weights["net"])
        if self.trainer.oracle is not None:
            self.trainer.oracle.load_state_dict({k: torch.from_numpy(v) for k, v in weights["oracle"].items()})
        stats = self.trainer.collector.collect()
        buffer = self.trainer.collector.buffer
        return {name: getattr(buffer, name)[: buffer.size] for name in BUFFER_FIELDS}, stats


def concatenate(parts: list[dict[str, np.ndarray]]) -> RolloutBuffer:
    """The runners' rollouts as one buffer, one after the other, each trajectory's links moved with it."""
    offsets = np.cumsum([0, *(len(p["reward"]) for p in parts)])
    arrays = {name: np.concatenate([p[name] for p in parts]) for name in BUFFER_FIELDS}
    arrays["next"] = np.concatenate(
        [np.where(p["next"] >= 0, p["next"] + offset, -1) for p, offset in zip(parts, offsets, strict=False)]
    )
    return RolloutBuffer(**arrays, size=int(offsets[-1]))
