"""Results files: one candidate on one track of protocol v1, as JSON that anyone can validate and compare.

The file's shape is a JSON Schema shipped with the package (``schemas/results-v1.json``,
:func:`schema`), checked with the ``jsonschema`` library. :func:`validate` checks a file against the
schema *and* against the protocol: the deal-set hash, seed and deal count are the track's, the rules
are the defaults, the rows are the track's suite in order with its deals, and the headline is the mean
of the per-deal values it carries and of its rows. A file that fails is refused with a
:class:`ResultsError` that names the field (``protocol.deal_set_sha256``, ``rows[3].deals``).

Nothing already written is lost: :func:`write_results` refuses a path that exists.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
from datetime import datetime, timezone
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.aec_env import raw_env
from sam_env.encoding import ENCODING_VERSION

from .fingerprints import fingerprint
from .protocol import NAME, PROTOCOL_ID, SEED, VERSION, ProtocolError, Track, rules_for
from .protocol_run import Scores, headline_of, load_average
from .stats import paired_difference

FORMAT = "sam-env-results"
FORMAT_VERSION = 1
SCHEMA_FILE = "results-v1.json"
SUFFIX = ".results.json"
"""How a results file's name ends: sam-web and the leaderboard find them by it."""
TOLERANCE = 1e-6
"""How far a recomputed number (the headline from its per-deal values, or from its rows) may sit from the file's."""


