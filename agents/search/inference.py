"""Replaying many decisions' histories on their sampled deals at once, and scoring the other seats' moves.

:func:`replay_histories` deals each sampled deal and replays its decision's history move by move,
every decision's tables in the same steps; a deal that could not have been played (an instant win
the real deal did not have, a move its cards cannot make, such as a forced báo 1) is dropped.
With a :class:`HistoryScorer` it also does the search's inference: before each past move of another
seat, every model says what it would have played on each deal, and deals that explain the history
badly are pruned — the computation of :meth:`.reference.ReferenceSearch.history_loglik`, for all
decisions' proposals in one batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .deals import DecisionPoint, log_weights
from .network import CompiledNetwork
from .qnetwork import CompiledQNetwork
from .reference import PRUNE_LOG_WEIGHT

if TYPE_CHECKING:
    from sam_env.bot import BatchedPolicy
    from sam_env.vector.playouts import Playouts


def replay_histories(
    play: Playouts,
    points: Sequence[DecisionPoint],
    tables: np.ndarray,
    dec: np.ndarray,
    deals: np.ndarray,
    scorer: HistoryScorer | None = None,
) -> np.ndarray:
    """Deal ``deals[i]`` at ``tables[i]`` and replay the history of decision ``dec[i]`` there; which of
    the tables reached the decision (the seat to act, after the whole history). ``scorer``, if given,
    sees every past move of another seat before it is played and may prune tables."""
    lengths = np.array([len(p.history) for p in points], dtype=np.int64)
    history = np.zeros((len(points), int(lengths.max(initial=0)), 2), dtype=np.int64)
    for i, point in enumerate(points):
        if point.history:
            history[i, : lengths[i]] = point.history
    own = np.array([p.seat for p in points], dtype=np.int64)[dec]
    play.deal(tables, deals, np.array([p.leader for p in points], dtype=np.int64)[dec])
    playing = play.n_legal[tables] > 0  # (a dealt table always has a move: an instant win waits for its winner's)
    actions = np.zeros(play.num_tables, dtype=np.int64)
    active = np.zeros(play.num_tables, dtype=bool)
    for j in range(history.shape[1]):
        has = lengths[dec] > j
        seat, move = history[dec, j, 0], history[dec, j, 1]
        playing &= ~has | ((play.current_seat[tables] == seat) & play.action_mask[tables, move])
        if scorer is not None:
            other = has & (seat != own)
            playing &= ~other | scorer(play, playing & other, seat, move)
        active[:] = False
        active[tables[playing & has]] = True
        actions[tables] = move
        play.step(actions, active)
        playing &= play.n_legal[tables] > 0
    return playing & (play.current_seat[tables] == own)


class HistoryScorer:
    """The log-likelihood of the other seats' past moves on each replayed deal, per model.

    Each model plays its most probable move, so a model's move is taken to be the real one with
    probability ``1 - mismatch`` and another with ``mismatch``, whatever the number of other legal
    moves; moves with no choice say nothing. A deal whose weight (:func:`~.deals.log_weights`) falls
    :data:`~.reference.PRUNE_LOG_WEIGHT` below the best of its decision's deals still being replayed
    is dropped: it would almost never be drawn, and dropping it saves most of the models' work.

    Args:
        policies: the batched policy of every model (0: the network).
        points: the decisions; ``dec[i]``: the decision of row ``i``, replayed at ``tables[i]``.
        mismatch: the probability that a model's move is not the real one.
    """

    def __init__(
        self,
        policies: Sequence[BatchedPolicy],
        points: Sequence[DecisionPoint],
        dec: np.ndarray,
        tables: np.ndarray,
        mismatch: float,
    ) -> None:
        self.policies = tuple(policies)
        self.dec, self.tables, self.n_decisions = dec, tables, len(points)
        self.own = np.array([p.seat for p in points], dtype=np.int64)[dec]
        self.loglik = np.zeros((len(tables), len(points[0].played), len(self.policies)))
        """``float[rows, n_players, n_models]``, summed as the replay goes."""
        self.agree, self.differ = np.log1p(-mismatch), np.log(mismatch)

    def __call__(self, play: Playouts, at: np.ndarray, seat: np.ndarray, move: np.ndarray) -> np.ndarray:
        """Score the rows ``at`` (replaying a move of ``seat[i]``: ``move[i]``); the rows to keep."""
        weights = log_weights(self.loglik, self.own)
        best = np.full(self.n_decisions, -np.inf)
        np.maximum.at(best, self.dec[at], weights[at])
        keep = weights >= best[self.dec] - PRUNE_LOG_WEIGHT
        rows = np.flatnonzero(at & keep)
        rows = rows[play.n_legal[self.tables[rows]] > 1]
        if rows.size:
            tables = self.tables[rows]
            play.observe(tables)
            for m, policy in enumerate(self.policies):
                chosen = choose(policy, play, tables)
                self.loglik[rows, seat[rows], m] += np.where(chosen == move[rows], self.agree, self.differ)
        return keep


def choose(policy: BatchedPolicy, play: Playouts, tables: np.ndarray) -> np.ndarray:
    """The policy's moves at some tables (a compiled network reads the rows in place)."""
    if isinstance(policy, (CompiledNetwork, CompiledQNetwork)):
        return policy(play.observation, play.action_mask, tables)
    return policy(play.observation[tables], play.action_mask[tables])
