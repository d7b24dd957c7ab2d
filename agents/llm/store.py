"""The language-model agent's file: replies cached by request, and the decisions of each run.

One SQLite file (:meth:`.spec.ChatSpec.cache_path`), shared by every process of a run and by every run:

* ``replies``: the server's answer to a request (its message, a refusal or a body with no message), by the SHA-256
  of the request (model, messages, temperature, max
  tokens; not the endpoint's address, so a server moved to another port keeps its replies), with its token counts
  and how long it took. A request asked again is answered from here: a re-run costs nothing and repeats its moves,
  and a run that stopped half-way (the server died, the machine was stopped) replays the finished part from here
  for free when the same command runs again.
* ``decisions``: one row per decision of a run, with what it took (replies, invalid ones, fallback, tokens,
  time): ``sam-eval`` sums them into the results file (:func:`run_usage`), whichever process made them.

SQLite serializes the writers of several processes itself (each write is one short transaction; the file is in
WAL mode so readers do not wait).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass, fields
from pathlib import Path

from .spec import CACHE_ENV

SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY, kind TEXT NOT NULL, content TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,
    latency_s REAL
);
CREATE TABLE IF NOT EXISTS decisions (
    run TEXT NOT NULL, replies INTEGER, unparsed INTEGER, illegal INTEGER, refused INTEGER, fallback INTEGER,
    calls INTEGER, cached INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, wait_s REAL, harness_s REAL
);
CREATE INDEX IF NOT EXISTS decisions_run ON decisions (run);
"""


@dataclass(frozen=True)
class Reply:
    """A server's answer: ``kind`` is ``text`` (the message's content, which may be empty), ``refused`` (a 4xx
    answer: the request was not served, ``content`` says why) or ``malformed`` (a body with no message)."""

    kind: str
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


@dataclass
class Decision:
    """What one decision took (see :func:`run_usage` for the sums)."""

    replies: int = 0
    """Replies read, the first included (from the server or the cache)."""
    unparsed: int = 0
    """Replies that named no move, several, or were empty or malformed."""
    illegal: int = 0
    """Replies that named a move not legal at the decision."""
    refused: int = 0
    """Requests the server refused (a 4xx answer such as a prompt over the model's context)."""
    fallback: int = 0
    """1 when no reply named a legal move and the fallback played."""
    calls: int = 0
    """Requests sent to the server in this run (the rest came from the cache)."""
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wait_s: float = 0.0
    """Seconds the replies took at the server, as measured when they were fetched."""
    harness_s: float = 0.0
    """Seconds the decision took here, less the waits for the server: the harness's own time."""


COLUMNS = tuple(f.name for f in fields(Decision))


class StoreError(ValueError):
    """The cache file cannot be opened or used: the message names it and how to name another."""


def request_key(request: dict[str, object]) -> str:
    """The SHA-256 of a request's canonical JSON: the cache's key."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class Store:
    """The file (see the module docstring), opened once per agent; safe for the agent's threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=120, check_same_thread=False, isolation_level=None)
            with self._lock:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as err:
            raise StoreError(
                f"cannot use {path} as the language-model agent's reply cache ({type(err).__name__}: {err}); name "
                f"another file with the spec's cache= option or {CACHE_ENV}, on a local disk (SQLite's locks are "
                "unreliable on network file systems)"
            ) from None

    def reply(self, key: str) -> Reply | None:
        with self._lock:
            row = self._db.execute(
                "SELECT kind, content, prompt_tokens, completion_tokens, latency_s FROM replies WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else Reply(*row)

    def keep(self, key: str, reply: Reply) -> Reply:
        """Keep ``reply`` for ``key`` unless one is kept already (another process or thread asked the same at the
        same time); the reply kept, which every asker then plays, so that a re-run repeats the first run."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                (key, reply.kind, reply.content, reply.prompt_tokens, reply.completion_tokens, reply.latency_s),
            )
        kept = self.reply(key)
        return reply if kept is None else kept

    def log(self, run: str, decisions: list[Decision]) -> None:
        rows = [(run, *(getattr(d, c) for c in COLUMNS)) for d in decisions]
        with self._lock:
            self._db.executemany(f"INSERT INTO decisions VALUES (?{', ?' * len(COLUMNS)})", rows)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __getstate__(self) -> dict[str, object]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]


def run_usage(path: Path, run: str) -> dict[str, int | float]:
    """The sums of a run's decisions (:class:`Decision`'s fields), with ``decisions`` and ``first_reply_legal`` (the
    decisions whose first reply named a legal move), read from the file."""
    sums = ", ".join(f"COALESCE(SUM({c}), 0)" for c in COLUMNS)
    db = sqlite3.connect(path, timeout=120)
    try:
        first_legal = "COALESCE(SUM(CASE WHEN replies = 1 AND fallback = 0 THEN 1 ELSE 0 END), 0)"
        row = db.execute(f"SELECT COUNT(*), {first_legal}, {sums} FROM decisions WHERE run = ?", (run,)).fetchone()
    finally:
        db.close()
    return dict(zip(("decisions", "first_reply_legal", *COLUMNS), row, strict=True))
