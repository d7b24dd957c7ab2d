"""CPU time of sam-web's coach per decision: every legal move's value in X, from the seat's observation.

Why: with the coach on (``"coach": true``), every decision of the person costs one evaluation of the table's
Q-network on every legal move before the view is sent (``sam_env.apps.web.coach.Coach.values``). This measures
that cost at each table size, and, as the reference measured in the same run, the same network playing the
decision as a bot (``QBot.act``: the same forward pass, then the move of highest value).

Decisions: ``--hands`` hands of ``sam_env.env()`` (default rules) per table size, played by the heuristic at every
seat; every decision of every seat is kept (the coach values any seat's decision the same way). Rows are timed on
one core with every thread pool capped at one thread, best of ``--rounds`` interleaved passes over the decisions
(CPU time of the process, ``time.process_time``). The last column is the coach as ``sam-web`` runs it: numpy's
thread pools left as they are (a BLAS pool of one thread per core, which costs more than it gains on matrices this
small), measured in a child process on every core, wall time (on a shared machine, the most sensitive to its load).

    cd benchmarks && python bench_coach.py --cpu 1 --markdown ../docs/web.md

``--markdown`` replaces (or appends) only this script's section of the file (``<!-- bench_coach:start -->``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import numpy as np
from common import (
    THREAD_VARIABLES,
    command_line,
    heuristic_decisions,
    machine_line,
    pin_to_cpu,
    run_single_threaded,
    write_section,
)

from sam_env import RuleConfig
from sam_env.apps.web.coach import Coach, coach_for
from sam_env.core import SeatView
from sam_env.core.rules import MAX_PLAYERS, MIN_PLAYERS

if TYPE_CHECKING:
    from collections.abc import Callable


def decisions(players: int, hands: int, seed: int) -> list[tuple[dict, SeatView]]:
    """Every decision of ``hands`` heuristic hands at a table of ``players``: (observation dict, view)."""
    return heuristic_decisions(hands, seed, {"rules": RuleConfig(n_players=players)})


def time_coach(
    coach: Coach, states: list[tuple[dict, SeatView]], clock: Callable[[], float] = time.process_time
) -> float:
    """Seconds of ``clock`` for one pass of the coach's values over every decision."""
    start = clock()
    for observation, _ in states:
        coach.values(observation["observation"], observation["action_mask"])
    return clock() - start


def time_act(coach: Coach, states: list[tuple[dict, SeatView]]) -> float:
    """CPU seconds of one pass of the same network playing every decision (the reference)."""
    start = time.process_time()
    for observation, view in states:
        coach.bot.act(observation, view)
    return time.process_time() - start


def as_sam_web_runs_it(args: argparse.Namespace) -> dict[str, float]:
    """Wall ms per decision of the coach at each table size, measured by a child process with numpy's thread pools
    left as they are (the variables :func:`run_single_threaded` sets removed)."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    command = [sys.executable, sys.argv[0], "--hands", str(args.hands), "--rounds", str(args.rounds)]
    command += ["--seed", str(args.seed), "--default-pools"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def default_pools(args: argparse.Namespace) -> None:
    """The child of :func:`as_sam_web_runs_it`: print ``{seats: wall ms per decision}`` as JSON."""
    out = {}
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        states, coach = decisions(n, args.hands, args.seed), coach_for(n)
        time_coach(coach, states[:50], time.perf_counter)
        best = min(time_coach(coach, states, time.perf_counter) for _ in range(args.rounds))
        out[str(n)] = 1000 * best / len(states)
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=100, help="heuristic hands per table size to time")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved passes; each row keeps its fastest")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default=None, help="also write the table to this Markdown file")
    parser.add_argument("--default-pools", action="store_true", help=argparse.SUPPRESS)  # the child's part
    args = parser.parse_args()
    if args.default_pools:
        default_pools(args)
        return
    run_single_threaded()
    threaded = as_sam_web_runs_it(args)  # before pinning: the child runs on every core, as sam-web does
    cpus = pin_to_cpu(args.cpu)
    sizes = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    states = {n: decisions(n, args.hands, args.seed) for n in sizes}
    coaches = {n: coach_for(n) for n in sizes}
    best = {(n, what): float("inf") for n in sizes for what in ("coach", "act")}
    for n in sizes:  # warm: first calls, caches
        time_coach(coaches[n], states[n][:50])
        time_act(coaches[n], states[n][:50])
    for _ in range(args.rounds):
        for n in sizes:
            best[n, "coach"] = min(best[n, "coach"], time_coach(coaches[n], states[n]))
            best[n, "act"] = min(best[n, "act"], time_act(coaches[n], states[n]))
    lines = [
        "| seats | network | decisions | legal moves a decision | coach: CPU ms / decision, one thread | the bot's "
        "`act` | ratio | coach as sam-web runs it: wall ms / decision, default thread pools |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sizes:
        count = len(states[n])
        legal = np.mean([np.count_nonzero(o["action_mask"]) for o, _ in states[n]])
        coach_ms, act_ms = (1000 * best[n, what] / count for what in ("coach", "act"))
        lines.append(
            f"| {n} | `{coaches[n].network}` | {count:,} | {legal:.1f} | {coach_ms:.3f} | {act_ms:.3f} | "
            f"{coach_ms / act_ms:.2f}× | {threaded[str(n)]:.3f} |"
        )
    how = (
        f"{args.hands} heuristic hands per table size (default rules), every decision of every seat; best of "
        f"{args.rounds} interleaved passes; one core, one thread, CPU time of the process; the last column, a child "
        "process on every core with numpy's thread pools as they are, wall time, best of as many passes. "
        f"`{command_line()}` — {machine_line(cpus)}"
    )
    body = "### The coach's cost per decision\n\n" + "\n".join(lines) + "\n\n" + how
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_coach", body)


if __name__ == "__main__":
    main()
