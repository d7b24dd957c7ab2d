"""Reproducing a results file: its candidate rebuilt from the file, its track played again, every stored value compared.

A results file (:mod:`.results`) names its candidate by spec and fingerprint, and its track and tier fix
everything else (:mod:`.protocol`), so anyone can play it again: :func:`reproduce` rebuilds the candidate
from ``candidate.spec``, checks that today's fingerprint (:func:`~.fingerprints.fingerprint`) is the file's,
plays the track on the same deals with the same seeds, and compares

* with the whole track: every figure the file stores — each row's X/hand, interval, win rate and margin,
  its per-deal values (format 2), the headline's per-deal values, score and interval;
* with a sample (``deals``: the track's first deals, each played exactly as in the whole run): the per-deal
  values of those deals, which is all a part of a run can be held to.

Every bot is reseeded for every hand from the protocol's seed, so a candidate whose moves depend only on
what it sees and on its seeded draws reproduces to the last digit, on any machine and number of workers.
Anything else (a bot that reads the clock, a network on a GPU whose sums change order) shows how far
it moved: the difference of the headline, reproduced minus stored, paired over deals with its interval
(:func:`~.stats.paired_difference`).

Files of one track and tier are played in one run (their candidates share the deals and the heuristic's
panel matches, as a run of several candidates does); a candidate given to ``sam-eval`` as an object, not a
spec, cannot be rebuilt from a file and is refused with that reason before any hand.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .fingerprints import fingerprint
from .protocol import NAME, Track
from .protocol_run import Scores, run_track
from .results import LEGACY_FORMAT_VERSION, build_results, differences, read_results
from .stats import paired_difference


@dataclass(frozen=True)
class Difference:
    """One stored value that the reproduction does not give."""

    field: str
    stored: object
    reproduced: object


@dataclass
class Reproduction:
    """What playing one results file again gave: the differences, and the paired difference of the headlines."""

    path: Path
    document: dict[str, Any]
    deals: int
    """Deals played: the track's, or the sample's."""
    scores: Scores | None = None
    differences: list[Difference] = field(default_factory=list)
    headline_shift: tuple[float, float, float] | None = None
    """Reproduced minus stored headline, per deal: ``(mean, low, high)``; None when every value is equal."""

    @property
    def whole(self) -> bool:
        """Whether the whole track was played (then a reproduced results file can be written)."""
        return self.deals == self.document["protocol"]["deals"]

    @property
    def equal(self) -> bool:
        return not self.differences

    def reproduced_document(self) -> dict[str, Any]:
        """The results file the reproduction makes (format of today, today's fingerprint and package), with the
        protocol command that plays it; only for a whole track."""
        if not self.whole or self.scores is None:
            raise ValueError(f"{self.path}: a sample of {self.deals} deals is not a results file; play the whole track")
        protocol = self.document["protocol"]
        command = shlex.join(
            [
                "sam-eval",
                "--protocol",
                NAME,
                "--players",
                str(protocol["players"]),
                "--tier",
                protocol["tier"],
                "--candidates",
                self.document["candidate"]["spec"],
            ]
        )
        return build_results(Track(protocol["players"], protocol["tier"]), self.scores, command)


def read_files(paths: Sequence[str | os.PathLike]) -> list[Reproduction]:
    """The files to reproduce, read and validated (format 1 as the record it is: ``legacy``)."""
    return [Reproduction(Path(p), read_results(p, legacy=True), 0) for p in paths]


def groups(reproductions: Sequence[Reproduction]) -> Iterator[list[Reproduction]]:
    """The files played together: one track and tier, no two candidates of one label."""
    by_track: dict[tuple[int, str], list[list[Reproduction]]] = {}
    for item in reproductions:
        protocol = item.document["protocol"]
        runs = by_track.setdefault((protocol["players"], protocol["tier"]), [])
        label = item.document["candidate"]["label"]
        run = next((r for r in runs if all(o.document["candidate"]["label"] != label for o in r)), None)
        if run is None:
            runs.append(run := [])
        run.append(item)
    for runs in by_track.values():
        yield from runs


def reproduce(
    paths: Sequence[str | os.PathLike], deals: int | None = None, workers: int | None = None, progress: bool = True
) -> list[Reproduction]:
    """Play every file's track again (``deals``: only its first deals) and compare; one :class:`Reproduction` each,
    in the order of ``paths``."""
    done = {id(item): item for run in reproduce_runs(paths, deals, workers, progress) for item in run}
    return sorted(done.values(), key=lambda item: [str(p) for p in paths].index(str(item.path)))


def reproduce_runs(
    paths: Sequence[str | os.PathLike], deals: int | None = None, workers: int | None = None, progress: bool = True
) -> Iterator[list[Reproduction]]:
    """:func:`reproduce`, one run at a time: the files of each run, compared, as soon as it ends.

    Every file is read and every candidate's spec checked before the first hand: :class:`~.results.ResultsError`
    for a file that is not a valid results file, ``ValueError`` for a candidate that cannot be rebuilt here (one that
    cannot play its table is refused before its run's first hand)."""
    items = read_files(paths)
    specs = {id(item): rebuildable_spec(item) for item in items}
    for run in groups(items):
        protocol = run[0].document["protocol"]
        track = Track(protocol["players"], protocol["tier"])
        played = track.deals if deals is None else min(deals, track.deals)
        labels = [item.document["candidate"]["label"] for item in run]
        run_specs = [specs[id(item)] for item in run]
        all_scores = run_track(track, run_specs, workers=workers, progress=progress, labels=labels, deals=played)
        for item, spec, scores in zip(run, run_specs, all_scores, strict=True):
            item.deals, item.scores = played, scores
            today = fingerprint(spec, track.rules)
            item.differences = [*fingerprint_differences(item.document, today), *compare(item.document, scores)]
            item.headline_shift = None if item.equal else headline_shift(item.document, scores)
        yield run


def rebuildable_spec(item: Reproduction) -> str:
    """The spec a file's candidate is rebuilt from; ``ValueError`` when it names nothing this machine can build (an
    object given to sam-eval in code, whose name is all the file keeps, or a path of another machine)."""
    from sam_env.agents.code_specs import is_code_spec
    from sam_env.agents.llm import is_chat_spec
    from sam_env.agents.registry import FACTORIES

    spec = item.document["candidate"]["spec"]
    if spec in FACTORIES or is_code_spec(spec) or is_chat_spec(spec) or Path(spec).exists():
        return spec
    raise ValueError(
        f"{item.path}: its candidate {spec!r} cannot be rebuilt here: it is no bot name, no code spec "
        "('module:attr', 'file.py:attr') and no path on this machine (an object given to sam-eval in code keeps "
        "only its name; a checkpoint keeps the path it had where it was evaluated)"
    )


def fingerprint_differences(document: dict[str, Any], today: dict[str, Any]) -> list[Difference]:
    """The fingerprint's hash and kind today beside the file's, where they differ. Its ``of`` sentence is a
    description, whose wording may change between versions while the hash does not: not compared."""
    stored = document["candidate"]["fingerprint"]
    return [
        Difference(f"candidate.fingerprint.{key}", stored[key], today[key])
        for key in ("sha256", "kind")
        if stored[key] != today[key]
    ]


def compare(document: dict[str, Any], scores: Scores) -> list[Difference]:
    """Every stored value the reproduction can be held to (see the module docstring) that it does not give: with
    the whole track every field of the rows and the headline (:func:`~.results.differences`, the validator's own
    comparison), with a sample the per-deal values of its deals. A format-1 file's rows keep no per-deal values, so
    none are compared there."""
    whole = len(scores.headline.per_deal) == document["protocol"]["deals"]
    rows = zip(document["rows"], scores.rows, strict=True)
    parts = [(f"rows[{i}]", stored, row.to_dict()) for i, (stored, row) in enumerate(rows)]
    parts.append(("headline", document["headline"], scores.headline.to_dict()))
    out = []
    for where, stored, again in parts:
        if not whole:  # a sample: the per-deal values of its deals only
            stored = {"per_deal": stored["per_deal"]} if "per_deal" in stored else {}
            again = {"per_deal": again["per_deal"]} if stored else {}
        elif "per_deal" not in stored:  # format 1
            again = {k: v for k, v in again.items() if k != "per_deal"}
        out += [Difference(field, old, new) for field, old, new in differences(stored, again, where)]
    return out


def headline_shift(document: dict[str, Any], scores: Scores) -> tuple[float, float, float]:
    """Reproduced minus stored headline over the deals played, paired deal by deal: ``(mean, low, high)``."""
    reproduced = np.asarray(scores.headline.per_deal, dtype=float)
    stored = np.asarray(document["headline"]["per_deal"][: reproduced.size], dtype=float)
    return paired_difference(reproduced, stored)


def report(item: Reproduction) -> list[str]:
    """The lines ``sam-eval --reproduce`` prints for one file: its verdict, then a table of what differs."""
    document, protocol = item.document, item.document["protocol"]
    played = f"{item.deals:,} of its {protocol['deals']:,} deals" if not item.whole else f"all {item.deals:,} deals"
    if document["format_version"] == LEGACY_FORMAT_VERSION:
        played += (
            " (format 1: its rows keep no per-deal values, so they are compared by their figures)"
            if item.whole
            else " (format 1: its rows keep no per-deal values, so a sample compares the headline's)"
        )
    track = f"protocol {NAME}, {protocol['players']} players, {protocol['tier']} tier"
    head = f"{item.path}: {document['candidate']['label']}, {track}, {played}"
    if item.equal and item.whole:
        return [head, "  reproduced: every stored value is equal, and so is the fingerprint"]
    if item.equal:
        return [
            head,
            f"  reproduced on the sample: the values of its {item.deals:,} deals are equal, and so is the fingerprint",
        ]
    played_equal = all(d.field.startswith("candidate.fingerprint") for d in item.differences)
    verdict = (
        "every value played is equal, but the candidate is not what made the file: its fingerprint differs"
        if played_equal
        else f"{len(item.differences)} value(s) differ"
    )
    lines = [head, f"  NOT reproduced: {verdict}", "  | field | stored | reproduced |"]
    lines += [f"  | {d.field} | {_shown(d.stored)} | {_shown(d.reproduced)} |" for d in item.differences[:40]]
    if len(item.differences) > 40:
        lines.append(f"  … and {len(item.differences) - 40} more")
    if item.headline_shift is not None and not played_equal:
        mean, low, high = item.headline_shift
        lines.append(
            f"  headline, reproduced minus stored, paired over the {item.deals:,} deals: "
            f"{mean:+.4f} X/hand [{low:+.4f}, {high:+.4f}]"
        )
    return lines


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    text = str(value)
    return text if len(text) <= 70 else text[:67] + "..."
