"""Files the web app reads: only under a folder given on the command line, never through ``..``.

``sam-web --serve DIR`` lets the page open hand records (``*.jsonl``, from ``--record``) and
``summary.json`` files (from ``sam-eval --out``) found under ``DIR``, and show the plots beside
them. Every path in a request is relative to that folder; an absolute path, a ``..`` part or a
symbolic link that leads outside it is refused (403) before anything is read.
"""

from __future__ import annotations

import json
import math
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import BadRequest, Forbidden, NotFound

REPLAY_SUFFIX = ".jsonl"
SUMMARY_NAME = "summary.json"
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}
MAX_LISTED = 500


def resolve_under(root: Path, relative: object, what: str = "served folder") -> Path:
    """``root / relative`` if it stays inside ``root`` (symbolic links resolved); else :class:`Forbidden`."""
    if not isinstance(relative, str) or not relative.strip() or "\x00" in relative:
        raise BadRequest(f"a path relative to the {what} is a non-empty string, got {relative!r}")
    parts = PurePosixPath(relative.replace("\\", "/"))
    if parts.is_absolute() or ".." in parts.parts or (parts.parts and ":" in parts.parts[0]):
        raise Forbidden(f"{relative!r} is not a path inside the {what}: give it relative to that folder, without '..'")
    root = root.resolve()
    full = (root / parts).resolve()
    if not full.is_relative_to(root):
        raise Forbidden(f"{relative!r} leads outside the {what}")
    return full


def existing_file(root: Path | None, relative: object, what: str = "served folder") -> Path:
    """A file under ``root`` (see :func:`resolve_under`); :class:`NotFound` if there is none."""
    if root is None:
        raise NotFound("this server serves no folder of files (start it with --serve DIR)")
    path = resolve_under(root, relative, what)
    if not path.is_file():
        raise NotFound(f"no file {relative!r} in the {what}")
    return path


def listing(root: Path | None) -> dict[str, list[str]]:
    """The hand records and evaluation summaries under ``root``, as relative paths."""
    if root is None:
        return {"replays": [], "summaries": []}
    root = root.resolve()
    found: dict[str, list[str]] = {"replays": [], "summaries": []}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or not path.resolve().is_relative_to(root):
            continue
        key = "replays" if path.suffix == REPLAY_SUFFIX else "summaries" if path.name == SUMMARY_NAME else None
        if key and len(found[key]) < MAX_LISTED:
            found[key].append(path.relative_to(root).as_posix())
    return found


def _finite(value: Any) -> Any:
    """JSON-safe: NaN (an interval over one deal) becomes ``None``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


MATCH_FIELDS = ("agent", "opponents", "hands", "x_per_hand", "ci_low", "ci_high", "win_rate")
RATING_FIELDS = ("agent", "x_per_hand", "mu", "sigma", "ordinal", "games")


def parse_summary(text: str, source: str) -> dict[str, Any]:
    """A ``sam-eval`` ``summary.json`` as the leaderboard shows it; :class:`BadRequest` naming what is missing."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise BadRequest(f"{source}: not JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("matches"), list):
        raise BadRequest(f"{source}: not a sam-eval summary.json (expected an object with 'matches' and 'ratings')")
    for key, fields in (("matches", MATCH_FIELDS), ("ratings", RATING_FIELDS)):
        rows = data.get(key, [])
        if not isinstance(rows, list) or not all(isinstance(r, dict) and all(f in r for f in fields) for r in rows):
            raise BadRequest(f"{source}: every entry of '{key}' needs {list(fields)}")
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    rules = config.get("rules") if isinstance(config.get("rules"), dict) else {}
    return _finite(
        {
            "source": source,
            "players": rules.get("n_players"),
            "deals": config.get("deals"),
            "seed": config.get("seed"),
            "matches": [{f: m[f] for f in (*MATCH_FIELDS, "deals")} | {"source": source} for m in data["matches"]],
            "ratings": [{f: r[f] for f in RATING_FIELDS} | {"source": source} for r in data.get("ratings", [])],
        }
    )


def summary_from_path(root: Path | None, relative: object) -> dict[str, Any]:
    """The summary at ``relative`` under ``root``, with the URLs of the plots sam-eval wrote beside it."""
    path = existing_file(root, relative)
    assert root is not None
    board = parse_summary(path.read_text(encoding="utf-8"), str(relative))
    folder = path.parent.relative_to(root.resolve())
    board["plots"] = [
        "/files/" + (folder / p.name).as_posix() for p in sorted(path.parent.glob("*.png")) if p.is_file()
    ]
    return board