class ResultsError(ValueError):
    """A results file that is not a valid protocol v1 result; ``field`` is where (``rows[2].deals``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of results files (package data: ``sam_env/evaluation/schemas/results-v1.json``)."""
    text = resources.files("sam_env.evaluation").joinpath("schemas", SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def package_version() -> str:
    try:
        return metadata.version("sam-env")
    except metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
        return "unknown"


def _processor() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(workers: int, load_at_start: float | None) -> dict[str, Any]:
    """The machine a run was measured on, and how busy it was (the 1-minute load average, start and end)."""
    end = load_average()
    return {
        "platform": platform.platform(),
        "processor": _processor(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "workers": workers,
        "load_average": None if load_at_start is None or end is None else [load_at_start, end],
    }


def build_results(track: Track, scores: Scores, command: str) -> dict[str, Any]:
    """The results document of one candidate's :class:`~.protocol_run.Scores` on ``track``."""
    spec = scores.spec
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "protocol": {
            "id": PROTOCOL_ID,
            "version": VERSION,
            "tier": track.tier,
            "players": track.players,
            "seed": SEED,
            "deals": track.deals,
            "deal_set_sha256": track.pinned_sha256,
        },
        "environment": {"name": raw_env.metadata["name"], "encoding_version": ENCODING_VERSION},
        "package": {"name": "sam-env", "version": package_version()},
        "rules": track.rules.to_dict(),
        "candidate": {
            "spec": os.fspath(spec) if isinstance(spec, (str, os.PathLike)) else scores.label,
            "label": scores.label,
            "fingerprint": fingerprint(spec, track.rules),
        },
        "rows": [r.to_dict() for r in scores.rows],
        "headline": scores.headline.to_dict(),
        "command": command,
        "machine": machine(scores.workers, scores.load_at_start),
        "wall_time_s": round(scores.wall_time_s, 1),
        "cpu_time_s": None if scores.cpu_time_s is None else round(scores.cpu_time_s, 1),
        "candidates_in_run": scores.candidates_in_run,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def file_name(label: str, players: int, tier: str) -> str:
    """``<label>.v1-<n>p-<tier>.results.json``, the label reduced to letters, digits, ``.``, ``_`` and ``-``."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(label).name if label.endswith(".json") else label).strip("._")
    return f"{slug or 'candidate'}.{NAME}-{players}p-{tier}{SUFFIX}"


def write_results(path: str | os.PathLike, document: dict[str, Any]) -> Path:
    """Validate ``document`` and write it to ``path``; refuse (``FileExistsError``) a path that exists."""
    validate(document)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = dumps(document)
    with path.open("x", encoding="utf-8") as f:  # "x": never over an earlier result
        f.write(text)
    return path


def dumps(document: dict[str, Any]) -> str:
    """The file's text: indented JSON, with the per-deal values on one line (thousands of numbers)."""
    marker = "\0per_deal\0"
    headline = {**document["headline"], "per_deal": marker}
    text = json.dumps({**document, "headline": headline}, indent=1, ensure_ascii=False, allow_nan=False)
    per_deal = json.dumps(document["headline"]["per_deal"], separators=(",", ":"), allow_nan=False)
    return text.replace(json.dumps(marker), per_deal, 1) + "\n"


def read_results(path: str | os.PathLike) -> dict[str, Any]:
    """A results file's JSON, validated (:func:`validate`); :class:`ResultsError` naming the fault."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ResultsError("", f"cannot read {path}: {err}") from None
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as err:
        raise ResultsError("", f"{path} is not JSON: {err}") from None
    validate(document)
    return document


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _where(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check_schema(document: object) -> None:
    """Check ``document`` against the JSON Schema; :class:`ResultsError` naming the first wrong field."""
    from jsonschema import Draft202012Validator  # a base dependency, imported when a file is checked

    errors = sorted(Draft202012Validator(schema()).iter_errors(document), key=lambda e: (len(e.path), list(e.path)))
    if not errors:
        return
    error = errors[0]
    field = _where(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        field = f"{field}.{missing[0]}" if field else missing[0]
        raise ResultsError(field, "is missing")
    if error.validator == "const":
        raise ResultsError(field, f"is {error.instance!r}; expected {error.validator_value!r}")
    raise ResultsError(field or "(the file)", error.message)


def validate(document: object) -> None:
    """Check a results document against the schema and against protocol v1; :class:`ResultsError` if it fails.

    The protocol comes first, so that a file of another protocol is named as such rather than by the
    first field its schema would differ in.
    """
    if not isinstance(document, dict):
        raise ResultsError("(the file)", f"a results file is a JSON object, got {type(document).__name__}")
    protocol = document.get("protocol")
    if isinstance(protocol, dict) and (protocol.get("id"), protocol.get("version")) != (PROTOCOL_ID, VERSION):
        field = "protocol.id" if protocol.get("id") != PROTOCOL_ID else "protocol.version"
        raise ResultsError(
            field,
            f"a result of protocol {protocol.get('id')!r} version {protocol.get('version')!r}; this sam-env checks "
            f"protocol {PROTOCOL_ID!r} version {VERSION} ({NAME})",
        )
    check_schema(document)
    check_protocol(document)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE)


def check_protocol(document: dict[str, Any]) -> None:
    """The checks a schema cannot make: the file's numbers are protocol v1's track (the document is
    already known to match the schema)."""
    protocol = document["protocol"]
    try:
        track = Track(protocol["players"], protocol["tier"])
    except ProtocolError as err:
        raise ResultsError("protocol", str(err)) from None
    expected = {"seed": SEED, "deals": track.deals, "deal_set_sha256": track.pinned_sha256}
    for key, value in expected.items():
        if protocol[key] != value:
            raise ResultsError(
                f"protocol.{key}", f"is {protocol[key]!r}; protocol {NAME}'s {_name(track)} has {value!r}"
            )
    rules = rules_for(track.players).to_dict()
    for key, value in rules.items():
        if document["rules"].get(key, "(missing)") != value:
            raise ResultsError(
                f"rules.{key}", f"is {document['rules'].get(key, '(missing)')!r}; protocol {NAME} plays {value!r}"
            )
    unknown = sorted(set(document["rules"]) - set(rules))
    if unknown:
        raise ResultsError(f"rules.{unknown[0]}", "is not a rule option of this sam-env")
    _check_rows(track, document["rows"])
    _check_headline(track, document["headline"], document["rows"])


def _name(track: Track) -> str:
    return f"{track.players}-player {track.tier} tier"


def _check_rows(track: Track, rows: list[dict[str, Any]]) -> None:
    suite = track.opponents
    names = [o.name for o in suite]
    if len(rows) != len(suite):
        raise ResultsError("rows", f"has {len(rows)} rows; the {_name(track)} has one per opponent: {names}")
    hands = track.deals * track.players
    for i, (row, opponent) in enumerate(zip(rows, suite, strict=True)):
        expected = {"opponent": opponent.name, "group": opponent.group, "deals": track.deals, "hands": hands}
        for key, value in expected.items():
            if row[key] != value:
                raise ResultsError(f"rows[{i}].{key}", f"is {row[key]!r}; the {_name(track)} has {value!r} here")
        if not row["ci_low"] <= row["x_per_hand"] <= row["ci_high"]:
            raise ResultsError(f"rows[{i}].x_per_hand", "lies outside its interval [ci_low, ci_high]")
        if (opponent.group == "panel") != ("margin" in row):
            raise ResultsError(f"rows[{i}].margin", "panel rows carry a margin, and only they")


def _check_headline(track: Track, headline: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    if headline["opponents"] != list(track.headline_opponents):
        raise ResultsError("headline.opponents", f"must be {list(track.headline_opponents)}")
    if len(headline["per_deal"]) != track.deals:
        raise ResultsError("headline.per_deal", f"has {len(headline['per_deal'])} values; one per deal: {track.deals}")
    again = headline_of(headline["per_deal"], track.headline_opponents)
    for key, value in (("score", again.score), ("ci_low", again.ci_low), ("ci_high", again.ci_high)):
        if not _close(headline[key], value):
            raise ResultsError(f"headline.{key}", f"is {headline[key]}; its per-deal values give {value}")
    from_rows = float(np.mean([r["x_per_hand"] for r in rows if r["opponent"] in track.headline_opponents]))
    if not math.isclose(headline["score"], from_rows, abs_tol=1e-4):
        raise ResultsError("headline.score", f"is {headline['score']}; the mean of its rows' x_per_hand is {from_rows}")


def paired_headlines(first: dict[str, Any], second: dict[str, Any]) -> tuple[float, float, float]:
    """``(mean, low, high)`` of the first file's headline minus the second's, paired deal by deal.

    Two results files of one track and tier score the same deals in the same seatings, so their
    ``headline.per_deal`` values pair up (:func:`~sam_env.evaluation.stats.paired_difference`): the
    interval of the difference leaves out the cards of each deal, which both candidates were dealt,
    and is much narrower than the two headline intervals side by side. Files of different tracks,
    tiers or deal sets do not pair: :class:`ResultsError` names the field that differs.
    """
    for field in ("id", "version", "players", "tier", "deal_set_sha256"):
        if first["protocol"][field] != second["protocol"][field]:
            raise ResultsError(
                f"protocol.{field}",
                f"differs ({first['protocol'][field]!r} and {second['protocol'][field]!r}): only results of one "
                "track and tier score the same deals",
            )
    return paired_difference(first["headline"]["per_deal"], second["headline"]["per_deal"])
