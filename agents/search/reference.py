"""The per-decision search, one decision at a time: the readable reference of the batched engine.

This is how ``ppo_search`` searched before :mod:`.engine` (and is what it computes): for one
decision, every sampled deal is dealt once **per candidate** in a :class:`~sam_env.vector.VectorEnv`,
the hand's history is replayed move by move on every copy, each copy plays its candidate, and the
tables are stepped in lockstep until every hand is over, every seat's model asked at each step for
the tables where that seat has a choice. Money is read from ``VectorEnv.results()``.

It is kept for two reasons, as :mod:`sam_env.core` is kept beside the compiled engine:
``tests/agents/test_search_engine.py`` proves the engine makes the same moves with the same values
on the same decisions, deals and generators, and ``benchmarks/bench_search.py`` measures the
engine's throughput against it in the same run. It draws its deals and models with the same
functions (:mod:`.deals`), from the decision's own generator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sam_env.vector import Batch, VectorEnv

from .deals import DecisionPoint, distinct, log_weights, resample, sample_deals, uniform_models

if TYPE_CHECKING:
    from sam_env.bot import BatchedPolicy
    from sam_env.core import RuleConfig

MAX_ROLLOUT_MOVES = 2_000
"""Moves of one rollout before giving up (a hand of Sâm Lốc ends in far fewer)."""

PRUNE_LOG_WEIGHT = 10.0
"""With inference, a proposed deal whose log-weight falls this far below the best one's so far is
dropped (its weight is then under 1/20,000 of that one's). Approximate: the best may fall later too
(the posterior mass this loses was measured: docs/search.md#inference-from-the-hands-history)."""


class ReferenceSearch:
    """The per-decision search (module docstring) with the same settings as :class:`~.engine.BatchedSearch`.

    Args:
        policies: the batched policy of every model: 0 is the network (the seat itself in rollouts),
            the others the models of the other seats.
        rank: ``rank(observation, mask) -> scores`` of one decision (a policy's logits, a Q-network's
            values): the candidates are its highest-scored legal moves.
        rules: the rules of the decisions searched.
        determinizations: as for ``BatchedSearch``.
        candidates: as for ``BatchedSearch``.
        proposals: as for ``BatchedSearch``.
        mismatch: as for ``BatchedSearch``.
    """

    def __init__(
        self,
        policies: Sequence[BatchedPolicy],
        rank: Callable[[np.ndarray, np.ndarray], np.ndarray],
        rules: RuleConfig,
        determinizations: int = 64,
        candidates: int = 8,
        proposals: int = 0,
        mismatch: float = 0.1,
    ) -> None:
        self.policies = tuple(policies)
        self.rank = rank
        self.determinizations, self.candidates = determinizations, candidates
        self.proposals, self.mismatch = proposals, mismatch
        self.venv = VectorEnv(max(candidates * determinizations, proposals), rules, seed=0)
        self.replayed = 0
        """How many of the last search's deals could be replayed (repeats counted)."""

    def act(self, point: DecisionPoint, rng: np.random.Generator) -> tuple[int, np.ndarray, np.ndarray]:
        """The move, the candidates and their values (none computed where there is one candidate)."""
        legal = point.legal
        logits = self.rank(point.observation, point.action_mask)
        candidates = legal[np.argsort(-logits[legal], kind="stable")][: self.candidates]
        if candidates.size == 1:
            return int(candidates[0]), candidates, np.full(1, np.nan)
        values = self.values(point, candidates, rng)
        return int(candidates[int(np.argmax(values))]), candidates, values

    def values(self, point: DecisionPoint, candidates: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Each candidate's mean money for the seat from now to the end of the hand (``-inf`` for all if
        no deal could be replayed)."""
        venv, k = self.venv, len(candidates)
        deals, models = self.deals_and_models(point, rng)
        first, counts = distinct(deals, models)
        deals, models, n = deals[first], models[first], len(first)
        batch, playing = self._replay(point, [deals[t % n].tolist() for t in range(k * n)])
        if (batch.observation[playing] != point.observation).any():
            raise RuntimeError("replaying the hand's history on a sampled deal does not give the seat's observation")
        self.replayed = int(counts[playing[:n]].sum())
        actions = candidates[np.minimum(np.arange(venv.num_tables) // n, k - 1)]
        model_of = models[np.arange(venv.num_tables) % n]
        money = self._roll_out(actions, playing, point.seat, model_of) - point.net
        values = np.full(k, -np.inf)
        for i in range(k):
            rows = slice(i * n, (i + 1) * n)
            if playing[rows].any():
                values[i] = np.average(money[rows][playing[rows]], weights=counts[playing[rows]])
        return values

    def deals_and_models(self, point: DecisionPoint, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The deals the rollouts play and the model of each seat on each (uniform, or by inference)."""
        n_models = len(self.policies)
        if not self.proposals:
            deals = sample_deals(point, self.determinizations, rng)
            return deals, uniform_models(point.seat, self.determinizations, len(point.played), n_models, rng)
        proposals = sample_deals(point, self.proposals, rng)
        picks, models = resample(point.seat, self.history_loglik(point, proposals), self.determinizations, rng)
        return proposals[picks], models

    def _roll_out(self, actions: np.ndarray, playing: np.ndarray, seat: int, model_of: np.ndarray) -> np.ndarray:
        """Play ``actions`` at the ``playing`` tables, then each seat's model until each hand ends; per
        table, ``seat``'s net money of the whole hand (from the finished hand's result)."""
        venv = self.venv
        tables = np.arange(venv.num_tables)
        money = np.zeros(venv.num_tables)
        live = playing.copy()
        for _ in range(MAX_ROLLOUT_MOVES):
            batch = venv.step(actions, active=live)
            for t, hands in venv.results().items():
                money[t] = hands[0].result.net[seat]
            live &= ~batch.terminated
            if not live.any():
                return money
            masks = batch.action_mask
            actions[live] = np.argmax(masks[live], axis=1)  # the only legal move, where there is one
            choosing = live.copy()
            choosing[live] = np.count_nonzero(masks[live], axis=1) > 1
            acting_model = model_of[tables, batch.current_seat]
            for m in np.unique(acting_model[choosing]).tolist():
                rows = choosing & (acting_model == m)
                actions[rows] = self.policies[m](batch.observation[rows], masks[rows])
        raise RuntimeError(f"a rollout did not end in {MAX_ROLLOUT_MOVES} moves")

    def _replay(
        self,
        point: DecisionPoint,
        deals: list[list[int]],
        on_move: Callable[[Batch, np.ndarray, int, int], np.ndarray] | None = None,
    ) -> tuple[Batch, np.ndarray]:
        """Deal ``deals`` to the first tables and replay the hand's history; the batch at the seat's
        decision and which tables reached it (an instant win or an impossible move drops a deal).
        ``on_move`` sees each past move of another seat before it is played."""
        venv = self.venv
        playing = np.arange(venv.num_tables) < len(deals)
        batch = venv.reset(
            options={
                "hands": [deals[t] if playing[t] else None for t in range(venv.num_tables)],
                "leader": [point.leader] * venv.num_tables,
            }
        )
        playing &= ~batch.terminated
        actions = np.zeros(venv.num_tables, dtype=np.int64)
        for seat, move in point.history:
            playing &= (batch.current_seat == seat) & batch.action_mask[:, move]
            if on_move is not None and seat != point.seat:
                playing &= on_move(batch, playing, seat, move)
            actions[:] = move
            batch = venv.step(actions, active=playing)
            playing &= ~batch.terminated
        return batch, playing & (batch.current_seat == point.seat)

    def history_loglik(self, point: DecisionPoint, proposals: np.ndarray) -> np.ndarray:
        """``float[len(proposals), n_players, n_models]``: the log-likelihood of each other seat's past
        moves on each proposal if model ``m`` played that seat (``-inf``: could not have been played,
        or pruned)."""
        venv = self.venv
        loglik = np.zeros((venv.num_tables, len(point.played), len(self.policies)))
        agree, differ = np.log1p(-self.mismatch), np.log(self.mismatch)

        def score(batch: Batch, playing: np.ndarray, seat: int, move: int) -> np.ndarray:
            weights = log_weights(loglik, point.seat)
            keep = weights >= weights[playing].max(initial=-np.inf) - PRUNE_LOG_WEIGHT
            rows = np.flatnonzero(playing & keep)
            rows = rows[np.count_nonzero(batch.action_mask[rows], axis=1) > 1]
            for m, policy in enumerate(self.policies):
                chosen = policy(batch.observation[rows], batch.action_mask[rows])
                loglik[rows, seat, m] += np.where(chosen == move, agree, differ)
            return keep

        _, reached = self._replay(point, proposals.tolist(), on_move=score)
        loglik[~reached] = -np.inf
        return loglik[: len(proposals)]
