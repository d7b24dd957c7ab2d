"""Decisions per second of the compiled VectorEnv, by batch size, on one core and on all cores,
against the AEC env ``sam_env.env()`` measured in the same run.

Each VectorEnv row steps ``N`` tables at once: the engine, every table's mask and the acting
seat's observation (all of what ``step`` returns), with random legal actions drawn by a compiled
batched policy (:class:`sam_env.RandomBot`). A *decision* is a move a seat
chose; every VectorEnv step is ``N`` decisions (no dead steps: tables re-deal themselves). The
AEC row is ``benchmarks/bench_env.py``'s: PettingZoo's ``agent_iter``/``last``/``step`` loop with
the same kind of random policy, counting only the moves chosen (not the dead steps).

* one core: the process is pinned to one CPU (``--cpu``), BLAS pools capped at one thread, the
  serial kernels (no threads); rates per CPU-second of the process (as ``bench_env.py``);
* all cores: ``VectorEnv(parallel=True)`` (numba ``prange`` over tables, ``NUMBA_NUM_THREADS``
  threads), the process allowed on every CPU; rates per *elapsed* second, since CPU time would
  add up the threads;
* Sâm on (default rules; random play declares Sâm at ~half the first decisions, which shortens
  hands) and off (``allow_sam=False``);
* memory: bytes of state and output arrays per table; compile time: the first ``reset`` + ``step``
  in a fresh interpreter with an empty numba cache, then with the cache it wrote.

    python benchmarks/bench_vector.py --cpu 1 --markdown docs/speed.md --plot docs/vector_scaling.png

``--markdown`` replaces (or appends) only this script's section of the file, between
``<!-- bench_vector -->`` markers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass

from bench_env import aec_play
from common import (
    Budget,
    PlayHand,
    Spec,
    command_line,
    machine_line,
    measure,
    pin_to_cpu,
    run_single_threaded,
    write_section,
)

import sam_env
from sam_env import RuleConfig, VectorEnv
from sam_env.bot import RandomBot

BATCH_SIZES = (1, 4, 16, 64, 256, 1024, 4096)
TARGET_PER_CORE = 1_000_000
TARGET_RATIO = 25.0


def vector_play(num_tables: int, rules: RuleConfig, seed: int, parallel: bool) -> PlayHand:
    """A few batch steps per call (about 4096 decisions), so the clock is read rarely."""
    venv = VectorEnv(num_tables, rules, seed=seed, parallel=parallel)
    policy = RandomBot(seed)
    batch = venv.reset()
    steps_per_call = max(1, 4096 // num_tables)

    def play() -> tuple[int, int]:
        nonlocal batch
        hands = 0
        for _ in range(steps_per_call):
            batch = venv.step(policy(batch.observation, batch.action_mask))
            hands += int(batch.terminated.sum())
        play.hands += hands
        return steps_per_call, steps_per_call * num_tables

    play.hands = 0
    return play


@dataclass
class Result:
    name: str
    tables: int
    sam: bool
    cores: str
    clock: str
    decisions_per_s: float
    hands_per_s: float


def best_of(spec: Spec, budget: Budget) -> tuple[float, float]:
    """Fastest round's (decisions/s, hands/s) of a spec (timeit's rule)."""
    play = spec.make()
    best = (0.0, 0.0)
    for _ in range(budget.rounds):
        before = getattr(play, "hands", None)
        row = measure(spec.name, play, budget)
        hands = row.hands if before is None else play.hands - before
        if row.decisions_per_s > best[0]:
            best = (row.decisions_per_s, hands / row.seconds)
    return best


def compile_seconds(cache_dir: str) -> float:
    """Seconds to import VectorEnv and make its first reset and step, in a fresh interpreter."""
    code = textwrap.dedent(
        """
        import time
        start = time.perf_counter()
        from sam_env import VectorEnv
        from sam_env.bot import RandomBot
        venv = VectorEnv(8, seed=0)
        batch = venv.reset()
        venv.step(RandomBot(0)(batch.observation, batch.action_mask))
        print(time.perf_counter() - start)
        """
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def memory_per_table(rules: RuleConfig, num_tables: int = 1024) -> tuple[float, float]:
    """Bytes per table of the engine's state arrays, and of the output arrays ``step`` returns."""
    venv = VectorEnv(num_tables, rules)
    state = sum(a.nbytes for a in venv._b) / num_tables
    b = venv.batch
    outputs = sum(a.nbytes for a in (b.observation, b.action_mask, b.current_seat, b.terminated)) / num_tables
    return state, outputs


def results_table(rows: list[Result], aec: float) -> str:
    lines = [
        "| benchmark | tables | Sâm | cores | clock | decisions/s | hands/s | vs AEC env() |",
        "|---|---:|---|---|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.tables:,} | {'on' if r.sam else 'off'} | {r.cores} | {r.clock} | "
            f"{r.decisions_per_s:,.0f} | {r.hands_per_s:,.0f} | {r.decisions_per_s / aec:.1f}× |"
        )
    return "\n".join(lines)


