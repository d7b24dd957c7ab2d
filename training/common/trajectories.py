"""Each learner seat's decisions at each table, linked in the order they were taken and credited with its money.

A seat's decisions form its own trajectory: the money credited to a seat at any step (``batch.rewards`` of
:class:`sam_env.VectorEnv`: chop money of seats that did not act included) is added to the reward of that seat's
latest decision in the hand, so a decision's reward is the money its seat received until its next decision or
the end of the hand. The hand's end closes every seat's trajectory. Money that reaches a seat before its first
decision in a hand belongs to no decision and is left out: no choice of that seat could change it.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Decisions(Protocol):
    """Stored decisions, one row each, that a :class:`SeatTrajectories` links and credits (the batched trainer's
    ``RolloutBuffer``, Deep Monte-Carlo's ``Decisions``)."""

    next: np.ndarray
    """``int64``: the row of the same seat's next decision in the hand, ``-1`` if none (yet)."""
    reward: np.ndarray
    """``float32``: the money credited to the decision."""
    done: np.ndarray
    """``bool``: the hand ended after the decision (its seat decided no more)."""


class SeatTrajectories:
    """Each learner seat's trajectory at each table: links its decisions and credits its money.

    ``last[t, p]``: the row of seat ``p``'s latest decision in the current hand of table ``t``
    (``-1``: none yet, or not a learner seat).
    """

    def __init__(self, buffer: Decisions, num_tables: int, n_players: int) -> None:
        self.buffer = buffer
        self.last = np.full((num_tables, n_players), -1, dtype=np.int64)

    def record(self, tables: np.ndarray, seats: np.ndarray, positions: np.ndarray) -> None:
        """The seats ``seats`` of ``tables`` decided; their decisions are at ``positions``."""
        buf = self.buffer
        previous = self.last[tables, seats]
        linked = previous >= 0
        buf.next[previous[linked]] = positions[linked]
        buf.next[positions] = -1
        buf.reward[positions] = 0.0
        buf.done[positions] = False
        self.last[tables, seats] = positions

    def credit(self, money: np.ndarray, ended: np.ndarray) -> None:
        """``money[t, p]`` (already scaled) goes to each seat's latest decision; ``ended`` tables close their hands."""
        open_ = self.last >= 0
        self.buffer.reward[self.last[open_]] += money[open_]
        if ended.size:
            closing = self.last[ended]
            self.buffer.done[closing[closing >= 0]] = True
            self.last[ended] = -1
