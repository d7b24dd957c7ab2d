"""The SB3 learner's tables: one learner seat, the other seats filled per hand from bots and self-play snapshots.

Each environment owns its opponent draw, its bots and its copy of the self-play pool, every one
seeded from the run's seed and the environment's index, so that ``dummy`` and ``subproc`` vector
environments play the same games.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from sam_env import SingleAgentEnv
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.registry import make_agent
from sam_env.bot import Bot
from sam_env.core import SeatView

from ..config import BASELINES, OPPONENT_KINDS
from .config import SB3Config


class SeatSlot:
    """An opponent seat whose occupant changes between hands; times every decision by kind."""

    def __init__(self, timings: dict[str, float]) -> None:
        self.kind = ""
        self.policy: Bot | None = None
        self._timings = timings

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        start = time.perf_counter()
        action = self.policy.act(observation, view)
        self._timings[self.kind] += time.perf_counter() - start
        return action


class OpponentDraw(gym.Wrapper):
    """Draws the occupant of every opponent seat before each hand, from the bots and the self-play pool.

    The pool lives in every environment (each one a copy, so that ``SubprocVecEnv`` workers have
    theirs); :meth:`add_snapshot` is called through ``VecEnv.env_method``. Every draw uses this
    environment's own generator, and every bot its own, all seeded from the run's seed.
    """

    def __init__(self, config: SB3Config, index: int, seed_words: Sequence[int]) -> None:
        rules = config.rule_config
        self.timings = dict.fromkeys(OPPONENT_KINDS, 0.0)
        self.slots = [SeatSlot(self.timings) for _ in range(rules.n_players - 1)]
        super().__init__(SingleAgentEnv(opponents=self.slots, rules=rules, reward_scale=config.reward_scale))
        seeds = np.random.SeedSequence([*seed_words, index]).spawn(len(BASELINES) + 2)
        self.rng = np.random.default_rng(seeds[0])
        self.bots = {name: make_agent(name, s) for name, s in zip(BASELINES, seeds[1:-1], strict=True)}
        self._snapshot_seed = seeds[-1]
        kinds = config.opponents.weights()
        self.kinds = list(kinds)
        self.p = np.array(list(kinds.values())) / sum(kinds.values())
        self.pool: list[PPOBot] = []
        self.pool_size = config.pool_size
        self.deterministic = config.snapshot_deterministic
        self.reward_scale = config.reward_scale
        self._money = 0.0

    def add_snapshot(self, snapshot: PolicyCheckpoint) -> None:
        """Add a frozen copy of the learner; the oldest is dropped beyond ``pool_size``."""
        seed = self._snapshot_seed.spawn(1)[0]
        self.pool.append(PPOBot(snapshot, seed=seed, deterministic=self.deterministic, name="self_play"))
        del self.pool[: -self.pool_size]

    def pop_timings(self) -> dict[str, float]:
        """Seconds each kind of opponent spent deciding since the last call."""
        out = dict(self.timings)
        for k in self.timings:
            self.timings[k] = 0.0
        return out

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        for slot in self.slots:
            slot.kind = self.kinds[int(self.rng.choice(len(self.kinds), p=self.p))]
            if slot.kind == "self_play":
                if not self.pool:
                    raise RuntimeError("a self-play seat was drawn before the first snapshot reached the pool")
                slot.policy = self.pool[int(self.rng.integers(len(self.pool)))]
            else:
                slot.policy = self.bots[slot.kind]
        obs, info = self.env.reset(**kwargs)
        self._money = 0.0
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._money += reward / self.reward_scale
        if terminated:
            info["money"] = self._money  # the learner's net for the hand, in X
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


def make_vec_env(config: SB3Config, start_step: int) -> VecEnv:
    """``n_envs`` monitored tables; ``start_step`` makes a resumed run draw fresh deals and opponents."""
    seed_words = [config.seed, start_step]

    def factory(index: int) -> gym.Env:
        return lambda: Monitor(OpponentDraw(config, index, seed_words))

    env_fns = [factory(i) for i in range(config.n_envs)]
    vec_env = SubprocVecEnv(env_fns) if config.vec_env == "subproc" else DummyVecEnv(env_fns)
    vec_env.seed(int(np.random.SeedSequence(seed_words).generate_state(1)[0]))
    return vec_env
