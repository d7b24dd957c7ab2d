"""The golden-scenario loader refuses malformed files and catches a replay that disagrees."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_data import SCENARIO_DIR, ScenarioError, load_scenarios, parse_move, run_scenario

GOOD = """
- name: tiny
  rules: {allow_sam: false}
  deal:
    - [3S, 4S, 5S, 6S, 7S, 8S, 9S, 10S, JS, QS]
    - [3C, 4C, 5C, 6C, 7C, 8C, 9C, 10C, JC, KH]
    - [3D, 4D, 5D, 6D, 7D, 8D, 9D, 10D, JD, KC]
    - [3H, 4H, 5H, 6H, 7H, 8H, 9H, 10H, JH, KD]
  moves:
    - "0: straight:3-Q"
  expect:
    reason: normal
    winner: 0
    ledger: [[1, 0, 10, cong], [2, 0, 10, cong], [3, 0, 10, cong]]
    net: [30, -10, -10, -10]
"""


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_the_shipped_scenarios_load() -> None:
    scenarios = load_scenarios()
    assert len(scenarios) >= 40
    assert {p.name for p in SCENARIO_DIR.glob("*.yaml")} == {s.source for s in scenarios}


def test_a_good_file_replays(tmp_path: Path) -> None:
    (scenario,) = load_scenarios(_write(tmp_path, GOOD))
    (hand,) = run_scenario(scenario)
    assert hand.result.winner == 0


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("[1, 0, 10, cong]", "[1, 0, 9, cong]", "ledger"),
        ("net: [30, -10, -10, -10]", "net: [31, -11, -10, -10]", "net"),
        ("winner: 0", "winner: 1", "winner"),
        ("reason: normal", "reason: sam_won", "reason"),
        ('"0: straight:3-Q"', '"1: straight:3-Q"', "seat 0 is to act, not seat 1"),
        ('"0: straight:3-Q"', '"0: single:K"', "not legal"),
        ('"0: straight:3-Q"', '"0: !straight:3-Q"', "is legal"),
        ('"0: straight:3-Q"', '"0: ? straight:3-Q"', "missing"),
    ],
)
def test_a_disagreeing_scenario_fails(tmp_path: Path, old: str, new: str, fragment: str) -> None:
    assert old in GOOD
    (scenario,) = load_scenarios(_write(tmp_path, GOOD.replace(old, new)))
    with pytest.raises(ScenarioError, match=fragment):
        run_scenario(scenario)


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("  expect:", "  expectation:", "unknown key"),
        ("    winner: 0", "    winer: 0", "unknown key"),
        ('"0: straight:3-Q"', '"zero: straight:3-Q"', "must look like"),
        ('"0: straight:3-Q"', '"0: straight:K-2"', "unknown action name"),
        ("- name: tiny", "- name: ''", "without a name"),
    ],
)
def test_a_malformed_file_is_refused(tmp_path: Path, old: str, new: str, fragment: str) -> None:
    with pytest.raises(ScenarioError, match=fragment):
        load_scenarios(_write(tmp_path, GOOD.replace(old, new)))


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="duplicate"):
        load_scenarios(_write(tmp_path, GOOD + GOOD))


def test_parse_move() -> None:
    m = parse_move("2: single:K")
    assert (m.seat, m.kind, m.action) == (2, "play", "single:K")
    m = parse_move("1: !single:8")
    assert (m.seat, m.kind, m.action) == (1, "illegal", "single:8")
    m = parse_move("1: ? pass single:A")
    assert (m.seat, m.kind, m.actions) == (1, "legal", ("pass", "single:A"))
