"""What one seat may know about a hand, as plain values: the domain view rule-based bots read.

Like RLCard's ``raw_obs``, this lets a heuristic reason about cards and combinations instead of
decoding tensors, while making it impossible to peek at other seats' cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import FULL_DECK, rank_counts
from .game import Hand, Phase
from .rules import RuleConfig


@dataclass(frozen=True)
class SeatView:
    """Public information plus the seat's own hand, at one decision point."""

    seat: int
    rules: RuleConfig
    phase: Phase
    hand: int
    """The seat's own cards (card mask)."""
    n_cards: tuple[int, ...]
    played: tuple[int, ...]
    """Cards each seat has played this hand (card masks)."""
    table_combo: int
    """Combination id of the play to beat; ``NO_PLAY`` (-1) on a free lead."""
    table_owner: int
    passed: tuple[bool, ...]
    out: tuple[bool, ...]
    leader: int
    sam_declarer: int | None
    chain_value: int
    responsible: bool
    """This seat is the upper seat of a one-card seat (báo 1, docs/rules.md §7)."""
    legal: tuple[int, ...]
    net: tuple[int, ...]
    history: tuple[tuple[int, int], ...]

    @property
    def counts(self) -> list[int]:
        """Own rank counts (13 ints, ``3`` … ``2``)."""
        return rank_counts(self.hand)

    @property
    def unseen(self) -> int:
        """Cards this seat cannot see: in other hands or never dealt."""
        gone = self.hand
        for p in self.played:
            gone |= p
        return FULL_DECK ^ gone

    @classmethod
    def of(cls, hand: Hand, seat: int) -> SeatView:
        acting = not hand.over and hand.to_act == seat
        return cls(
            seat=seat,
            rules=hand.rules,
            phase=hand.phase,
            hand=hand.cards[seat],
            n_cards=tuple(hand.n_cards),
            played=tuple(hand.played),
            table_combo=hand.table_combo,
            table_owner=hand.table_owner,
            passed=tuple(hand.passed),
            out=tuple(hand.out),
            leader=hand.leader,
            sam_declarer=hand.sam_declarer,
            chain_value=hand.chain_value(),
            responsible=hand.phase is Phase.PLAY and hand.responsible(seat),
            legal=tuple(hand.legal_moves()) if acting else (),
            net=tuple(hand.net()),
            history=tuple(hand.history),
        )
