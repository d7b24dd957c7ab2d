"""The rule bots at VectorEnv tables: a seat's view read back from its observation vector.

Rule bots decide from a :class:`sam_env.core.SeatView`, which the batched engine does not build.
Everything the heuristic bot reads from it — its own rank counts, the rank counts it cannot see,
every seat's card count, who passed, who is out, the play to beat, the Sâm declarer, the phase,
báo-1 responsibility and the legal moves — is in the observation (:func:`sam_env.encoding.observation_layout`)
and the mask, with seats numbered from the observer (the observer is seat 0). :func:`observed_view`
rebuilds those fields; card masks are rebuilt from rank counts (the lowest suits of each rank set), so
``rank_counts`` of them is exact, while suits are not known (no rule bot reads them). The test in
``tests/training`` checks that the heuristic bot makes the same move from this view as from the
environment's own at every decision of many hands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sam_env.core import NO_PLAY, Phase, RuleConfig
from sam_env.core.cards import rank_counts
from sam_env.core.rules import CARDS_PER_HAND
from sam_env.encoding import UNARY, observation_layout


@dataclass(frozen=True)
class ObservedView:
    """The fields of :class:`~sam_env.core.SeatView` that rule bots read, seats relative to the observer."""

    seat: int
    rules: RuleConfig
    phase: Phase
    hand: int
    unseen: int
    n_cards: tuple[int, ...]
    table_combo: int
    passed: tuple[bool, ...]
    out: tuple[bool, ...]
    sam_declarer: int | None
    responsible: bool
    legal: tuple[int, ...]

    @property
    def counts(self) -> list[int]:
        return rank_counts(self.hand)


def _offsets(n_players: int) -> dict[str, tuple[int, int]]:
    out, start = {}, 0
    for name, size in observation_layout(n_players):
        out[name] = (start, start + size)
        start += size
    return out


class ViewReader:
    """Builds :class:`ObservedView` objects for one table size."""

    def __init__(self, rules: RuleConfig) -> None:
        self.rules = rules
        self.n = rules.n_players
        self.blocks = _offsets(self.n)
        self._bits = 1 << np.arange(UNARY, dtype=object)

    def _mask(self, obs: np.ndarray, name: str) -> int:
        lo, hi = self.blocks[name]
        return int(sum(self._bits[np.flatnonzero(obs[lo:hi])]))

    def _block(self, obs: np.ndarray, name: str) -> np.ndarray:
        lo, hi = self.blocks[name]
        return obs[lo:hi]

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> ObservedView:
        obs = observation
        table = self._block(obs, "table_play")
        declarer = np.flatnonzero(self._block(obs, "sam_declarer"))
        left = self._block(obs, "cards_left").reshape(self.n, CARDS_PER_HAND + 1)
        return ObservedView(
            seat=0,
            rules=self.rules,
            phase=Phase(int(np.argmax(self._block(obs, "phase")))),
            hand=self._mask(obs, "hand"),
            unseen=self._mask(obs, "unseen"),
            n_cards=tuple(int(k) for k in left.argmax(axis=1)),
            table_combo=int(np.argmax(table)) if table.any() else NO_PLAY,
            passed=tuple(bool(x) for x in self._block(obs, "passed")),
            out=tuple(bool(x) for x in self._block(obs, "out")),
            sam_declarer=int(declarer[0]) if declarer.size else None,
            responsible=bool(self._block(obs, "responsible")[0]),
            legal=tuple(int(a) for a in np.flatnonzero(mask)),
        )
