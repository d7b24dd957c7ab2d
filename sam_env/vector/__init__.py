"""The batched, compiled engine: ``VectorEnv`` steps thousands of tables at once.

``sam_env.core`` stays the readable reference; this package mirrors it in numba kernels over
flat arrays (:mod:`.tables` the arrays, :mod:`.play` a hand's rules, :mod:`.encode` the
observations, :mod:`.batch` the batch loops) and is proven equal to it by a differential test.
"""

from __future__ import annotations

from .results import FinishedHand
from .vector_env import Batch, VectorEnv

__all__ = ["Batch", "FinishedHand", "VectorEnv"]
