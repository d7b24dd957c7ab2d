"""What the benchmark scripts share: one core, one random policy, one timing loop, one table format."""

from __future__ import annotations

import argparse
import os
import platform
import random
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.evaluation.report import write_section

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


def run_single_threaded() -> None:
    """Restart this script with every BLAS/OpenMP pool capped at one thread, unless it already is.

    The variables only count if they are set before numpy (or torch) is first imported, hence
    the restart rather than setting them here.
    """
    if any(os.environ.get(name) != "1" for name in THREAD_VARIABLES):
        os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
        os.execv(sys.executable, [sys.executable, *sys.argv])


PlayHand = Callable[[], tuple[int, int]]
"""Plays one hand; returns (steps, decisions): steps as the loop counts them, decisions = moves made."""


class RandomChoice:
    """The random policy of every row: a uniform pick among the legal action ids."""

    def __init__(self, seed: int) -> None:
        self._randrange = random.Random(seed).randrange

    def __call__(self, legal: Sequence[int]) -> int:
        return legal[self._randrange(len(legal))]


@dataclass(frozen=True)
class Budget:
    """How long each row runs: ``seconds`` of ``clock`` (or ``steps``), best of ``rounds``."""

    seconds: float = 2.0
    steps: int | None = None
    warmup: float = 0.2
    rounds: int = 3
    clock: str = "cpu"


@dataclass
class Row:
    name: str
    steps: int
    decisions: int
    hands: int
    seconds: float
    note: str = ""

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def steps_per_hand(self) -> float:
        return self.steps / max(self.hands, 1)

    @property
    def decisions_per_hand(self) -> float:
        return self.decisions / max(self.hands, 1)


def pin_to_cpu(cpu: int | None) -> str:
    """Pin this process to one CPU (Linux); describe the CPUs it may run on."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    if hasattr(os, "sched_getaffinity"):
        return ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    return "?"


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
"""``cpu``: seconds this process ran (what wall time is on an idle core, and robust to other work
on a shared machine); ``wall``: elapsed time."""


@dataclass
class Spec:
    """A row to measure: ``make()`` builds its environment once and returns a :data:`PlayHand`."""

    name: str
    make: Callable[[], PlayHand]
    note: str = ""


def measure(name: str, play_hand: PlayHand, budget: Budget, note: str = "") -> Row:
    """Play whole hands until the time (or step) budget is spent; hands are never cut short."""
    clock = CLOCKS[budget.clock]
    until = clock() + budget.warmup
    while clock() < until:
        play_hand()
    total_steps = total_decisions = hands = 0
    start = clock()
    while True:
        s, d = play_hand()
        total_steps += s
        total_decisions += d
        hands += 1
        elapsed = clock() - start
        if (total_steps >= budget.steps) if budget.steps is not None else (elapsed >= budget.seconds):
            return Row(name, total_steps, total_decisions, hands, elapsed, note)


def measure_all(specs: list[Spec], budget: Budget) -> list[Row]:
    """Measure every row ``budget.rounds`` times, interleaved, and keep each row's fastest round
    (timeit's rule: slower rounds measure interference, not the code)."""
    games = [spec.make() for spec in specs]
    best: list[Row | None] = [None] * len(specs)
    for _ in range(budget.rounds):
        for i, (spec, play) in enumerate(zip(specs, games, strict=True)):
            row = measure(spec.name, play, budget, spec.note)
            if best[i] is None or row.steps_per_s > best[i].steps_per_s:
                best[i] = row
    return best


def machine_line(cpus: str) -> str:
    load = "/".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs (this process on {cpus}), load average {load}"
    )


def table(rows: list[Row], reference: Row | None, decisions_column: bool = True) -> str:
    """A Markdown table of the rows; ratios against ``reference`` in decisions/s when it was measured.

    Decisions, not steps: an AEC loop also counts the dead steps of finished seats, which RLCard's
    loop has none of, so a ratio of steps would flatter us.
    """
    head = ["benchmark", "steps/s"]
    if decisions_column:
        head.append("decisions/s")
    head += ["steps/hand", "decisions/hand", "hands", "vs RLCard (decisions)", "note"]
    align = ["---", *["---:"] * (len(head) - 2), "---"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        cells = [r.name, f"{r.steps_per_s:,.0f}"]
        if decisions_column:
            cells.append(f"{r.decisions_per_s:,.0f}")
        ratio = f"{r.decisions_per_s / reference.decisions_per_s:.1f}×" if reference is not None else "–"
        cells += [f"{r.steps_per_hand:.1f}", f"{r.decisions_per_hand:.1f}", f"{r.hands:,}", ratio, r.note]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def command_line() -> str:
    """This script's command line as a shell reads it back (arguments with spaces quoted)."""
    return shlex.join([os.path.relpath(sys.argv[0]), *sys.argv[1:]])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options both benchmark scripts take."""
    default = Budget()
    parser.add_argument("--seconds", type=float, default=default.seconds, help="time budget per row and round")
    parser.add_argument("--steps", type=int, default=None, help="a step budget per row and round instead")
    parser.add_argument("--warmup", type=float, default=default.warmup, help="seconds of unmeasured play first")
    parser.add_argument("--rounds", type=int, default=default.rounds, help="interleaved rounds; the best is kept")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default=default.clock, help="cpu (default) or wall")
    parser.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default=None, help="also write the table to this Markdown file")


def budget_of(args: argparse.Namespace) -> Budget:
    """The measuring budget the command line asked for."""
    return Budget(args.seconds, args.steps, args.warmup, args.rounds, args.clock)


def publish(title: str, rows_table: str, verdict: str, cpus: str, budget: Budget, markdown: str | None) -> None:
    """Print the table, the verdict on the targets and how it was measured; also write it as Markdown."""
    per = "CPU-second of the process" if budget.clock == "cpu" else "elapsed second"
    how = f"Rates per {per}, best of {budget.rounds} rounds. `{command_line()}` — {machine_line(cpus)}"
    body = "\n\n".join([rows_table, verdict, how])
    print(body)
    if markdown:
        write_section(markdown, Path(sys.argv[0]).stem, f"## {title}\n\n{body}")


def heuristic_decisions(hands: int, seed: int, env_kwargs: dict | None = None) -> list[tuple[dict, Any]]:
    """Every decision of ``hands`` hands of the heuristic in every seat, as ``(observation dict, SeatView)`` pairs
    (``env_kwargs``: ``sam_env.env``'s table, rules and encoding version)."""
    import sam_env
    from sam_env.agents.heuristic.bot import HeuristicBot
    from sam_env.evaluation.tournament import play_out

    env = sam_env.env(**(env_kwargs or {}))
    bot = HeuristicBot()
    kept: list[tuple[dict, Any]] = []

    def choose(seat: int, observation: dict, view: Any) -> int:
        kept.append(({k: v.copy() for k, v in observation.items()}, view))
        return bot.act(observation, view)

    env.reset(seed=seed)
    for hand in range(hands):
        if hand:
            env.reset()
        play_out(env, choose)
    return kept
