"""Ratings from a round-robin of duplicate matches: money per hand, and openskill's Plackett–Luce.

The game is played for money, so the table is sorted by **money**: each agent's mean X per hand over
every hand of every match between different agents (a seat's net, averaged over the agent's seats in
that hand). With the balanced seatings of :mod:`.tournament` every agent sits after every other
equally often, so this average does not favour whoever sat after the weakest bot.

Beside it, the openskill rating counts **places**, not amounts: every hand is one rated game in
which each distinct agent at the table is a team, ranked by its mean money per seat in that hand
(equal money: a tie). Winning small and losing big can rate well on places while losing money, so
the two orders may differ. Hands are fed deal by deal, interleaving the matches, so no match is rated
only after the others have settled the ratings; ``ordinal = mu - 3 sigma`` is the conservative skill.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .stats import NET
from .tournament import MatchResult


@dataclass(frozen=True)
class RatingRow:
    agent: str
    x_per_hand: float
    """Mean money per hand (X) over every rated hand: what the table is sorted by."""
    mu: float
    sigma: float
    ordinal: float
    """openskill's ``mu - 3 sigma`` from the places of every rated hand (the order of money, not its amount)."""
    games: int


def rate(results: Sequence[MatchResult]) -> list[RatingRow]:
    """Rate every agent of ``results``; most money per hand first. Matches of an agent against itself are skipped.

    openskill is imported here, not with the module: it comes with the ``train`` extra, and the rest of
    the evaluation package (deals, tournaments, intervals, reports) works on the base install.
    """
    try:
        from openskill.models import PlackettLuce
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            f"ratings need openskill, which comes with the train extra: pip install 'sam-env[train]' ({err})"
        ) from err
    model = PlackettLuce()
    names = sorted({name for r in results for name in r.match.names})
    ratings = {name: model.rating(name=name) for name in names}
    games = dict.fromkeys(names, 0)
    money = dict.fromkeys(names, 0.0)
    rated = [r for r in results if len(set(r.match.names)) > 1]
    if not rated:
        return []
    n_deals = rated[0].metrics.shape[0]
    team_names = [sorted(set(r.match.names)) for r in rated]
    team_slots = [
        [[j for j, s in enumerate(r.match.names) if s == t] for t in teams]
        for r, teams in zip(rated, team_names, strict=True)
    ]
    for d in range(n_deals):
        for r, teams, members in zip(rated, team_names, team_slots, strict=True):
            for net in r.metrics[d, :, :, NET]:
                scores = [float(net[m].mean()) for m in members]
                updated = model.rate([[ratings[t]] for t in teams], scores=scores)
                for t, (new, score) in zip(teams, zip(updated, scores, strict=True), strict=True):
                    ratings[t] = new[0]
                    games[t] += 1
                    money[t] += score
    rows = [
        RatingRow(n, money[n] / max(games[n], 1), ratings[n].mu, ratings[n].sigma, ratings[n].ordinal(), games[n])
        for n in names
    ]
    return sorted(rows, key=lambda row: row.x_per_hand, reverse=True)
