"""The duplicate schedule: fixed deals, every rotation replays them, results independent of workers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import sam_env
from sam_env.agents.registry import make_agent
from sam_env.bot import Bot
from sam_env.core import RuleConfig, SeatView
from sam_env.evaluation.deals import make_deal
from sam_env.evaluation.stats import NET
from sam_env.evaluation.tournament import Match, play_hand, run_matches


def test_deals_are_fixed_by_seed_and_index() -> None:
    rules = RuleConfig()
    assert make_deal(rules, 7, 3) == make_deal(rules, 7, 3)
    assert make_deal(rules, 7, 3) != make_deal(rules, 7, 4)
    assert make_deal(rules, 7, 3) != make_deal(rules, 8, 3)
    deal = make_deal(rules, 7, 3)
    lowest = min(range(4), key=lambda s: deal.hands[s] & -deal.hands[s])
    assert deal.leader == lowest, "the would-be leader follows first_leader='lowest_card'"


def test_slots_rotate_through_every_seat_keeping_turn_order() -> None:
    seatings = Match("greedy", ("greedy",) * 3).seatings.tolist()
    assert seatings == [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]


class _Recorder(Bot):
    """Greedy play that records the cards it was dealt."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__(0)
        self.inner = make_agent("greedy")
        self.first_hand: int | None = None

    def act(self, observation: dict[str, np.ndarray], view: SeatView) -> int:
        if self.first_hand is None:
            self.first_hand = view.hand
        return self.inner.act(observation, view)


def test_play_hand_deals_the_same_cards_and_leader_every_time() -> None:
    rules = RuleConfig()
    deal = make_deal(rules, 0, 11)
    env = sam_env.env(rules=rules)
    env.reset(seed=0)
    for _ in range(2):
        recorders = [_Recorder() for _ in range(4)]
        play_hand(env, recorders, deal)
        assert env.unwrapped.hand.leader == deal.leader
        assert [r.first_hand for r in recorders] == list(deal.hands)


def test_identical_deterministic_bots_give_every_rotation_the_same_money_by_seat() -> None:
    rules = RuleConfig()
    (result,) = run_matches([Match("greedy", ("greedy",) * 3)], rules, deals=12, seed=3, workers=1, progress=False)
    net = result.metrics[:, :, :, NET]  # [deal, rotation, slot]
    by_seat = np.zeros_like(net)
    for k in range(4):
        by_seat[:, k, result.seatings[k]] = net[:, k, :]
    assert (by_seat == by_seat[:, :1, :]).all(), "same cards and same bot in a seat give the same money"
    for k in range(4):
        assert sorted(net[:, k].ravel().tolist()) == sorted(net[:, 0].ravel().tolist())
    # Over the rotations the candidate slot collects every seat's money: the deal's total, zero.
    assert (net[:, :, 0].sum(axis=1) == 0).all()
    assert (net.sum(axis=2) == 0).all(), "every hand is zero-sum"


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    rules = RuleConfig(n_players=3)
    matches = [Match("random", ("greedy", "random")), Match("heuristic", ("random",) * 2)]
    one = run_matches(matches, rules, deals=6, seed=1, workers=1, progress=False)
    two = run_matches(matches, rules, deals=6, seed=1, workers=2, progress=False)
    for a, b in zip(one, two, strict=True):
        assert (a.metrics == b.metrics).all()
        assert (a.leaders == b.leaders).all()
        assert (a.passed_on == b.passed_on).all()


@pytest.mark.parametrize(
    ("matches", "deals", "workers", "message"),
    [
        ([Match("heuristic", ("random",))], 2, 1, "needs 3 opponents, got 1"),
        ([Match("heuristic", ("random",) * 4)], 2, 1, "needs 3 opponents, got 4"),
        ([Match("heuristic", ("random",) * 3)], 0, 1, "deals must be an int >= 1, got 0"),
        ([Match("heuristic", ("random",) * 3)], -1, 1, "deals must be an int >= 1, got -1"),
        ([Match("heuristic", ("random",) * 3)], 2, 0, "workers must be None"),
    ],
)
def test_run_matches_refuses_a_bad_schedule_before_playing(
    matches: list[Match], deals: int, workers: int, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        run_matches(matches, RuleConfig(), deals, workers=workers, progress=False)
