"""Search targets straight from ``VectorEnv`` self-play: what an expert-iteration trainer distills.

A trainer plays hundreds of tables in a :class:`~sam_env.vector.VectorEnv` and, at some steps, asks
for the search's choice at the tables' current decisions. A ``VectorEnv`` table holds the state but
not the hand's moves, which the search replays on its sampled deals, so :class:`HandHistories`
keeps them as the tables play (step through it instead of the env). :func:`search_targets` then
reads each table's decision as its seat sees it (its hand, the cards played, the history — never
another seat's cards; :func:`decision_points`) and searches them all in one batch::

    venv = VectorEnv(256, rules, seed=0)
    histories = HandHistories(venv)
    batch = histories.reset()
    search = BatchedSearch(checkpoint)                  # 64 deals x 8 candidates
    targets = search_targets(search, venv, histories, seed=0)
    # targets.observations, targets.action_masks: the inputs; targets.moves: the policy target
    # (cross-entropy); targets.value: the value target (X, from the decision to the end of the hand)
    batch = histories.step(targets.moves)               # or the network's own moves

The cost per decision is the search's (``benchmarks/bench_search.py``, docs/search.md): about the
same for every decision with a choice, nothing for a forced one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sam_env.agents.search.deals import DecisionPoint
from sam_env.agents.search.engine import BatchedSearch
from sam_env.core.ledger import net_of
from sam_env.vector import Batch, VectorEnv


class HandHistories:
    """The moves of the current hand at every table of ``venv``, kept as it plays.

    Step the tables through :meth:`step` (and :meth:`reset`): each move made is recorded for its
    table, and a table's record starts again when its hand ends (``VectorEnv`` deals the next hand
    at once; instant-win hands dealt meanwhile have no moves)."""

    def __init__(self, venv: VectorEnv) -> None:
        self.venv = venv
        self.moves: list[list[tuple[int, int]]] = [[] for _ in range(venv.num_tables)]

    def reset(self, seed: int | None = None, options: dict | None = None) -> Batch:
        """``venv.reset(...)``, every table's record empty."""
        batch = self.venv.reset(seed=seed, options=options)
        for moves in self.moves:
            moves.clear()
        return batch

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> Batch:
        """``venv.step(actions, active)``, recording each moving table's move for its seat to act."""
        seats = self.venv.batch.current_seat.copy()
        batch = self.venv.step(actions, active)
        moving = np.ones(self.venv.num_tables, dtype=bool) if active is None else np.asarray(active, dtype=bool)
        acts = np.asarray(actions)
        for t in np.flatnonzero(moving).tolist():
            if batch.terminated[t]:
                self.moves[t].clear()
            else:
                self.moves[t].append((int(seats[t]), int(acts[t])))
        return batch


def decision_points(
    venv: VectorEnv, histories: HandHistories, tables: Sequence[int] | None = None
) -> list[DecisionPoint]:
    """The decision at each of ``tables`` (default: all) as its seat to act sees it: its hand, every
    seat's played cards and card count, the would-be leader, the hand's moves, its money so far, its
    observation and mask (copied from ``venv.batch``)."""
    if histories.venv is not venv:
        raise ValueError("the histories were kept for another VectorEnv")
    batch, n = venv.batch, venv.n_players
    tables = range(venv.num_tables) if tables is None else tables
    hands, dealt, leaders = venv.hands(), venv.dealt(), venv.leaders()
    points = []
    for t in tables:
        seat = int(batch.current_seat[t])
        held = hands[t].tolist()
        points.append(
            DecisionPoint(
                rules=venv.rules,
                seat=seat,
                hand=held[seat],
                played=tuple(int(d) & ~h for d, h in zip(dealt[t].tolist(), held, strict=True)),
                n_cards=tuple(h.bit_count() for h in held),
                leader=int(leaders[t]),
                history=tuple(histories.moves[t]),
                net=net_of(venv.ledger(int(t)), n)[seat],
                observation=batch.observation[t].copy(),
                action_mask=batch.action_mask[t].copy(),
            )
        )
    return points


@dataclass(frozen=True, eq=False)
class SearchTargets:
    """The search's targets at ``k`` decisions (rows), ``K`` the search's ``candidates``.

    Attributes:
        tables, seats: ``int64[k]``: where each decision is, and whose.
        observations: ``float32[k, obs_dim]``, action_masks: ``bool[k, 201]``: the network's inputs.
        moves: ``int64[k]``: the search's move (the policy target).
        candidates: ``int64[k, K]``: the moves scored, in the network's order (``-1`` past the last).
        values: ``float64[k, K]``: each candidate's mean money (X) for the seat from the decision to
            the end of the hand (``nan`` past the last candidate and where nothing was searched;
            ``-inf`` where no sampled deal could be replayed).
        searched: ``bool[k]``: the decision had more than one legal move (else: a forced move, no
            target).
        replayed: ``int64[k]``: how many of the sampled deals could be replayed.
    """

    tables: np.ndarray
    seats: np.ndarray
    observations: np.ndarray
    action_masks: np.ndarray
    moves: np.ndarray
    candidates: np.ndarray
    values: np.ndarray
    searched: np.ndarray
    replayed: np.ndarray

    @property
    def value(self) -> np.ndarray:
        """``float64[k]``: the value of the search's move (the value target; ``nan`` where not searched)."""
        best = np.where(np.isnan(self.values), -np.inf, self.values).max(axis=1, initial=-np.inf)
        return np.where(self.searched, best, np.nan)


def search_targets(
    search: BatchedSearch,
    venv: VectorEnv,
    histories: HandHistories,
    tables: Sequence[int] | None = None,
    seed: int | np.random.SeedSequence | None = None,
) -> SearchTargets:
    """Search the decisions at ``tables`` (default: every table) of a self-play ``venv`` in one batch.

    Decision ``i`` draws its deals and models from the ``i``-th child of ``SeedSequence(seed)``: the
    same seed and decisions give the same targets, however many are searched together."""
    tables = np.arange(venv.num_tables) if tables is None else np.asarray(tables, dtype=np.int64)
    points = decision_points(venv, histories, tables.tolist())
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rngs = [np.random.default_rng(child) for child in sequence.spawn(len(points))]
    results = search.search(points, rngs)
    width = search.candidates
    candidates = np.full((len(points), width), -1, dtype=np.int64)
    values = np.full((len(points), width), np.nan)
    for i, result in enumerate(results):
        candidates[i, : len(result.candidates)] = result.candidates
        values[i, : len(result.values)] = result.values
    return SearchTargets(
        tables=tables,
        seats=np.array([p.seat for p in points], dtype=np.int64),
        observations=np.stack([p.observation for p in points]) if points else np.zeros((0, venv.observation_size)),
        action_masks=np.stack([p.action_mask for p in points]) if points else np.zeros((0, venv.action_count), bool),
        moves=np.array([r.move for r in results], dtype=np.int64),
        candidates=candidates,
        values=values,
        searched=np.array([len(r.candidates) > 1 for r in results], dtype=bool),
        replayed=np.array([r.replayed for r in results], dtype=np.int64),
    )
