"""Deals (docs/rules.md §1): explicit deals are validated with clear errors; random deals are sound;
instant-win hands (§9) are recognised."""

from __future__ import annotations

import numpy as np
import pytest

from sam_env.core import CardError, DealError, RuleConfig, Table
from sam_env.core.cards import mask_of
from sam_env.core.deal import instant_win_type, parse_deal, random_deal

SUITED = [[f"{r}{s}" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")] for s in "SCDH"]
"""A valid 4-seat deal: seat s holds 3..Q of suit s."""


def _cards(text: str) -> list[str]:
    return text.split()


def test_valid_deal_as_strings_ids_and_masks() -> None:
    rules = RuleConfig()
    masks = parse_deal(rules, SUITED)
    assert [m.bit_count() for m in masks] == [10, 10, 10, 10]
    assert masks[0] == mask_of(SUITED[0])
    assert parse_deal(rules, masks) == masks
    ids = [[r * 4 + s for r in range(10)] for s in range(4)]
    assert parse_deal(rules, ids) == masks
    assert parse_deal(rules, [tuple(h) for h in SUITED]) == masks
    lower = [[c.lower().replace("10", "T") for c in h] for h in SUITED]
    assert parse_deal(rules, lower) == masks


@pytest.mark.parametrize(
    ("n_players", "n_hands"),
    [(4, 3), (4, 5), (4, 0), (2, 3), (2, 1), (5, 4), (3, 4)],
)
def test_wrong_number_of_hands(n_players: int, n_hands: int) -> None:
    deck = [f"{r}{s}" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2") for s in "SCDH"]
    hands = [deck[10 * i : 10 * i + 10] for i in range(n_hands)]
    with pytest.raises(DealError) as err:
        parse_deal(RuleConfig(n_players=n_players), hands)
    assert f"needs {n_players} hands" in str(err.value)
    assert f"got {n_hands}" in str(err.value)


@pytest.mark.parametrize(
    ("seat", "hand", "size"),
    [
        (0, SUITED[0][:9], 9),
        (2, SUITED[2] + ["KS"], 11),
        (3, [], 0),
        (1, SUITED[1][:1], 1),
    ],
)
def test_wrong_hand_size(seat: int, hand: list[str], size: int) -> None:
    deal = [list(h) for h in SUITED]
    deal[seat] = hand
    with pytest.raises(DealError) as err:
        parse_deal(RuleConfig(), deal)
    assert f"seat {seat} has {size} cards" in str(err.value)
    assert "every hand has 10" in str(err.value)


@pytest.mark.parametrize(
    ("dup", "card"), [(["3C", "3C"], "3C"), (["9C", "9♣"], "9C"), (["JC", "jc"], "JC"), ([1, "3C"], "3C")]
)
def test_duplicate_card_in_one_hand(dup: list, card: str) -> None:
    deal = [list(h) for h in SUITED]
    deal[1] = ["KC", "AC", "2C", "4C", "5C", "6C", "7C", "8C", *dup]
    with pytest.raises(DealError) as err:
        parse_deal(RuleConfig(), deal)
    assert f"card {card} dealt twice" in str(err.value)
    assert "seat 1" in str(err.value)


def test_duplicate_card_across_hands() -> None:
    deal = [list(h) for h in SUITED]
    deal[2] = [*SUITED[2][:9], "7C"]
    with pytest.raises(DealError) as err:
        parse_deal(RuleConfig(), deal)
    assert "7C" in str(err.value)
    assert "dealt twice" in str(err.value)
    assert "seat 2" in str(err.value)


@pytest.mark.parametrize(("bad", "fragment"), [("1S", "'1S'"), ("KX", "'KX'"), ("", "''"), (52, "52"), (None, "None")])
def test_malformed_card_in_deal(bad: object, fragment: str) -> None:
    deal = [list(h) for h in SUITED]
    deal[3] = [*SUITED[3][:9], bad]
    with pytest.raises(CardError) as err:
        parse_deal(RuleConfig(), deal)
    assert "seat 3" in str(err.value)
    assert fragment in str(err.value)


@pytest.mark.parametrize("deal", ["3S 4S", None, 7, {"a": 1}])
def test_deal_that_is_not_a_list_of_hands(deal: object) -> None:
    with pytest.raises(DealError, match="list of 4 hands"):
        parse_deal(RuleConfig(), deal)  # type: ignore[arg-type]


@pytest.mark.parametrize("hand", ["3S 4S 5S 6S 7S 8S 9S 10S JS QS", None, 3.5])
def test_hand_that_is_not_a_list_of_cards(hand: object) -> None:
    deal = [list(h) for h in SUITED]
    deal[0] = hand  # type: ignore[call-overload]
    with pytest.raises(DealError, match="hand of seat 0 must be a list of cards"):
        parse_deal(RuleConfig(), deal)


def test_mask_outside_the_deck() -> None:
    masks = parse_deal(RuleConfig(), SUITED)
    masks[0] |= 1 << 60
    with pytest.raises(DealError, match="outside the 52-card deck"):
        parse_deal(RuleConfig(), masks)


def test_deal_errors_are_value_errors() -> None:
    assert issubclass(DealError, ValueError)


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_random_deal_is_disjoint_and_sized(n_players: int) -> None:
    rules = RuleConfig(n_players=n_players)
    rng = np.random.default_rng(7)
    for _ in range(50):
        masks = random_deal(rules, rng)
        assert len(masks) == n_players
        assert all(m.bit_count() == 10 for m in masks)
        union = 0
        for m in masks:
            assert union & m == 0
            union |= m
        assert union.bit_count() == 10 * n_players
        assert parse_deal(rules, masks) == masks


def test_random_deal_depends_only_on_the_generator() -> None:
    rules = RuleConfig()
    a = random_deal(rules, np.random.default_rng(123))
    b = random_deal(rules, np.random.default_rng(123))
    c = random_deal(rules, np.random.default_rng(124))
    assert a == b
    assert a != c


# ----------------------------------------------------------------- instant-win hands (§9)

ALL_TYPES = frozenset({"dragon", "four_twos", "same_colour", "three_triples", "five_pairs"})


@pytest.mark.parametrize(
    ("hand", "enabled", "expected"),
    [
        # dragon: a 10-card straight along A 2 3 … K A
        ("3S 4C 5D 6H 7S 8C 9D 10H JS QC", ALL_TYPES, "dragon"),
        ("AS 2C 3D 4H 5S 6C 7D 8H 9S 10C", ALL_TYPES, "dragon"),
        ("5S 6C 7D 8H 9S 10C JD QH KS AC", ALL_TYPES, "dragon"),
        ("4S 5C 6D 7H 8S 9C 10D JH QS KC", {"dragon"}, "dragon"),
        ("3S 4C 5D 6H 7S 8C 9D 10H JS KC", {"dragon"}, None),  # a gap
        ("KS AC 2D 3H 4S 5C 6D 7H 8S 9C", {"dragon"}, None),  # K A 2 wraps
        # four_twos
        ("2S 2C 2D 2H 3S 5C 7D 9H JS KC", {"four_twos"}, "four_twos"),
        ("2S 2C 2D 3H 3S 5C 7D 9H JS KC", {"four_twos"}, None),
        ("2S 2C 2D 2H 3S 5C 7D 9H JS KC", {"dragon"}, None),
        # same_colour: all red or all black
        ("3D 5H 7D 9H JD KH 2D 4H 6D 8H", {"same_colour"}, "same_colour"),
        ("3S 5C 7S 9C JS KC 2S 4C 6S 8C", {"same_colour"}, "same_colour"),
        ("3S 5C 7S 9C JS KC 2S 4C 6S 8H", {"same_colour"}, None),
        # three_triples: a quad counts as a triple
        ("3S 3C 3D 5S 5C 5D 9H 9S 9C KD", {"three_triples"}, "three_triples"),
        ("3S 3C 3D 3H 5C 5D 5H 9S 9C 9D", {"three_triples"}, "three_triples"),
        ("3S 3C 3D 3H 5C 5D 5H 5S 9C 9D", {"three_triples"}, None),  # two quads = two triples
        ("3S 3C 3D 5S 5C 5D 9H 9S KC KD", {"three_triples"}, None),
        # five_pairs: a quad counts as two pairs
        ("3S 3C 5D 5H 7S 7C 9D 9H JS JC", {"five_pairs"}, "five_pairs"),
        ("3S 3C 3D 3H 7S 7C 9D 9H JS JC", {"five_pairs"}, "five_pairs"),
        ("3S 3C 3D 3H 7S 7C 7D 7H JS JC", {"five_pairs"}, "five_pairs"),
        ("3S 3C 3D 5H 7S 7C 9D 9H JS JC", {"five_pairs"}, None),  # a triple is one pair and a spare
        ("3S 3C 5D 5H 7S 7C 9D 9H JS QC", {"five_pairs"}, None),
        # priority inside one hand: dragon > four_twos > same_colour > three_triples > five_pairs
        ("3D 4D 5D 6D 7D 8D 9D 10D JD QD", ALL_TYPES, "dragon"),
        ("3D 4D 5D 6D 7D 8D 9D 10D JD QD", ALL_TYPES - {"dragon"}, "same_colour"),
        ("2S 2C 2D 2H 3S 3C 3D 5S 5C 5D", ALL_TYPES, "four_twos"),
        ("2S 2C 2D 2H 3S 3C 3D 5S 5C 5D", ALL_TYPES - {"four_twos"}, "three_triples"),
        ("2S 2C 2D 2H 3S 3C 3D 5S 5C 5D", {"five_pairs"}, None),  # 2+1+1 pairs
        ("3S 3C 3D 3H 5S 5C 5D 5H 7D 7H", ALL_TYPES - {"three_triples"}, "five_pairs"),
        ("3S 3C 3D 3H 5S 5C 5D 5H 7D 7H", ALL_TYPES, "five_pairs"),  # two quads: only two triples
        ("3S 3C 5S 5C 7S 7C 9S 9C JS JC", ALL_TYPES, "same_colour"),
        ("3S 5C 7D 9H JS KC 2D 4H 6S 8C", ALL_TYPES, None),
    ],
)
def test_instant_win_type(hand: str, enabled: set[str], expected: str | None) -> None:
    rules = RuleConfig(instant_wins=frozenset(enabled))
    assert instant_win_type(rules, mask_of(_cards(hand))) == expected


def test_dragon_through_a_two_needs_straights_with_two() -> None:
    hand = mask_of(_cards("AS 2C 3D 4H 5S 6C 7D 8H 9S 10C"))
    assert instant_win_type(RuleConfig(instant_wins={"dragon"}, straights_with_two=False), hand) is None
    plain = mask_of(_cards("3S 4C 5D 6H 7S 8C 9D 10H JS QC"))
    assert instant_win_type(RuleConfig(instant_wins={"dragon"}, straights_with_two=False), plain) == "dragon"


def test_no_instant_wins_enabled() -> None:
    hand = mask_of(_cards("2S 2C 2D 2H 3S 3C 3D 5S 5C 5D"))
    assert instant_win_type(RuleConfig(instant_wins=frozenset()), hand) is None


# ----------------------------------------------------------------- who leads the first hand (§6)


@pytest.mark.parametrize(
    ("n_players", "deal", "expected"),
    [
        # Seat 2 holds 3♠.
        (4, [SUITED[1], SUITED[2], SUITED[0], SUITED[3]], 2),
        (4, SUITED, 0),
        # No 3♠ dealt: 3♣ < 3♦ < 3♥ decides (seat 1 holds 3♣).
        (2, [SUITED[2], SUITED[1]], 1),
        (3, [SUITED[3], SUITED[2], SUITED[1]], 2),
        # No 3 at all in a 2-player deal: the lowest card is a 4.
        (
            2,
            [_cards("4H 5H 6H 7H 8H 9H 10H JH QH KH"), _cards("4D 5D 6D 7D 8D 9D 10D JD QD KD")],
            1,
        ),
        # 5 players: seat 4 holds the 3♠.
        (
            5,
            [
                SUITED[1],
                SUITED[2],
                SUITED[3],
                _cards("KS KC KD KH AS AC AD AH 2S 2C"),
                ["3S", *SUITED[0][1:]],
            ],
            4,
        ),
    ],
)
def test_first_leader_lowest_card(n_players: int, deal: list[list[str]], expected: int) -> None:
    table = Table(RuleConfig(n_players=n_players, instant_wins=frozenset()), rng=0)
    hand = table.new_hand(deal)
    assert hand.leader == expected
    assert hand.to_act == expected


def test_first_leader_host() -> None:
    deal = [SUITED[1], SUITED[2], SUITED[0], SUITED[3]]  # 3♠ at seat 2
    hand = Table(RuleConfig(first_leader="host"), rng=0).new_hand(deal)
    assert hand.leader == 0


def test_first_leader_random_is_uniform_and_from_the_generator() -> None:
    rules = RuleConfig(first_leader="random", allow_sam=False)
    seen = []
    for seed in range(400):
        leader = Table(rules, rng=seed).new_hand(SUITED).leader
        # Drawn from the injected generator: the same seed gives the same seat, whatever the deal.
        assert Table(rules, rng=np.random.default_rng(seed)).new_hand(SUITED[::-1]).leader == leader
        assert Table(rules, rng=seed).new_hand(SUITED).to_act == leader
        seen.append(leader)
    counts = np.bincount(seen, minlength=4)
    assert counts.min() > 60, counts  # about 100 each


@pytest.mark.parametrize("bad", [-1, 4, 1.0, "0", True])
def test_forced_leader_must_be_a_seat(bad: object) -> None:
    with pytest.raises(DealError, match="leader must be a seat"):
        Table(RuleConfig(), rng=0).new_hand(SUITED, leader=bad)  # type: ignore[arg-type]
