"""Evaluation of Sâm Lốc bots: duplicate matches, confidence intervals, ratings and reports.

* :mod:`.deals` — the fixed, seeded deals;
* :mod:`.tournament` — matches played through the environment, seat rotations and balanced opponent
  orders, worker processes;
* :mod:`.stats` — per-hand metrics and the duplicate confidence interval;
* :mod:`.ratings` — money per hand and openskill ratings from a round-robin;
* :mod:`.seating` — the money between neighbouring bots;
* :mod:`.panel` — generalization margins: a bot against the held-out panel beside the heuristic;
* :mod:`.report` — terminal table, CSV, JSON, Markdown and plot;
* :mod:`.replay` — hand records as JSON Lines (``--record``), their writer and a reader that replays them;

The ``sam-eval`` command line is :mod:`sam_env.apps.evaluate` (``sam-eval --help``).
"""

if __name__ == "evaluation":  # imported by its pre-0.3 name from a source checkout: serve sam_env.evaluation
    from sam_env.utils.deprecation import redirect_moved_package

    redirect_moved_package(__name__)
