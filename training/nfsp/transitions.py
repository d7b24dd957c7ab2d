"""Each seat's transitions at each table: a decision, the money its seat received until its next decision, that
next decision's observation and legal moves (or the end of the hand).

A seat's decision stays open until the seat decides again (it becomes a transition to that decision) or the hand
ends (a transition with ``done``). Money credited to a seat at any step (``batch.rewards`` of
:class:`sam_env.VectorEnv`: chop money of seats that did not act included, and the settlement) is added to its open
decision, as the other trainers credit it (:class:`sam_env.training.common.trajectories.SeatTrajectories`): money
that reaches a seat before its first decision of a hand belongs to no decision and is left out. Forced moves (one
legal action) are no decisions: the money around them goes to the seat's open one.
"""

from __future__ import annotations

import numpy as np

from sam_env import N_ACTIONS

from .buffers import Transitions

NO_DECISION = -1
"""``mode`` of a seat with no open decision."""


class OpenDecisions:
    """The open decision of every seat of every table, with the money credited to it so far.

    ``mode[t, p]``: the mode seat ``p`` of table ``t`` decided in (0: average policy, 1: best response), or
    :data:`NO_DECISION`.
    """

    def __init__(self, num_tables: int, n_players: int, obs_size: int) -> None:
        self.obs = np.zeros((num_tables, n_players, obs_size), dtype=np.float32)
        self.action = np.zeros((num_tables, n_players), dtype=np.int64)
        self.reward = np.zeros((num_tables, n_players), dtype=np.float32)
        self.mode = np.full((num_tables, n_players), NO_DECISION, dtype=np.int8)

    def decide(
        self,
        tables: np.ndarray,
        seats: np.ndarray,
        obs: np.ndarray,
        masks: np.ndarray,
        actions: np.ndarray,
        modes: np.ndarray,
    ) -> Transitions:
        """Seats ``seats`` of ``tables`` decided ``actions`` on ``obs`` (legal moves ``masks``) in ``modes``: their
        previous open decisions close into transitions to these (returned), and these open."""
        before = self.mode[tables, seats]
        closing = np.flatnonzero(before != NO_DECISION)
        t, p = tables[closing], seats[closing]
        closed = Transitions(
            obs=self.obs[t, p],
            action=self.action[t, p],
            reward=self.reward[t, p],
            next_obs=obs[closing],
            next_mask=masks[closing],
            done=np.zeros(closing.size, dtype=bool),
            average=before[closing] == 0,
        )
        self.obs[tables, seats] = obs
        self.action[tables, seats] = actions
        self.reward[tables, seats] = 0.0
        self.mode[tables, seats] = modes
        return closed

    def credit(self, money: np.ndarray) -> None:
        """``money[t, p]`` (already scaled) goes to each seat's open decision."""
        self.reward += np.where(self.mode != NO_DECISION, money, np.float32(0.0))

    def close(self, ended: np.ndarray) -> Transitions:
        """The hands of tables ``ended`` are over: every open decision there closes, ``done`` (returned)."""
        t, p = np.nonzero(self.mode[ended] != NO_DECISION)
        t = ended[t]
        k = t.size
        closed = Transitions(
            obs=self.obs[t, p],
            action=self.action[t, p],
            reward=self.reward[t, p],
            next_obs=np.zeros((k, self.obs.shape[2]), dtype=np.float32),
            next_mask=np.zeros((k, N_ACTIONS), dtype=bool),
            done=np.ones(k, dtype=bool),
            average=self.mode[t, p] == 0,
        )
        self.mode[ended] = NO_DECISION
        return closed
