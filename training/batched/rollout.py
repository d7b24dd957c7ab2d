"""Rollouts on :class:`sam_env.VectorEnv`: every seat of every table played by batched policies.

Each table's seats are drawn afresh for every hand (:class:`~sam_env.training.common.seating.Seating`): the
learner (one network shared by all its seats), a frozen snapshot from the self-play pool, the compiled
heuristic or the random player (:class:`sam_env.RandomBot`, batched). Every step, the learner's forward pass
covers all tables where a learner seat acts, and each frozen network one pass for the tables where it acts.

A learner seat's decisions form its own trajectory
(:class:`~sam_env.training.common.trajectories.SeatTrajectories`); a move with only one legal action is no
decision (it is played at once and neither stored nor trained on, though ``total_timesteps`` counts
it). Money is credited per absolute seat at every
step (``batch.rewards``: chop money of seats that did not act included) and is added to the reward
of that seat's latest decision in the hand, so a decision's reward is the money its seat received
until its next decision or the end of the hand. The hand's end closes every seat's trajectory.
Money that reaches a seat before its first decision with a choice in a hand belongs to no decision and
is left out (an instant win, settled by the winner's one forced move; a Sâm declared before its turn
that it can never block): no choice of that seat could change it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from sam_env import N_ACTIONS, VectorEnv
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.bot import RandomBot
from sam_env.evaluation.stats import hand_metrics

from ..common.seating import HEURISTIC, LEARNER, RANDOM, Seating
from ..common.trajectories import SeatTrajectories
from .network import OracleCritic, sample


@dataclass
class RolloutBuffer:
    """The learner's decisions of one rollout, in the order they were taken (a trajectory's next
    decision always comes later). ``next[i]``: the position of the same seat's next decision in the
    hand, ``-1`` if none in this rollout; ``boot[i]``: the value estimate a trajectory cut by the end
    of the rollout continues with; ``hidden[i]``: the other seats' hands, for an oracle critic (no
    columns without one)."""

    obs: np.ndarray
    hidden: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    log_prob: np.ndarray
    value: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    next: np.ndarray
    boot: np.ndarray
    size: int = 0

    @classmethod
    def allocate(cls, capacity: int, obs_size: int, n_actions: int, hidden_size: int = 0) -> RolloutBuffer:
        return cls(
            obs=np.zeros((capacity, obs_size), dtype=np.float32),
            hidden=np.zeros((capacity, hidden_size), dtype=np.float32),
            mask=np.zeros((capacity, n_actions), dtype=bool),
            action=np.zeros(capacity, dtype=np.int64),
            log_prob=np.zeros(capacity, dtype=np.float32),
            value=np.zeros(capacity, dtype=np.float32),
            reward=np.zeros(capacity, dtype=np.float32),
            done=np.zeros(capacity, dtype=bool),
            next=np.zeros(capacity, dtype=np.int64),
            boot=np.zeros(capacity, dtype=np.float32),
        )


@dataclass
class RolloutStats:
    """What a rollout measured: seconds by part, and the learner seats' finished hands."""

    seconds: dict[str, float] = field(default_factory=lambda: {"env": 0.0, "inference": 0.0, "bookkeeping": 0.0})
    decisions: int = 0
    learner_steps: int = 0
    """Moves of learner seats, forced ones included (what ``total_timesteps`` counts); the decisions
    stored and trained on are ``buffer.size`` (logged as ``train/samples``)."""
    metrics: list[tuple[int, ...]] = field(default_factory=list)
    """:func:`sam_env.evaluation.stats.hand_metrics` of every learner seat in every hand that ended."""


