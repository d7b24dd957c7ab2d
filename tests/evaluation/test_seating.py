"""Balanced seatings: with different opponents, who sits after whom averages out of every result."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from sam_env import action_index
from sam_env.agents.greedy_bot import GreedyBot
from sam_env.agents.registry import FACTORIES
from sam_env.core import RuleConfig, SeatView
from sam_env.evaluation.ratings import rate
from sam_env.evaluation.seating import adjacent_flows
from sam_env.evaluation.stats import NET
from sam_env.evaluation.tournament import Match, balanced_orders, run_matches

DECLARE = action_index("declare_sam")


class SamAddict(GreedyBot):
    """Greedy, but declares Sâm whenever it may: deterministic, and the seat after it blocks it."""

    name = "sam_addict"

    def act(self, observation: dict[str, np.ndarray], view: SeatView) -> int:
        if observation["action_mask"][DECLARE]:
            return DECLARE
        return super().act(observation, view)


@pytest.fixture
def sam_addict(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(FACTORIES, SamAddict.name, SamAddict)
    return SamAddict.name


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_every_bot_follows_every_other_equally_often(n_players: int) -> None:
    match = Match("a", tuple("bcde"[: n_players - 1]))
    follows = Counter()
    for seats in match.seatings:
        slot_at = {int(seat): slot for slot, seat in enumerate(seats)}
        follows.update((slot, slot_at[(int(seat) + 1) % n_players]) for slot, seat in enumerate(seats))
    pairs = list(itertools.permutations(range(n_players), 2))
    assert set(follows) == set(pairs)
    assert len(set(follows.values())) == 1
    # and the candidate sits in every seat equally often
    assert len(set(Counter(match.seatings[:, 0].tolist()).values())) == 1
    assert len(balanced_orders(n_players)) == {2: 1, 3: 2, 4: 6, 5: 4}[n_players]


def test_identical_opponents_keep_one_order() -> None:
    assert Match("a", ("b", "b", "b")).seatings.tolist() == [
        [k, (k + 1) % 4, (k + 2) % 4, (k + 3) % 4] for k in range(4)
    ]


@pytest.mark.train
def test_a_seating_only_advantage_averages_out(sam_addict: str) -> None:
    # The candidate and its first opponent are the same deterministic bot under two names; in the
    # given order the candidate sits right after the Sâm addict and collects its blocked Sâms.
    match = Match("greedy", ("greedy", "heuristic", sam_addict), label="greedy (candidate)")
    (result,) = run_matches([match], RuleConfig(), deals=40, seed=2, workers=1, progress=False)
    net = result.metrics[:, :, :, NET].astype(float)  # [deal, seating, slot]
    given_order = slice(0, 4)  # seatings 0-3: the given order, rotated (what a fixed line-up plays)
    seat_bonus = net[:, given_order, 0].mean() - net[:, given_order, 1].mean()
    assert seat_bonus > 5  # the same bot, more than 5 X/hand apart by seating alone
    # over the balanced seatings the two copies of the same bot earn exactly the same
    assert net[:, :, 0].sum() == net[:, :, 1].sum()
    assert result.summary().hands == 40 * 24
    money = {row.agent: row.x_per_hand for row in rate([result])}
    assert money["greedy (candidate)"] == money["greedy"]
    flows = {(f.before, f.after): f for f in adjacent_flows([result])}
    assert flows[(sam_addict, "greedy")].x_per_hand == flows[(sam_addict, "greedy (candidate)")].x_per_hand > 5
    assert len({f.hands for f in flows.values()}) == 1  # every pair sat side by side equally often
