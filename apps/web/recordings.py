"""Recorded games: the finished hands of the games whose person chose to keep them, on the serving machine.

Off by default: a game records only when its request says ``"record": true``. Each finished hand is
appended as one hand record (:mod:`sam_env.evaluation.replay`, the format of ``sam-play --record``) to
``<record dir>/<folder>/hands.jsonl``, the person's seat labelled :data:`HUMAN_LABEL` and listed in the
record's ``info`` as ``human_seats``; ``python -m sam_env.evaluation.dataset FILE --bots human`` turns
them into rows of a dataset, and the replay view shows them.

There are no accounts, so a person's recordings are those of a **token**: 144 random bits
(``secrets.token_urlsafe(18)``) that ``POST /api/games`` returns with the first recorded game and that
the page keeps (``localStorage``) and sends with the next ones. Reading the recordings back and
deleting them both take the token; the folder is named by the token's SHA-256, so neither a listing
of the record dir nor a request without the token finds whose it is, and one client cannot read or
delete another's. The server accepts only tokens it issued or that have recordings on disk.

What is stored is the record and nothing of the person beyond their moves: no address, no user
agent, no name, no time but the day (UTC) the hand ended; see docs/web.md.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import secrets
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from sam_env.agents.networks.catalogue import resolutions
from sam_env.core import Hand
from sam_env.evaluation.replay import HandRecord, ReplayError, read_records, record_hand

from .errors import Conflict, NotFound

HUMAN_LABEL = "human"
"""The person's seat in a record's ``bots`` (``--bots human`` selects their decisions in a dataset)."""
FILE_NAME = "hands.jsonl"
TOKEN_BYTES = 18
"""A token's random bytes: 144 bits, 24 URL-safe characters."""


def default_record_dir() -> Path:
    """Where ``sam-web`` keeps recordings unless told: the user's data directory (``$XDG_DATA_HOME``, else
    ``~/.local/share``; ``%LOCALAPPDATA%`` on Windows), ``sam-env/recordings`` under it."""
    base = os.environ.get("LOCALAPPDATA") if os.name == "nt" else os.environ.get("XDG_DATA_HOME")
    return Path(base or Path.home() / ".local" / "share") / "sam-env" / "recordings"


def writable(folder: Path) -> str | None:
    """None if files can be written under ``folder`` (made if missing); else why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        return f"{folder} is not writable ({err.strerror or err})"
    return None


class Recordings:
    """The recordings under ``root`` (None: this server records nothing), by token."""

    def __init__(self, root: Path | None) -> None:
        self.root = None if root is None else Path(root).expanduser().resolve()
        self._issued: set[str] = set()
        self._deleted: set[str] = set()
        """The folders (token hashes) whose recordings were deleted: a game still running under one keeps nothing
        more, so a deletion is final (the person's page has forgotten the token and could not reach new hands)."""
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self.root is not None

    def require_writable(self) -> None:
        """:class:`Conflict` saying why if a recorded game cannot be kept here (checked before one starts)."""
        if self.root is None:
            raise Conflict("this server keeps no recordings (start sam-web with --record-dir DIR)")
        problem = writable(self.root)
        if problem is not None:
            raise Conflict(f"cannot record games: {problem}; start sam-web with --record-dir DIR, a folder it writes")

    def token(self, given: str | None) -> str:
        """``given`` if this server issued it or keeps recordings under it (:class:`NotFound` otherwise), or a
        new token when None."""
        if given is None:
            new = secrets.token_urlsafe(TOKEN_BYTES)
            with self._lock:
                self._issued.add(new)
            return new
        with self._lock:
            known = given in self._issued
        if not (known or self._file(given).is_file()):
            raise NotFound(
                "unknown recording token: no recordings are kept under it on this server; omit it to start anew",
                field="recording",
            )
        return given

    def deleted(self, token: str) -> bool:
        """Whether the token's recordings were deleted (its live games then stop recording)."""
        with self._lock:
            return self._file(token).parent.name in self._deleted

    def write(self, token: str, record: HandRecord) -> bool:
        """Append one hand to the token's file (made, readable by this user only, on the first hand); False, writing
        nothing, when the token's recordings were deleted."""
        path = self._file(token)
        with self._lock:
            if path.parent.name in self._deleted:
                return False
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as file:
                file.write(record.to_json() + "\n")
            return True

    def records(self, token: str) -> list[HandRecord]:
        """The token's hands, each checked by replaying it; :class:`NotFound` when there are none."""
        path = self._file(token)
        with self._lock:
            if not path.is_file():
                raise NotFound(self._none())
            try:
                return read_records(path)
            except ReplayError as err:
                raise Conflict(f"the recordings of this token do not read back: {err}") from None

    def delete(self, token: str) -> int:
        """Delete every recording of the token; how many hands there were (:class:`NotFound` when none)."""
        path = self._file(token)
        with self._lock:
            if not path.is_file():
                raise NotFound(self._none())
            count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
            shutil.rmtree(path.parent)
            self._issued.discard(token)
            self._deleted.add(path.parent.name)
            return count

    def _file(self, token: str) -> Path:
        if self.root is None:
            raise NotFound("this server keeps no recordings (start sam-web with --record-dir DIR)")
        return self.root / hashlib.sha256(token.encode()).hexdigest()[:32] / FILE_NAME

    @staticmethod
    def _none() -> str:
        return "no recordings under this token on this server: none finished yet, deleted, or another token"


def hand_record(hand: Hand, players: list[str], seat: int, coach: str | None, number: int) -> HandRecord:
    """The record of a finished hand of a web game: the person's seat labelled :data:`HUMAN_LABEL`, the others
    by their bots' names; ``info`` says where it comes from, which seat was human, which network coached (None:
    no coach) and the day it ended."""
    labels = [HUMAN_LABEL if s == seat else name for s, name in enumerate(players)]
    info: dict[str, Any] = {
        "app": "sam-web",
        "hand": number,
        "human_seats": [seat],
        "coach": coach,
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
    }
    networks = resolutions(labels, hand.n_players)
    if networks:
        info["networks"] = networks
    return record_hand(hand, labels, info)
