"""CPU time per decision of the compiled heuristic bot against the Python one, on the same states.

Why: :class:`sam_env.agents.heuristic.compiled.BatchedHeuristic` exists so that heuristic seats cost little in
training (docs/batched_training.md); this measures how little, against
:class:`sam_env.agents.heuristic.bot.HeuristicBot` (the bot it ports) in the same run.

States: ``--hands`` hands (default rules, ``--players`` seats, Sâm on) played in ``sam_env.env()``
by HeuristicBot at every seat; every decision's observation, mask and ``SeatView`` is kept. Then,
on one core (``--cpu``; thread pools capped at one thread), rates per CPU-second of the process, best
of ``--rounds`` interleaved rounds of ``--seconds``, each round whole passes over all the states:

* HeuristicBot: ``act(observation, view)`` per state, the view given (the environment built it
  while recording, untimed; the compiled bot reads the same facts from the observation vector);
* BatchedHeuristic: the same states in order, ``batch`` rows a call (the last call of a pass gets
  the rest). Warm: its first call, which compiles the numba kernels or loads them from numba's cache,
  is made before timing, and its memo of hand splits is full from the earlier passes, as is the
  ``lru_cache`` of ``best_split`` that HeuristicBot uses;
* cold memo: one first pass of a fresh BatchedHeuristic (batches of the largest size) and of
  HeuristicBot after ``best_split.cache_clear()``, timed once (not best-of).

Both must make the same move on every state; the script checks it (the proof is
``tests/agents/test_heuristic_compiled.py``).

    cd benchmarks && python bench_heuristic.py --cpu 1 --markdown ../docs/speed.md

``--markdown`` replaces (or appends) only this script's section of the file, between
``<!-- bench_heuristic:start -->`` / ``<!-- bench_heuristic:end -->`` markers.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from common import (
    Budget,
    PlayHand,
    Spec,
    command_line,
    machine_line,
    measure_all,
    pin_to_cpu,
    run_single_threaded,
    write_section,
)

import sam_env
from sam_env import RuleConfig
from sam_env.agents.heuristic.analysis import best_split
from sam_env.agents.heuristic.bot import HeuristicBot
from sam_env.agents.heuristic.compiled import BatchedHeuristic, decide_all
from sam_env.core import Phase, SeatView
from sam_env.evaluation.tournament import play_out

BATCH_SIZES = (1, 64, 1024)


@dataclass(frozen=True)
class States:
    """Recorded decisions: what each bot reads, and the move HeuristicBot made."""

    observations: np.ndarray
    """float32[n, obs]"""
    masks: np.ndarray
    """bool[n, N_ACTIONS]"""
    views: list[SeatView]
    moves: np.ndarray
    """int64[n]"""

    def __len__(self) -> int:
        return len(self.moves)

    def dicts(self) -> list[Mapping[str, np.ndarray]]:
        return [{"observation": o, "action_mask": m} for o, m in zip(self.observations, self.masks, strict=True)]


def record(rules: RuleConfig, hands: int, seed: int) -> States:
    """Every decision of ``hands`` hands of HeuristicBot at every seat, in the AEC env."""
    env = sam_env.env(rules=rules)
    bot = HeuristicBot()
    observations, masks, views, moves = [], [], [], []

    def choose(seat: int, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        move = bot.act(observation, view)
        observations.append(observation["observation"].copy())
        masks.append(observation["action_mask"].copy())
        views.append(view)
        moves.append(move)
        return move

    for hand in range(hands):
        env.reset(seed=seed * 1000 + hand)
        play_out(env, choose)
    return States(np.stack(observations), np.stack(masks), views, np.array(moves, dtype=np.int64))


def python_pass(states: States) -> PlayHand:
    """One pass of HeuristicBot.act over all the states per call."""
    act, pairs, n = HeuristicBot().act, list(zip(states.dicts(), states.views, strict=True)), len(states)

    def play() -> tuple[int, int]:
        for observation, view in pairs:
            act(observation, view)
        return n, n

    return play


Chunks = list[tuple[np.ndarray, np.ndarray]]


def chunked(states: States, batch: int) -> Chunks:
    """The states in order, ``batch`` rows a chunk (the last chunk gets the rest)."""
    n = len(states)
    return [(states.observations[i : i + batch], states.masks[i : i + batch]) for i in range(0, n, batch)]


def checked_moves(policy: BatchedHeuristic, chunks: Chunks, states: States) -> None:
    """One pass of ``policy``; fails unless it makes HeuristicBot's move on every state."""
    moves = np.concatenate([policy(o, m) for o, m in chunks])
    if not np.array_equal(moves, states.moves):
        raise AssertionError(f"{np.count_nonzero(moves != states.moves)} of {len(states)} moves differ")


