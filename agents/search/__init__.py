"""Determinized search over a trained network: the ``ppo_search`` bot and the batched engine behind it.

* :mod:`.bot`: :class:`SearchBot`, the registry's ``ppo_search`` (one decision at a time);
* :mod:`.engine`: :class:`~.engine.BatchedSearch`, many decisions at once, and its results
  (:class:`~.engine.SearchResult`: the move, every candidate's value — the targets to distill);
* :mod:`.deals`: :class:`DecisionPoint` and what a search samples for it (deals, models);
* :mod:`.inference`: replaying histories, and weighing deals by the other seats' past moves;
* :mod:`.network`: the network's forward pass, compiled, row by row the same in any batch;
* :mod:`.models`: the models of the other seats, and the ones ``ppo_search`` ships with;
* :mod:`.reference`: the per-decision search the engine is tested and benchmarked against.

The engine and the network load numba: they are imported on first use, not with this package.
"""

from __future__ import annotations

from .bot import SearchBot
from .deals import DecisionPoint

__all__ = ["DecisionPoint", "SearchBot"]
