"""Shared pieces of the environment's tests: rule configurations, fixed deals and a random AEC loop."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
from pettingzoo.utils import BaseWrapper

from sam_env import RuleConfig, action_index

ALL_INSTANT_WINS = frozenset({"dragon", "four_twos", "same_colour", "three_triples", "five_pairs"})

CONFIGS: dict[str, RuleConfig] = {
    "default": RuleConfig(),
    "2p_bao1_forced": RuleConfig(n_players=2, bao1="forced"),
    "3p_lose_and_continue": RuleConfig(n_players=3, finish_on_two="lose_and_continue", first_leader="random"),
    "4p_no_sam_host": RuleConfig(allow_sam=False, first_leader="host", straights_with_two=False),
    "5p_all_instant_wins": RuleConfig(n_players=5, instant_wins=ALL_INSTANT_WINS, cong_cards=15),
    "5p_forced_continue_no_sam": RuleConfig(
        n_players=5, bao1="forced", finish_on_two="lose_and_continue", allow_sam=False
    ),
}
"""Rule configurations covering every player count and the options that change the flow of a hand."""

CHOP_CHAIN_DEAL = [
    ["3S", "4S", "6S", "7S", "8S", "10S", "QS", "KS", "AS", "2H"],
    ["5S", "5C", "5D", "5H", "3C", "4C", "6C", "7C", "8C", "10C"],
    ["9S", "9C", "9D", "9H", "3D", "4D", "6D", "7D", "8D", "10D"],
    ["JS", "JC", "JD", "JH", "3H", "4H", "6H", "7H", "8H", "10H"],
]
"""Seat 0 holds one 2, seats 1-3 quads of 5, 9 and J: the chặt đè example of docs/rules.md §4."""

CHOP_CHAIN_MOVES = ["decline_sam"] * 4 + ["single:2", "quad:5", "quad:9", "quad:J"]
"""Seat 0 leads its 2 and seats 1, 2 and 3 chop in turn (no seat may pass before it acts)."""

CHOP_CHAIN_MONEY = [
    # (seat that acted, {seat: money credited by that step})
    (1, {0: -4, 1: +4}),
    (2, {1: -8, 2: +8}),
    (3, {2: -12, 3: +12}),
]
"""docs/rules.md §4: A → B 4X, B → C 4X + 4X, C → D 4X + 8X."""

FOUR_TWOS_DEAL = [
    ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS"],
    ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC"],
    ["2S", "2C", "2D", "2H", "3D", "4D", "5D", "6D", "7D", "8D"],
    ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH"],
]
"""Seat 2 is dealt four 2s: an instant win (§9) under the default rules."""

INSTANT_WIN_DEALS: dict[str, tuple[list[list[str]], int]] = {
    "four_twos": (FOUR_TWOS_DEAL, 2),
    "dragon": (
        [
            ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "KS", "AS"],
            ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "KH", "AH"],
            ["3D", "4C", "5D", "6C", "7D", "8C", "9D", "10C", "JD", "QC"],
            ["JS", "JH", "QS", "QH", "KC", "KD", "AC", "AD", "2S", "2C"],
        ],
        2,
    ),
    "same_colour": (
        [
            ["3S", "4D", "5S", "6H", "7S", "8D", "9S", "10H", "JS", "KS"],
            ["3C", "4S", "5C", "6S", "7C", "8S", "9C", "10S", "JC", "AH"],
            ["3H", "4C", "5D", "6C", "7H", "8C", "9D", "10D", "JH", "KC"],
            ["3D", "5H", "7D", "9H", "JD", "KH", "2D", "4H", "6D", "8H"],
        ],
        3,
    ),
    "three_triples": (
        [
            ["4S", "4C", "6S", "6C", "7S", "8S", "10S", "JS", "QS", "KH"],
            ["3S", "3C", "3D", "5S", "5C", "5D", "9H", "9S", "9C", "KD"],
            ["4D", "4H", "6D", "6H", "7C", "7D", "8C", "8D", "10C", "JC"],
            ["3H", "5H", "7H", "8H", "9D", "10D", "10H", "JD", "JH", "QC"],
        ],
        1,
    ),
    "five_pairs": (
        [
            ["3S", "3C", "5D", "5H", "7S", "7C", "9D", "9H", "JS", "JC"],
            ["4S", "4C", "6S", "6C", "8S", "8C", "10S", "QS", "KS", "AS"],
            ["3D", "4D", "6D", "8D", "10D", "QD", "KD", "AD", "2D", "2S"],
            ["3H", "4H", "6H", "8H", "10H", "QH", "KH", "AH", "2H", "2C"],
        ],
        0,
    ),
}
"""Per instant-win kind (§9), a 4-seat deal (from tests/scenarios/instant.yaml) and the seat that wins it
when that kind alone is enabled (``RuleConfig(instant_wins={kind})``)."""


def actions(names: list[str]) -> list[int]:
    return [action_index(n) for n in names]


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """The random policy of every test: a uniform choice among the legal actions."""
    return int(rng.choice(np.flatnonzero(mask)))


def play_aec(
    env,
    rng: np.random.Generator,
    on_step: Callable[[object, str, int | None], None] | None = None,
    choose: Callable[[str, dict], int] | None = None,
) -> dict[str, float]:
    """Run one hand through the AEC loop as its users write it; return each agent's summed ``last()`` rewards.

    Dead agents step ``None`` (their last reward is summed too). ``on_step(env, agent, action)`` is
    called after every step; ``choose(agent, observation)`` replaces the random choice.
    """
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        elif choose is not None:
            action = choose(agent, obs)
        else:
            action = random_legal(rng, obs["action_mask"])
        env.step(action)
        if on_step is not None:
            on_step(env, agent, action)
    return totals


API_TEST_WARNINGS = (
    # api_test resets with a dummy option {"options": 1}: ignored, with a warning naming it
    r"unknown reset option\(s\) \['options'\]; expected some of \['hands', 'leader'\] \(ignored\)$",
    # the Dict observation with "action_mask" of PettingZoo's classic games, which api_test does not expect
    r"Observation space for each agent probably should be gymnasium\.spaces\.box or gymnasium\.spaces\.discrete$",
    r"Observation is not a NumPy array$",
)
"""Every warning PettingZoo's ``api_test`` gives on this environment, and why; any other (an all-zero
mask, NaNs in an observation, …) fails :func:`expected_warnings_only`."""


@contextmanager
def expected_warnings_only(expected: tuple[str, ...] = API_TEST_WARNINGS) -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning of the block; fail on one that matches none of ``expected`` (regular expressions)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    unexpected = sorted({str(w.message) for w in caught if not any(re.match(p, str(w.message)) for p in expected)})
    assert not unexpected, f"unexpected warnings: {unexpected}"


class ForcedDeal(BaseWrapper):
    """Every ``reset`` deals ``hands`` (the environment's own reset option), whatever else it is given:
    how a user runs PettingZoo's checks, which reset by themselves, on one chosen deal."""

    def __init__(self, env: Any, hands: list[list[str]]) -> None:
        super().__init__(env)
        self.hands = hands

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        super().reset(seed=seed, options={**(options or {}), "hands": self.hands})


class InstantWinEveryOtherHand(BaseWrapper):
    """Every other ``reset`` deals an instant win of the next kind in turn (rules with every kind on): so that
    a client's rollout crosses instant-win deals in a few hundred steps instead of thousands."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.resets = 0

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        self.resets += 1
        kinds = sorted(INSTANT_WIN_DEALS)
        if self.resets % 2 == 0:
            deal, _ = INSTANT_WIN_DEALS[kinds[self.resets // 2 % len(kinds)]]
            options = {**(options or {}), "hands": deal}
        super().reset(seed=seed, options=options)
