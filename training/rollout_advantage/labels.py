"""Rollout labels: the money each of several moves brings the seat on the real deal, from copies of the table.

A labelled decision is a table where a learner seat has a choice. For each candidate move the table
is copied with everything it holds, the hidden hands included (:meth:`sam_env.vector.playouts.Playouts.copy`),
the move is made, and the hand is played to its end by the table's real occupants: the learner's
network at the learner's seats, the same frozen networks and bots as at the real table elsewhere.
A candidate's label is the seat's money from the decision to the end of the hand (its ledger at the
end minus its ledger at the decision, in X).

One deal is dealt to every copy, and every copy hands each seat the same random numbers
(:mod:`.players`), so the differences between a decision's labels are free of the deal's luck and of
most of the rest of the play's: what is left is what the moves change. The trainer learns from
those differences (:mod:`.update`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sam_env import RuleConfig
from sam_env.vector.playouts import Playouts

from .players import SeatPlayers

CHOICES_PER_SEAT = 64
"""Random numbers per seat per decision: a seat makes fewer choices than this in the rest of a hand (ten
cards, at most one pass per trick); past it they are reused in turn, which keeps them common to the copies."""
MAX_ROLLOUT_STEPS = 2_000
"""Decisions of one rollout before giving up (a hand of Sâm Lốc has far fewer)."""


def common_uniforms(rng: np.random.Generator, decisions: int, n_players: int) -> np.ndarray:
    """``float64[decisions, n_players, CHOICES_PER_SEAT]``: each decision's random numbers, shared by its copies."""
    return rng.random((decisions, n_players, CHOICES_PER_SEAT))


class RolloutLabeller:
    """Labels decisions of tables of another :class:`~sam_env.vector.playouts.Playouts` by rollouts.

    Args:
        rules: the tables' rules.
        capacity: copies played at once (one per candidate move of each decision; a call with more is
            played in chunks of whole decisions). Memory: about 6 KB a copy.
        players: the occupants' moves (:class:`~.players.SeatPlayers`).
    """

    def __init__(self, rules: RuleConfig, capacity: int, players: SeatPlayers) -> None:
        self.play = Playouts(capacity, rules)
        self.players = players
        self.n_players = rules.n_players
        self.copies = 0
        """Copies rolled out so far (for the speed figures)."""
        self.moves = 0
        """Moves chosen by occupants in rollouts so far (forced moves not counted)."""

    def label(
        self,
        origin: Playouts,
        tables: np.ndarray,
        candidates: Sequence[np.ndarray],
        occupants: np.ndarray,
        uniforms: np.ndarray,
    ) -> list[np.ndarray]:
        """Per decision ``i`` (the seat to act at ``origin``'s table ``tables[i]``): ``float64[len(candidates[i])]``,
        the seat's money from now to the end of the hand after each of its ``candidates[i]`` (legal moves),
        with ``occupants[i]`` (``int64[n_players]``) at the table's seats and ``uniforms[i]``
        (:func:`common_uniforms`) as every copy's random numbers."""
        tables = np.asarray(tables, dtype=np.int64)
        if not len(tables) == len(candidates) == len(occupants) == len(uniforms):
            raise ValueError("one entry of candidates, occupants and uniforms per table")
        sizes = np.array([len(c) for c in candidates], dtype=np.int64)
        capacity = self.play.num_tables
        if sizes.size and (sizes.min() < 1 or sizes.max() > capacity):
            raise ValueError(f"every decision needs 1 to {capacity} candidate moves, got {sizes.tolist()}")
        for i, moves in enumerate(candidates):
            if not origin.action_mask[tables[i], np.asarray(moves, dtype=np.int64)].all():
                raise ValueError(f"table {int(tables[i])}: candidates {list(moves)} are not all legal moves")
        before = origin.net()[tables, origin.current_seat[tables]]
        out: list[np.ndarray] = []
        start = 0
        while start < len(tables):
            end = start + int(np.searchsorted(np.cumsum(sizes[start:]), capacity, side="right"))
            chunk = slice(start, end)
            money = self._roll_out(origin, tables[chunk], candidates[chunk], occupants[chunk], uniforms[chunk])
            out.extend(m - b for m, b in zip(money, before[chunk], strict=True))
            start = end
        return out

    def _roll_out(
        self,
        origin: Playouts,
        tables: np.ndarray,
        candidates: Sequence[np.ndarray],
        occupants: np.ndarray,
        uniforms: np.ndarray,
    ) -> list[np.ndarray]:
        """One chunk: copy, make the candidate moves, play every copy to the end; each decision's seat's money."""
        play = self.play
        sizes = np.array([len(c) for c in candidates], dtype=np.int64)
        used = int(sizes.sum())
        copies = np.arange(used)
        decision = np.repeat(np.arange(len(tables)), sizes)
        seat = origin.current_seat[tables][decision]
        play.copy(tables[decision], copies, origin=origin)
        actions = np.zeros(play.num_tables, dtype=np.int64)
        actions[:used] = np.concatenate([np.asarray(c, dtype=np.int64) for c in candidates])
        live = np.zeros(play.num_tables, dtype=bool)
        live[:used] = True
        made = np.zeros((used, self.n_players), dtype=np.int64)  # each seat's choices so far, per copy
        play.advance(actions, live, observe=True)
        for _ in range(MAX_ROLLOUT_STEPS):
            live &= play.n_legal > 0
            rows = np.flatnonzero(live)
            if not rows.size:
                break
            acting = play.current_seat[rows]
            turn = made[rows, acting]
            made[rows, acting] += 1
            uniform = uniforms[decision[rows], acting, turn % CHOICES_PER_SEAT]
            actions[rows] = self.players.act(play, rows, occupants[decision[rows], acting], uniform)
            self.moves += rows.size
            play.advance(actions, live, observe=True)
        else:
            raise RuntimeError(f"a rollout did not end in {MAX_ROLLOUT_STEPS} decisions")
        self.copies += used
        money = play.net()[copies, seat].astype(np.float64)
        return np.split(money, np.cumsum(sizes)[:-1])
