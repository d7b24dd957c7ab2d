"""Results files: one candidate on one track of protocol v1, as JSON that anyone can validate and compare.

The file's shape is a JSON Schema shipped with the package (``schemas/results-v2.json``,
:func:`schema`), checked with the ``jsonschema`` library. :func:`validate` checks a file against the
schema, against the protocol (the deal-set hash, seed and deal count are the track's, the rules are the
defaults, the rows are the track's suite in order with its deals) and against itself: every row keeps
its per-deal values (the candidate's money and wins per deal, and for a panel row the heuristic's money
on the same deals), and every figure of the file — each row's X/hand, interval and win rate, the panel
margins, the headline's per-deal values, score and interval — is computed again from them
(:func:`~.protocol_run.row_from_per_deal`, the function a run writes them with) and must match. An edit of
any stored number is refused with a :class:`ResultsError` that names the field (``rows[3].win_rate``).

What no file can prove by itself: that the per-deal values are what the candidate played (``sam-eval
--reproduce`` plays them again), and what produced them (the fingerprint, the command, the machine).

Format 1 (sam-env 0.3) kept no per-deal values of its rows, so only its headline can be recomputed:
:func:`validate` refuses it, naming the way to format 2 (``sam-eval --reproduce FILE --out DIR``), and
``legacy=True`` reads it for what it is, a record whose rows are as written.

Nothing already written is lost: :func:`write_results` refuses a path that exists.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.aec_env import raw_env
from sam_env.encoding import ENCODING_VERSION, ENCODING_VERSIONS

from .fingerprints import fingerprint
from .llm_results import check_agent_block
from .matches import Match
from .protocol import NAME, PROTOCOL_ID, SEED, VERSION, ProtocolError, Track, rules_for
from .protocol_run import PerDeal, Scores, headline_of, headline_of_rows, row_from_per_deal
from .provenance import machine, package_source, package_version
from .stats import paired_difference
from .suites import Opponent

FORMAT = "sam-env-results"
FORMAT_VERSION = 2
LEGACY_FORMAT_VERSION = 1
"""Format 1 (sam-env 0.3): rows without their per-deal values; read only with ``legacy=True``."""
SCHEMA_FILES = {FORMAT_VERSION: "results-v2.json", LEGACY_FORMAT_VERSION: "results-v1.json"}
SUFFIX = ".results.json"
"""How a results file's name ends: sam-web and the leaderboard find them by it."""
TOLERANCE = 1e-9
"""How far a recomputed figure may sit from the file's: the same arithmetic on the same values, so only the order
of a sum (another numpy) can move it, far below the printed digits."""


class ResultsError(ValueError):
    """A results file that is not a valid protocol v1 result; ``field`` is where (``rows[2].deals``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


@cache
def schema(format_version: int = FORMAT_VERSION) -> dict[str, Any]:
    """The JSON Schema of results files of a format (package data: ``sam_env/evaluation/schemas/``)."""
    name = SCHEMA_FILES[format_version]
    text = resources.files("sam_env.evaluation").joinpath("schemas", name).read_text(encoding="utf-8")
    return json.loads(text)


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
        "package": {"name": "sam-env", "version": package_version(), **package_source()},
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
        **({} if scores.agent is None else {"agent": scores.agent}),
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
    """The file's text: indented JSON, with each list of per-deal values on one line (thousands of numbers)."""
    inline: dict[str, str] = {}

    def marked(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: marked(v) for k, v in value.items()}
        if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
            marker = f"\0list{len(inline)}\0"
            inline[json.dumps(marker)] = json.dumps(value, separators=(",", ":"), allow_nan=False)
            return marker
        if isinstance(value, list):
            return [marked(v) for v in value]
        return value

    text = json.dumps(marked(document), indent=1, ensure_ascii=False, allow_nan=False)
    for marker, values in inline.items():
        text = text.replace(marker, values, 1)
    return text + "\n"


