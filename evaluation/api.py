"""``evaluate()``: your bot against opponents over duplicate deals, from Python, in one call.

    from sam_env.evaluation import evaluate

    summary = evaluate("my_agent.py:MyBot", "heuristic", deals=2000)
    print(summary.x_per_hand, summary.ci_low, summary.ci_high)

It is :func:`~.tournament.run_matches` for one match, taking bots in every form
:func:`sam_env.load_bot` takes: a registered name, a checkpoint, a code spec (``package.module:attr``,
``path/to/file.py:attr``), or the object itself — a :class:`sam_env.Bot` class, factory or instance,
or a batched policy ``(observations, masks) -> actions`` (played in lockstep batches, :mod:`.lockstep`).

Worker processes start fresh and build their own bots: a spec is rebuilt from its text, an object
travels by pickle (a class or module-level function by reference, an instance by value). An object
that does not pickle (a lambda, a closure, an instance holding a lock) is played in this process,
on one core, whatever ``workers`` says; name it by a spec to use every core.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from sam_env.agents.registry import BotSpec
from sam_env.core import RuleConfig

from .stats import Summary
from .tournament import Match, run_matches


def evaluate(
    candidate: BotSpec | object,
    opponents: BotSpec | object | Sequence[BotSpec | object] = "heuristic",
    *,
    rules: RuleConfig | None = None,
    deals: int = 1000,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    label: str | None = None,
    record: Callable[[dict], None] | None = None,
) -> Summary:
    """The candidate's results against ``opponents`` over ``deals`` duplicate deals of ``seed``.

    Args:
        candidate: the bot to evaluate (any form :func:`sam_env.load_bot` takes, see the module docstring).
        opponents: one bot for every other seat, or a list of ``n - 1`` bots in turn order after the
            candidate (a mixed table, played over balanced orders of the opponents).
        rules: the table (default ``RuleConfig()``: 4 players, docs/rules.md's defaults).
        deals: how many deals; each is played in every seating (every seat, and with mixed
            opponents every balanced order), so the hands are ``deals`` times the seatings.
        seed: fixes the deals and every bot's draws; the same seed gives the same numbers on any
            number of workers.
        workers: worker processes (default one per core; 1 plays in this process).
        progress: show a progress bar (hands done and the rate).
        label: the candidate's name in the summary (default: its spec, or its object's name).
        record: called with the record of every hand (:mod:`.replay`), in deal and seating order.

    Returns:
        The candidate's :class:`~.stats.Summary`: X/hand with its 95% interval over deals, win rate,
        money by position and the counts of Sâm, chops and penalties.

    Raises:
        ValueError: before any hand, for a bot that cannot play the table (a spec that does not import,
            an object that is not a bot, a network for another seat count, a first decision that fails).
        EvaluationError: a bot raised, answered an illegal move or killed its worker during play; it
            names the deal, seating, seat and bot (:class:`~.failures.HandFailure`).
    """
    rules = RuleConfig() if rules is None else rules
    n = rules.n_players
    if isinstance(opponents, (str, os.PathLike)) or not isinstance(opponents, Sequence):
        lineup = (opponents,) * (n - 1)
    elif len(opponents) == 1:
        lineup = tuple(opponents) * (n - 1)
    else:
        lineup = tuple(opponents)
    [result] = run_matches(
        [Match(candidate, lineup, label)], rules, deals, seed=seed, workers=workers, progress=progress, record=record
    )
    return result.summary()
