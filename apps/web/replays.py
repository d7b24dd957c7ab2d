"""Replays in the page: hand records opened once, then shown hand by hand, move by move, face up.

A file of records (:mod:`sam_env.evaluation.replay`) is read and checked in full when it is opened (upload
or a path under the served folder); it is then kept in memory under an unguessable id, like a game
(at most ``max_files``, the least recently used closing first, and expiring when idle). The page asks
for one hand at a time: its frames, the table before the first move and after each one, with every
seat's cards.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from sam_env.core import COMBOS, NO_PLAY, Phase
from sam_env.evaluation.replay import HandRecord, ReplayError, parse_records, replay

from .errors import BadRequest, NotFound
from .views import cards_json, play_order


def open_records(text: str, source: str) -> list[HandRecord]:
    """Every record of a JSON Lines text; :class:`BadRequest` with the line and what is wrong."""
    try:
        return parse_records(text.splitlines(), source)
    except ReplayError as err:
        raise BadRequest(str(err)) from None


def hand_summary(index: int, record: HandRecord) -> dict[str, Any]:
    """One line of the list of hands of a file: who played, how it ended, the money."""
    result = record.result
    return {
        "index": index,
        "players": record.rules.n_players,
        "bots": list(record.bots),
        "moves": len(record.moves),
        "reason": result.reason.value,
        "winner": result.winner,
        "net": list(result.net),
        "info": dict(record.info),
    }


def hand_frames(record: HandRecord) -> dict[str, Any]:
    """A hand as the page steps through it: the record's fields and one frame per state."""
    frames = []
    table_cards: list[str] = []
    for move, hand in replay(record):
        shown = None if move is None else move.to_dict() | {"cards": play_order(move.action, list(move.cards))}
        if shown is not None and shown["cards"]:
            table_cards = shown["cards"]
        playing = hand.phase is Phase.PLAY
        table = None
        if playing and hand.table_combo != NO_PLAY:
            table = {"action": COMBOS[hand.table_combo].name, "cards": table_cards, "seat": hand.table_owner}
        frames.append(
            {
                "move": shown,
                "cards": [cards_json(c) for c in hand.cards],
                "played": [cards_json(p) for p in hand.played],
                "table": table,
                "passed": [playing and table is not None and p for p in hand.passed],
                "out": list(hand.out),
                "to_act": None if hand.over else hand.to_act,
                "phase": hand.phase.name.lower(),
                "sam_declarer": hand.sam_declarer,
                "net": hand.net(),
            }
        )
    out = record.to_dict()
    out["frames"] = frames
    return out


class ReplayStore:
    """Opened files of records by id: at most ``max_files`` (the least recently used closes first), each
    expiring after ``idle_seconds`` unused."""

    def __init__(
        self, max_files: int = 16, idle_seconds: float = 3600.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_files = max_files
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._files: dict[str, tuple[float, list[HandRecord]]] = {}
        self._lock = threading.Lock()

    def add(self, records: list[HandRecord]) -> str:
        """Keep a file's records under a new id; when full, the least recently used file is closed (it can be
        opened again, unlike a live game)."""
        with self._lock:
            self._expire()
            while len(self._files) >= self.max_files:
                del self._files[min(self._files, key=lambda k: self._files[k][0])]
            replay_id = secrets.token_urlsafe(18)
            self._files[replay_id] = (self.clock(), records)
            return replay_id

    def hand(self, replay_id: str, index: int) -> HandRecord:
        with self._lock:
            self._expire()
            if replay_id not in self._files:
                raise NotFound(f"no open replay {replay_id!r}: unknown, or expired; open the file again")
            _, records = self._files[replay_id]
            self._files[replay_id] = (self.clock(), records)
        if not 0 <= index < len(records):
            raise NotFound(f"no hand {index} in this file: it has hands 0 to {len(records) - 1}")
        return records[index]

    def _expire(self) -> None:
        now = self.clock()
        for key, (used, _) in list(self._files.items()):
            if now - used > self.idle_seconds:
                del self._files[key]
