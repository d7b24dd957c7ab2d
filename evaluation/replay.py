"""Hand records ("replays"): every hand of a table or a tournament as one line of JSON.

``sam-play --record FILE`` and ``sam-eval --record FILE`` write them, and ``sam-web`` shows them
move by move with every hand face up. A record is what it takes to watch a hand again and to check
it, in the engine's notation (cards ``"10D"``, ``"QS"``; actions by name, ``"pair:K"``)::

    {"format": "sam-env/hand", "version": 1,
     "rules": {...RuleConfig.to_dict()...},
     "bots": ["you", "heuristic", "ppo", "random"],            # by seat
     "deal": [["3S", "4C", ...], ...], "leader": 2,            # the cards dealt to each seat
     "moves": [{"seat": 2, "bot": "ppo", "action": "decline_sam", "cards": []},
               {"seat": 2, "bot": "ppo", "action": "pair:4", "cards": ["4S", "4D"]}, ...],
     "ledger": [{"payer": 0, "payee": 2, "amount": 7, "reason": "cards"}, ...],
     "result": {"reason": "normal", "winner": 2, "net": [...], ...},   # HandResult.to_dict() less its ledger
     "info": {...}}                                            # where the hand comes from (free-form)

The cards of a move are the ones that left the hand (the engine picks the suits: the lowest of
each rank, suits never deciding a play). :func:`read_records` re-plays every move through the
reference engine and refuses a record whose moves are not legal, or whose cards, ledger or result
differ from what the engine computes, with the line number and what differs: an edited or
truncated file cannot show a hand that never happened. The same replay gives the states a viewer
steps through (:func:`replay`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sam_env.core import COMBOS, CardError, DealError, Hand, HandResult, RuleConfig, RuleConfigError, combo_index
from sam_env.core.cards import cards_of, format_card
from sam_env.core.deal import parse_deal

FORMAT = "sam-env/hand"
VERSION = 1
KEYS = ("format", "version", "rules", "bots", "deal", "leader", "moves", "ledger", "result", "info")
MOVE_KEYS = ("seat", "bot", "action", "cards")


class ReplayError(ValueError):
    """A hand record that cannot be read or does not replay; the message names the line and what is wrong."""


@dataclass(frozen=True)
class MoveRecord:
    """One move: the seat, the bot in it, the action's name and the cards that left the hand."""

    seat: int
    bot: str
    action: str
    cards: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "action": self.action, "cards": list(self.cards)}


