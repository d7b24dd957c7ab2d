"""Epsilon-greedy self-play on :class:`sam_env.VectorEnv`: every seat of every table plays the Q-network.

At each table step the network scores every legal move of every table where the seat to act has a
choice — all (table, move) pairs in one forward pass, the observation's share of the first layer
computed once per table (:meth:`~sam_env.agents.networks.qnet.network.QNetwork.move_values`) — and each such
seat plays its best move, or with chance ``epsilon`` a uniformly random legal one. A move with one
legal action is played at once and not stored. Money is credited to each seat's latest decision
(:class:`~sam_env.training.common.trajectories.SeatTrajectories`, as the batched trainer does), so a
decision's reward is its seat's money until its next decision or the end of the hand.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from sam_env import VectorEnv
from sam_env.agents.networks.qnet.network import QNetwork
from sam_env.bot import RandomBot
from sam_env.move_features import legal_pairs, move_features

from ..common.trajectories import SeatTrajectories
from .targets import Decisions


@dataclass
class CollectStats:
    """What one collection did: moves played (forced ones included), decisions stored, hands ended, seconds."""

    moves: int = 0
    decisions: int = 0
    hands: int = 0
    sams_declared: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"env": 0.0, "inference": 0.0})


class SelfPlay:
    """``venv``'s tables, every seat the network's; :meth:`collect` adds their decisions to ``decisions``."""

    def __init__(
        self,
        venv: VectorEnv,
        net: QNetwork,
        decisions: Decisions,
        epsilon: float,
        reward_scale: float,
        rng: np.random.Generator,
    ) -> None:
        self.venv, self.net, self.decisions = venv, net, decisions
        self.epsilon = epsilon
        self.reward_scale = reward_scale
        self.rng = rng
        self.random = RandomBot(int(rng.integers(2**63)))
        self.trajectories = SeatTrajectories(decisions, venv.num_tables, venv.n_players)
        self.batch = venv.reset()

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each row's legal move of highest value, by one forward pass over every legal (row, move) pair."""
        rows, actions = legal_pairs(masks)
        moves = move_features(observations[rows], actions)
        with torch.inference_mode():
            values = self.net.move_values(
                torch.from_numpy(observations), torch.from_numpy(rows), torch.from_numpy(moves)
            )
        table = np.full(masks.shape, -np.inf, dtype=np.float32)
        table[rows, actions] = values.numpy()
        return np.argmax(table, axis=1)

    def collect(self, steps: int) -> CollectStats:
        """Play ``steps`` table steps of every table."""
        stats = CollectStats()
        clock = time.perf_counter()
        for _ in range(steps):
            batch = self.batch
            masks = batch.action_mask
            actions = np.argmax(masks, axis=1)  # a forced move: the one legal action
            rows = np.flatnonzero(np.count_nonzero(masks, axis=1) > 1)
            if rows.size:
                obs = batch.observation[rows]
                chosen = self.greedy(obs, masks[rows])
                explore = self.rng.random(rows.size) < self.epsilon
                if explore.any():
                    chosen[explore] = self.random(obs[explore], masks[rows[explore]])
                actions[rows] = chosen
                positions = self.decisions.append(obs, chosen)
                self.trajectories.record(rows, batch.current_seat[rows], positions)
            now = time.perf_counter()
            stats.seconds["inference"] += now - clock
            clock = now
            batch = self.batch = self.venv.step(actions)
            ended = np.flatnonzero(batch.terminated)
            if ended.size:
                self._count(ended, stats)
            self.trajectories.credit(batch.rewards * np.float32(self.reward_scale), ended)
            stats.moves += self.venv.num_tables
            stats.decisions += rows.size
            now = time.perf_counter()
            stats.seconds["env"] += now - clock
            clock = now
        return stats

    def _count(self, ended: np.ndarray, stats: CollectStats) -> None:
        finished = self.venv.results()
        for t in ended.tolist():
            stats.hands += 1
            stats.sams_declared += finished[t][0].result.sam_declarer is not None
