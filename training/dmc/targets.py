"""Monte-Carlo targets: each decision's money from that decision to the end of its seat's hand.

DouZero trains its Q-network on the return of the whole episode; here money also moves during a hand
(chops), so a decision's target is what its seat received from the moment it decided until the hand
ended: its own reward (the money that reached the seat until its next decision, as
:class:`sam_env.training.common.trajectories.SeatTrajectories` credits it) plus the target of the seat's
next decision — undiscounted, the sum of every later reward of the seat in the hand. A decision whose
hand has not ended has no target yet: it waits in :class:`Decisions` for a later collection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit


@njit(cache=True)
def _returns(reward, nxt, done, out, closed):  # pragma: no cover - compiled
    for i in range(reward.shape[0] - 1, -1, -1):
        if done[i]:
            out[i] = reward[i]
            closed[i] = True
        elif nxt[i] >= 0 and closed[nxt[i]]:
            out[i] = reward[i] + out[nxt[i]]
            closed[i] = True
        else:
            closed[i] = False


def monte_carlo_returns(reward: np.ndarray, nxt: np.ndarray, done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(returns, closed)`` of decisions in time order: ``nxt[i]`` is the same seat's next decision in the
    hand (``-1``: none yet), ``done[i]`` that the hand ended after it. ``closed[i]``: its hand has ended,
    so ``returns[i]`` (the sum of ``reward`` along the seat's decisions from ``i`` to the end) is final."""
    n = len(reward)
    out = np.zeros(n, dtype=np.float32)
    closed = np.zeros(n, dtype=bool)
    _returns(
        np.ascontiguousarray(reward, np.float32),
        np.ascontiguousarray(nxt, np.int64),
        np.ascontiguousarray(done, bool),
        out,
        closed,
    )
    return out, closed


@dataclass
class Decisions:
    """The decisions not trained on yet, in the order they were taken: a seat's next decision always comes later.

    The arrays grow as needed; ``next``, ``reward`` and ``done`` are what
    :class:`~sam_env.training.common.trajectories.SeatTrajectories` links and credits.
    """

    obs: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    next: np.ndarray
    size: int = 0

    @classmethod
    def allocate(cls, capacity: int, obs_size: int) -> Decisions:
        return cls(
            obs=np.zeros((capacity, obs_size), dtype=np.float32),
            action=np.zeros(capacity, dtype=np.int64),
            reward=np.zeros(capacity, dtype=np.float32),
            done=np.zeros(capacity, dtype=bool),
            next=np.full(capacity, -1, dtype=np.int64),
        )

    def append(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Store ``k`` decisions; return their positions."""
        k = len(actions)
        if self.size + k > len(self.action):
            self._grow(max(2 * len(self.action), self.size + k))
        positions = np.arange(self.size, self.size + k)
        self.obs[positions] = obs
        self.action[positions] = actions
        self.size += k
        return positions

    def take_finished(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The decisions whose hand ended — ``(obs, action, target)`` copies — and the new position of every
        old one (``-1`` for those taken). The others move to the front, their links renumbered."""
        n = self.size
        returns, closed = monte_carlo_returns(self.reward[:n], self.next[:n], self.done[:n])
        taken = (self.obs[:n][closed].copy(), self.action[:n][closed].copy(), returns[closed])
        kept = np.flatnonzero(~closed)
        moved = np.full(n, -1, dtype=np.int64)
        moved[kept] = np.arange(kept.size)
        for array in (self.obs, self.action, self.reward, self.done):
            array[: kept.size] = array[kept]
        links = self.next[kept]
        self.next[: kept.size] = np.where(links >= 0, moved[links], -1)
        self.size = kept.size
        return (*taken, moved)

    def _grow(self, capacity: int) -> None:
        for name in ("obs", "action", "reward", "done", "next"):
            old = getattr(self, name)
            new = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)


def renumber(last: np.ndarray, moved: np.ndarray) -> None:
    """Follow :meth:`Decisions.take_finished` in a trajectory table (``last[t, p]``: the position of seat
    ``p``'s latest decision at table ``t``, ``-1`` for none): the decisions kept moved to ``moved[old]``."""
    live = last >= 0
    last[live] = moved[last[live]]
