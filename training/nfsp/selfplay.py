"""NFSP's self-play on :class:`sam_env.VectorEnv`: every seat of every table is the one agent's, in a mode drawn
per hand.

When a hand starts each seat draws its mode for the hand, as RLCard's ``sample_episode_policy`` does per episode:
the best response with chance ``anticipatory_param`` (η), else the average policy. At each table step the seats
to act that have a choice play in one batch per mode: the average policy's seats sample its masked softmax; the
best response's play the Q-network's best legal move, or with chance ``epsilon`` a uniformly random legal one, and
those moves (exploration included, as in the paper) go to the reservoir. Every decision's transition goes to the
Q-network's buffer (:mod:`.transitions`), whichever mode played it. A move with one legal action is played at once
and learned from by neither network.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from sam_env import VectorEnv
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.networks.qnet.network import QNetwork
from sam_env.bot import RandomBot

from ..common.masking import masked
from .buffers import ReplayBuffer, ReservoirBuffer
from .transitions import OpenDecisions

AVERAGE, BEST_RESPONSE = 0, 1
"""A seat's mode for a hand."""


@dataclass
class CollectStats:
    """What one collection did: moves played (forced ones included), decisions (of each mode), hands ended."""

    moves: int = 0
    decisions: int = 0
    best_response_decisions: int = 0
    hands: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"env": 0.0, "inference": 0.0})


def sample_masked(logits: torch.Tensor, masks: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Each row's move drawn from the softmax of its legal logits, by inverting the cumulative probabilities at
    ``uniform`` (one number in [0, 1) per row): an illegal move has probability 0 and is never drawn."""
    probs = torch.softmax(masked(logits, torch.from_numpy(masks)), dim=1).numpy()
    cumulative = np.cumsum(probs, axis=1)
    return np.argmax(cumulative > uniform[:, None] * cumulative[:, -1:], axis=1)


class SelfPlay:
    """``venv``'s tables, every seat the agent's; :meth:`collect` fills ``transitions`` and ``reservoir``."""

    def __init__(
        self,
        venv: VectorEnv,
        policy: ActorCritic,
        q_net: QNetwork,
        transitions: ReplayBuffer,
        reservoir: ReservoirBuffer,
        anticipatory_param: float,
        reward_scale: float,
        rng: np.random.Generator,
    ) -> None:
        self.venv, self.policy, self.q_net = venv, policy, q_net
        self.transitions, self.reservoir = transitions, reservoir
        self.eta = anticipatory_param
        self.reward_scale = np.float32(reward_scale)
        self.rng = rng
        self.random = RandomBot(int(rng.integers(2**63)))
        self.open = OpenDecisions(venv.num_tables, venv.n_players, venv.observation_size)
        self.mode = np.zeros((venv.num_tables, venv.n_players), dtype=np.int8)
        self.draw_modes(np.arange(venv.num_tables))
        self.batch = venv.reset()

    def draw_modes(self, tables: np.ndarray) -> None:
        """Each seat of ``tables`` draws its mode for the next hand: best response with chance η."""
        self.mode[tables] = self.rng.random((tables.size, self.venv.n_players)) < self.eta

    def best_response(self, obs: np.ndarray, masks: np.ndarray, epsilon: float) -> np.ndarray:
        """The Q-network's best legal move of each row, or with chance ``epsilon`` a uniformly random legal one."""
        with torch.inference_mode():
            q = self.q_net(torch.from_numpy(obs)).numpy()
        actions = np.argmax(np.where(masks, q, -np.inf), axis=1)
        explore = self.rng.random(len(actions)) < epsilon
        if explore.any():
            actions[explore] = self.random(obs[explore], masks[explore])
        return actions

    def average_policy(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Moves sampled from the average policy over each row's legal moves."""
        with torch.inference_mode():
            logits = self.policy.logits(torch.from_numpy(obs))
        return sample_masked(logits, masks, self.rng.random(len(obs)))

    def collect(self, steps: int, epsilon: float) -> CollectStats:
        """Play ``steps`` table steps of every table; the best response explores with chance ``epsilon``."""
        stats = CollectStats()
        clock = time.perf_counter()
        for _ in range(steps):
            batch = self.batch
            masks = batch.action_mask
            actions = np.argmax(masks, axis=1)  # a forced move: the one legal action
            rows = np.flatnonzero(np.count_nonzero(masks, axis=1) > 1)
            if rows.size:
                obs, legal, seats = batch.observation[rows], masks[rows], batch.current_seat[rows]
                modes = self.mode[rows, seats]
                chosen = np.empty(rows.size, dtype=np.int64)
                br = np.flatnonzero(modes == BEST_RESPONSE)
                avg = np.flatnonzero(modes == AVERAGE)
                if br.size:
                    chosen[br] = self.best_response(obs[br], legal[br], epsilon)
                    self.reservoir.add(obs[br], legal[br], chosen[br], self.rng)
                if avg.size:
                    chosen[avg] = self.average_policy(obs[avg], legal[avg])
                actions[rows] = chosen
                self.transitions.add(self.open.decide(rows, seats, obs, legal, chosen, modes))
                stats.decisions += rows.size
                stats.best_response_decisions += br.size
            now = time.perf_counter()
            stats.seconds["inference"] += now - clock
            clock = now
            batch = self.batch = self.venv.step(actions)
            self.open.credit(batch.rewards * self.reward_scale)
            ended = np.flatnonzero(batch.terminated)
            if ended.size:
                self.transitions.add(self.open.close(ended))
                self.draw_modes(ended)
                stats.hands += ended.size
            stats.moves += self.venv.num_tables
            now = time.perf_counter()
            stats.seconds["env"] += now - clock
            clock = now
        return stats
