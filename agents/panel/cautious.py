"""The cautious player: passes unless an answer costs it nothing, and leads from the bottom.

The heuristic answers every play it can once an opponent is down to seven cards; the cautious
player keeps its hand whole much longer and lets the others fight over tricks.

* **Follows** only with a play of its split that beats the table and holds no 2s and no quad,
  or with a chop; otherwise passes — until an opponent is down to ``ALARM_CARDS`` cards: then it
  answers every play, with its strongest.
* **Leads** the lowest play of its split, a multi-card play before a single of the same rank, and
  its control plays (2s, quads, plays likely to hold a trick) last; once its split is down to
  ``CASH_PLAYS`` plays it leads those nobody can beat first (the unseen cards cannot form an
  answer), keeping a beatable one for last.
"""

from __future__ import annotations

from sam_env.core import COMBOS, SeatView
from sam_env.core.combos import PASS

from .analysis import COST, Counts
from .base import (
    PanelBot,
    around_short_seats,
    bottom,
    is_chop,
    is_power,
    key,
    opponent_cards,
    possible_beaters,
    size,
    split_of,
    unbeatable,
)

ALARM_CARDS = 5
"""When an opponent holds this many cards or fewer, answer every play with the strongest answer."""
CASH_PLAYS = 3
"""With this many plays left in its split or fewer, lead the unbeatable ones first."""
CONTROL_COST = 0.5
"""A play whose cost (:data:`~sam_env.agents.heuristic.analysis.COST`) is below this is kept as control."""


class CautiousBot(PanelBot):
    """Passes unless an answer is free; leads low, cashes sure plays at the end; deterministic."""

    name = "panel_cautious"

    def lead(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        split = [a for a in split_of(view, counts) if a in plays]
        if split and len(split) <= CASH_PLAYS:
            sure = unbeatable(split, possible_beaters(view))
            if sure and len(sure) < len(split):
                return max(sure, key=lambda a: (COMBOS[a].only_twos, size(a)))
        candidates = [a for a in split if not _is_control(a)] or split or plays
        return min(around_short_seats(view, candidates, plays), key=lambda a: (bottom(a), -size(a)))

    def follow(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        chops = [a for a in plays if is_chop(a, view.table_combo)]
        if chops:
            return min(chops, key=key)
        if min(opponent_cards(view)) <= ALARM_CARDS:
            return max(plays, key=lambda a: (key(a), -size(a)))
        split = set(split_of(view, counts))
        free = [a for a in plays if a in split and not is_power(a)]
        return min(free, key=key) if free else PASS


def _is_control(action: int) -> bool:
    """2s, quads and plays likely to hold their trick: kept for the end of the hand."""
    return is_power(action) or COST[action] < CONTROL_COST
