"""The shedder: gets rid of cards as fast as it can, biggest combinations first.

Where the heuristic leads its weakest play and passes rather than break its hand, the shedder
counts cards: a hand ends when one seat is empty, and every card left costs a loser money.

* **Leads** the play of its split that holds the most cards (a long straight, a triple, a pair),
  lowest first among equals, and its 2s and quads last. Against an opponent about to go out it
  leads a size that opponent cannot answer with its last cards.
* **Follows** whenever it can shed without spending control: a play of its split first, else any
  play without 2s or quads that leaves a hand at most ``BREAK_TOLERANCE`` worse. With few cards
  left, or against an opponent close to out, it also spends 2s and quads to take the lead.
* **Chops** when it can (the money is paid at once).
"""

from __future__ import annotations

from sam_env.core import SeatView
from sam_env.core.combos import PASS

from .analysis import Counts, plan_cost
from .base import PanelBot, around_short_seats, cost_after, is_chop, is_power, key, opponent_cards, size, split_of

BREAK_TOLERANCE = 1.0
"""Most a follow may raise the hand's plan cost (about one extra weak play) to shed its cards."""
ENDGAME_CARDS = 4
"""With this many cards or fewer (its own, or an opponent's), the shedder spends 2s and quads too."""


class ShedderBot(PanelBot):
    """Aggressive shedder: largest combinations first, answers whenever it can shed; deterministic."""

    name = "panel_shedder"

    def lead(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        split = [a for a in split_of(view, counts) if a in plays]
        candidates = [a for a in split if not is_power(a)] or split or plays
        return max(around_short_seats(view, candidates, plays), key=lambda a: (size(a), -key(a)))

    def follow(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        chops = [a for a in plays if is_chop(a, view.table_combo)]
        if chops:
            return min(chops, key=key)
        split = set(split_of(view, counts))
        fitting = [a for a in plays if a in split and not is_power(a)]
        if fitting:
            return min(fitting, key=key)
        now = plan_cost(counts, view.rules.straights_with_two)
        plain = [a for a in plays if not is_power(a)]
        if plain:
            best = min(plain, key=lambda a: (cost_after(view, counts, a), key(a)))
            if cost_after(view, counts, best) <= now + BREAK_TOLERANCE:
                return best
        if sum(counts) <= ENDGAME_CARDS or min(opponent_cards(view)) <= ENDGAME_CARDS:
            return min(plays, key=lambda a: (cost_after(view, counts, a), key(a)))
        return PASS
