"""Search targets from ``VectorEnv`` self-play (sam_env.training.expert.search_targets).

A decision read from a ``VectorEnv`` table must be the decision the seat sees in ``sam_env.env()``
when the table's deal and recorded moves are replayed there (its cards, every seat's played cards
and count, the leader, the history, its money so far, its observation and mask), and the targets of
a batch must be those of each decision searched alone with its own generator.
"""

from __future__ import annotations

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import shipped_checkpoint, shipped_network_for
from sam_env.agents.search import DecisionPoint
from sam_env.agents.search.engine import BatchedSearch
from sam_env.core.rules import INSTANT_WIN_TYPES
from sam_env.training.expert.search_targets import HandHistories, decision_points, search_targets
from sam_env.vector import VectorEnv
from sam_env.vector.reference_check import random_actions, random_rules


def _reference_point(rules: RuleConfig, deal: list[int], leader: int, history: tuple) -> DecisionPoint:
    env = sam_env.env(rules=rules)
    env.reset(options={"hands": deal, "leader": leader})
    raw = env.unwrapped
    for seat, move in history:
        assert raw.seat_of(env.agent_selection) == seat
        env.step(move)
    observation = env.last()[0]
    return DecisionPoint.of(observation, raw.seat_view(env.agent_selection))


@pytest.mark.parametrize("seed", range(4))
def test_decision_points_of_a_vector_env_are_the_seats_views(seed: int) -> None:
    rules = random_rules(np.random.default_rng(seed))
    rules = RuleConfig(**{**rules.to_dict(), "instant_wins": frozenset(INSTANT_WIN_TYPES)})
    venv, rng = VectorEnv(12, rules, seed=seed), np.random.default_rng(seed)
    histories = HandHistories(venv)
    batch = histories.reset()
    compared = long = 0
    for step in range(60):
        if step % 15 == 7:
            dealt, leaders = venv.dealt(), venv.leaders()
            for t, point in enumerate(decision_points(venv, histories)):
                expected = _reference_point(rules, dealt[t].tolist(), int(leaders[t]), point.history)
                for field in ("seat", "hand", "played", "n_cards", "leader", "history", "net"):
                    assert getattr(point, field) == getattr(expected, field), (step, t, field)
                assert np.array_equal(point.observation, expected.observation), (step, t)
                assert np.array_equal(point.action_mask, expected.action_mask), (step, t)
                compared += 1
                long += len(point.history) > 8
        batch = histories.step(random_actions(rng, batch.action_mask))
    assert compared == 48 and long > 5, (compared, long)


def test_targets_are_each_decisions_own_search() -> None:
    rules = RuleConfig(n_players=3)
    venv = VectorEnv(10, rules, seed=1)
    histories = HandHistories(venv)
    batch, rng = histories.reset(), np.random.default_rng(1)
    for _ in range(12):
        batch = histories.step(random_actions(rng, batch.action_mask))
    search = BatchedSearch(shipped_checkpoint(shipped_network_for("ppo", rules)), 6, 3)
    tables = np.array([0, 2, 3, 5, 6, 7, 9])
    targets = search_targets(search, venv, histories, tables, seed=5)
    children = np.random.SeedSequence(5).spawn(len(tables))
    points = decision_points(venv, histories, tables.tolist())
    assert targets.searched.sum() >= 4 and (targets.replayed[targets.searched] > 0).all()
    for i, (point, child) in enumerate(zip(points, children, strict=True)):
        alone = search.search([point], [np.random.default_rng(child)])[0]
        assert targets.moves[i] == alone.move and targets.action_masks[i, alone.move]
        k = len(alone.candidates)
        assert (
            targets.candidates[i, :k].tolist() == alone.candidates.tolist() and (targets.candidates[i, k:] == -1).all()
        )
        np.testing.assert_array_equal(targets.values[i, :k], alone.values)
        assert targets.searched[i] == (point.action_mask.sum() > 1)
        if targets.searched[i]:
            assert targets.value[i] == alone.values.max() == alone.values[list(alone.candidates).index(alone.move)]
        else:
            assert np.isnan(targets.value[i])
    assert np.array_equal(targets.observations, batch.observation[tables])
    assert np.array_equal(targets.seats, batch.current_seat[tables])
    moves = batch.action_mask.argmax(axis=1)
    moves[tables] = targets.moves
    histories.step(moves)  # the tables play on with the search's moves
    assert all(histories.moves[t] for t in range(10) if not venv.batch.terminated[t])
