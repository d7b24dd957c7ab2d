"""The duplicate confidence interval and the summaries, on hand-computed examples; ratings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sam_env.core import EndReason, HandResult, Reason, Transfer
from sam_env.evaluation.ratings import rate
from sam_env.evaluation.stats import METRICS, NET, WIN, Z_95, hand_metrics, mean_ci, summarize
from sam_env.evaluation.tournament import Match, MatchResult


def test_mean_ci_by_hand() -> None:
    # Values 1, 2, 3, 6: mean 3, sample variance (4 + 1 + 0 + 9) / 3 = 4.667, standard error
    # sqrt(4.667) / 2 = 1.0801, half-width 1.96 * 1.0801 = 2.1170.
    mean, low, high = mean_ci(np.array([1.0, 2.0, 3.0, 6.0]))
    assert mean == 3.0
    assert (low, high) == pytest.approx((0.8830, 5.1170), abs=1e-4)
    assert high - mean == pytest.approx(Z_95 * math.sqrt(14 / 3) / 2)
    mean, low, high = mean_ci(np.array([5.0]))
    assert mean == 5.0 and math.isnan(low) and math.isnan(high)


def test_summary_averages_rotations_before_the_interval() -> None:
    # Two deals, two rotations (2 players). Candidate money [[4, 0], [-2, 2]]: per-deal means 2 and 0,
    # so X/hand 1 with standard error sqrt(2) / sqrt(2) = 1. Leaders 0 and 1: at position 0 (leading)
    # the candidate made 4 (deal 0, seat 0) and 2 (deal 1, seat 1).
    metrics = np.zeros((2, 2, len(METRICS)), dtype=np.int32)
    metrics[:, :, NET] = [[4, 0], [-2, 2]]
    metrics[:, :, WIN] = [[1, 0], [0, 1]]
    metrics[0, 0, METRICS.index("chops_made")] = 2
    s = summarize("a", "b x1", metrics, np.array([0, 1]))
    assert (s.deals, s.hands, s.win_rate) == (2, 4, 0.5)
    assert s.x_per_hand == 1.0
    assert (s.ci_low, s.ci_high) == pytest.approx((1 - Z_95, 1 + Z_95))
    assert s.by_position == (3.0, -1.0)
    assert s.counts["chops_made"] == 2


def test_hand_metrics_read_the_ledger() -> None:
    ledger = (
        Transfer(0, 1, 4, Reason.CHOP),
        Transfer(2, 1, 10, Reason.CONG),
        Transfer(3, 1, 12, Reason.RESPONSIBILITY),
    )
    result = HandResult(EndReason.NORMAL, 1, 1, ledger, (-4, 26, -10, -12), responsible=3)
    assert hand_metrics(result, 1)[:2] == (26, 1)
    named = dict(zip(METRICS, hand_metrics(result, 0), strict=True))
    assert named["chops_suffered"] == 1 and named["net"] == -4
    assert dict(zip(METRICS, hand_metrics(result, 2), strict=True))["cong"] == 1
    assert dict(zip(METRICS, hand_metrics(result, 3), strict=True))["responsibility"] == 1


@pytest.mark.train
def test_ratings_rank_a_consistent_winner_first() -> None:
    metrics = np.zeros((20, 2, 2, len(METRICS)), dtype=np.int32)
    metrics[:, :, 0, NET], metrics[:, :, 1, NET] = 3, -3
    results = [
        MatchResult(Match("strong", ("weak",)), metrics, np.zeros(20, dtype=np.int32), np.zeros_like(metrics[..., NET]))
    ]
    mirror = MatchResult(
        Match("weak", ("weak",)), np.zeros_like(metrics), np.zeros(20, dtype=np.int32), np.zeros_like(metrics[..., NET])
    )
    rows = rate([*results, mirror])
    assert [r.agent for r in rows] == ["strong", "weak"]
    assert rows[0].mu > 25 > rows[1].mu
    assert rows[0].games == 40


@pytest.mark.train
def test_ratings_sort_by_money_while_openskill_counts_places() -> None:
    # "steady" wins 1 X in 9 hands of 10 and loses 20 X in the tenth: more places, less money.
    metrics = np.zeros((50, 2, 2, len(METRICS)), dtype=np.int32)
    steady = np.where(np.arange(50) % 10 == 9, -20, 1)
    metrics[:, :, 0, NET] = steady[:, None]
    metrics[:, :, 1, NET] = -steady[:, None]
    rows = rate(
        [
            MatchResult(
                Match("steady", ("bold",)), metrics, np.zeros(50, dtype=np.int32), np.zeros_like(metrics[..., NET])
            )
        ]
    )
    assert [r.agent for r in rows] == ["bold", "steady"]  # bold takes 1.1 X per hand
    assert rows[0].x_per_hand == pytest.approx(1.1) and rows[1].x_per_hand == pytest.approx(-1.1)
    assert rows[1].ordinal > rows[0].ordinal  # on places alone, steady rates higher


def test_summary_averages_the_seatings_of_a_deal_by_the_candidates_seat() -> None:
    # 2 players, 2 opponent orders x 2 rotations: seatings put the candidate in seats 0, 1, 0, 1
    metrics = np.zeros((1, 4, len(METRICS)), dtype=np.int32)
    metrics[0, :, NET] = [4, 0, 2, -2]
    s = summarize("a", "b", metrics, np.array([1]), candidate_seats=np.array([0, 1, 0, 1]))
    assert s.hands == 4 and s.x_per_hand == 1.0
    assert s.by_position == (-1.0, 3.0)  # the leader is seat 1: position 0 is seat 1, position 1 is seat 0
