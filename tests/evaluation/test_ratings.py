"""Ratings rest on common ground: matches where every candidate met the same opponents, and they say so."""

from __future__ import annotations

import numpy as np
import pytest

from sam_env.evaluation.ratings import OTHER_CANDIDATE, common_ground, rate
from sam_env.evaluation.report import markdown_table, text_table
from sam_env.evaluation.stats import METRICS, NET
from sam_env.evaluation.tournament import Match, MatchResult

DEALS = 30


def played(candidate: str, opponent: str, money: float) -> MatchResult:
    """A two-seat match in which the candidate takes ``money`` X from the opponent in every hand."""
    metrics = np.zeros((DEALS, 2, 2, len(METRICS)), dtype=np.int32)
    metrics[:, :, 0, NET], metrics[:, :, 1, NET] = money, -money
    zeros = np.zeros(DEALS, dtype=np.int32)
    return MatchResult(Match(candidate, (opponent,)), metrics, zeros, np.zeros_like(metrics[..., NET]))


def test_a_weak_agent_that_alone_plays_random_does_not_come_first() -> None:
    """Averaged over everything it played, "weak" would rate +4.5 X/hand (10 from random, -1 from the house)
    and come first; on the opponents both candidates met, the house, it is last."""
    results = [played("strong", "house", 2), played("weak", "house", -1), played("weak", "random", 10)]
    rows = rate(results)
    assert [r.agent for r in rows] == ["strong", "house", "weak"]
    assert {r.agent: r.x_per_hand for r in rows} == {"strong": 2, "house": pytest.approx(-0.5), "weak": -1}
    assert all(r.rests_on == ("house",) for r in rows)
    assert {r.agent: r.left_out for r in rows}["weak"] == ("weak vs random x1",)
    text = text_table([r.summary() for r in results], rows)
    assert "rated only where every candidate met the same opponents: house" in text
    assert "not rated (opponents no other candidate met): weak vs random x1" in text
    assert "weak vs random" in markdown_table([r.summary() for r in results], rows)


def test_a_round_robin_is_common_ground_and_an_extra_match_is_left_out() -> None:
    results = [played(a, b, 1 if a < b else -1) for a in "abc" for b in "abc" if a != b]
    rated, ground, left_out = common_ground([*results, played("c", "random", 20), played("a", "a", 0)])
    assert (
        rated == results
        and ground == (f"{OTHER_CANDIDATE}", f"{OTHER_CANDIDATE}")
        and left_out == {"c": ["c vs random x1"]}
    )
    assert [r.agent for r in rate([*results, played("c", "random", 20)])] == ["a", "b", "c"]


def test_candidates_that_met_no_common_opponents_are_not_rated() -> None:
    assert rate([played("a", "house", 1), played("b", "random", 1)]) == []
