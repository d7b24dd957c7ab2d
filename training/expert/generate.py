"""An iteration's games: ``VectorEnv`` tables where the network's seats are searched at every decision.

Each hand, each seat of each table is the network's or (with probability ``rule_bot_share``) the
compiled heuristic's; at least one seat per table is the network's. Every step, the decisions of
the network's seats with more than one legal move are searched in one batch
(:func:`sam_env.training.expert.search_targets.search_targets`, through :class:`~.workers.SearchPool`), and the
seats play the search's move or a move sampled from the network (``play``); a forced move is
played at once, unsearched. Once the iteration has its decisions, no table starts a new hand and
every hand in progress is played to its end (searched too): the data are whole hands.

The tables are dealt afresh from ``(seed, iteration)`` and everything drawn on the way (seats,
sampled moves, each step's search seed) comes from generators seeded by ``(seed, iteration, …)``:
an iteration's games depend on the network and the iteration's number only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from sam_env import RuleConfig, VectorEnv
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.evaluation.stats import METRICS, hand_metrics
from sam_env.training.expert.search_targets import HandHistories, search_targets

from .distill import Samples
from .workers import SearchPool

TABLES, SEATS, SAMPLING, SEARCH = range(4)
"""Spawn keys of an iteration's generators: ``SeedSequence(seed, spawn_key=(iteration, key, …))``."""


@dataclass
class IterationGames:
    """What an iteration's games produced: the targets, and what was measured on the way."""

    samples: Samples
    learner_steps: int = 0
    """Moves of the network's seats, forced ones included (what ``total_timesteps`` counts)."""
    searched: int = 0
    """Decisions searched (the network's moves with a choice), those without a value included."""
    steps: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"search": 0.0, "play": 0.0})
    metrics: list[tuple[int, ...]] = field(default_factory=list)
    """:func:`sam_env.evaluation.stats.hand_metrics` of every network seat in every hand that ended."""

    @property
    def agreement(self) -> float:
        """How often the network's most probable move (the search's first candidate) was the search's move."""
        s = self.samples
        return float(np.mean(s.move == s.candidates[:, 0])) if s.size else float("nan")

    @property
    def value_gain(self) -> float:
        """Mean of the search's best value minus the value of the network's move (X per decision)."""
        s = self.samples
        return float(np.mean(s.value - s.values[:, 0])) if s.size else float("nan")

    @property
    def money_per_hand(self) -> float:
        return float(np.mean([m[METRICS.index("net")] for m in self.metrics])) if self.metrics else float("nan")


class SelfPlay:
    """The tables of a run and who sits where; :meth:`play` runs one iteration's games."""

    def __init__(self, num_tables: int, rules: RuleConfig, rule_bot_share: float, seed: int) -> None:
        self.venv = VectorEnv(num_tables, rules)
        self.histories = HandHistories(self.venv)
        self.heuristic = BatchedHeuristic(rules)
        self.rule_bot_share = rule_bot_share
        self.seed = seed
        self.network = np.ones((num_tables, rules.n_players), dtype=bool)
        """``network[t, p]``: seat ``p`` of table ``t`` is the network's this hand (else the heuristic's)."""

    def seeds(self, iteration: int, *key: int) -> np.random.SeedSequence:
        return np.random.SeedSequence(self.seed, spawn_key=(iteration, *key))

    def draw_seats(self, tables: np.ndarray, rng: np.random.Generator) -> None:
        k, n = tables.size, self.venv.n_players
        if k == 0:
            return
        network = rng.random((k, n)) >= self.rule_bot_share
        network[np.arange(k), rng.integers(n, size=k)] = True
        self.network[tables] = network

    def play(
        self, net: ActorCritic, search: SearchPool, iteration: int, decisions: int, learner_steps: int, play: str
    ) -> IterationGames:
        """Play until ``decisions`` searched decisions or ``learner_steps`` moves of the network's
        seats, then finish every hand in progress; ``play``: ``search`` or ``network``."""
        venv, n = self.venv, self.venv.num_tables
        batch = self.histories.reset(seed=int(self.seeds(iteration, TABLES).generate_state(1)[0]))
        seat_rng = np.random.default_rng(self.seeds(iteration, SEATS))
        self.draw_seats(np.arange(n), seat_rng)
        sampling = np.random.default_rng(self.seeds(iteration, SAMPLING))
        games = IterationGames(empty_samples(venv, search.candidates))
        parts: list[Samples] = []
        active = np.ones(n, dtype=bool)
        collecting = True
        tables = np.arange(n)
        clock = time.perf_counter()
        while active.any():
            network = active & self.network[tables, batch.current_seat]
            legal = np.count_nonzero(batch.action_mask, axis=1)
            actions = np.argmax(batch.action_mask, axis=1)  # the forced moves; the others are replaced
            rows = np.flatnonzero(network & (legal > 1))
            if rows.size:
                now = time.perf_counter()
                games.seconds["play"] += now - clock
                seed = self.seeds(iteration, SEARCH, games.steps)
                targets = search_targets(search, venv, self.histories, rows, seed=seed)
                clock = time.perf_counter()
                games.seconds["search"] += clock - now
                parts.append(Samples.of(targets))
                games.searched += rows.size
                if play == "search":
                    actions[rows] = targets.moves
                else:
                    actions[rows] = sample(net, batch.observation[rows], batch.action_mask[rows], sampling)
            bots = np.flatnonzero(active & ~self.network[tables, batch.current_seat])
            if bots.size:
                actions[bots] = self.heuristic(batch.observation[bots], batch.action_mask[bots])
            games.learner_steps += int(network.sum())
            moved = active.copy()
            batch = self.histories.step(actions, moved)
            games.steps += 1
            ended = np.flatnonzero(batch.terminated & moved)
            if ended.size:
                finished = venv.results()
                for t in ended.tolist():
                    result = finished[t][0].result
                    games.metrics += [hand_metrics(result, p) for p in np.flatnonzero(self.network[t]).tolist()]
            collecting = collecting and games.searched < decisions and games.learner_steps < learner_steps
            if collecting:
                self.draw_seats(ended, seat_rng)
            else:
                active[ended] = False  # the hand that follows is not played
        games.seconds["play"] += time.perf_counter() - clock
        if parts:
            games.samples = Samples.concat(parts)
        return games


def empty_samples(venv: VectorEnv, candidates: int) -> Samples:
    """No samples, with the shapes of ``venv``'s and a search of ``candidates``."""
    return Samples(
        obs=np.zeros((0, venv.observation_size), dtype=np.float32),
        mask=np.zeros((0, venv.action_count), dtype=bool),
        move=np.zeros(0, dtype=np.int64),
        candidates=np.zeros((0, candidates), dtype=np.int64),
        values=np.zeros((0, candidates), dtype=np.float32),
    )


def sample(net: ActorCritic, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Moves drawn from the network's masked policy (Gumbel-max with ``rng``'s noise)."""
    with torch.inference_mode():
        device = next(net.parameters()).device
        logits = net.logits(torch.from_numpy(np.ascontiguousarray(obs)).to(device)).cpu().numpy()
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    gumbel = -np.log(-np.log(np.clip(rng.random(z.shape), 1e-20, 1.0)))
    return np.argmax(z + gumbel, axis=1)
