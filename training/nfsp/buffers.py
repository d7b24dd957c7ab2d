"""NFSP's two memories: the Q-network's circular buffer of transitions and the average policy's reservoir.

The circular buffer keeps the newest transitions (DQN's replay memory); the reservoir keeps a uniform sample of
every best-response move ever offered to it (Vitter's reservoir sampling, RLCard's ``ReservoirBuffer``), so the
average policy imitates the best responses of the whole run, not of its last minutes. Both add whole batches at
once and sample minibatches (with replacement) from a generator the caller passes. Observations are stored as
float16: every feature of the encoding is 0, 1 or a fraction of a small count, within 1e-4 of its float32 value,
at half the memory.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sam_env import N_ACTIONS

STORED = np.float16
"""The dtype observations are kept in."""


class Transitions(NamedTuple):
    """A batch of transitions, each a decision of one seat and what followed until its next one.

    ``reward``: the money its seat received from the decision until its next decision or the end of the hand;
    ``next_obs``/``next_mask``: the seat's observation and legal moves at its next decision (zeros and no legal
    move after the last one); ``done``: the hand ended before the seat decided again; ``average``: the seat was
    playing its average policy in that hand (what the average policy's critic learns from).
    """

    obs: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    next_obs: np.ndarray
    next_mask: np.ndarray
    done: np.ndarray
    average: np.ndarray


class ReplayBuffer:
    """The newest ``capacity`` transitions; once full, each new one replaces the oldest."""

    def __init__(self, capacity: int, obs_size: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), dtype=STORED)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.next_obs = np.zeros((capacity, obs_size), dtype=STORED)
        self.next_mask = np.zeros((capacity, N_ACTIONS), dtype=bool)
        self.done = np.zeros(capacity, dtype=bool)
        self.average = np.zeros(capacity, dtype=bool)
        self.size = 0
        self.added = 0

    def __len__(self) -> int:
        return self.size

    def add(self, batch: Transitions) -> None:
        """Store ``batch`` (of the newest, at most ``capacity``) over the oldest entries."""
        k = len(batch.action)
        first = max(0, k - self.capacity)
        slots = (self.added + np.arange(first, k)) % self.capacity
        for name, values in zip(Transitions._fields, batch, strict=True):
            getattr(self, name)[slots] = values[first:]
        self.added += k
        self.size = min(self.capacity, self.size + k)

    def sample(self, n: int, rng: np.random.Generator) -> Transitions:
        """``n`` transitions drawn uniformly (with replacement), observations as float32."""
        rows = rng.integers(self.size, size=n)
        return Transitions(
            self.obs[rows].astype(np.float32),
            self.action[rows],
            self.reward[rows],
            self.next_obs[rows].astype(np.float32),
            self.next_mask[rows],
            self.done[rows],
            self.average[rows],
        )


class ReservoirBuffer:
    """A uniform sample of at most ``capacity`` of every ``(obs, mask, action)`` ever offered to :meth:`add`.

    The ``i``-th entry offered (counting from 0) is kept while there is room; after that it replaces a stored one
    with chance ``capacity / (i + 1)``, chosen uniformly (Vitter's algorithm R): after ``n`` entries each of them
    is in the buffer with the same chance, ``capacity / n``.
    """

    def __init__(self, capacity: int, obs_size: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), dtype=STORED)
        self.mask = np.zeros((capacity, N_ACTIONS), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.size = 0
        self.offered = 0

    def __len__(self) -> int:
        return self.size

    def add(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray, rng: np.random.Generator) -> None:
        """Offer ``k`` entries, in order: exactly as ``k`` calls of algorithm R would (a later entry drawn to the
        same slot as an earlier one of the batch replaces it)."""
        k = len(action)
        seen = self.offered + np.arange(k)
        slots = np.where(seen < self.capacity, seen, np.floor(rng.random(k) * (seen + 1)).astype(np.int64))
        kept = np.flatnonzero(slots < self.capacity)
        slots = slots[kept]
        last = len(slots) - 1 - np.unique(slots[::-1], return_index=True)[1]  # the last entry drawn to each slot
        kept, slots = kept[last], slots[last]
        self.obs[slots] = obs[kept]
        self.mask[slots] = mask[kept]
        self.action[slots] = action[kept]
        self.offered += k
        self.size = min(self.capacity, self.offered)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(obs as float32, mask, action)`` of ``n`` entries drawn uniformly (with replacement)."""
        rows = rng.integers(self.size, size=n)
        return self.obs[rows].astype(np.float32), self.mask[rows], self.action[rows]
