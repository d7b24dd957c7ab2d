"""The heuristic's public hand analysis, as the panel uses it: the one place the panel imports it from.

The panel bots share the heuristic's tools (splitting a hand into plays, what the unseen cards can
beat, the proof a Sâm needs) but none of its decisions. Everything they take from the heuristic's
modules is imported here, so that moving those modules changes one file of the panel.
"""

from __future__ import annotations

from sam_env.agents.heuristic.analysis import (
    COST,
    Counts,
    beatable,
    beaters,
    best_split,
    counts_after,
    only_twos,
    plan_cost,
    sam_plan,
)
from sam_env.agents.heuristic.bot import HeuristicBot

__all__ = [
    "COST",
    "Counts",
    "HeuristicBot",
    "beatable",
    "beaters",
    "best_split",
    "counts_after",
    "only_twos",
    "plan_cost",
    "sam_plan",
]
