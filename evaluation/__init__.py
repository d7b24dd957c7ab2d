"""Evaluation of Sâm Lốc bots: duplicate matches, confidence intervals, ratings and reports.

``evaluate(candidate, opponents, deals=..., rules=...)`` (:mod:`.api`) is the one call from Python: it
takes bots as specs or as objects (your own class, factory, instance or batched policy).

* :mod:`.deals` — the fixed, seeded deals;
* :mod:`.tournament` — matches played through the environment, seat rotations and balanced opponent
  orders; :mod:`.matches` (a match, its seatings, the AEC loop), :mod:`.tasks` (one chunk of deals,
  played where its bots are built), :mod:`.lockstep` (batched policies decide for many hands at once),
  :mod:`.workers` (fresh worker processes, watched for death), :mod:`.failures` (what a failed match reports);
* :mod:`.stats` — per-hand metrics and the duplicate confidence interval;
* :mod:`.ratings` — money per hand and openskill ratings from a round-robin;
* :mod:`.seating` — the money between neighbouring bots;
* :mod:`.panel` — generalization margins: a bot against the held-out panel beside the heuristic;
* :mod:`.report` — terminal table, CSV, JSON, Markdown and plot;
* :mod:`.replay` — hand records as JSON Lines (``--record``), their writer and a reader that replays them;
* :mod:`.exploitability` — the table of best responses to a bot (``sam-exploit --out`` records), kept on
  its page;
* :mod:`.suites` — opponent suites, who a bot is measured against: every line-up of opponents, each defined
  once (the baselines, the held-out panel's names, protocol v1's suite, training's baselines, the shipped-bot
  targets);
* :mod:`.protocol` — protocol v1: the tracks, tiers, pinned deal sets and opponent suites a published
  score is measured under; :mod:`.protocol_run` plays it (rows, panel margins, the headline score);
  :mod:`.results` — results files, their JSON Schema and their validation; :mod:`.fingerprints` — what a
  candidate is; :mod:`.leaderboard` — docs/leaderboard.md built from the committed results files;

The ``sam-eval`` command line is :mod:`sam_env.apps.evaluate` (``sam-eval --help``).
"""

_LAZY = {"evaluate": "api", "EvaluationError": "failures"}


def __getattr__(name: str) -> object:
    """``evaluate`` and ``EvaluationError`` on first use (PEP 562): importing the package stays light."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


if __name__ == "evaluation":  # imported by its pre-0.3 name from a source checkout: serve sam_env.evaluation
    from sam_env.utils.deprecation import redirect_moved_package

    redirect_moved_package(__name__)