def batched_pass(policy: BatchedHeuristic, states: States, batch: int) -> PlayHand:
    """One pass of ``policy`` over all the states per call, ``batch`` rows a call; checks the moves once."""
    chunks, n = chunked(states, batch), len(states)
    checked_moves(policy, chunks, states)

    def play() -> tuple[int, int]:
        for observations, masks in chunks:
            policy(observations, masks)
        return n, n

    return play


def cold_seconds(states: States, rules: RuleConfig, batch: int) -> tuple[float, float]:
    """CPU seconds of one first pass with empty memos: HeuristicBot's, then a fresh BatchedHeuristic's."""
    best_split.cache_clear()
    python = python_pass(states)
    start = time.process_time()
    python()
    python_seconds = time.process_time() - start
    policy, chunks = BatchedHeuristic(rules), chunked(states, batch)
    start = time.process_time()
    checked_moves(policy, chunks, states)
    return python_seconds, time.process_time() - start


def results_table(rows: list[tuple[str, str, str, float, float]]) -> str:
    """Rows of (bot, batch, memo, seconds per decision, reference's seconds per decision)."""
    lines = [
        "| bot | batch | memo | µs/decision | decisions/s | vs HeuristicBot (same memo) |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for bot, batch, memo, seconds, reference in rows:
        lines.append(
            f"| {bot} | {batch} | {memo} | {seconds * 1e6:,.2f} | {1 / seconds:,.0f} | {reference / seconds:.1f}× |"
        )
    return "\n".join(lines)


def main() -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time budget per row and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per row; the fastest is kept")
    parser.add_argument("--hands", type=int, default=200, help="hands of heuristic play whose decisions are timed")
    parser.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None, help="write the section into this Markdown file")
    args = parser.parse_args()
    cpus = pin_to_cpu(args.cpu)
    rules = RuleConfig(n_players=args.players)
    states = record(rules, args.hands, args.seed)
    n = len(states)

    policy = BatchedHeuristic(rules)
    start = time.perf_counter()
    policy(states.observations[:1], states.masks[:1])
    first_call = time.perf_counter() - start
    kernels = "loaded from numba's cache" if sum(decide_all.stats.cache_hits.values()) else "compiled by numba"

    python_cold, batched_cold = (seconds / n for seconds in cold_seconds(states, rules, BATCH_SIZES[-1]))

    specs = [Spec("HeuristicBot.act (reference)", lambda: python_pass(states))]
    specs += [Spec(str(b), lambda b=b: batched_pass(policy, states, b)) for b in BATCH_SIZES]
    budget = Budget(seconds=args.seconds, rounds=args.rounds, clock="cpu", warmup=0.3)
    best = [row.seconds / row.decisions for row in measure_all(specs, budget)]
    rows = [("HeuristicBot.act (reference)", "1", "warm", best[0], best[0])]
    rows += [("BatchedHeuristic", f"{b:,}", "warm", s, best[0]) for b, s in zip(BATCH_SIZES, best[1:], strict=True)]
    rows += [
        ("HeuristicBot.act", "1", "cold, first pass", python_cold, python_cold),
        ("BatchedHeuristic", f"{BATCH_SIZES[-1]:,}", "cold, first pass", batched_cold, python_cold),
    ]

    sam_decisions = sum(v.phase is Phase.SAM_DECISION for v in states.views)
    in_sam = sum(v.sam_declarer is not None for v in states.views)
    facts = (
        f"{n:,} decisions of {args.hands} hands of HeuristicBot at every seat (`sam_env.env()`, {args.players} seats, "
        f"default rules, Sâm on: {sam_decisions:,} of them Sâm decisions, {in_sam:,} after a declaration); "
        f"both bots made the same move on all of them. Warm rows: the first BatchedHeuristic call "
        f"({first_call:.1f} s elapsed, kernels {kernels}) is not timed, and "
        f"both memos of hand splits are full. Cold rows: one first pass with empty memos, timed once "
        f"(a fresh BatchedHeuristic; `best_split.cache_clear()` for HeuristicBot). HeuristicBot is handed the "
        f"`SeatView` the environment built; BatchedHeuristic reads the observation vector."
    )
    how = (
        f"CPU time of the process, one pinned core (CPU {cpus}), one thread; warm rows best of {args.rounds} "
        f"rounds of {args.seconds} s of whole passes. `{command_line()}` — {machine_line(cpus)}"
    )
    body = "\n\n".join(["## Heuristic bot: compiled vs Python", results_table(rows), facts, how])
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_heuristic", body)


if __name__ == "__main__":
    main()
