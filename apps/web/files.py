"""Files the web app reads: only under a folder given on the command line, never through ``..``.

``sam-web --serve DIR`` lets the page open hand records (``*.jsonl``, from ``--record``),
``summary.json`` files (from ``sam-eval --out``) and protocol v1 results files (``*.results.json``,
from ``sam-eval --protocol v1``: ``sam-web --serve leaderboard`` shows the leaderboard's) found
under ``DIR``, and show the plots beside them. Every path in a request is relative to that folder;
an absolute path, a ``..`` part or a symbolic link that leads outside it is refused (403) before
anything is read.
"""

from __future__ import annotations

import json
import math
from pathlib import Path, PurePosixPath
from typing import Any

from sam_env.evaluation.leaderboard import board
from sam_env.evaluation.results import FORMAT as RESULTS_FORMAT
from sam_env.evaluation.results import SUFFIX as RESULTS_SUFFIX
from sam_env.evaluation.results import ResultsError, validate

from .errors import BadRequest, Forbidden, NotFound
from .schemas import Summary, parse

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
    try:
        full = (root / parts).resolve()
    except (OSError, RuntimeError) as err:  # a name too long for the file system, a loop of links
        raise NotFound(f"no file {relative!r} in the {what}: {getattr(err, 'strerror', None) or err}") from None
    if not full.is_relative_to(root):
        raise Forbidden(f"{relative!r} leads outside the {what}")
    return full


def existing_file(root: Path | None, relative: object, what: str = "served folder") -> Path:
    """A file under ``root`` (see :func:`resolve_under`); :class:`NotFound` if there is none."""
    if root is None:
        raise NotFound("this server serves no folder of files (start it with --serve DIR)")
    path = resolve_under(root, relative, what)
    try:
        found = path.is_file()
    except OSError as err:  # e.g. a name longer than the file system allows
        raise NotFound(f"no file {relative!r} in the {what}: {err.strerror}") from None
    if not found:
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
        summary = path.name == SUMMARY_NAME or path.name.endswith(RESULTS_SUFFIX)
        key = "replays" if path.suffix == REPLAY_SUFFIX else "summaries" if summary else None
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


def parse_summary(text: str | bytes, source: str) -> dict[str, Any]:
    """A ``sam-eval`` ``summary.json`` as the leaderboard shows it; :class:`BadRequest` naming what is wrong.

    Checked by :class:`.schemas.Summary`, which names every field the board reads. A protocol v1 results
    file (:func:`parse_results`) is shown by the same tables, with its headline score."""
    if is_results(text, source):
        return parse_results(text, source)
    summary = parse(Summary, text, what=source)
    return _finite(
        {
            "source": source,
            "players": summary.config.rules.n_players,
            "deals": summary.config.deals,
            "seed": summary.config.seed,
            "matches": [m.model_dump() | {"source": source} for m in summary.matches],
            "ratings": [r.model_dump() | {"source": source} for r in summary.ratings],
        }
    )


def is_results(text: str | bytes, source: str) -> bool:
    """Whether a file is a results file: by its name, or by the format named at its start (an upload's name is free)."""
    start = text[:200] if isinstance(text, str) else text[:200].decode("utf-8", "replace")
    return source.endswith(RESULTS_SUFFIX) or f'"{RESULTS_FORMAT}"' in start


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_results(text: str | bytes, source: str) -> dict[str, Any]:
    """A protocol v1 results file as the leaderboard shows it (:func:`sam_env.evaluation.leaderboard.board`),
    checked against its schema and the protocol (:func:`sam_env.evaluation.results.validate`)."""
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as err:  # a JSONDecodeError is a ValueError; RecursionError: too deep
        raise BadRequest(f"{source}: not JSON ({err})") from None
    try:
        validate(document)
    except ResultsError as err:
        raise BadRequest(f"{source}: not a valid protocol v1 results file: {err}") from None
    return _finite(board(document, source))


def read_text(path: Path, relative: str) -> str:
    """A served file's text; :class:`BadRequest` if it is not UTF-8 (a plot, say), :class:`NotFound` if it
    cannot be read."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadRequest(f"{relative!r} is not a UTF-8 text file ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise NotFound(f"cannot read {relative!r}: {err.strerror}") from None


def summary_from_path(root: Path | None, relative: object) -> dict[str, Any]:
    """The summary at ``relative`` under ``root``, with the URLs of the plots sam-eval wrote beside it."""
    path = existing_file(root, relative)
    assert root is not None
    board = parse_summary(read_text(path, str(relative)), str(relative))
    folder = path.parent.relative_to(root.resolve())
    board["plots"] = [
        "/files/" + (folder / p.name).as_posix() for p in sorted(path.parent.glob("*.png")) if p.is_file()
    ]
    return board
