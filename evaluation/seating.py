"""Money between neighbours: how much each bot takes from the bot seated just before it.

In a climbing game a seat plays right after its upper neighbour, answers its leads, blocks its Sâm,
and is the one held responsible when it lets a one-card seat out. Who sits after whom therefore
moves money, and a fixed line-up can credit a bot with what is only its seat. This table shows it:
for every ordered pair of different bots (``before``, ``after``) seated side by side, ``after`` in
the next seat in turn order, the mean net money ``after`` received from ``before`` per hand in which
they sat so. The balanced seatings of :mod:`.tournament` give every pair the same number of such hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .tournament import MatchResult


@dataclass(frozen=True)
class NeighbourFlow:
    before: str
    after: str
    hands: int
    x_per_hand: float
    """Mean net money (X) that ``after`` received from ``before`` per hand with ``after`` in the next seat."""


def adjacent_flows(results: Sequence[MatchResult]) -> list[NeighbourFlow]:
    """Money between every ordered pair of different neighbouring bots, over ``results``; largest first."""
    totals: dict[tuple[str, str], list[int]] = {}
    for r in results:
        names = r.match.names
        for s, seats in enumerate(r.seatings):
            slot_at = {int(seat): slot for slot, seat in enumerate(seats)}
            for slot, seat in enumerate(seats):
                after = names[slot_at[(int(seat) + 1) % len(seats)]]
                if after == names[slot]:
                    continue
                money_hands = totals.setdefault((names[slot], after), [0, 0])
                money_hands[0] += int(r.passed_on[:, s, slot].sum())
                money_hands[1] += r.passed_on.shape[0]
    rows = [NeighbourFlow(a, b, hands, money / hands) for (a, b), (money, hands) in totals.items()]
    return sorted(rows, key=lambda row: (-row.x_per_hand, row.before, row.after))
