"""Dealing: random deals, explicit deals in card notation, and instant-win hands (§1, §9)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .cards import DECK_SIZE, FULL_DECK, RED_SUITS, CardError, Rank, card_id, format_cards, mask_of, unary_of_cards
from .combos import COMBOS, MAX_STRAIGHT, REQ, Kind
from .rules import CARDS_PER_HAND, INSTANT_WIN_TYPES, RuleConfig


class DealError(ValueError):
    """A deal that cannot happen: wrong number of hands, wrong hand size, a card dealt twice."""


_RED = sum(1 << card_id(r, s) for r in Rank for s in RED_SUITS)
_BLACK = FULL_DECK ^ _RED
_DRAGONS = [
    (int(REQ[c.id]), any(r == Rank.TWO for r, _ in c.needs))
    for c in COMBOS
    if c.kind == Kind.STRAIGHT and c.size == MAX_STRAIGHT
]


_CARD_BITS = np.left_shift(np.uint64(1), np.arange(DECK_SIZE, dtype=np.uint64))
"""``uint64[52]``: the mask of each card id."""


def random_deal(rules: RuleConfig, rng: np.random.Generator) -> list[int]:
    """Shuffle the deck with ``rng`` and deal ``CARDS_PER_HAND`` cards to each seat (card masks)."""
    n_dealt = rules.n_players * CARDS_PER_HAND
    cards = _CARD_BITS[rng.permutation(DECK_SIZE)[:n_dealt]].reshape(rules.n_players, CARDS_PER_HAND)
    return np.bitwise_or.reduce(cards, axis=1).tolist()


def parse_deal(rules: RuleConfig, hands: Sequence[Iterable[int | str]] | Sequence[int]) -> list[int]:
    """Validate an explicit deal: one hand per seat, either card masks or lists of cards.

    Cards may be ids or strings in docs/rules.md notation (``"10H"``). Raises :class:`DealError`
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


def _bits_at(level: int) -> int:
    """Unary-mask bits meaning "holds at least ``level + 1`` cards" of each rank."""
    return sum(1 << (4 * r + level) for r in range(len(Rank)))


_AT_LEAST_2, _AT_LEAST_3, _AT_LEAST_4 = _bits_at(1), _bits_at(2), _bits_at(3)

_INSTANT_CHECKS: dict[str, Callable[[RuleConfig, int, int], bool]] = {
    "dragon": lambda rules, hand, unary: any(
        req & unary == req and (rules.straights_with_two or not two) for req, two in _DRAGONS
    ),
    "four_twos": lambda rules, hand, unary: hand >> (4 * Rank.TWO) == 0xF,
    "same_colour": lambda rules, hand, unary: hand & _RED == hand or hand & _BLACK == hand,
    "three_triples": lambda rules, hand, unary: (unary & _AT_LEAST_3).bit_count() >= 3,
    "five_pairs": lambda rules, hand, unary: (unary & _AT_LEAST_2).bit_count() + (unary & _AT_LEAST_4).bit_count() >= 5,
}
"""Each check sees the card mask and its unary rank counts; a quad counts as a triple and as two pairs."""


def instant_win_type(rules: RuleConfig, hand: int, unary: int | None = None) -> str | None:
    """The strongest instant-win type (of those the rules enable) a dealt hand has, if any."""
    if not rules.instant_wins:
        return None
    if unary is None:
        unary = unary_of_cards(hand)
    for kind in INSTANT_WIN_TYPES:
        if kind in rules.instant_wins and _INSTANT_CHECKS[kind](rules, hand, unary):
            return kind
    return None
