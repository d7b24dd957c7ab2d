"""The DQN learner's tables: :class:`sam_env.SingleAgentEnv` with the legal moves in the observation, the other
seats drawn per hand from the rule bots, as Tianshou's ``DummyVectorEnv`` of ``n_envs`` tables.

Tianshou's masked DQN reads the legal moves from ``obs.mask`` (:class:`sam_env.single_agent.MaskInObservation`):
its greedy move, its random exploration move and its double-Q target's next move are all legal ones.
Each table draws its opponents and seeds its bots from the run's seed and the table's index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from tianshou.env import DummyVectorEnv

from sam_env import SingleAgentEnv
from sam_env.agents.registry import make_agent
from sam_env.bot import Bot
from sam_env.core import SeatView
from sam_env.single_agent import MaskInObservation

from ..config import BASELINES
from .config import DQNConfig


class Seat:
    """An opponent seat whose bot changes between hands."""

    def __init__(self) -> None:
        self.bot: Bot | None = None

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        return self.bot.act(observation, view)


class DrawnOpponents(gym.Wrapper):
    """One learner seat (a random one each hand); before each hand every other seat gets a rule bot drawn
    from ``config.opponents``. Observations are ``{"obs": vector, "mask": legal moves}``."""

    def __init__(self, config: DQNConfig, index: int, seed_words: Sequence[int]) -> None:
        rules = config.rule_config
        self.seats = [Seat() for _ in range(rules.n_players - 1)]
        super().__init__(MaskInObservation(SingleAgentEnv(self.seats, rules=rules, reward_scale=config.reward_scale)))
        seeds = np.random.SeedSequence([*seed_words, index]).spawn(len(BASELINES) + 1)
        self.rng = np.random.default_rng(seeds[0])
        self.bots = {name: make_agent(name, seed) for name, seed in zip(BASELINES, seeds[1:], strict=True)}
        weights = {name: w for name, w in config.opponents.weights().items() if name in BASELINES and w > 0}
        self.kinds = list(weights)
        self.p = np.array(list(weights.values())) / sum(weights.values())

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        for seat in self.seats:
            seat.bot = self.bots[self.kinds[int(self.rng.choice(len(self.kinds), p=self.p))]]
        return self.env.reset(**kwargs)


def make_tables(config: DQNConfig) -> DummyVectorEnv:
    """``n_envs`` tables, seeded from the run's seed."""
    seed_words = [config.seed]

    def factory(index: int) -> Any:
        return lambda: DrawnOpponents(config, index, seed_words)

    tables = DummyVectorEnv([factory(i) for i in range(config.n_envs)])
    tables.seed(int(np.random.SeedSequence(seed_words).generate_state(1)[0] % 2**31))
    return tables
