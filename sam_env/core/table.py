"""A table: a sequence of hands with the same seats, carrying who leads next (§6)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .deal import DealError, parse_deal, random_deal
from .game import Hand
from .rules import RuleConfig


class Table:
    """Deals hands and remembers the previous winner, so that it leads the next hand.

    Randomness (deals, ``first_leader="random"``) comes only from the injected generator, so a
    table built with the same seed plays the same deals.
    """

    def __init__(self, rules: RuleConfig | None = None, rng: np.random.Generator | int | None = None) -> None:
        self.rules = rules if rules is not None else RuleConfig()
        if not isinstance(self.rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig, got {type(self.rules).__name__}")
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.hand: Hand | None = None
        self.hands_played = 0
        self.next_leader: int | None = None
        """Who leads the next hand; None until a hand of this table has finished."""

    def new_hand(
        self,
        deal: Sequence[Iterable[int | str]] | Sequence[int] | None = None,
        leader: int | None = None,
    ) -> Hand:
        """Start the next hand.

        Args:
            deal: one hand per seat (lists of cards in docs/rules.md notation, or card masks); a
                random deal from the table's generator when omitted.
            leader: force the would-be leader, as if that seat had won the previous hand.
        """
        self._record_previous()
        n = self.rules.n_players
        if leader is not None:  # checked before a random deal draws from the generator: a refusal changes nothing
            if not isinstance(leader, (int, np.integer)) or isinstance(leader, bool) or not 0 <= leader < n:
                raise DealError(f"leader must be a seat in 0..{n - 1}, got {leader!r}")
            leader = int(leader)
        hands = random_deal(self.rules, self.rng) if deal is None else parse_deal(self.rules, deal)
        if leader is None:
            leader = self.next_leader if self.next_leader is not None else self._first_leader(hands)
        self.hand = Hand(self.rules, hands, leader)
        self.hands_played += 1
        return self.hand

    def _record_previous(self) -> None:
        if self.hand is not None and self.hand.result is not None:
            self.next_leader = self.hand.result.next_leader

    def _first_leader(self, hands: list[int]) -> int:
        rule = self.rules.first_leader
        if rule == "host":
            return 0
        if rule == "random":
            return int(self.rng.integers(self.rules.n_players))
        lowest = [h & -h for h in hands]
        return min(range(len(hands)), key=lowest.__getitem__)