@dataclass(frozen=True)
class HandRecord:
    """One finished hand (see the module docstring for its JSON form)."""

    rules: RuleConfig
    bots: tuple[str, ...]
    deal: tuple[tuple[str, ...], ...]
    leader: int
    moves: tuple[MoveRecord, ...]
    result: HandResult
    info: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        result = self.result.to_dict()
        ledger = result.pop("ledger")
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "bots": list(self.bots),
            "deal": [list(cards) for cards in self.deal],
            "leader": self.leader,
            "moves": [m.to_dict() for m in self.moves],
            "ledger": ledger,
            "result": result,
            "info": dict(self.info),
        }

    def to_json(self) -> str:
        """The record as one line of JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))


def _card_strings(mask: int) -> tuple[str, ...]:
    return tuple(format_card(c) for c in cards_of(mask))


def record_hand(hand: Hand, bots: Sequence[str], info: Mapping[str, Any] | None = None) -> HandRecord:
    """The record of a finished ``hand`` (the engine's :class:`~sam_env.core.Hand`, e.g. the
    environment's ``env.unwrapped.hand``), with ``bots[seat]`` the name of the player in each seat."""
    if hand.result is None:
        raise ValueError("only a finished hand can be recorded; play it to its end first")
    if len(bots) != hand.n_players or not all(isinstance(b, str) for b in bots):
        raise ValueError(f"bots must name the player of each of the {hand.n_players} seats, got {bots!r}")
    again = Hand(hand.rules, list(hand.dealt), hand.leader)
    moves = []
    for seat, move in hand.history:
        before = again.played[seat]
        again.step(move)
        moves.append(MoveRecord(seat, bots[seat], COMBOS[move].name, _card_strings(again.played[seat] ^ before)))
    return HandRecord(
        rules=hand.rules,
        bots=tuple(bots),
        deal=tuple(_card_strings(mask) for mask in hand.dealt),
        leader=hand.leader,
        moves=tuple(moves),
        result=hand.result,
        info=dict(info or {}),
    )


def replay(record: HandRecord) -> Iterator[tuple[MoveRecord | None, Hand]]:
    """The states of a recorded hand: ``(None, hand at the deal)``, then ``(move, hand after it)``
    for every move. The same :class:`Hand` object is yielded each time, changed in place: read what
    you need from it before taking the next state."""
    hand = Hand(record.rules, parse_deal(record.rules, [list(c) for c in record.deal]), record.leader)
    yield None, hand
    for move in record.moves:
        hand.step(combo_index(move.action))
        yield move, hand


class ReplayWriter:
    """Writes hand records to a JSON Lines file (its folder made if missing), one per line, flushed as
    they come; a context manager. A file that cannot be opened raises ``ValueError`` saying why."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file: TextIO = self.path.open("w", encoding="utf-8")
        except OSError as err:
            raise ValueError(f"cannot record hands to {self.path}: {err.strerror or err}") from None
        self.count = 0

    def write(self, record: HandRecord | Mapping[str, Any]) -> None:
        """Append one record (a :class:`HandRecord` or its :meth:`~HandRecord.to_dict`)."""
        line = record.to_json() if isinstance(record, HandRecord) else json.dumps(record, ensure_ascii=False)
        self._file.write(line + "\n")
        self._file.flush()
        self.count += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_records(path: str | Path) -> list[HandRecord]:
    """Every record of a JSON Lines file, each checked by replaying it (raises :class:`ReplayError`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ReplayError(f"cannot read hand records from {path}: {err}") from None
    return parse_records(text.splitlines(), str(path))


def parse_records(lines: Iterable[str], source: str = "<records>") -> list[HandRecord]:
    """Records from lines of JSON (blank lines are skipped); raises :class:`ReplayError` naming
    ``source``, the line and what is wrong. An input with no record at all is refused too."""
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = _strict_json(line)
        except json.JSONDecodeError as err:
            raise ReplayError(f"{source} line {number}: not JSON ({err.msg} at column {err.colno})") from None
        except ValueError as err:
            raise ReplayError(f"{source} line {number}: not plain JSON ({err})") from None
        try:
            records.append(record_from_dict(data))
        except ReplayError as err:
            raise ReplayError(f"{source} line {number}: {err}") from None
    if not records:
        raise ReplayError(f"{source}: no hand record in it (expected JSON Lines written by sam-play/sam-eval --record)")
    return records


def _strict_json(line: str) -> Any:
    """A line of JSON as RFC 8259 has it, or ``ValueError``: no ``NaN`` or ``Infinity`` (nor a number too
    large for a float), no escaped lone surrogate (a record must print and encode as UTF-8), no nesting
    deeper than the parser's stack."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not a JSON number")

    try:
        data = json.loads(line, parse_constant=refuse)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    try:
        json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"a string holds {err.object[err.start : err.end]!r}, not a character") from None
    except ValueError:
        raise ValueError("a number too large for a float") from None
    return data


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ReplayError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def record_from_dict(data: object) -> HandRecord:
    """A record from its JSON form, checked field by field and then by replaying every move."""
    _require(isinstance(data, dict), f"a hand record is a JSON object, got {type(data).__name__}")
    assert isinstance(data, dict)
    _require(
        data.get("format") == FORMAT and data.get("version") == VERSION,
        f"not a hand record of this version: expected format {FORMAT!r} version {VERSION}, "
        f"got format {data.get('format')!r} version {data.get('version')!r}",
    )
    missing = [k for k in KEYS if k not in data]
    unknown = sorted(str(k) for k in data if k not in KEYS)
    _require(not missing and not unknown, f"keys missing: {missing}, unknown: {unknown}; a record has {list(KEYS)}")
    try:
        rules = RuleConfig.from_dict(data["rules"])
    except RuleConfigError as err:
        raise ReplayError(f"bad rules: {err}") from None
    n = rules.n_players
    bots = data["bots"]
    _require(
        isinstance(bots, list) and len(bots) == n and all(isinstance(b, str) for b in bots),
        f"bots must be {n} names, one per seat, got {bots!r}",
    )
    deal = data["deal"]
    try:
        masks = parse_deal(rules, deal)
    except (DealError, CardError) as err:
        raise ReplayError(f"bad deal: {err}") from None
    leader = data["leader"]
    _require(_is_int(leader) and 0 <= leader < n, f"leader must be a seat in 0..{n - 1}, got {leader!r}")
    _require(isinstance(data["info"], dict), f"info must be a JSON object, got {data['info']!r}")
    _require(isinstance(data["moves"], list), f"moves must be a list, got {type(data['moves']).__name__}")
    moves = [_move_from_dict(m, i, n) for i, m in enumerate(data["moves"])]
    hand = Hand(rules, masks, leader)
    for i, move in enumerate(moves):
        _require(not hand.over, f"move {i} ({move.action}) comes after the end of the hand")
        _require(
            move.seat == hand.to_act, f"move {i} ({move.action}) is by seat {move.seat}, but seat {hand.to_act} acts"
        )
        _require(
            move.bot == bots[move.seat], f"move {i}: bot {move.bot!r}, but seat {move.seat} is {bots[move.seat]!r}"
        )
        action = combo_index(move.action)
        _require(
            action in hand.legal_moves(),
            f"move {i}: {move.action} is not legal for seat {move.seat}; legal: "
            + ", ".join(COMBOS[a].name for a in hand.legal_moves()),
        )
        before = hand.played[move.seat]
        hand.step(action)
        left = _card_strings(hand.played[move.seat] ^ before)
        _require(
            sorted(move.cards) == sorted(left),
            f"move {i} ({move.action}): cards {list(move.cards)}, played {list(left)}",
        )
    _require(
        hand.result is not None, f"the hand is not finished after its {len(moves)} moves (seat {hand.to_act} acts)"
    )
    assert hand.result is not None
    expected = hand.result.to_dict()
    ledger = expected.pop("ledger")
    _require(
        data["ledger"] == ledger,
        f"the ledger differs from the replayed hand's: recorded {data['ledger']}, replayed {ledger}",
    )
    _require(
        data["result"] == expected,
        f"the result differs from the replayed hand's: recorded {data['result']}, replayed {expected}",
    )
    return HandRecord(
        rules=rules,
        bots=tuple(bots),
        deal=tuple(_card_strings(m) for m in masks),
        leader=leader,
        moves=tuple(moves),
        result=hand.result,
        info=data["info"],
    )


def _move_from_dict(data: object, index: int, n_players: int) -> MoveRecord:
    _require(
        isinstance(data, dict) and sorted(data) == sorted(MOVE_KEYS),
        f"move {index} must be an object with keys {list(MOVE_KEYS)}, got {data!r}",
    )
    assert isinstance(data, dict)
    seat, bot, action, cards = (data[k] for k in MOVE_KEYS)
    _require(_is_int(seat) and 0 <= seat < n_players, f"move {index}: seat must be in 0..{n_players - 1}, got {seat!r}")
    _require(isinstance(bot, str), f"move {index}: bot must be a name, got {bot!r}")
    _require(isinstance(action, str), f"move {index}: action must be a name such as 'pair:K', got {action!r}")
    try:
        action = COMBOS[combo_index(action)].name
    except ValueError as err:
        raise ReplayError(f"move {index}: {err}") from None
    _require(
        isinstance(cards, list) and all(isinstance(c, str) for c in cards),
        f"move {index}: cards must be a list of card strings such as '10D', got {cards!r}",
    )
    return MoveRecord(seat, bot, action, tuple(cards))