def read_results(path: str | os.PathLike, *, legacy: bool = False) -> dict[str, Any]:
    """A results file's JSON, validated (:func:`validate`, which ``legacy`` is passed to); :class:`ResultsError`
    naming the fault."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ResultsError("", f"cannot read {path}: {err}") from None
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as err:
        raise ResultsError("", f"{path} is not JSON: {err}") from None
    validate(document, legacy=legacy)
    return document


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _where(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _schema_sample(value: Any) -> Any:
    """``value`` with each long list of plain numbers of one type cut to its first two values, its least and its
    greatest: what the schema asks of such a list's items (a type, a minimum) holds for all of them when it holds for
    those, and jsonschema checks items one by one (thousands of per-deal values a file). Any other list is kept
    whole, so a wrong item is still named at its place."""
    if isinstance(value, dict):
        return {key: _schema_sample(item) for key, item in value.items()}
    if isinstance(value, list):
        kinds = {type(item) for item in value}
        if len(value) > 4 and len(kinds) == 1 and kinds <= {int, float}:
            return [*value[:2], min(value), max(value)]
        return [_schema_sample(item) for item in value]
    return value


def check_schema(document: object, format_version: int = FORMAT_VERSION) -> None:
    """Check ``document`` against the JSON Schema of its format; :class:`ResultsError` naming the first wrong field."""
    from jsonschema import Draft202012Validator  # a base dependency, imported when a file is checked

    errors = sorted(
        Draft202012Validator(schema(format_version)).iter_errors(_schema_sample(document)),
        key=lambda e: (len(e.path), list(e.path)),
    )
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


def validate(document: object, *, legacy: bool = False) -> None:
    """Check a results document against its schema, protocol v1 and itself (every figure recomputed from the
    per-deal values it keeps); :class:`ResultsError` naming the first field that fails.

    The protocol comes first, so that a file of another protocol is named as such rather than by the
    first field its schema would differ in. A format-1 file is refused unless ``legacy``: then it is
    checked as format 1 could be (its schema, the protocol, the headline from its per-deal values).
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
    format_version = document.get("format_version")
    if format_version == LEGACY_FORMAT_VERSION and not legacy:
        raise ResultsError(
            "format_version",
            "is 1: a format-1 file (sam-env 0.3) keeps no per-deal values of its rows, so its rows cannot be "
            f"recomputed and an edit of them would pass; play it again in format {FORMAT_VERSION} with "
            "sam-eval --reproduce FILE --out DIR",
        )
    is_legacy = legacy and format_version == LEGACY_FORMAT_VERSION
    check_schema(document, LEGACY_FORMAT_VERSION if is_legacy else FORMAT_VERSION)
    track = check_protocol(document)
    if is_legacy:
        _check_legacy_rows(track, document["rows"])
        _check_legacy_headline(track, document["headline"], document["rows"])
    else:
        check_figures(track, document)
        wrong = check_agent_block(document)
        if wrong:
            raise ResultsError(*wrong)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE)


def check_protocol(document: dict[str, Any]) -> Track:
    """The checks a schema cannot make on the protocol: the file's numbers are protocol v1's track (the document
    is already known to match the schema); the track."""
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
    encoding = document["environment"]["encoding_version"]
    if encoding not in ENCODING_VERSIONS:
        raise ResultsError(
            "environment.encoding_version", f"is {encoding!r}; this sam-env's encodings are {list(ENCODING_VERSIONS)}"
        )
    rules = rules_for(track.players).to_dict()
    for key, value in rules.items():
        if json.dumps(document["rules"].get(key, "(missing)")) != json.dumps(value):  # 1 is not true, 3.0 not 3
            raise ResultsError(
                f"rules.{key}", f"is {document['rules'].get(key, '(missing)')!r}; protocol {NAME} plays {value!r}"
            )
    unknown = sorted(set(document["rules"]) - set(rules))
    if unknown:
        raise ResultsError(f"rules.{unknown[0]}", "is not a rule option of this sam-env")
    suite = track.opponents
    names = [o.name for o in suite]
    if len(document["rows"]) != len(suite):
        raise ResultsError(
            "rows", f"has {len(document['rows'])} rows; the {_name(track)} has one per opponent: {names}"
        )
    if document["headline"]["opponents"] != list(track.headline_opponents):
        raise ResultsError("headline.opponents", f"must be {list(track.headline_opponents)}")
    return track


def _name(track: Track) -> str:
    return f"{track.players}-player {track.tier} tier"


def check_figures(track: Track, document: dict[str, Any]) -> None:
    """Recompute every row and the headline from the rows' per-deal values; :class:`ResultsError` naming the first
    stored value that differs."""
    rows = []
    for i, (stored, opponent) in enumerate(zip(document["rows"], track.opponents, strict=True)):
        per_deal = _per_deal(track, stored, opponent, f"rows[{i}]")
        label = Match("candidate", (opponent.name,) * (track.players - 1)).opponents_label
        again = row_from_per_deal(opponent.name, opponent.group, label, per_deal)
        _check_same(f"rows[{i}]", stored, again.to_dict())
        rows.append(again)
    again = headline_of_rows(rows, track.headline_opponents)
    stored = document["headline"]
    if len(stored["per_deal"]) != track.deals:
        raise ResultsError("headline.per_deal", f"has {len(stored['per_deal'])} values; one per deal: {track.deals}")
    for d, (value, recomputed) in enumerate(zip(stored["per_deal"], again.per_deal, strict=True)):
        if not _close(value, recomputed):
            raise ResultsError(f"headline.per_deal[{d}]", f"is {value}; the rows' values of deal {d} give {recomputed}")
    _check_same("headline", stored, again.to_dict())


