"""Running protocol v1 (:mod:`.protocol`): the candidate against every opponent of a track, and its scores.

Every match of a run — each candidate against ``n - 1`` copies of each suite opponent, and for the
panel rows the heuristic against the same panel bot — is played in one
:func:`~.tournament.run_matches` call over the track's deals of :data:`~.protocol.SEED`, so they all
share the deals, the seatings (the ``n`` rotations) and the opponents' draws, and the pairings below
are exact.

**Rows.** Per opponent: X/hand with its 95 % interval over deals (:func:`~.stats.summarize`), the win
rate, and for a panel bot the *margin*: the candidate's X/hand minus the heuristic's against the
same bot, its interval paired over deals (:func:`~.stats.paired_difference`, as in :mod:`.panel`).

**Headline score.** Per deal ``d``, the candidate's mean money per hand over the ``n`` rotations
against each headline opponent (:func:`~.protocol.headline_opponents`: the suite without
``random``), then the plain mean of those over the opponents: ``h_d``. The score is the mean of
``h_d`` over the deals, its interval ``mean ± 1.96 · sd(h) / sqrt(deals)`` — each opponent weighs
the same, and the interval is over deals, as every interval of the project (:mod:`.stats`). The
``h_d`` are kept in the results file, so that two files of a track can be compared deal by deal.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from sam_env.agents.registry import label_of

from .panel import BASELINE, paired_nets, per_deal_net
from .protocol import SEED, ProtocolError, Track, check_opponent_weights
from .stats import mean_ci, paired_difference
from .tournament import Match, MatchResult, run_matches

PER_DEAL_DIGITS = 6
"""Decimals of the per-deal headline values in a results file; the score is computed from the rounded values."""


@dataclass(frozen=True)
class Row:
    """The candidate against ``n - 1`` copies of one suite opponent."""

    opponent: str
    group: str
    opponents: str
    deals: int
    hands: int
    x_per_hand: float
    ci_low: float
    ci_high: float
    win_rate: float
    margin: dict[str, float] | None = None
    """Panel rows: ``heuristic_x_per_hand`` and the paired ``margin`` with ``margin_low``/``margin_high``."""

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.margin is None:
            del out["margin"]
        return out


@dataclass(frozen=True)
class Headline:
    """The headline score (see the module docstring) and the per-deal values it is the mean of."""

    score: float
    ci_low: float
    ci_high: float
    opponents: tuple[str, ...]
    per_deal: list[float] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "opponents": list(self.opponents)}


def headline_of(per_deal: Sequence[float], opponents: Sequence[str]) -> Headline:
    """The headline from per-deal values (rounded to :data:`PER_DEAL_DIGITS` first, as the file keeps them)."""
    values = [round(float(v), PER_DEAL_DIGITS) for v in per_deal]
    score, low, high = mean_ci(np.asarray(values))
    return Headline(score, low, high, tuple(opponents), values)


@dataclass(frozen=True)
class Scores:
    """One candidate's rows and headline on a track, with the run's cost."""

    spec: object
    label: str
    rows: list[Row]
    headline: Headline
    wall_time_s: float
    cpu_time_s: float | None
    candidates_in_run: int
    workers: int
    load_at_start: float | None
    """The 1-minute load average when the run started (None where the system has none)."""


def plan(track: Track, candidates: Sequence[tuple[object, str]]) -> list[Match]:
    """The matches of a run: each candidate against each suite opponent, then the heuristic against
    the panel bots it is not already playing as a candidate."""
    n = track.players
    matches = [Match(spec, (o.name,) * (n - 1), label) for spec, label in candidates for o in track.opponents]
    if any(label == BASELINE for _, label in candidates):
        return matches
    panel = [o.name for o in track.opponents if o.group == "panel"]
    return matches + [Match(BASELINE, (p,) * (n - 1)) for p in panel]


def rows_of(track: Track, label: str, results: Sequence[MatchResult]) -> list[Row]:
    """The candidate ``label``'s rows, in suite order, from a run's results."""
    by_pair = {(r.match.names[0], r.match.opponents[0]): r for r in results}
    rows = []
    for opponent in track.opponents:
        result = by_pair[label, opponent.name]
        s = result.summary()
        margin = None
        if opponent.group == "panel":
            own, base = paired_nets(result, by_pair[BASELINE, opponent.name])
            diff, low, high = paired_difference(own, base)
            margin = {
                "heuristic_x_per_hand": float(base.mean()),
                "margin": diff,
                "margin_low": low,
                "margin_high": high,
            }
        rows.append(
            Row(
                opponent.name,
                opponent.group,
                s.opponents,
                s.deals,
                s.hands,
                s.x_per_hand,
                s.ci_low,
                s.ci_high,
                s.win_rate,
                margin,
            )
        )
    return rows


def headline_from_results(track: Track, label: str, results: Sequence[MatchResult]) -> Headline:
    by_pair = {(r.match.names[0], r.match.opponents[0]): r for r in results}
    per_opponent = np.stack([per_deal_net(by_pair[label, name]) for name in track.headline_opponents])
    return headline_of(per_opponent.mean(axis=0), track.headline_opponents)


def load_average() -> float | None:
    """The 1-minute load average (None where the system has none: Windows)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _cpu_seconds() -> float | None:
    """CPU seconds of this process and its finished children (None where ``resource`` is missing: Windows)."""
    try:
        import resource
    except ImportError:
        return None
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_track(
    track: Track,
    candidates: Sequence[object],
    workers: int | None = None,
    progress: bool = True,
    labels: Sequence[str] | None = None,
) -> list[Scores]:
    """Play protocol v1's ``track`` for every candidate (any form :func:`sam_env.load_bot` takes); their scores.

    Refuses before any hand (:class:`~.protocol.ProtocolError`) when this sam-env deals other cards or
    ships other opponent networks than the protocol pins, and (``ValueError``) a candidate that cannot
    play the table. ``labels``: the candidates' names (default: their specs as written).
    """
    labels = [label_of(c) for c in candidates] if labels is None else list(labels)
    if len(set(labels)) != len(labels):
        raise ProtocolError(f"two candidates go by one name: {labels}; give each its own label")
    track.check_deals()
    check_opponent_weights(track.networks)
    matches = plan(track, list(zip(candidates, labels, strict=True)))
    workers = workers or os.cpu_count() or 1
    load, cpu, start = load_average(), _cpu_seconds(), time.perf_counter()
    results = run_matches(matches, track.rules, track.deals, seed=SEED, workers=workers, progress=progress)
    wall = time.perf_counter() - start
    cpu_end = _cpu_seconds()
    cpu_used = None if cpu is None or cpu_end is None else cpu_end - cpu
    return [
        Scores(
            spec,
            label,
            rows_of(track, label, results),
            headline_from_results(track, label, results),
            wall,
            cpu_used,
            len(labels),
            workers,
            load,
        )
        for spec, label in zip(candidates, labels, strict=True)
    ]
