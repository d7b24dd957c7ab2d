"""The compiled heuristic (sam_env.agents.heuristic.compiled) makes HeuristicBot's move at every decision.

Hands are played in the reference environment; at every decision the batched policy gets the seat's
observation and mask (as a VectorEnv row) and must return what HeuristicBot returns from the
environment's own view. Half the moves are random, so the hands reach states (declared Sâm, 2s
left, báo 1) the heuristic alone avoids."""

from __future__ import annotations

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig
from sam_env.agents.heuristic.bot import DEFAULT_PARAMS, HeuristicBot, HeuristicParams
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.core import SeatView
from sam_env.core.combos import DECLARE_SAM, DECLINE_SAM
from sam_env.evaluation.tournament import play_out
from sam_env.vector.reference_check import random_rules


def _compare(rules: RuleConfig, hands: int, seed: int, params: HeuristicParams = DEFAULT_PARAMS) -> int:
    """Decisions compared over ``hands`` hands; fails on the first difference."""
    env = sam_env.env(rules=rules)
    bot, batched = HeuristicBot(params=params), BatchedHeuristic(rules, params)
    rng = np.random.default_rng(seed)
    decisions = 0

    def choose(seat: int, observation: dict, view: SeatView) -> int:
        nonlocal decisions
        expected = bot.act(observation, view)
        got = batched(observation["observation"][None], observation["action_mask"][None])
        assert int(got[0]) == expected, (rules, hand, decisions, view)
        decisions += 1
        mask = observation["action_mask"]
        if mask[DECLARE_SAM]:  # declare now and then, so Sâm play and blocking are reached
            move = DECLARE_SAM if rng.random() < 0.15 else expected
            return move if mask[move] else DECLINE_SAM
        return expected if rng.random() < 0.5 else int(rng.choice(np.flatnonzero(mask)))

    for hand in range(hands):
        env.reset(seed=seed * 1000 + hand)
        play_out(env, choose)
    return decisions


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_same_moves_as_the_heuristic_bot_on_default_rules(n_players: int) -> None:
    assert _compare(RuleConfig(n_players=n_players), hands=40, seed=n_players) > 400


@pytest.mark.parametrize("seed", range(6))
def test_same_moves_as_the_heuristic_bot_on_random_rules(seed: int) -> None:
    rules = random_rules(np.random.default_rng(100 + seed))
    assert _compare(rules, hands=25, seed=seed) > 100


@pytest.mark.parametrize("seed", range(4))
def test_same_moves_as_the_heuristic_bot_with_random_parameters(seed: int) -> None:
    params = HeuristicParams.random(np.random.default_rng(seed))
    assert params != DEFAULT_PARAMS
    assert _compare(RuleConfig(n_players=2 + seed), hands=25, seed=50 + seed, params=params) > 100


def test_the_parameters_change_the_play_and_stay_in_their_ranges() -> None:
    rng = np.random.default_rng(0)
    drawn = [HeuristicParams.random(rng) for _ in range(200)]
    for name, (low, high) in HeuristicParams.RANGES.items():
        values = {getattr(p, name) for p in drawn}
        assert min(values) >= low and max(values) <= high and len(values) > 2
    venv = sam_env.VectorEnv(256, seed=1)
    batch = venv.reset()
    default, other = BatchedHeuristic(venv.rules), BatchedHeuristic(venv.rules, HeuristicParams(1.5, 3, 1))
    differs = 0
    for _ in range(60):
        actions = default(batch.observation, batch.action_mask)
        differs += int((other(batch.observation, batch.action_mask) != actions).sum())
        batch = venv.step(actions)
    assert differs > 0
    with pytest.raises(ValueError, match="contest_cards = 12 must be in"):
        HeuristicParams(contest_cards=12)


def test_observations_of_every_encoding_version_are_read_alike() -> None:
    one, two = sam_env.VectorEnv(64, seed=2), sam_env.VectorEnv(64, seed=2, encoding_version=2)
    b1, b2 = one.reset(), two.reset()
    policy = BatchedHeuristic(one.rules)
    for _ in range(40):
        actions = policy(b1.observation, b1.action_mask)
        assert np.array_equal(policy(b2.observation, b2.action_mask), actions)
        b1, b2 = one.step(actions), two.step(actions)


def test_a_batch_gets_one_move_per_row_and_bad_shapes_are_refused() -> None:
    rules = RuleConfig()
    venv = sam_env.VectorEnv(64, rules=rules, seed=3)
    batch = venv.reset()
    policy = BatchedHeuristic(rules)
    actions = policy(batch.observation, batch.action_mask)
    assert actions.shape == (64,) and batch.action_mask[np.arange(64), actions].all()
    with pytest.raises(ValueError, match="expected observations"):
        policy(batch.observation[:, :-1], batch.action_mask)
    with pytest.raises(ValueError, match="at least one legal action"):
        policy(batch.observation, np.zeros_like(batch.action_mask))