class Collector:
    """Plays ``steps`` table steps of every table and fills a :class:`RolloutBuffer` with the learner's decisions.

    Tables keep playing across rollouts (a hand cut by the end of a rollout goes on in the next one;
    its open trajectories are closed with the critic's estimate, :attr:`RolloutBuffer.boot`). With
    an ``oracle`` critic the value estimates come from it, and the buffer keeps the hidden hands.
    """

    def __init__(
        self,
        venv: VectorEnv,
        seating: Seating,
        net: ActorCritic,
        steps: int,
        reward_scale: float,
        device: torch.device,
        deterministic_opponents: bool = False,
        seed: int = 0,
        oracle: OracleCritic | None = None,
    ) -> None:
        self.venv, self.seating, self.net, self.steps = venv, seating, net, steps
        self.oracle = oracle
        self.reward_scale = reward_scale
        self.device = device
        self.deterministic_opponents = deterministic_opponents
        self.random = RandomBot(seed)
        self.heuristic = BatchedHeuristic(venv.rules)
        n = venv.num_tables
        hidden_size = venv.hidden_size if oracle is not None else 0
        self.buffer = RolloutBuffer.allocate(steps * n, venv.observation_size, N_ACTIONS, hidden_size)
        self.hidden = np.zeros((n, hidden_size), dtype=np.float32)
        """Every table's hidden hands, rewritten in place each step (an oracle critic only)."""
        self.trajectories = SeatTrajectories(self.buffer, n, venv.n_players)
        self.batch = venv.reset()
        seating.draw(np.arange(n))

    def collect(self) -> RolloutStats:
        stats = RolloutStats()
        buf, n = self.buffer, self.venv.num_tables
        buf.size = 0
        self.trajectories.last[:] = -1
        self.seating.forget_unused()
        actions = np.zeros(n, dtype=np.int64)
        tables = np.arange(n)
        clock = time.perf_counter()
        for _ in range(self.steps):
            batch = self.batch
            seat = batch.current_seat
            occupant = self.seating.occupant[tables, seat]
            # The learner: one forward pass over every table where a learner seat has a choice. A
            # move with one legal action is played at once and not trained on (a third of all moves
            # at 4 seats); money it brings goes to the seat's latest real decision.
            learner = np.flatnonzero(occupant == LEARNER)
            choice = np.count_nonzero(batch.action_mask[learner], axis=1) > 1
            forced = learner[~choice]
            actions[forced] = np.argmax(batch.action_mask[forced], axis=1)
            rows = learner[choice]
            pos = np.arange(buf.size, buf.size + rows.size)
            buf.obs[pos] = batch.observation[rows]
            buf.mask[pos] = batch.action_mask[rows]
            if self.oracle is not None:
                buf.hidden[pos] = self.venv.hidden_hands(seat, out=self.hidden)[rows]
            now = time.perf_counter()
            stats.seconds["bookkeeping"] += now - clock
            clock = now
            with torch.inference_mode():
                obs = torch.from_numpy(buf.obs[buf.size : buf.size + rows.size]).to(self.device)
                mask = torch.from_numpy(buf.mask[buf.size : buf.size + rows.size]).to(self.device)
                act, log_prob = sample(self.net.logits(obs, mask), mask)
                buf.value[pos] = self._value(obs, buf.hidden[pos] if self.oracle is not None else None).cpu().numpy()
                buf.action[pos] = act.cpu().numpy()
                buf.log_prob[pos] = log_prob.cpu().numpy()
                actions[rows] = buf.action[pos]
                # Each frozen network: one pass over the tables where it acts.
                for key in np.unique(occupant[occupant >= 0]).tolist():
                    them = np.flatnonzero(occupant == key)
                    player = self.seating.pool[key]
                    if not isinstance(player, ActorCritic):  # a batched policy of one's own: arrays in, actions out
                        actions[them] = player(batch.observation[them], batch.action_mask[them])
                        continue
                    o = torch.from_numpy(batch.observation[them]).to(self.device)
                    m = torch.from_numpy(batch.action_mask[them]).to(self.device)
                    a, _ = sample(player.logits(o, m), m, self.deterministic_opponents)
                    actions[them] = a.cpu().numpy()
            them = np.flatnonzero(occupant == HEURISTIC)
            if them.size:
                actions[them] = self.heuristic(batch.observation[them], batch.action_mask[them])
            them = np.flatnonzero(occupant == RANDOM)
            if them.size:
                actions[them] = self.random(batch.observation[them], batch.action_mask[them])
            for code, policy in self.seating.extra.items():  # greedy, heuristic variants (PFSP's pool)
                them = np.flatnonzero(occupant == code)
                if them.size:
                    actions[them] = policy(batch.observation[them], batch.action_mask[them])
            now = time.perf_counter()
            stats.seconds["inference"] += now - clock
            clock = now
            self.trajectories.record(rows, seat[rows], pos)
            buf.size += rows.size
            stats.decisions += n
            stats.learner_steps += learner.size
            now = time.perf_counter()
            stats.seconds["bookkeeping"] += now - clock
            clock = now
            batch = self.batch = self.venv.step(actions)
            ended = np.flatnonzero(batch.terminated)
            finished = self.venv.results() if ended.size else {}
            now = time.perf_counter()
            stats.seconds["env"] += now - clock
            clock = now
            self._credit(batch.rewards, ended, finished, stats)
        self._bootstrap()
        stats.seconds["bookkeeping"] += time.perf_counter() - clock
        return stats

    def _credit(self, rewards: np.ndarray, ended: np.ndarray, finished: dict, stats: RolloutStats) -> None:
        """Add each seat's money to its latest decision; close the trajectories of hands that ended."""
        money = rewards.astype(np.float32, copy=True)
        for t in ended.tolist():
            result = finished[t][0].result
            for p in np.flatnonzero(self.seating.occupant[t] == LEARNER).tolist():
                stats.metrics.append(hand_metrics(result, p))
            self.seating.record(t, result.net)
        self.trajectories.credit(money * self.reward_scale, ended)
        self.seating.draw(ended)

    def _value(self, obs: torch.Tensor, hidden: np.ndarray | None) -> torch.Tensor:
        """The critic's estimates: the oracle's (from the hidden hands too), else the observation critic's."""
        if self.oracle is None or hidden is None:
            return self.net.value(obs)
        return self.oracle(obs, torch.from_numpy(hidden).to(self.device))

    def _bootstrap(self) -> None:
        """Value estimates for trajectories the end of the rollout cut, from each seat's own view of its table."""
        with torch.inference_mode():
            last = self.trajectories.last
            for p in range(self.venv.n_players):
                rows = np.flatnonzero(last[:, p] >= 0)
                if rows.size:
                    obs = torch.from_numpy(self.venv.observe(p)[rows]).to(self.device)
                    hidden = self.venv.hidden_hands(p, out=self.hidden)[rows] if self.oracle is not None else None
                    self.buffer.boot[last[rows, p]] = self._value(obs, hidden).cpu().numpy()
