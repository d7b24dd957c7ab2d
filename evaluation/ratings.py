"""Ratings from duplicate matches: money per hand, and openskill's Plackett–Luce, on common ground only.

The game is played for money, so the table is sorted by **money**: each agent's mean X per hand over
every rated hand (a seat's net, averaged over the agent's seats in that hand). With the balanced
seatings of :mod:`.tournament` every agent sits after every other equally often, so this average does
not favour whoever sat after the weakest bot.

**Common ground.** An average over different opponents compares nothing: a weak candidate that
alone played ``random`` would come first on the money it took from ``random``. So only the matches
in which every candidate met the same opponents are rated. A candidate's *line-ups* are the opponents
of its matches (slot 0 of a match between different agents), with every other candidate written as
``another candidate`` — so a round-robin is common ground (each candidate met all the others) — and
the *ground* is the line-ups every candidate met (as many times as each met them). Each candidate's
matches on that ground are rated; its other matches are left out of the ratings (they keep their own
summaries), and every row says what it rests on (:attr:`RatingRow.rests_on`) and what was left out
(:attr:`RatingRow.left_out`). Every agent at the tables of the rated matches is rated, opponents too.

Beside the money, the openskill rating counts **places**, not amounts: every rated hand is one game
in which each distinct agent at the table is a team, ranked by its mean money per seat in that hand
(equal money: a tie). Winning small and losing big can rate well on places while losing money, so
the two orders may differ. Hands are fed deal by deal, interleaving the matches, so no match is rated
only after the others have settled the ratings; ``ordinal = mu - 3 sigma`` is the conservative skill.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

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
    rests_on: tuple[str, ...] = ()
    """The line-ups every candidate met, which the ratings rest on (the same for every row)."""
    left_out: tuple[str, ...] = ()
    """This agent's matches as a candidate that are not rated: their line-ups were not met by every candidate."""


OTHER_CANDIDATE = "another candidate"


def line_up(result: MatchResult, candidates: set[str]) -> str:
    """The opponents of a match as the ground counts them: ``heuristic x3``, ``greedy+random x2``, with
    every candidate other than the match's own written as ``another candidate``."""
    own = result.match.names[0]
    names = Counter(OTHER_CANDIDATE if n in candidates and n != own else n for n in result.match.names[1:])
    return "+".join(f"{n} x{k}" if k > 1 else n for n, k in sorted(names.items()))


def common_ground(results: Sequence[MatchResult]) -> tuple[list[MatchResult], tuple[str, ...], dict[str, list[str]]]:
    """The matches to rate (each candidate's matches on the line-ups every candidate met), those line-ups,
    and each candidate's matches left out (as ``candidate vs opponents``). Matches of an agent against
    itself are never rated."""
    between = [r for r in results if len(set(r.match.names)) > 1]
    candidates = {r.match.names[0] for r in between}
    mine: dict[str, list[MatchResult]] = {c: [r for r in between if r.match.names[0] == c] for c in candidates}
    counts = [Counter(line_up(r, candidates) for r in rs) for rs in mine.values()]
    ground = counts[0] if counts else Counter()
    for c in counts[1:]:
        ground &= c
    rated, left_out = [], {}
    for c in sorted(candidates):
        room = Counter(ground)
        for r in mine[c]:
            key = line_up(r, candidates)
            if room[key] > 0:
                room[key] -= 1
                rated.append(r)
            else:
                left_out.setdefault(c, []).append(f"{c} vs {r.match.opponents_label}")
    return [r for r in between if any(r is x for x in rated)], tuple(sorted(ground.elements())), left_out


def rate(results: Sequence[MatchResult]) -> list[RatingRow]:
    """Rate every agent of the matches on common ground (:func:`common_ground`); most money per hand first."""
    model = PlackettLuce()
    rated, ground, left_out = common_ground(results)
    if not rated:
        return []
    names = sorted({name for r in rated for name in r.match.names})
    ratings = {name: model.rating(name=name) for name in names}
    games = dict.fromkeys(names, 0)
    money = dict.fromkeys(names, 0.0)
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
        RatingRow(
            n,
            money[n] / max(games[n], 1),
            ratings[n].mu,
            ratings[n].sigma,
            ratings[n].ordinal(),
            games[n],
            ground,
            tuple(left_out.get(n, ())),
        )
        for n in names
    ]
    return sorted(rows, key=lambda row: row.x_per_hand, reverse=True)
