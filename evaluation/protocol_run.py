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
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from sam_env.agents.registry import label_of

from .llm_results import agent_block, chat_candidate, is_chat_candidate
from .panel import BASELINE, paired_nets
from .protocol import SEED, ProtocolError, Track, check_opponent_weights
from .stats import NET, WIN, mean_ci, paired_difference
from .tournament import Match, MatchResult, run_matches

PER_DEAL_DIGITS = 6
"""Decimals of the per-deal headline values in a results file; the score is computed from the rounded values."""


@dataclass(frozen=True)
class PerDeal:
    """A row's raw results, one value per deal, from which every figure of the row is computed
    (:func:`row_from_per_deal`): a results file keeps them, so that a validator recomputes the row."""

    seatings: int
    """The seatings of every deal (the ``n`` rotations: the opponents are ``n - 1`` copies of one bot)."""
    net: list[int]
    """The candidate's money over the deal's seatings, summed (whole X: every payment of the rules is)."""
    wins: list[int]
    """The hands of the deal the candidate took, ``0 … seatings``."""
    heuristic_net: list[int] | None = None
    """Panel rows: the heuristic's money over the same deal's seatings against the same bot."""

    def to_dict(self) -> dict[str, Any]:
        out = {"seatings": self.seatings, "net": list(self.net), "wins": list(self.wins)}
        if self.heuristic_net is not None:
            out["heuristic_net"] = list(self.heuristic_net)
        return out


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
    per_deal: PerDeal
    margin: dict[str, float] | None = None
    """Panel rows: ``heuristic_x_per_hand`` and the paired ``margin`` with ``margin_low``/``margin_high``."""

    def to_dict(self) -> dict[str, Any]:
        # field by field, not dataclasses.asdict: that copies thousands of per-deal values one by one
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["per_deal"] = self.per_deal.to_dict()
        if self.margin is None:
            del out["margin"]
        else:
            out["margin"] = dict(self.margin)
        return out

    @property
    def money_per_deal(self) -> np.ndarray:
        """The candidate's X/hand in each deal: its money over the deal's seatings, divided by them."""
        return np.asarray(self.per_deal.net, dtype=float) / self.per_deal.seatings


def row_from_per_deal(opponent: str, group: str, opponents: str, per_deal: PerDeal) -> Row:
    """A row's figures from its per-deal values: X/hand and its interval over deals (:func:`~.stats.mean_ci`), the
    win rate over hands and, for a panel row, the margin over the heuristic paired over deals. The one place they
    are computed, both when a run writes a results file and when a validator checks one."""
    seatings = per_deal.seatings
    own = np.asarray(per_deal.net, dtype=float) / seatings
    mean, low, high = mean_ci(own)
    margin = None
    if per_deal.heuristic_net is not None:
        base = np.asarray(per_deal.heuristic_net, dtype=float) / seatings
        diff, margin_low, margin_high = paired_difference(own, base)
        margin = {
            "heuristic_x_per_hand": float(base.mean()),
            "margin": diff,
            "margin_low": margin_low,
            "margin_high": margin_high,
        }
    deals = len(per_deal.net)
    win_rate = float(np.sum(per_deal.wins, dtype=np.int64)) / (deals * seatings)
    return Row(opponent, group, opponents, deals, deals * seatings, mean, low, high, win_rate, per_deal, margin)


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
    agent: dict[str, Any] | None = None
    """A language model's replies, calls and tokens (:func:`.llm_results.agent_block`); None for other candidates."""


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
        heuristic_net = None
        if opponent.group == "panel":
            baseline = by_pair[BASELINE, opponent.name]
            paired_nets(result, baseline)  # refuses two matches that did not play the same deals and seatings
            heuristic_net = _net_sums(baseline)
        per_deal = PerDeal(result.metrics.shape[1], _net_sums(result), _win_counts(result), heuristic_net)
        rows.append(row_from_per_deal(opponent.name, opponent.group, result.match.opponents_label, per_deal))
    return rows


def _net_sums(result: MatchResult) -> list[int]:
    """The candidate's (slot 0) money per deal, summed over the deal's seatings."""
    return [int(v) for v in result.metrics[:, :, 0, NET].sum(axis=1)]


def _win_counts(result: MatchResult) -> list[int]:
    """The hands per deal the candidate (slot 0) took."""
    return [int(v) for v in result.metrics[:, :, 0, WIN].sum(axis=1)]


def headline_of_rows(rows: Sequence[Row], opponents: Sequence[str]) -> Headline:
    """The headline from the rows' per-deal values: per deal, the mean over ``opponents`` of the candidate's X/hand."""
    by_name = {r.opponent: r for r in rows}
    per_opponent = np.stack([by_name[name].money_per_deal for name in opponents])
    return headline_of(per_opponent.mean(axis=0), opponents)


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
    deals: int | None = None,
) -> list[Scores]:
    """Play protocol v1's ``track`` for every candidate (any form :func:`sam_env.load_bot` takes); their scores.

    Refuses before any hand (:class:`~.protocol.ProtocolError`) when this sam-env deals other cards or
    ships other opponent networks than the protocol pins, and (``ValueError``) a candidate that cannot
    play the table. ``labels``: the candidates' names (default: their specs as written). ``deals``: play only
    the track's first deals (a sample, as ``sam-eval --reproduce --deals N`` checks a file on): every deal is
    played exactly as in the whole run, so its per-deal values are the whole run's first ones.
    """
    deals = track.deals if deals is None else deals
    if not 2 <= deals <= track.deals:
        raise ProtocolError(
            f"a sample of the {track.players}-player {track.tier} tier has 2 to {track.deals} deals, not {deals}"
        )
    labels = [label_of(c) for c in candidates] if labels is None else list(labels)
    if len(set(labels)) != len(labels):
        raise ProtocolError(f"two candidates go by one name: {labels}; give each its own label")
    track.check_deals()
    check_opponent_weights(track.networks)
    # a language model plays under a run id, which its decisions are logged by, in whichever process they are made
    played = [chat_candidate(c) if is_chat_candidate(c) else c for c in candidates]
    matches = plan(track, list(zip(played, labels, strict=True)))
    workers = workers or os.cpu_count() or 1
    load, cpu, start = load_average(), _cpu_seconds(), time.perf_counter()
    results = run_matches(matches, track.rules, deals, seed=SEED, workers=workers, progress=progress)
    wall = time.perf_counter() - start
    cpu_end = _cpu_seconds()
    cpu_used = None if cpu is None or cpu_end is None else cpu_end - cpu
    scores = []
    for spec, label, chat in zip(candidates, labels, played, strict=True):
        rows = rows_of(track, label, results)
        headline = headline_of_rows(rows, track.headline_opponents)
        agent = agent_block(chat) if is_chat_candidate(chat) else None
        scores.append(Scores(spec, label, rows, headline, wall, cpu_used, len(labels), workers, load, agent))
    return scores
