"""Who plays each seat of a table, and the move each makes from a random number it is handed.

A rollout label compares the moves of one decision by playing the rest of the hand after each of
them. Those hands differ by the move and by the luck of the rest of the play; common random
numbers take most of the second part out: every copy of the decision hands each seat the same
uniform ``u`` at that seat's ``j``-th choice, and every occupant turns ``u`` into a move by a rule
that changes little when the position changes little:

* a network (the learner, or a frozen one of the pool) samples its masked softmax by inverse CDF:
  the first legal move, in action-index order, at which the cumulative probability reaches ``u``;
* the random player takes the ``⌊u·k⌋``-th of its ``k`` legal moves (:func:`sam_env.vector.batch.pick_legal`);
* the heuristic bot is deterministic and ignores ``u``.

Two copies that make the same move are the same game afterwards, move for move; copies that
make different moves meet the same draws wherever their positions agree.

The networks play through :class:`sam_env.agents.search.network.CompiledNetwork` (the search's
compiled forward pass: only the non-zero inputs and the legal moves' logits are computed, and a
row's logits do not depend on the batch it comes in).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from sam_env import RuleConfig
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.agents.search.network import CompiledNetwork
from sam_env.vector.batch import pick_legal
from sam_env.vector.playouts import Playouts

from ..common.seating import HEURISTIC, LEARNER, RANDOM


@njit(cache=True)
def sample_by_inverse_cdf(logits, uniform, out):
    """``out[i]``: the first action ``a`` (in index order) at which the softmax of ``logits[i]`` summed over the
    legal actions (finite logits) reaches ``uniform[i]``; the last legal action if rounding leaves it short."""
    for i in range(logits.shape[0]):
        row = logits[i]
        top = -np.inf
        for a in range(row.shape[0]):
            top = max(top, row[a])
        total = 0.0
        for a in range(row.shape[0]):
            if row[a] > -np.inf:
                total += np.exp(row[a] - top)
        target = uniform[i] * total
        acc = 0.0
        choice = -1
        for a in range(row.shape[0]):
            if row[a] > -np.inf:
                acc += np.exp(row[a] - top)
                choice = a
                if acc >= target:
                    break
        out[i] = choice


class SeatPlayers:
    """The moves of every occupant kind at a batch of tables (codes of :mod:`sam_env.training.common.seating`:
    ``LEARNER``, ``RANDOM``, ``HEURISTIC``; an occupant ``>= 0`` is a network of ``pool``).

    Args:
        rules: the tables' rules (the heuristic's tables depend on them).
        learner: the learner's network as it plays now (replaced by :meth:`set_learner` after an update).
        pool: the frozen networks by occupant id (the seating's pool, read at every call).
        deterministic_pool: frozen networks play their most probable move instead of sampling.
    """

    def __init__(
        self,
        rules: RuleConfig,
        learner: CompiledNetwork,
        pool: Mapping[int, CompiledNetwork],
        deterministic_pool: bool = False,
    ) -> None:
        self.learner = learner
        self.pool = pool
        self.deterministic_pool = deterministic_pool
        self.heuristic = BatchedHeuristic(rules)

    def set_learner(self, learner: CompiledNetwork) -> None:
        self.learner = learner

    def act(self, play: Playouts, tables: np.ndarray, occupant: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """``int64[k]``: the move at each of ``tables`` (each with a legal move and its observation written) of the
        seat to act there, played by ``occupant[i]`` from the number ``uniform[i]`` in ``[0, 1)``."""
        out = np.empty(len(tables), dtype=np.int64)
        for code in np.unique(occupant).tolist():
            at = np.flatnonzero(occupant == code)
            rows = tables[at]
            if code == HEURISTIC:
                out[at] = self.heuristic(play.observation[rows], play.action_mask[rows])
            elif code == RANDOM:
                chosen = np.empty(len(rows), dtype=np.int64)
                pick_legal(play.action_mask[rows], uniform[at], chosen)
                out[at] = chosen
            else:
                network = self.learner if code == LEARNER else self.pool[code]
                logits = network.logits(play.observation, play.action_mask, rows)
                if code != LEARNER and self.deterministic_pool:
                    out[at] = np.argmax(logits, axis=1)
                else:
                    chosen = np.empty(len(rows), dtype=np.int64)
                    sample_by_inverse_cdf(logits, np.ascontiguousarray(uniform[at]), chosen)
                    out[at] = chosen
        return out
