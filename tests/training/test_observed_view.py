"""Rule bots at VectorEnv tables: the view read back from an observation makes the heuristic bot play
exactly as the environment's own view does."""

from __future__ import annotations

import numpy as np
import pytest

import sam_env
from agents.heuristic_bot import HeuristicBot
from sam_env import RuleConfig
from training.batched.observed_view import ViewReader


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_the_heuristic_decides_the_same_from_the_observed_view(n_players: int) -> None:
    rules = RuleConfig(n_players=n_players)
    env = sam_env.env(rules=rules)
    raw = env.unwrapped
    reader = ViewReader(rules)
    bot = HeuristicBot()
    rng = np.random.default_rng(n_players)
    decisions = 0
    for hand in range(25):
        env.reset(seed=hand)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            view = raw.seat_view(agent)
            observed = reader(observation["observation"], observation["action_mask"])
            assert observed.counts == view.counts and observed.legal == tuple(view.legal)
            expected = bot.act(observation, view)
            assert bot.act(observation, observed) == expected, (hand, decisions)
            decisions += 1
            # Half the seats play at random, so the hands reach states the heuristic alone avoids.
            legal = np.flatnonzero(observation["action_mask"])
            env.step(expected if rng.random() < 0.5 else int(rng.choice(legal)))
    assert decisions > 200
