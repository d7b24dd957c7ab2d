"""The search of a step's decisions, in this process or shared with worker processes.

:class:`SearchPool` stands where a :class:`~sam_env.agents.search.engine.BatchedSearch` is taken (its
``candidates`` and ``search(points, rngs)``): :func:`sam_env.training.expert.search_targets.search_targets` searches
through it. With ``workers`` > 1 the decisions are cut into that many contiguous shares; this
process searches the first and worker processes the others, each with a ``BatchedSearch`` of the
same network. Every decision draws its deals from its own generator and a decision's result does
not depend on the batch it is searched in (docs/search.md), so the targets are the same for any
number of workers.

Workers are started with ``spawn`` (a fork of a process that has run torch's thread pools can
hang) and kept for the run; each builds its search once per network (:meth:`SearchPool.update`
gives the network a new version number) and receives the decision points, which carry the seat's
own view only. Nothing crosses the process boundary but the network's weights, the decisions and
their results (in memory, never written to disk).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.search.deals import DecisionPoint
from sam_env.agents.search.engine import BatchedSearch, SearchResult
from sam_env.agents.search.models import OpponentModel


class SearchPool:
    """A search of ``determinizations`` deals × ``candidates`` moves over the current network (with
    inference from ``proposals`` deals if > 0), run by ``workers`` processes (this one included);
    :meth:`update` swaps the network."""

    def __init__(
        self,
        determinizations: int,
        candidates: int,
        models: Sequence[OpponentModel] = (),
        workers: int = 1,
        proposals: int = 0,
    ) -> None:
        self.determinizations, self.candidates, self.proposals = determinizations, candidates, proposals
        self.models = tuple(models)
        self.workers = workers
        self.version = -1
        self.checkpoint: PolicyCheckpoint | None = None
        self.local: BatchedSearch | None = None
        self.pool = (
            ProcessPoolExecutor(workers - 1, mp_context=multiprocessing.get_context("spawn")) if workers > 1 else None
        )

    def update(self, checkpoint: PolicyCheckpoint) -> None:
        """Search with this network from now on."""
        self.version += 1
        self.checkpoint = checkpoint
        self.local = _build(checkpoint, self.budget)

    def search(self, points: Sequence[DecisionPoint], rngs: Sequence[np.random.Generator]) -> list[SearchResult]:
        """Every decision's result, in order (``rngs[i]`` draws decision ``i``'s deals and models)."""
        if self.local is None:
            raise RuntimeError("SearchPool.update(checkpoint) must give the network before the first search")
        if self.pool is None or len(points) < 2:
            return self.local.search(points, rngs)
        cuts = np.array_split(np.arange(len(points)), min(self.workers, len(points)))
        budget = self.budget
        futures = [
            self.pool.submit(
                _search_share, self.version, self.checkpoint, budget, [points[i] for i in c], [rngs[i] for i in c]
            )
            for c in cuts[1:]
        ]
        results = self.local.search([points[i] for i in cuts[0]], [rngs[i] for i in cuts[0]])
        for future in futures:
            results += future.result()
        return results

    @property
    def budget(self) -> tuple[int, int, tuple[OpponentModel, ...], int]:
        """What :func:`_build` needs besides the network: deals, candidates, models, proposals."""
        return (self.determinizations, self.candidates, self.models, self.proposals)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def _build(checkpoint: PolicyCheckpoint, budget: tuple[int, int, tuple[OpponentModel, ...], int]) -> BatchedSearch:
    determinizations, candidates, models, proposals = budget
    # The engine's default playout tables (about 100 MB), or one decision's if it needs more.
    tables = max(16_384, determinizations * candidates, proposals)
    return BatchedSearch(
        checkpoint, determinizations, candidates, opponent_models=models, proposals=proposals, max_tables=tables
    )


_WORKER: dict[int, BatchedSearch] = {}
"""A worker process's search, by network version (the latest only)."""


def _search_share(
    version: int,
    checkpoint: PolicyCheckpoint,
    budget: tuple[int, int, tuple[OpponentModel, ...], int],
    points: list[DecisionPoint],
    rngs: list[np.random.Generator],
) -> list[SearchResult]:
    if version not in _WORKER:
        _WORKER.clear()
        _WORKER[version] = _build(checkpoint, budget)
    return _WORKER[version].search(points, rngs)
