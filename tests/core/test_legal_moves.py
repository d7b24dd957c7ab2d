"""Golden legal-move cases ``(hand, table, legal set)``, each worked out from docs/rules.md §3–§5."""

from __future__ import annotations

import pytest

from sam_env.core import COMBOS, Hand, RuleConfig, Table, combo_index, combo_name

DECK = [f"{r}{s}" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2") for s in "SCDH"]
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


def position(acting: str, table: str | None, **options: object) -> Hand:
    """Seat 1 holds ``acting`` and is to act; seat 0 has just led ``table`` (or seat 1 leads).

    The other seats get the rest of the deck in order; with instant wins off and 10 cards at
    seat 2, nothing but seat 1's hand and the table matters for seat 1's legal moves.
    """
    rules = RuleConfig(allow_sam=False, instant_wins=frozenset(), **options)  # type: ignore[arg-type]
    mine = acting.split()
    rest = [c for c in DECK if c not in mine]
    seat0: list[str] = []
    if table is not None:
        for rank, count in COMBOS[combo_index(table)].needs:
            have = [c for c in rest if c[:-1] == RANKS[rank]][:count]
            assert len(have) == count, f"the deck has no {count} x {RANKS[rank]} left for {table}"
            seat0 += have
            rest = [c for c in rest if c not in have]
    seat0 += rest[: 10 - len(seat0)]
    rest = [c for c in rest if c not in seat0]
    deal = [seat0, mine, rest[:10], rest[10:20]]
    hand = Table(rules, rng=0).new_hand(deal, leader=0 if table is not None else 1)
    if table is not None:
        hand.step(combo_index(table))
    assert hand.to_act == 1
    return hand


CASES = [
    # Free leads: everything formable but a double quad; never pass.
    (
        "3S 3C 3D 3H 5S 7C 9D JH KS 2S",
        None,
        "single:3 single:5 single:7 single:9 single:J single:K single:2 pair:3 triple:3 quad:3",
    ),
    (
        "3S 4C 5D 7H 8S 9C 9D KH AS 2C",
        None,
        "single:3 single:4 single:5 single:7 single:8 single:9 single:K single:A single:2 pair:9 "
        "straight:A-3 straight:A-4 straight:A-5 straight:2-4 straight:2-5 straight:3-5 straight:7-9",
    ),
    (
        "4S 4C 4D 4H 9S 9C 9D 9H AS AC",
        None,
        "single:4 single:9 single:A pair:4 pair:9 pair:A triple:4 triple:9 quad:4 quad:9",
    ),
    (
        # Q-K-A and A-2-3(-4) are straights, K-A-2 is not.
        "QS KC AD 2H 3S 4C 6D 8H 10S 10C",
        None,
        "single:3 single:4 single:6 single:8 single:10 single:Q single:K single:A single:2 pair:10 "
        "straight:Q-A straight:A-3 straight:A-4 straight:2-4",
    ),
    # Singles: strictly higher rank; a 2 is beaten only by a quad.
    ("AS 2C 3D 4H 5S 7C 9D JH 10S 10C", "single:K", "pass single:A single:2"),
    ("3S 5C 7D 9H JS KC 2D 4S 4C 4D", "single:A", "pass single:2"),
    ("4S 4C 4D 4H 6S 8C 10D QH AS 2C", "single:A", "pass single:2"),  # a quad does not chop an A
    ("4S 4C 4D 4H 6S 8C 10D QH AS 2C", "single:2", "pass quad:4"),  # a 2 does not beat a 2
    ("3S 5C 7D 9H JS KC AD 4S 6C 8D", "single:2", "pass"),
    # Pairs, triples, quads.
    ("AS AC 2S 2C 3S 3C 4S 4C 4D 4H", "pair:K", "pass pair:A pair:2"),
    ("4S 4C 4D 4H 9S 9C 9D 9H AS AC", "pair:2", "pass double_quad:4+9"),
    ("4S 4C 4D 4H 2S 2C 9D 9H AS AC", "pair:2", "pass"),  # neither a quad nor an equal pair
    ("4S 4C 4D 4H 9S 9C 9D 9H AS 2S", "triple:2", "pass"),  # nothing beats three 2s
    ("10S 10C 10D JS JC JD JH 2S 2C 2D", "triple:9", "pass triple:10 triple:J triple:2"),
    ("4S 4C 4D 4H 9S 9C 9D 9H AS 2S", "quad:5", "pass quad:9"),
    ("4S 4C 4D 4H 9S 9C 9D 9H AS 2S", "triple:3", "pass triple:4 triple:9"),
    # Straights: only the same length, higher top position.
    (
        "4S 5C 6D 7H 9S JC QD KH AS 2S",
        "straight:3-5",
        "pass straight:4-6 straight:5-7 straight:J-K straight:Q-A",
    ),
    (
        "2S 3C 4D 5H 6S 7C 9D JH KS AS",
        "straight:A-3",
        "pass straight:2-4 straight:3-5 straight:4-6 straight:5-7",
    ),
    ("9S 10C JD QH KS AC 2D 3S 4C 5D", "straight:10-A", "pass"),
    ("9S 10C JD QH KS AC 2D 3S 4C 5D", "straight:8-Q", "pass straight:9-K straight:10-A"),
    (
        "3S 4C 5D 6H 7S 8C 9D 10H JS QC",
        "straight:A-5",
        "pass straight:3-7 straight:4-8 straight:5-9 straight:6-10 straight:7-J straight:8-Q",
    ),
]


def _clean(expected: str) -> set[str]:
    return set(expected.split())


@pytest.mark.parametrize(("acting", "table", "expected"), CASES)
def test_legal_moves_golden(acting: str, table: str | None, expected: str) -> None:
    hand = position(acting, table)
    assert {combo_name(i) for i in hand.legal_moves()} == _clean(expected)


@pytest.mark.parametrize(
    ("acting", "table", "expected"),
    [
        # straights_with_two: false — no A-2-3, 2-3-4 …; straights run 3 … A only.
        (
            "3S 4C 5D 7H 8S 9C 9D KH AS 2C",
            None,
            "single:3 single:4 single:5 single:7 single:8 single:9 single:K single:A single:2 pair:9 "
            "straight:3-5 straight:7-9",
        ),
        ("2S 3C 4D 5H 6S 7C 9D JH KS AS", "straight:3-5", "pass straight:4-6 straight:5-7"),
        ("QS KC AD 2H 3S 4C 6D 8H 10S 10C", "straight:J-K", "pass straight:Q-A"),
    ],
)
def test_legal_moves_without_twos_in_straights(acting: str, table: str | None, expected: str) -> None:
    hand = position(acting, table, straights_with_two=False)
    assert {combo_name(i) for i in hand.legal_moves()} == _clean(expected)


def test_leader_may_not_pass_and_follower_may_always_pass() -> None:
    lead = position("3S 5C 7D 9H JS KC AD 4S 6C 8D", None)
    assert not lead.legal_mask()[combo_index("pass")]
    follow = position("3S 5C 7D 9H JS KC AD 4S 6C 8D", "single:2")
    assert follow.legal_mask()[combo_index("pass")]
