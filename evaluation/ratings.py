"""Ratings from a round-robin of duplicate matches, with openskill's Plackett–Luce model.

Every hand of every match between different agents is one rated game: each distinct agent at the
table is a team, scored by its mean money per seat in that hand (higher is better; equal scores
are ties). Hands are fed deal by deal, interleaving the matches, so no match is rated only after
the others have settled the ratings. The ordinal ``mu - 3 sigma`` is the conservative skill
estimate the table is sorted by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .stats import NET
from .tournament import MatchResult


@dataclass(frozen=True)
class RatingRow:
    agent: str
    mu: float
    sigma: float
    ordinal: float
    games: int


def rate(results: Sequence[MatchResult]) -> list[RatingRow]:
    """Rate every agent of ``results``; best first. Matches of an agent against itself are skipped."""
    model = PlackettLuce()
    names = sorted({name for r in results for name in r.match.names})
    ratings = {name: model.rating(name=name) for name in names}
    games = dict.fromkeys(names, 0)
    rated = [r for r in results if len(set(r.match.names)) > 1]
    if not rated:
        return []
    n_deals, n_rot = rated[0].metrics.shape[:2]
    team_names = [sorted(set(r.match.names)) for r in rated]
    team_slots = [
        [[j for j, s in enumerate(r.match.names) if s == t] for t in teams]
        for r, teams in zip(rated, team_names, strict=True)
    ]
    for d in range(n_deals):
        for r, teams, members in zip(rated, team_names, team_slots, strict=True):
            for k in range(n_rot):
                net = r.metrics[d, k, :, NET]
                scores = [float(net[m].mean()) for m in members]
                updated = model.rate([[ratings[t]] for t in teams], scores=scores)
                for t, (new,) in zip(teams, updated, strict=True):
                    ratings[t] = new
                    games[t] += 1
    rows = [RatingRow(n, ratings[n].mu, ratings[n].sigma, ratings[n].ordinal(), games[n]) for n in names]
    return sorted(rows, key=lambda row: row.ordinal, reverse=True)
