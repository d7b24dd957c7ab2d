"""Generalization margins: a bot's duplicate margin against each held-out panel bot, beside the heuristic's.

A network trained against the heuristic can beat it by learning the heuristic's habits rather than
the game. The panel (:mod:`sam_env.agents.panel`) holds rule bots of other styles that no training config
may seat. For every panel bot ``P``, the candidate and the heuristic each meet ``n - 1`` copies of
``P`` on the same deals, in the same seatings (identical opponents: the ``n`` rotations of
:attr:`~sam_env.evaluation.tournament.Match.seatings`), with the same seeds for ``P``'s draws. The
candidate's **generalization margin** against ``P`` is its X/hand minus the heuristic's: above 0,
the candidate beats ``P`` by more than the heuristic does.

The margin's interval is *paired over deals*: per deal, the candidate's mean over its seatings
minus the heuristic's on the same deal (:func:`~sam_env.evaluation.stats.paired_difference`). The luck of
the deal is common to both and cancels, so the interval is much narrower than the two intervals
side by side suggest, and it is the one to read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sam_env.agents.panel import is_panel_bot

from .stats import NET, mean_ci, paired_difference
from .suites import HELD_OUT_PANEL as PANEL
from .suites import PANEL_BASELINE
from .tournament import Match, MatchResult

BASELINE = PANEL_BASELINE
"""The bot whose margin against each panel bot a candidate's is compared with (:data:`.suites.PANEL_BASELINE`)."""


@dataclass(frozen=True)
class PanelRow:
    """One candidate against one panel bot, beside the heuristic against the same bot, same deals."""

    panel_bot: str
    candidate: str
    deals: int
    x_per_hand: float
    ci_low: float
    ci_high: float
    baseline_x_per_hand: float
    baseline_ci_low: float
    baseline_ci_high: float
    margin: float
    """Generalization margin: the candidate's X/hand minus the heuristic's."""
    margin_low: float
    margin_high: float
    """95 % interval of the margin, paired over deals."""


def panel_matches(candidates: Sequence[object], panel: Sequence[str], n_players: int) -> list[Match]:
    """The matches of a panel report: the heuristic, then each candidate, against ``n - 1`` copies
    of each panel bot (a candidate that is the heuristic is played once)."""
    unknown = [p for p in panel if not is_panel_bot(p)]
    if unknown:
        raise ValueError(f"not a panel bot: {', '.join(map(str, unknown))}; the panel is {', '.join(PANEL)}")
    others = [c for c in candidates if c != BASELINE]
    if not others:
        raise ValueError(f"the panel table compares candidates with the {BASELINE}: name a candidate other than it")
    return [Match(c, (p,) * (n_players - 1)) for c in (BASELINE, *others) for p in panel]


def per_deal_net(result: MatchResult) -> np.ndarray:
    """The candidate's (slot 0) money per deal, averaged over the deal's seatings."""
    return result.metrics[:, :, 0, NET].astype(float).mean(axis=1)


def paired_nets(result: MatchResult, baseline: MatchResult) -> tuple[np.ndarray, np.ndarray]:
    """Two candidates' money per deal (:func:`per_deal_net`), ready for :func:`~.stats.paired_difference`.

    Raises ``ValueError`` unless the two matches played the same deals in the same seatings (what
    makes the difference of their per-deal values a paired one)."""
    same = np.array_equal(result.seatings, baseline.seatings) and np.array_equal(result.leaders, baseline.leaders)
    if not same or result.metrics.shape[0] != baseline.metrics.shape[0]:
        met = "+".join(dict.fromkeys(map(str, result.match.names[1:])))
        raise ValueError(
            f"{result.match.names[0]} and {baseline.match.names[0]} did not meet {met} on the same deals and seatings"
        )
    return per_deal_net(result), per_deal_net(baseline)


def panel_rows(results: Sequence[MatchResult]) -> list[PanelRow]:
    """A row for every match of a candidate other than the heuristic against ``n - 1`` copies of a
    panel bot, in the order of ``results``, paired with the heuristic's match against the same bot
    (which must be among ``results``).

    Raises ``ValueError`` when the two matches of a row did not play the same deals in the same
    seatings, or when the heuristic's match is missing.
    """
    baselines: dict[str, MatchResult] = {}
    pairs: list[tuple[str, MatchResult]] = []
    for r in results:
        bot = r.match.opponents[0]
        if not is_panel_bot(bot) or any(o != bot for o in r.match.opponents):
            continue
        if r.match.candidate == BASELINE:
            baselines[bot] = r
        else:
            pairs.append((bot, r))
    rows = []
    for bot, r in pairs:
        if bot not in baselines:
            raise ValueError(f"no match of {BASELINE} against {bot} to pair {r.match.names[0]}'s with")
        cand, heur = paired_nets(r, baselines[bot])
        rows.append(
            PanelRow(
                bot,
                r.match.names[0],
                cand.size,
                *mean_ci(cand),
                *mean_ci(heur),
                *paired_difference(cand, heur),
            )
        )
    return rows
