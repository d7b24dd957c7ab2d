"""Results and side views: ``HandResult.to_dict``, ``net_of``, ``SeatView`` hiding, the text
render, and the dependency rule (the rules package imports no RL library)."""

from __future__ import annotations

import subprocess
import sys

from sam_env.core import EndReason, Reason, RuleConfig, SeatView, Table, Transfer, combo_index
from sam_env.core.ledger import net_of
from sam_env.core.render import render_hand

DEAL = [
    ["2S", "3S", "4S", "6S", "7S", "9S", "10S", "JS", "QS", "8H"],
    ["5S", "5C", "5D", "5H", "8C", "9C", "10C", "JC", "QC", "KC"],
    ["3C", "4C", "6C", "7C", "AC", "2C", "3D", "4D", "6D", "7D"],
    ["3H", "4H", "6H", "7H", "AH", "2H", "8D", "9D", "10D", "KS"],
]


def _play(moves: list[str]):
    hand = Table(RuleConfig(allow_sam=False), rng=0).new_hand(DEAL)
    for m in moves:
        hand.step(combo_index(m))
    return hand


def test_net_of() -> None:
    ledger = [Transfer(0, 1, 4, Reason.CHOP), Transfer(2, 1, 10, Reason.CONG), Transfer(1, 3, 3, Reason.CARDS)]
    assert net_of(ledger, 4) == [-4, 11, -10, 3]
    assert net_of([], 3) == [0, 0, 0]


def test_result_to_dict() -> None:
    hand = _play(["single:2", "quad:5", "pass", "pass", "pass", "straight:8-K"])
    res = hand.result
    assert res.reason is EndReason.NORMAL
    d = res.to_dict()
    assert d["reason"] == "normal"
    assert d["winner"] == 1
    assert d["ledger"][0] == {"payer": 0, "payee": 1, "amount": 4, "reason": "chop"}
    assert d["net"] == [-13, 33, -10, -10]
    assert d["finished_on_two"] == []


def test_seat_view_hides_other_hands() -> None:
    hand = _play(["single:2", "quad:5"])
    view = SeatView.of(hand, 2)
    assert view.hand == hand.cards[2]
    assert view.legal == tuple(hand.legal_moves())  # seat 2 is to act
    assert view.chain_value == 8  # chopping quad 5 now would cost seat 1 4X + the 4X it received
    other = SeatView.of(hand, 3)
    assert other.legal == ()
    assert other.unseen & hand.cards[3] == 0
    assert other.unseen & hand.cards[0] == hand.cards[0]
    assert other.net == (-4, 4, 0, 0)


def test_render_shows_only_the_viewers_cards() -> None:
    hand = _play(["single:2"])
    text = render_hand(hand, viewer=1)
    assert "5S 5C 5D 5H" in text
    assert "3C" not in text  # seat 2's cards are hidden
    assert "[9 cards]" in text  # seat 0 after its 2
    assert "single:2 by seat 0" in text
    full = render_hand(_play(["single:2", "quad:5", "pass", "pass", "pass", "straight:8-K"]))
    assert "result: normal, winner seat 1" in full
    assert "seat 0 -> seat 1: 4X (chop)" in full


def test_rules_package_imports_no_rl_library() -> None:
    code = (
        "import sys, sam_env.core\n"
        "bad = [m for m in ('pettingzoo', 'gymnasium', 'torch', 'stable_baselines3') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