def plot(rows: list[Result], aec: float, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, sam in dict.fromkeys((r.name, r.sam) for r in rows):
        pts = [(r.tables, r.decisions_per_s) for r in rows if (r.name, r.sam) == (name, sam)]
        ax.plot(*zip(*pts, strict=True), marker="o", label=f"{name}, Sâm {'on' if sam else 'off'}")
    ax.axhline(aec, color="grey", linestyle="--", label="AEC sam_env.env(), Sâm on")
    ax.axhline(TARGET_PER_CORE, color="red", linestyle=":", label="target: 1M decisions/s per core")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tables stepped at once (batch size)")
    ax.set_ylabel("decisions / s")
    ax.set_title("VectorEnv: engine + masks + observations, random legal play")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time budget per row and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per row; the fastest is kept")
    parser.add_argument("--cpu", type=int, default=None, help="the CPU of the one-core rows (Linux)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None, help="write the section into this Markdown file")
    parser.add_argument("--plot", default=None, help="save the scaling plot (PNG) here")
    args = parser.parse_args()
    all_cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    cpus = pin_to_cpu(args.cpu)
    cpu_budget = Budget(seconds=args.seconds, rounds=args.rounds, clock="cpu", warmup=0.3)
    rules, no_sam = RuleConfig(), RuleConfig(allow_sam=False)

    aec_spec = Spec("AEC sam_env.env()", lambda: aec_play(lambda: sam_env.env(rules=rules), args.seed))
    aec_no_sam = Spec("AEC no Sâm", lambda: aec_play(lambda: sam_env.env(rules=no_sam), args.seed))
    aec, aec_hands = best_of(aec_spec, cpu_budget)
    rows = [Result("AEC sam_env.env() (reference)", 1, True, "1", "CPU", aec, aec_hands)]
    rows.append(Result("AEC sam_env.env() (reference)", 1, False, "1", "CPU", *best_of(aec_no_sam, cpu_budget)))
    for sam, rule in ((True, rules), (False, no_sam)):
        for n in BATCH_SIZES:
            spec = Spec("VectorEnv, one core", lambda n=n, rule=rule: vector_play(n, rule, args.seed, False))
            rows.append(Result(spec.name, n, sam, "1", "CPU", *best_of(spec, cpu_budget)))
            print(rows[-1], flush=True)
    if all_cpus is not None:
        os.sched_setaffinity(0, all_cpus)
    cores = len(all_cpus) if all_cpus is not None else os.cpu_count()
    wall_budget = Budget(seconds=args.seconds, rounds=args.rounds, clock="wall", warmup=0.3)
    for n in BATCH_SIZES[3:]:
        spec = Spec("VectorEnv, all cores (parallel=True)", lambda n=n: vector_play(n, rules, args.seed, True))
        rows.append(Result(spec.name, n, True, str(cores), "wall", *best_of(spec, wall_budget)))
        print(rows[-1], flush=True)

    state, outputs = memory_per_table(rules)
    with tempfile.TemporaryDirectory() as cache:
        cold, warm = compile_seconds(cache), compile_seconds(cache)

    serial = [r for r in rows if r.name == "VectorEnv, one core" and r.tables >= 1024]
    at_1024 = next(r for r in serial if r.tables == 1024 and r.sam)
    slowest = min(serial, key=lambda r: r.decisions_per_s)
    ratio = at_1024.decisions_per_s / aec
    verdict = (
        f"Targets, one core at batch ≥ 1024: ≥ {TARGET_PER_CORE:,} decisions/s: "
        f"{'met' if slowest.decisions_per_s >= TARGET_PER_CORE else 'NOT met'} (slowest such row "
        f"{slowest.decisions_per_s:,.0f}; {at_1024.decisions_per_s:,.0f} at 1,024 tables with Sâm); "
        f"≥ {TARGET_RATIO:.0f}× the AEC env: {'met' if ratio >= TARGET_RATIO else 'NOT met'} "
        f"({ratio:.1f}× at 1,024 tables)."
    )
    facts = (
        f"Memory: {state:,.0f} bytes of state and {outputs:,.0f} bytes of outputs (observation, mask, seat) "
        f"per table (4 seats). First use (import + compile + first reset and step): {cold:.1f} s with an empty "
        f"numba cache, {warm:.1f} s once the cache is written (numba `cache=True`; the cache lives in "
        f"`sam_env/vector/__pycache__`)."
    )
    how = (
        f"One-core rows: process pinned to CPU {cpus}, rates per CPU-second; all-core rows: {cores} CPUs, "
        f"numba threads, rates per elapsed second. Best of {args.rounds} rounds of {args.seconds} s. "
        f"`{command_line()}` — {machine_line(cpus)}"
    )
    body = "\n\n".join(["## VectorEnv (compiled, batched)", results_table(rows, aec), verdict, facts, how])
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_vector", body)
    if args.plot:
        plot([r for r in rows if not r.name.startswith("AEC")], aec, args.plot)


if __name__ == "__main__":
    main()
