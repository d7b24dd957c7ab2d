"""Dealing: random deals, explicit deals in card notation, and instant-win hands (§1, §9)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .cards import DECK_SIZE, N_SUITS, CardError, Rank, Suit, format_cards, mask_of, rank_counts
from .combos import COMBOS, MAX_STRAIGHT, REQ, Kind, unary_mask
from .rules import CARDS_PER_HAND, INSTANT_WIN_TYPES, RuleConfig


class DealError(ValueError):
    """A deal that cannot happen: wrong number of hands, wrong hand size, a card dealt twice."""


_RED = sum(1 << (r * N_SUITS + s) for r in range(len(Rank)) for s in (Suit.DIAMONDS, Suit.HEARTS))
_BLACK = ((1 << DECK_SIZE) - 1) ^ _RED
_DRAGONS = [
    (int(REQ[c.id]), any(r == Rank.TWO for r, _ in c.needs))
    for c in COMBOS
    if c.kind == Kind.STRAIGHT and c.size == MAX_STRAIGHT
]


def random_deal(rules: RuleConfig, rng: np.random.Generator) -> list[int]:
    """Shuffle the deck with ``rng`` and deal ``CARDS_PER_HAND`` cards to each seat (card masks)."""
    order = rng.permutation(DECK_SIZE).tolist()
    return [sum(1 << c for c in order[i * CARDS_PER_HAND : (i + 1) * CARDS_PER_HAND]) for i in range(rules.n_players)]


def parse_deal(rules: RuleConfig, hands: Sequence[Iterable[int | str]] | Sequence[int]) -> list[int]:
    """Validate an explicit deal: one hand per seat, either card masks or lists of cards.

    Cards may be ids or strings in RULES.md notation (``"10H"``). Raises :class:`DealError`
    or :class:`~sam_env.core.cards.CardError` naming what is wrong.
    """
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise DealError(f"a deal must be a list of {rules.n_players} hands, got {hands!r}")
    if len(hands) != rules.n_players:
        raise DealError(f"a deal for {rules.n_players} players needs {rules.n_players} hands, got {len(hands)}")
    masks = []
    for seat, hand in enumerate(hands):
        if isinstance(hand, int) and not isinstance(hand, bool):
            if not 0 <= hand < 1 << DECK_SIZE:
                raise DealError(f"hand mask of seat {seat} has bits outside the 52-card deck: {hand!r}")
            mask = hand
        elif isinstance(hand, str) or not isinstance(hand, Iterable):
            raise DealError(f"hand of seat {seat} must be a list of cards such as ['3S', '10H'], got {hand!r}")
        else:
            mask = 0
            for card in hand:
                try:
                    bit = mask_of([card])
                except CardError as err:
                    raise CardError(f"seat {seat}: {err}") from None
                if mask & bit:
                    raise DealError(f"card {format_cards(bit)} dealt twice to seat {seat}")
                mask |= bit
        size = mask.bit_count()
        if size != CARDS_PER_HAND:
            raise DealError(f"seat {seat} has {size} cards ({format_cards(mask)}); every hand has {CARDS_PER_HAND}")
        masks.append(mask)
    seen = 0
    for seat, mask in enumerate(masks):
        if seen & mask:
            raise DealError(f"card(s) {format_cards(seen & mask)} dealt twice (again to seat {seat})")
        seen |= mask
    return masks


def instant_win_type(rules: RuleConfig, hand: int) -> str | None:
    """The strongest instant-win type (of those the rules enable) a dealt hand has, if any."""
    enabled = rules.instant_wins
    if not enabled:
        return None
    counts = rank_counts(hand)
    unary = unary_mask(counts)
    checks = {
        "dragon": lambda: any(req & unary == req and (rules.straights_with_two or not two) for req, two in _DRAGONS),
        "four_twos": lambda: counts[Rank.TWO] == 4,
        "same_colour": lambda: hand & _RED == hand or hand & _BLACK == hand,
        "three_triples": lambda: sum(c >= 3 for c in counts) >= 3,
        "five_pairs": lambda: sum(c // 2 for c in counts) >= 5,
    }
    for kind in INSTANT_WIN_TYPES:
        if kind in enabled and checks[kind]():
            return kind
    return None
