"""Golden scenarios (``tests/scenarios/*.yaml``): loading them, and replaying them through the engine.

Each scenario is a small table of hands worked out by hand from docs/rules.md. The format, per scenario:

``name``
    unique identifier (used as the pytest id).
``rules``
    a dict for :meth:`RuleConfig.from_dict` (defaults for what is left out).
``seed``
    optional seed of the table's generator (only ``first_leader: random`` draws from it).
``deal`` / ``leader`` / ``moves`` / ``expect``
    one hand; or ``hands:``, a list of such dicts played in order on one table (the leader of a
    later hand comes from the previous one unless ``leader`` forces it); ``previous:`` is a
    shorthand for one hand played before the main one.

A hand's ``deal`` is one list of cards per seat in docs/rules.md notation. ``moves`` are strings:

* ``"2: single:K"`` — seat 2 must be the seat to act, and makes the move;
* ``"1: !single:8"`` — seat 1 is to act and that move is illegal now (nothing is played);
* ``"1: ? pass single:A pair:5"`` — seat 1 is to act and these are exactly its legal moves.

``expect`` (every key optional): ``leader`` (the would-be leader of §6, asked first about Sâm),
``over`` (default: true when ``reason`` is given, else false), ``to_act`` (when not over),
``reason``, ``winner``, ``next_leader``, ``ledger`` (``[payer, payee, amount, reason]`` rows,
exact and in order: the ledger so far when the hand is not over), ``net``, ``instant_win``,
``sam_declarer``, ``sam_blocker``, ``responsible``, ``finished_on_two``, ``cards_left``.

Settlement rows are listed seat by seat, a loser's cards before its thối 2; zero amounts are not
written. This order is a convention of the engine; the amounts come from docs/rules.md.

The environment's tests reuse :func:`load_scenarios` and :func:`parse_move` and compare against
:func:`expected_ledger` and the other ``expect`` values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from sam_env.core import Hand, IllegalMoveError, RuleConfig, Table, Transfer, combo_index, combo_name

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"

_SCENARIO_KEYS = {"name", "rules", "seed", "deal", "leader", "moves", "expect", "hands", "previous", "note"}
_HAND_KEYS = {"deal", "leader", "moves", "expect", "note"}
_EXPECT_KEYS = {
    "leader",
    "over",
    "to_act",
    "reason",
    "winner",
    "next_leader",
    "ledger",
    "net",
    "instant_win",
    "sam_declarer",
    "sam_blocker",
    "responsible",
    "finished_on_two",
    "cards_left",
}


class ScenarioError(AssertionError):
    """A scenario file that is malformed, or a replay that disagrees with the file."""


@dataclass(frozen=True)
class Move:
    """One entry of ``moves``: ``kind`` is ``"play"``, ``"illegal"`` or ``"legal"``."""

    seat: int
    kind: str
    actions: tuple[str, ...]
    text: str

    @property
    def action(self) -> str:
        return self.actions[0]


@dataclass(frozen=True)
class HandSpec:
    deal: list[list[str]]
    leader: int | None
    moves: tuple[Move, ...]
    expect: Mapping[str, Any]


@dataclass(frozen=True)
class Scenario:
    name: str
    source: str
    rules: RuleConfig
    seed: int
    hands: tuple[HandSpec, ...]

    @property
    def last(self) -> HandSpec:
        return self.hands[-1]


def parse_move(text: str) -> Move:
    """Parse ``"seat: action"``, ``"seat: !action"`` or ``"seat: ? a b c"``."""
    seat_text, sep, rest = str(text).partition(":")
    if not sep or not seat_text.strip().isdigit():
        raise ScenarioError(f"move {text!r} must look like '2: single:K'")
    seat, rest = int(seat_text), rest.strip()
    if rest.startswith("?"):
        kind, actions = "legal", tuple(rest[1:].split())
    elif rest.startswith("!"):
        kind, actions = "illegal", (rest[1:].strip(),)
    else:
        kind, actions = "play", (rest,)
    for a in actions:
        try:
            combo_index(a)
        except ValueError as err:
            raise ScenarioError(f"move {text!r}: {err}") from None
    return Move(seat, kind, actions, str(text))


def _check_keys(what: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    if not isinstance(data, Mapping):
        raise ScenarioError(f"{what} must be a mapping, got {data!r}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ScenarioError(f"{what}: unknown key(s) {unknown}; expected some of {sorted(allowed)}")


def _hand_spec(what: str, data: Mapping[str, Any]) -> HandSpec:
    _check_keys(what, data, _HAND_KEYS)
    expect = data.get("expect", {}) or {}
    _check_keys(f"{what} expect", expect, _EXPECT_KEYS)
    if "deal" not in data:
        raise ScenarioError(f"{what}: no deal")
    moves = tuple(parse_move(m) for m in data.get("moves", []) or [])
    return HandSpec([list(map(str, h)) for h in data["deal"]], data.get("leader"), moves, expect)


def _scenario(source: str, data: Mapping[str, Any]) -> Scenario:
    name = data.get("name") if isinstance(data, Mapping) else None
    what = f"{source}: scenario {name!r}"
    _check_keys(what, data, _SCENARIO_KEYS)
    if not name:
        raise ScenarioError(f"{source}: a scenario without a name")
    hands: list[HandSpec] = []
    if "previous" in data:
        hands.append(_hand_spec(f"{what} previous", data["previous"]))
    if "hands" in data:
        if "deal" in data:
            raise ScenarioError(f"{what}: give either 'hands' or 'deal', not both")
        hands.extend(_hand_spec(f"{what} hand {i}", h) for i, h in enumerate(data["hands"]))
    else:
        hands.append(_hand_spec(what, {k: data[k] for k in _HAND_KEYS if k in data}))
    rules = RuleConfig.from_dict(data.get("rules", {}) or {})
    return Scenario(name, source, rules, int(data.get("seed", 0)), tuple(hands))


def load_scenarios(directory: Path | str = SCENARIO_DIR) -> list[Scenario]:
    """Every scenario of every ``*.yaml`` file in ``directory``, in file then file-order."""
    out: list[Scenario] = []
    for path in sorted(Path(directory).glob("*.yaml")):
        docs = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        if not isinstance(docs, list):
            raise ScenarioError(f"{path.name}: expected a list of scenarios")
        out.extend(_scenario(path.name, d) for d in docs)
    names = [s.name for s in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ScenarioError(f"duplicate scenario names: {dupes}")
    return out


def expected_ledger(spec: HandSpec) -> list[tuple[int, int, int, str]] | None:
    rows = spec.expect.get("ledger")
    return None if rows is None else [(int(a), int(b), int(c), str(d)) for a, b, c, d in rows]


def ledger_rows(ledger: tuple[Transfer, ...] | list[Transfer]) -> list[tuple[int, int, int, str]]:
    """A ledger as ``(payer, payee, amount, reason)`` rows, comparable with :func:`expected_ledger`."""
    return [(t.payer, t.payee, t.amount, t.reason.value) for t in ledger]


def _legal_names(hand: Hand) -> set[str]:
    return {combo_name(i) for i in hand.legal_moves()}


def play_moves(hand: Hand, moves: tuple[Move, ...], where: str = "") -> None:
    """Make the moves on an engine hand, checking the seat to act and the legality assertions."""
    for i, move in enumerate(moves):
        at = f"{where}move {i} {move.text!r}"
        if hand.over:
            raise ScenarioError(f"{at}: the hand is already over ({hand.result.reason.value})")
        if hand.to_act != move.seat:
            raise ScenarioError(f"{at}: seat {hand.to_act} is to act, not seat {move.seat}")
        if move.kind == "legal":
            got, want = _legal_names(hand), set(move.actions)
            if got != want:
                raise ScenarioError(
                    f"{at}: legal moves are {sorted(got)}; missing {sorted(want - got)}, extra {sorted(got - want)}"
                )
        elif move.kind == "illegal":
            cid = combo_index(move.action)
            if hand.legal_mask()[cid]:
                raise ScenarioError(f"{at}: {move.action} is legal")
            before = list(hand.history)
            try:
                hand.step(cid)
            except IllegalMoveError:
                pass
            else:
                raise ScenarioError(f"{at}: step accepted the illegal move {move.action}")
            if hand.history != before:
                raise ScenarioError(f"{at}: a rejected move changed the history")
        else:
            cid = combo_index(move.action)
            if not hand.legal_mask()[cid]:
                raise ScenarioError(f"{at}: {move.action} is not legal; legal: {sorted(_legal_names(hand))}")
            hand.step(cid)


def replay(scenario: Scenario) -> Iterator[tuple[HandSpec, Hand]]:
    """Play the scenario's hands on one engine table, yielding each spec with its played hand."""
    table = Table(scenario.rules, np.random.default_rng(scenario.seed))
    for k, spec in enumerate(scenario.hands):
        hand = table.new_hand(spec.deal, leader=spec.leader)
        play_moves(hand, spec.moves, where=f"{scenario.name} hand {k}: ")
        yield spec, hand


