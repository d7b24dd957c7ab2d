"""Who sits where at each table of a :class:`sam_env.VectorEnv`, drawn afresh for every hand.

A seat is the learner's (one network shared by all its seats), a frozen network of the pool (a snapshot of
the learner or a fixed network), the compiled heuristic or the random player; each occupant kind is played
in batch by the trainer that seats it (the batched trainer's rollouts, the rollout-advantage trainer's
tables and their copies). PFSP's seating (:mod:`sam_env.training.batched.pfsp`) draws the same codes by
the learner's results.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.bot import BatchedPolicy

LEARNER = -1
RANDOM = -2
HEURISTIC = -3
"""Occupant codes of a seat; an occupant >= 0 is the id of a frozen network."""
SEATING_KINDS = ("self_play", "random", "heuristic")
"""The opponent kinds a :class:`Seating` draws by weight: networks of the pool, the random player and the
compiled heuristic, each played in batch."""


class Seating:
    """Who sits where at each table for the current hand, drawn when the hand starts.

    Each seat is the learner with probability ``learner_share`` (at least one learner seat per
    table, chosen uniformly); the others are drawn from ``opponent_weights`` (``self_play``: a network
    of the pool, uniformly; ``random``: :class:`sam_env.RandomBot`, batched; ``heuristic``: the heuristic bot, compiled
    and batched, :class:`sam_env.agents.heuristic.compiled.BatchedHeuristic`).
    """

    def __init__(
        self,
        num_tables: int,
        n_players: int,
        learner_share: float,
        opponent_weights: dict[str, float],
        rng: np.random.Generator,
    ) -> None:
        self.n_players = n_players
        self.learner_share = learner_share
        total = sum(opponent_weights.get(k, 0.0) for k in SEATING_KINDS)
        self.p_random = opponent_weights.get("random", 0.0) / total if total else 0.0
        self.p_heuristic = opponent_weights.get("heuristic", 0.0) / total if total else 0.0
        self.rng = rng
        self.pool: dict[int, ActorCritic | BatchedPolicy] = {}
        self.fixed: list[int] = []
        self.snapshots: list[int] = []
        self.occupant = np.full((num_tables, n_players), LEARNER, dtype=np.int64)
        self.extra: dict[int, BatchedPolicy] = {}
        """Batched policies of other occupant codes (below ``HEURISTIC``): what a subclass seats besides these."""

    @property
    def drawable(self) -> list[int]:
        return self.fixed + self.snapshots

    def add(self, actor: ActorCritic | BatchedPolicy, keep: int, fixed: bool = False) -> None:
        """Add a frozen network (or a batched policy of one's own, a best response's target) to the pool:
        ``fixed`` ones stay for the whole run; of the others (snapshots of the learner) only the ``keep``
        newest are drawn for new hands."""
        new_id = max(self.pool, default=-1) + 1
        self.pool[new_id] = actor
        if fixed:
            self.fixed.append(new_id)
        else:
            self.snapshots = [*self.snapshots, new_id][-keep:]

    def forget_unused(self) -> None:
        """Drop the networks that are neither drawable nor seated at a table."""
        seated = set(np.unique(self.occupant[self.occupant >= 0]).tolist())
        for key in [k for k in self.pool if k not in seated and k not in self.drawable]:
            del self.pool[key]

    def record(self, table: int, net: Sequence[float]) -> None:
        """A hand ended at ``table`` with money ``net`` per seat (this seating keeps no score; PFSP's does)."""

    def draw(self, tables: np.ndarray) -> None:
        """Seat the learner and its opponents at ``tables`` for their next hand: each seat is the learner's
        with probability ``learner_share`` (one seat per table at least), the others :meth:`opponents`."""
        k, n = tables.size, self.n_players
        if k == 0:
            return
        learner = self.rng.random((k, n)) < self.learner_share
        learner[np.arange(k), self.rng.integers(n, size=k)] = True
        self.occupant[tables] = np.where(learner, LEARNER, self.opponents(k))

    def opponents(self, k: int) -> np.ndarray:
        """``int64[k, n_players]``: occupant codes drawn for every seat of ``k`` tables (the learner's seats
        then replace some): ``random``, ``heuristic`` or a network of the pool by ``opponent_weights``."""
        n = self.n_players
        kind = self.rng.random((k, n))
        occupant = np.where(kind < self.p_random, RANDOM, HEURISTIC)
        drawable = self.drawable
        from_pool = kind >= self.p_random + self.p_heuristic
        if drawable:
            picks = np.asarray(drawable)[self.rng.integers(len(drawable), size=(k, n))]
            occupant = np.where(from_pool, picks, occupant)
        else:
            occupant = np.where(from_pool, RANDOM, occupant)
        return occupant