def _per_deal(track: Track, row: dict[str, Any], opponent: Opponent, where: str) -> PerDeal:
    """A row's per-deal values, checked against the track: one per deal, the ``n`` rotations, wins within them."""
    values = row["per_deal"]
    if values["seatings"] != track.players:
        raise ResultsError(
            f"{where}.per_deal.seatings", f"is {values['seatings']}; every deal is played in {track.players} rotations"
        )
    keys = ["net", "wins", *(["heuristic_net"] if opponent.group == "panel" else [])]
    if "heuristic_net" in values and opponent.group != "panel":
        raise ResultsError(f"{where}.per_deal.heuristic_net", "only panel rows carry the heuristic's money")
    for key in keys:
        if key not in values:
            raise ResultsError(f"{where}.per_deal.{key}", "is missing")
        if len(values[key]) != track.deals:
            raise ResultsError(f"{where}.per_deal.{key}", f"has {len(values[key])} values; one per deal: {track.deals}")
    too_many = [d for d, w in enumerate(values["wins"]) if w > track.players]
    if too_many:
        raise ResultsError(f"{where}.per_deal.wins[{too_many[0]}]", f"is more than the deal's {track.players} hands")
    return PerDeal(values["seatings"], values["net"], values["wins"], values.get("heuristic_net"))


MISSING = object()
"""A field one side of :func:`differences` lacks."""


def differences(stored: Any, recomputed: Any, where: str) -> Iterator[tuple[str, Any, Any]]:
    """``(field, stored value, recomputed value)`` for every field where a stored part of a results file and its
    recomputed twin differ: numbers within :data:`TOLERANCE` (a bool is no number), lists element by element up to
    the recomputed one's length (a sample's values are the start of the whole run's; the first that differs names
    the list), a key on one side only as :data:`MISSING` on the other. The one comparison of the validator and of
    ``sam-eval --reproduce``."""
    if isinstance(recomputed, dict) and isinstance(stored, dict):
        for key in sorted(set(stored) - set(recomputed)):
            yield f"{where}.{key}", stored[key], MISSING
        for key, value in recomputed.items():
            yield from differences(stored.get(key, MISSING), value, f"{where}.{key}")
    elif isinstance(recomputed, list) and isinstance(stored, list):
        if stored[: len(recomputed)] == recomputed:  # equal to the last bit (the usual case): no walk of its values
            return
        for d, value in enumerate(recomputed):
            first = next(differences(stored[d] if d < len(stored) else MISSING, value, f"{where}[{d}]"), None)
            if first is not None:
                yield first
                return
    elif not _same(stored, recomputed):
        yield where, stored, recomputed


def _same(a: Any, b: Any) -> bool:
    numbers = isinstance(a, (int, float)) and isinstance(b, (int, float))
    if numbers and not isinstance(a, bool) and not isinstance(b, bool):
        return _close(a, b) if isinstance(a, float) or isinstance(b, float) else a == b
    return type(a) is type(b) and a == b


def _check_same(where: str, stored: dict[str, Any], recomputed: dict[str, Any]) -> None:
    """The first field where ``stored`` and ``recomputed`` differ (:func:`differences`), as a :class:`ResultsError`."""
    for field, old, new in differences(stored, recomputed, where):
        if new is MISSING:
            raise ResultsError(field, "is not a field of this row" if "rows" in where else "is unknown")
        if old is MISSING:
            raise ResultsError(field, "is missing")
        raise ResultsError(field, f"is {old!r}; its per-deal values give {new!r}")


def _check_legacy_rows(track: Track, rows: list[dict[str, Any]]) -> None:
    """A format-1 file's rows: the track's suite, deals and hands, each mean inside its interval."""
    hands = track.deals * track.players
    for i, (row, opponent) in enumerate(zip(rows, track.opponents, strict=True)):
        expected = {"opponent": opponent.name, "group": opponent.group, "deals": track.deals, "hands": hands}
        for key, value in expected.items():
            if row[key] != value:
                raise ResultsError(f"rows[{i}].{key}", f"is {row[key]!r}; the {_name(track)} has {value!r} here")
        if not row["ci_low"] <= row["x_per_hand"] <= row["ci_high"]:
            raise ResultsError(f"rows[{i}].x_per_hand", "lies outside its interval [ci_low, ci_high]")
        if (opponent.group == "panel") != ("margin" in row):
            raise ResultsError(f"rows[{i}].margin", "panel rows carry a margin, and only they")


def _check_legacy_headline(track: Track, headline: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """A format-1 file's headline: from the per-deal values it keeps, and the mean of its rows'."""
    if len(headline["per_deal"]) != track.deals:
        raise ResultsError("headline.per_deal", f"has {len(headline['per_deal'])} values; one per deal: {track.deals}")
    again = headline_of(headline["per_deal"], track.headline_opponents)
    for key, value in (("score", again.score), ("ci_low", again.ci_low), ("ci_high", again.ci_high)):
        if not math.isclose(headline[key], value, abs_tol=1e-6):
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
