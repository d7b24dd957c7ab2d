"""Self-play through the policy mapping: one learner seat per hand, frozen snapshots in every other seat.

The pool is a fixed set of module ids (``snapshot_0`` …), declared with the learner when the
algorithm is built and never trained (``policies_to_train``). It starts as copies of the initial
policy; every ``snapshot_every`` learner steps the learner's weights overwrite the oldest slot. A
fixed set keeps the mapping a pure function of the episode and the seat, so every env runner, local
or on another machine, maps seats the same way without being told the pool's state, and refreshing a
snapshot is a weight sync rather than adding and removing modules on every runner.
"""

from __future__ import annotations

import zlib
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

LEARNER = "learner"
DECISIONS = "decisions_lifetime"


def snapshot_ids(pool_size: int) -> list[str]:
    """Module ids of the frozen snapshots, oldest slot first at the start."""
    return [f"snapshot_{i}" for i in range(pool_size)]


class SeatMapping:
    """``policy_mapping_fn``: every seat of every hand gets a module — the learner or a snapshot.

    The learner's seat and each opponent's snapshot are drawn from a hash of the episode id, so
    the learner plays every seat equally often and meets every snapshot equally often, and a seat
    keeps its module for the whole hand (RLlib calls the mapping once per agent and episode).
    """

    def __init__(self, n_players: int, pool_size: int) -> None:
        self.n_players = n_players
        self.snapshots = snapshot_ids(pool_size)

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        episode_id = str(episode.id_)
        learner_seat = zlib.crc32(episode_id.encode()) % self.n_players
        seat = int(agent_id.rsplit("_", 1)[1])
        if seat == learner_seat:
            return LEARNER
        return self.snapshots[zlib.crc32(f"{episode_id}/{seat}".encode()) % len(self.snapshots)]


class SnapshotPool:
    """Which slot the next snapshot overwrites, and the learner step each slot was taken at."""

    def __init__(self, pool_size: int) -> None:
        self.ids = snapshot_ids(pool_size)
        self.steps = [0] * pool_size
        self._next = 0

    def take(self, step: int) -> str:
        """Record a snapshot at ``step``; return the slot it goes into (the oldest)."""
        slot = self._next
        self.steps[slot] = step
        self._next = (slot + 1) % len(self.ids)
        return self.ids[slot]


def copy_learner_into(algorithm: Any, slots: list[str]) -> None:
    """Overwrite the ``slots`` modules with the learner's weights, on the learner and every env runner.

    ``Algorithm.set_state`` on the learner group also syncs the new weights to the env runners,
    as RLlib's own self-play example does it.
    """
    learner_state = learner_module_state(algorithm)
    algorithm.set_state({"learner_group": {"learner": {"rl_module": dict.fromkeys(slots, learner_state)}}})


def learner_module_state(algorithm: Any) -> dict[str, Any]:
    """The learner module's full state dict (numpy), read from the learner group (local or remote)."""
    state = algorithm.learner_group.get_state(components=f"learner/rl_module/{LEARNER}")
    return state["learner"]["rl_module"][LEARNER]


class CountDecisions(RLlibCallback):
    """Counts every module's decisions in every sample, as ``env_runners/decisions_lifetime/<module>``.

    RLlib's ``num_module_steps_sampled`` also counts, in a turn-based game, the last observation of
    each seat that did not make the final move (about one extra step for three seats of four every
    hand), so it overstates the learner's decisions by a quarter; ``total_timesteps`` and the
    steps/s figures count real decisions, as train.py's SB3 path does. Summed over modules, these
    counts equal the environment steps, less the moves of seats still waiting for their next
    observation when the sample ended (they are counted with the next sample).
    """

    def on_sample_end(self, *, metrics_logger: Any = None, samples: Any = None, **kwargs: Any) -> None:
        decisions: dict[str, int] = {}
        for episode in samples:
            for agent_episode in episode.agent_episodes.values():
                decisions[agent_episode.module_id] = decisions.get(agent_episode.module_id, 0) + len(agent_episode)
        for module_id, count in decisions.items():
            metrics_logger.log_value((DECISIONS, module_id), count, reduce="lifetime_sum")
