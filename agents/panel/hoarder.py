"""The hoarder: keeps its 2s and quads to the end and chops whenever it can.

It plays two hands: the *power* (every 2 and every quad) and the *rest*. The rest is split into
plays (:func:`~sam_env.agents.heuristic.analysis.best_split`) and played from the bottom up; the power is not
touched — not to answer an ace, not to take back the lead — until the rest is down to
``ENDGAME_PLAYS`` plays. Then it cashes the power to hold the lead and goes out on the rest,
whose last play is never only 2s.
Its risk is the heuristic's opposite: when another seat goes out first, the 2s it still holds are
paid for (thối 2).

* **Leads** the lowest play of the rest's split (low cards first, multi-card plays before a single
  of the same rank); against an opponent about to go out, a size that opponent cannot answer.
* **Follows** with a play of the rest's split, the lowest that beats, or with any play of the rest
  that does not make it worse; otherwise passes.
* **Chops** every 2 or quad it can, with its lowest quad: the only use of a quad before the end.
* **Spends power early** only against an opponent down to ``PRESSURE_CARDS`` cards, who would
  otherwise go out and make it pay for every 2 it still holds.
"""

from __future__ import annotations

from sam_env.core import COMBOS, SeatView
from sam_env.core.combos import PASS

from .analysis import Counts, best_split, counts_after, plan_cost
from .base import (
    PanelBot,
    around_short_seats,
    bottom,
    is_chop,
    is_power,
    key,
    opponent_cards,
    power_ranks,
    size,
    without,
)

ENDGAME_PLAYS = 2
"""When the rest of the hand splits into this many plays or fewer, the power is cashed."""
PRESSURE_CARDS = 3
"""Against an opponent holding this many cards or fewer, power is spent to keep it from going out."""


class HoarderBot(PanelBot):
    """Hoards 2s and quads for the end of the hand; chops at every chance; deterministic."""

    name = "panel_hoarder"

    def lead(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        power = power_ranks(counts)
        rest_split = self._rest_split(view, counts)
        if len(rest_split) <= ENDGAME_PLAYS:
            # Cash the power while a last play remains (2s before quads, so a quad can be the last).
            power_split = best_split(_only(counts, power), view.rules.straights_with_two)[1]
            cash = [a for a in power_split if a in plays]
            if cash:
                return max(cash, key=lambda a: (COMBOS[a].only_twos, -size(a)))
        candidates = [a for a in rest_split if a in plays] or [a for a in plays if not set(_ranks(a)) & power]
        candidates = candidates or plays
        return min(around_short_seats(view, candidates, plays), key=lambda a: (bottom(a), -size(a)))

    def follow(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        chops = [a for a in plays if is_chop(a, view.table_combo)]
        if chops:
            return min(chops, key=key)
        power = power_ranks(counts)
        rest_split = self._rest_split(view, counts)
        fitting = [a for a in plays if a in rest_split]
        if fitting:
            return min(fitting, key=key)
        with_two = view.rules.straights_with_two
        rest = without(counts, power)
        now = plan_cost(rest, with_two)
        plain = [a for a in plays if not set(_ranks(a)) & power]
        for a in sorted(plain, key=key):
            if plan_cost(without(counts_after(counts, a), power), with_two) <= now:
                return a
        if len(rest_split) <= ENDGAME_PLAYS or min(opponent_cards(view)) <= PRESSURE_CARDS:
            spend = [a for a in plays if is_power(a)]
            if spend:
                return min(spend, key=key)
        return PASS

    def _rest_split(self, view: SeatView, counts: Counts) -> tuple[int, ...]:
        return best_split(without(counts, power_ranks(counts)), view.rules.straights_with_two)[1]


def _only(counts: Counts, ranks: set[int]) -> Counts:
    return tuple(c if r in ranks else 0 for r, c in enumerate(counts))


def _ranks(action: int) -> list[int]:
    return [r for r, _ in COMBOS[action].needs]
