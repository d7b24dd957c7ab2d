"""The batched, compiled engine: ``VectorEnv`` steps thousands of tables at once.

``sam_env.core`` stays the readable reference; this package mirrors it in numba kernels over
flat arrays and is proven equal to it (and to ``sam_env.env()``) by a differential test
(:mod:`.reference_check`, ``tests/vector``, ``experiments/differential_vector.py``).

* :mod:`.layout`: the arrays (state fields, the combination table, rule parameters, offsets);
* :mod:`.play`: one hand's rules (legal moves, a move, chops, settlement), :mod:`.deal`: dealing,
  who leads, instant wins; :mod:`.encode`: observations and state; :mod:`.batch`: the batch loops;
* :mod:`.vector_env`: the public ``VectorEnv``; :mod:`.results`: finished hands as ``HandResult``;
* :mod:`.playouts`: ``Playouts``, tables that replay a given deal and play one hand to its end (search);
* :mod:`.learner_tables`, :mod:`.gym_adapter`, :mod:`.sb3_adapter`: single-learner views with batched
  opponents (the last two import gymnasium / Stable-Baselines3, so they are not imported here).

The kernels compile on first use and are cached on disk (numba ``cache=True``). numba checks a
cached function against its own source file only: after editing a kernel module, delete
``sam_env/vector/__pycache__/*.nbi`` and ``*.nbc`` so that callers in other modules recompile too.
"""

from __future__ import annotations

from .results import FinishedHand
from .vector_env import Batch, VectorEnv

__all__ = ["Batch", "FinishedHand", "VectorEnv"]