def check_hand(hand: Hand, spec: HandSpec, where: str = "") -> None:
    """Compare a played engine hand with its ``expect`` block."""
    exp = spec.expect
    problems: list[str] = []

    def compare(key: str, got: object, want: object) -> None:
        if got != want:
            problems.append(f"{key}: engine {got!r}, expected {want!r}")

    over = exp.get("over", "reason" in exp)
    compare("over", hand.over, bool(over))
    if "leader" in exp:
        compare("leader", hand.leader, exp["leader"])
    if "to_act" in exp:
        compare("to_act", None if hand.over else hand.to_act, exp["to_act"])
    if "sam_declarer" in exp:
        compare("sam_declarer", hand.sam_declarer, exp["sam_declarer"])
        if hand.result is not None:
            compare("result.sam_declarer", hand.result.sam_declarer, exp["sam_declarer"])
    if "cards_left" in exp:
        compare("cards_left", list(hand.n_cards), list(exp["cards_left"]))
    want_ledger = expected_ledger(spec)
    if hand.over and hand.result is not None:
        res = hand.result
        got_ledger = ledger_rows(res.ledger)
        compare("result.net vs ledger", list(res.net), _net(got_ledger, hand.n_players))
        for key in ("winner", "next_leader", "instant_win", "sam_blocker", "responsible"):
            if key in exp:
                compare(key, getattr(res, key), exp[key])
        if "reason" in exp:
            compare("reason", res.reason.value, exp["reason"])
        if "finished_on_two" in exp:
            compare("finished_on_two", list(res.finished_on_two), list(exp["finished_on_two"]))
        net = list(res.net)
    else:
        got_ledger = ledger_rows(hand.ledger)
        net = hand.net()
    if want_ledger is not None:
        compare("ledger", got_ledger, want_ledger)
    if "net" in exp:
        compare("net", net, list(exp["net"]))
        if sum(exp["net"]) != 0:
            problems.append(f"expected net {exp['net']} is not zero-sum")
    if want_ledger is not None and "net" in exp:
        compare("expected ledger vs expected net", _net(want_ledger, hand.n_players), list(exp["net"]))
    if problems:
        raise ScenarioError(f"{where}" + "; ".join(problems))


def run_scenario(scenario: Scenario) -> list[Hand]:
    """Replay and check every hand of a scenario on the engine; return the played hands."""
    hands = []
    for k, (spec, hand) in enumerate(replay(scenario)):
        check_hand(hand, spec, where=f"{scenario.name} hand {k}: ")
        hands.append(hand)
    return hands


def _net(rows: list[tuple[int, int, int, str]], n: int) -> list[int]:
    net = [0] * n
    for payer, payee, amount, _ in rows:
        net[payer] -= amount
        net[payee] += amount
    return net
