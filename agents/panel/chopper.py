"""The chopper: beats whatever it can, hunts the seat closest to going out, and chops.

The heuristic passes rather than break its hand while nobody is close to out; the chopper never
passes when it has an answer (other than one that would leave it only 2s). Its target is the
opponent with the fewest cards: that seat is the one who can end the hand and collect from
everybody, so the chopper keeps tricks away from it and leads what it cannot answer.

* **Follows** with a chop when it has one (the money is paid at once, and chopping the 2s
  the target spends is the best way to stop it); otherwise with the answer that costs its hand
  least — but with its *strongest* answer when the target is down to a few cards, so that the
  target cannot take the trick back cheaply.
* **Leads** against a short target a play bigger than the target's hand (it cannot answer at
  all), else a size the target cannot go out on; while nobody is short and it holds a quad, its
  lowest single, to draw out 2s it can chop; otherwise the weakest play of its split.
* **Báo 1** (the shared rule of :mod:`.base`): as the upper seat of a one-card seat it leads
  plays of two or more cards, or its highest single, and answers singles with its highest.
"""

from __future__ import annotations

from sam_env.core import COMBOS, Kind, SeatView

from .analysis import COST, Counts
from .base import PanelBot, cost_after, fewest_cards_seat, is_chop, is_power, key, short_sizes, size, split_of

TARGET_CARDS = 3
"""A target holding this many cards or fewer is answered with the strongest play, and led around."""


class ChopperBot(PanelBot):
    """Beats whenever possible, targets the seat with the fewest cards, chops; deterministic."""

    name = "panel_chopper"

    def lead(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        target = view.n_cards[fewest_cards_seat(view)]
        split = [a for a in split_of(view, counts) if a in plays]
        keep = [a for a in split if not is_power(a)] or split or plays
        if view.responsible:
            multi = [a for a in keep if size(a) > 1]
            return min(multi, key=_weakest_first) if multi else max(plays, key=lambda a: (size(a) == 1, key(a)))
        if target <= TARGET_CARDS:
            beyond = [a for a in keep if size(a) > target]
            if beyond:
                return min(beyond, key=_weakest_first)
            risky = short_sizes(view)
            other = [a for a in keep if size(a) not in risky]
            if other:
                return min(other, key=_weakest_first)
            return max(plays, key=lambda a: (size(a), key(a)))
        has_quad = any(c == 4 for c in counts)
        singles = [a for a in keep if COMBOS[a].kind == Kind.SINGLE]
        if has_quad and singles:
            return min(singles, key=key)
        return min(keep, key=_weakest_first)

    def follow(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        chops = [a for a in plays if is_chop(a, view.table_combo)]
        if chops:
            return max(chops, key=key)
        if view.n_cards[fewest_cards_seat(view)] <= TARGET_CARDS:
            return max(plays, key=lambda a: (key(a), -size(a)))
        return min(plays, key=lambda a: (cost_after(view, counts, a), key(a)))


def _weakest_first(action: int) -> tuple[float, int, int]:
    """The play least likely to hold its trick first, then the larger, then the lower."""
    return -COST[action], -size(action), key(action)
