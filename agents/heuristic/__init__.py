"""The heuristic bot (registry name ``heuristic``): plays Sâm the way a decent human does, in Python and compiled.

* :mod:`.bot` — :class:`~.bot.HeuristicBot`, the rules of thumb, reading the seat's view;
* :mod:`.analysis` — the hand analysis they rest on: best splits into plays, what the unseen cards
  can beat, Sâm plans;
* :mod:`.compiled` — :class:`~.compiled.BatchedHeuristic`, the same moves for whole batches of
  VectorEnv seats read from their observations (numba), a :class:`sam_env.bot.BatchedPolicy`;
* :mod:`.kernels` — :mod:`.analysis` compiled, function by function, for :mod:`.compiled`.

``tests/agents/test_heuristic_compiled.py`` holds the compiled bot to the Python bot's every move.
"""

from .bot import HeuristicBot

__all__ = ["HeuristicBot"]
