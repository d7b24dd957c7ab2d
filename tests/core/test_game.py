"""The ``Hand`` state machine's contract: illegal moves are refused without side effects, the
legal mask is read-only, the history records every move, a finished hand takes no moves."""

from __future__ import annotations

import numpy as np
import pytest

from sam_env.core import N_COMBOS, NO_PLAY, REVEAL_INSTANT_WIN, IllegalMoveError, Phase, RuleConfig, Table, combo_index

DEAL = [
    ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "2H"],
    ["7D", "3C", "4C", "5C", "6C", "QH", "KC", "AC", "2S", "2C"],
    ["8H", "3D", "4D", "5D", "6D", "9D", "10D", "JD", "AD", "2D"],
    ["KH", "3H", "4H", "5H", "6H", "7H", "9H", "10H", "JH", "QC"],
]


def _hand(**options: object):
    return Table(RuleConfig(**options), rng=0).new_hand(DEAL)  # type: ignore[arg-type]


def _snapshot(hand) -> tuple:
    return (
        hand.to_act,
        hand.phase,
        tuple(hand.cards),
        tuple(hand.passed),
        hand.table_combo,
        hand.table_owner,
        tuple(hand.history),
        tuple(hand.ledger),
    )


@pytest.mark.parametrize("allow_sam", [True, False])
def test_mask_is_read_only_in_every_phase(allow_sam: bool) -> None:
    hand = _hand(allow_sam=allow_sam)
    while not hand.over:
        mask = hand.legal_mask()
        assert not mask.flags.writeable
        with pytest.raises(ValueError):
            mask[combo_index("double_quad:3+4")] = True
        legal = hand.legal_moves()
        hand.step(legal[-1])
    assert not hand.legal_mask().flags.writeable
    assert not hand.legal_mask().any()


def test_mask_is_cached_until_a_move() -> None:
    hand = _hand(allow_sam=False)
    first = hand.legal_mask()
    assert hand.legal_mask() is first
    hand.step(combo_index("single:3"))
    assert hand.legal_mask() is not first


@pytest.mark.parametrize("move", ["single:A", "pass", "declare_sam", "double_quad:3+4", "straight:A-3", "pair:2"])
def test_illegal_move_is_refused_without_side_effects(move: str) -> None:
    hand = _hand(allow_sam=False)
    before = _snapshot(hand)
    with pytest.raises(IllegalMoveError) as err:
        hand.step(combo_index(move))
    message = str(err.value)
    assert "seat 0" in message
    assert move in message
    assert "legal moves:" in message
    assert "single:3" in message
    assert _snapshot(hand) == before


@pytest.mark.parametrize("move", [-1, N_COMBOS, 10**6, 2.0, "single:3", None, True, False])
def test_move_that_is_not_a_combination_id(move: object) -> None:
    hand = _hand(allow_sam=False)
    before = _snapshot(hand)
    with pytest.raises(IllegalMoveError, match=r"not a combination id|not an action; an action is an int id"):
        hand.step(move)  # type: ignore[arg-type]
    assert _snapshot(hand) == before


def test_numpy_integer_moves_are_accepted() -> None:
    hand = _hand(allow_sam=False)
    hand.step(np.int64(combo_index("single:3")))
    assert hand.history == [(0, combo_index("single:3"))]


def test_no_move_after_the_hand_is_over() -> None:
    hand = _hand(allow_sam=False)
    for name in ["single:3", "single:7", "single:8", "single:K", "single:2", "pass", "pass", "pass", "straight:4-J"]:
        hand.step(combo_index(name))
    assert hand.over and hand.phase is Phase.OVER
    assert hand.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the hand is over"):
        hand.step(combo_index("pass"))


def test_history_and_table_state() -> None:
    hand = _hand()
    assert hand.phase is Phase.SAM_DECISION
    for _ in range(4):
        hand.step(combo_index("decline_sam"))
    assert hand.phase is Phase.PLAY
    assert hand.table_combo == NO_PLAY
    hand.step(combo_index("single:3"))
    hand.step(combo_index("pass"))
    assert hand.table_combo == combo_index("single:3")
    assert hand.table_owner == 0
    assert hand.passed == [False, True, False, False]
    d = combo_index("decline_sam")
    assert hand.history == [(0, d), (1, d), (2, d), (3, d), (0, combo_index("single:3")), (1, combo_index("pass"))]


def test_an_instant_win_waits_for_the_winners_one_move() -> None:
    """Decided at the deal, settled by the winner's only legal move (so that no episode starts over)."""
    deal = [
        ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "KC"],
        ["2S", "2C", "2D", "2H", "3C", "4C", "5C", "6C", "7C", "8C"],
        ["8H", "3D", "4D", "5D", "6D", "9D", "10D", "JD", "AD", "QH"],
        DEAL[3],
    ]
    for rules in (RuleConfig(), RuleConfig(allow_sam=False)):
        hand = Table(rules, rng=0).new_hand(deal)
        assert not hand.over and hand.result is None and hand.ledger == []
        assert (hand.phase, hand.to_act, hand.instant_winner, hand.instant_win) == (
            Phase.SAM_DECISION,
            1,
            1,
            "four_twos",
        )
        assert hand.legal_moves() == [REVEAL_INSTANT_WIN] == [combo_index("decline_sam")]
        with pytest.raises(IllegalMoveError, match=r"legal moves: decline_sam$"):
            hand.step(combo_index("declare_sam"))
        hand.step(REVEAL_INSTANT_WIN)
        assert hand.over and hand.history == [(1, REVEAL_INSTANT_WIN)]
        assert hand.result.reason.value == "instant_win" and hand.result.net == (-20, 60, -20, -20)
        with pytest.raises(IllegalMoveError, match="the hand is over"):
            hand.step(REVEAL_INSTANT_WIN)
