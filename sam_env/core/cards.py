"""Cards, ranks and suits, and the notation of docs/rules.md §2.

A card is an ``int`` in ``0..51``: ``rank * 4 + suit``. Ranks are indexed low to high
(``3 4 5 6 7 8 9 10 J Q K A 2`` → ``0..12``) and suits by the lowest-card tie order
(``S C D H`` → ``0..3``), so the lowest card of a hand is simply its smallest id.
A set of cards is a 52-bit ``int`` mask (bit ``card``): cheap to copy, compare and hash.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

RANK_NAMES: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUIT_NAMES: tuple[str, ...] = ("S", "C", "D", "H")
SUIT_SYMBOLS: tuple[str, ...] = ("♠", "♣", "♦", "♥")
N_RANKS = len(RANK_NAMES)
N_SUITS = len(SUIT_NAMES)
DECK_SIZE = N_RANKS * N_SUITS
FULL_DECK = (1 << DECK_SIZE) - 1


class Rank(IntEnum):
    """Rank index, low to high; the 2 ("heo") is the highest."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11
    TWO = 12


class Suit(IntEnum):
    """Suit index in the tie order used to find the lowest card: ♠ < ♣ < ♦ < ♥."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3


RED_SUITS = frozenset({Suit.DIAMONDS, Suit.HEARTS})

_RANK_ALIASES = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": Rank.TEN}
_SUIT_ALIASES = (
    {name: i for i, name in enumerate(SUIT_NAMES)}
    | {sym: i for i, sym in enumerate(SUIT_SYMBOLS)}
    | {"♤": 0, "♧": 1, "♢": 2, "♡": 3}
)


class CardError(ValueError):
    """A card string, card id or set of cards that cannot be what the caller meant."""


def card_id(rank: int, suit: int) -> int:
    return rank * N_SUITS + suit


def card_rank(card: int) -> int:
    return card >> 2


def card_suit(card: int) -> int:
    return card & 3


def parse_card(text: str) -> int:
    """Parse ``"10H"``, ``"TH"``, ``"q♦"`` … into a card id; raise :class:`CardError` otherwise."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like '10H' or '3S', got {text!r}")
    s = text.strip().upper()
    if len(s) < 2:
        raise CardError(
            f"malformed card {text!r}: expected a rank (3-10, J, Q, K, A, 2 or T) "
            "followed by a suit (S, C, D, H or ♠ ♣ ♦ ♥), e.g. '10H' or '3S'"
        )
    rank_part, suit_part = s[:-1], s[-1]
    if rank_part not in _RANK_ALIASES:
        raise CardError(
            f"malformed card {text!r}: unknown rank {rank_part!r}; expected one of {' '.join(RANK_NAMES)} (or T for 10)"
        )
    if suit_part not in _SUIT_ALIASES:
        raise CardError(f"malformed card {text!r}: unknown suit {suit_part!r}; expected one of S C D H or ♠ ♣ ♦ ♥")
    return card_id(_RANK_ALIASES[rank_part], _SUIT_ALIASES[suit_part])


def format_card(card: int, symbols: bool = False) -> str:
    suits = SUIT_SYMBOLS if symbols else SUIT_NAMES
    return RANK_NAMES[card_rank(card)] + suits[card_suit(card)]


def parse_rank(text: str) -> int:
    """Parse a rank name (``"10"``, ``"T"``, ``"K"``, ``"2"``) into a rank index."""
    key = text.strip().upper() if isinstance(text, str) else text
    if key not in _RANK_ALIASES:
        raise CardError(f"unknown rank {text!r}; expected one of {' '.join(RANK_NAMES)}")
    return int(_RANK_ALIASES[key])


def mask_of(cards: Iterable[int | str]) -> int:
    """Card mask of ids or card strings; duplicates raise :class:`CardError`."""
    mask = 0
    for c in cards:
        cid = parse_card(c) if isinstance(c, str) else c
        if isinstance(cid, bool) or not isinstance(cid, int):  # True would silently be card 1
            raise CardError(f"a card must be a string like '10H' or an int id in 0..{DECK_SIZE - 1}, got {c!r}")
        if not 0 <= cid < DECK_SIZE:
            raise CardError(f"card id {c!r} is out of range; expected an int in 0..{DECK_SIZE - 1}")
        bit = 1 << cid
        if mask & bit:
            raise CardError(f"duplicate card {format_card(cid)} in {list(cards)!r}")
        mask |= bit
    return mask


def cards_of(mask: int) -> list[int]:
    """Card ids of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def format_cards(mask: int, symbols: bool = False) -> str:
    return " ".join(format_card(c, symbols) for c in cards_of(mask))


def rank_counts(mask: int) -> list[int]:
    """How many cards of each rank the mask holds (13 ints)."""
    return [NIBBLE_POPCOUNT[(mask >> (4 * r)) & 0xF] for r in range(N_RANKS)]


NIBBLE_POPCOUNT: tuple[int, ...] = tuple(bin(n).count("1") for n in range(16))
"""Cards in the 4 suit bits of one rank: ``NIBBLE_POPCOUNT[(mask >> 4 * rank) & 0xF]``."""
_UNARY8 = tuple(((1 << NIBBLE_POPCOUNT[b & 0xF]) - 1) | ((1 << NIBBLE_POPCOUNT[b >> 4]) - 1) << 4 for b in range(256))
_UNARY16 = tuple(_UNARY8[c & 0xFF] | _UNARY8[c >> 8] << 8 for c in range(1 << 16))
"""Card bits of four ranks → their rank counts in unary form; four look-ups convert a whole hand."""


def unary_of_cards(mask: int) -> int:
    """Rank counts of a card mask in *unary* form: bits ``4r … 4r+c-1`` set for ``c`` cards of rank ``r``.

    Unary counts turn "holds at least k of a rank" into single bits, which is how the engine
    tests whether a hand can form a combination and how observations show pairs, triples, quads.
    """
    t = _UNARY16
    return t[mask & 0xFFFF] | t[(mask >> 16) & 0xFFFF] << 16 | t[(mask >> 32) & 0xFFFF] << 32 | t[mask >> 48] << 48
