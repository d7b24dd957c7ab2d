"""Card notation (docs/rules.md §2): parsing, formatting, and the errors a malformed card raises."""

from __future__ import annotations

import pytest

from sam_env.core import CardError, format_card, format_cards, parse_card
from sam_env.core.cards import cards_of, mask_of, rank_counts

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
SUITS = ["S", "C", "D", "H"]


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("3S", 0, 0),
        ("3C", 0, 1),
        ("3D", 0, 2),
        ("3H", 0, 3),
        ("4S", 1, 0),
        ("9D", 6, 2),
        ("10H", 7, 3),
        ("TH", 7, 3),
        ("th", 7, 3),
        ("10h", 7, 3),
        ("JC", 8, 1),
        ("QD", 9, 2),
        ("qd", 9, 2),
        ("KS", 10, 0),
        ("AH", 11, 3),
        ("ah", 11, 3),
        ("2C", 12, 1),
        ("2H", 12, 3),
        ("3♠", 0, 0),
        ("3♣", 0, 1),
        ("3♦", 0, 2),
        ("3♥", 0, 3),
        ("10♥", 7, 3),
        ("T♦", 7, 2),
        ("q♦", 9, 2),
        ("a♠", 11, 0),
        ("2♥", 12, 3),
        (" 5S ", 2, 0),
    ],
)
def test_parse_card_golden(text: str, rank: int, suit: int) -> None:
    # docs/rules.md §2: ids are rank*4+suit, ranks 3..2 low to high, suits ♠ < ♣ < ♦ < ♥.
    assert parse_card(text) == rank * 4 + suit


@pytest.mark.parametrize("rank", range(13))
@pytest.mark.parametrize("suit", range(4))
def test_every_card_round_trips(rank: int, suit: int) -> None:
    text = RANKS[rank] + SUITS[suit]
    cid = parse_card(text)
    assert cid == rank * 4 + suit
    assert format_card(cid) == text
    assert parse_card(format_card(cid, symbols=True)) == cid


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "malformed card ''"),
        ("3", "malformed card '3'"),
        ("S", "malformed card 'S'"),
        ("1H", "unknown rank '1'"),
        ("11S", "unknown rank '11'"),
        ("0H", "unknown rank '0'"),
        ("BS", "unknown rank 'B'"),
        ("3X", "unknown suit 'X'"),
        ("10Z", "unknown suit 'Z'"),
        ("KK", "unknown suit 'K'"),
        ("S3", "unknown rank 'S'"),
        ("♠3", "unknown rank '♠'"),
        ("3SS", "unknown rank '3S'"),
        ("10", "malformed card '10'"),
    ],
)
def test_malformed_card_raises_helpful_error(text: str, fragment: str) -> None:
    with pytest.raises(CardError) as err:
        parse_card(text)
    message = str(err.value)
    assert fragment in message
    # The message says what a card should look like.
    assert "expected" in message


@pytest.mark.parametrize("value", [None, 3, 3.0, b"3S", ["3S"]])
def test_non_string_card_raises(value: object) -> None:
    with pytest.raises(CardError, match="string"):
        parse_card(value)  # type: ignore[arg-type]


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)


def test_masks_and_formatting() -> None:
    mask = mask_of(["2H", "3S", "10D", "JC"])
    assert cards_of(mask) == [parse_card("3S"), parse_card("10D"), parse_card("JC"), parse_card("2H")]
    assert format_cards(mask) == "3S 10D JC 2H"
    assert format_cards(mask, symbols=True) == "3♠ 10♦ J♣ 2♥"
    assert rank_counts(mask_of(["3S", "3H", "2C", "2D", "2H", "KS"])) == [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 3]


def test_mask_of_rejects_duplicates_and_out_of_range() -> None:
    with pytest.raises(CardError, match="duplicate card 10H"):
        mask_of(["10H", "TH"])
    with pytest.raises(CardError, match="out of range"):
        mask_of([52])
    with pytest.raises(CardError, match="out of range"):
        mask_of([-1])
    with pytest.raises(CardError, match=r"a card must be a string like '10H' or an int id in 0\.\.51, got True"):
        mask_of([True])
    with pytest.raises(CardError, match=r"got 1\.0"):
        mask_of([1.0])
