"""A million random hands through VectorEnv and sam_env.env() in lockstep, across random rule configs.

Each work unit draws a rule configuration at random (every option and stake of ``RuleConfig``,
2–5 players), plays ``--steps`` batch steps of random legal moves on ``--tables`` tables of a
``VectorEnv`` and shadows every table with ``sam_env.env()`` on the same deals and actions
(:class:`sam_env.vector.reference_check.ShadowTables`). At every step: the seat to act, its mask and
observation, every seat's rewards, and each finished hand's result and ledger; every
``--full-every`` steps also every seat's observation, the state and the running ledger. Units run
in ``--workers`` processes until ``--hands`` hands have been compared; the first disagreement
stops the run with the table, rule configuration and moves of the hand.

    python experiments/differential_vector.py --hands 1000000 --workers 2
    python experiments/differential_vector.py --hands 2000 --workers 1     # a quick look

The reference side (tens of microseconds per decision of Python) sets the pace: about 25k
decisions (900 hands) per second per core with ``--full-every 8``.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

import numpy as np
from tqdm import tqdm

from sam_env.vector import VectorEnv
from sam_env.vector.reference_check import Mismatch, ShadowTables, random_rules


def run_unit(unit: int, seed: int, tables: int, steps: int, full_every: int) -> tuple[int, int, int, str | None]:
    """Play one random rule configuration; return (unit, hands, decisions, mismatch message or None)."""
    rng = np.random.default_rng([seed, unit])
    rules = random_rules(rng)
    shadow = ShadowTables(VectorEnv(tables, rules, seed=int(rng.integers(2**31))), full_every=full_every)
    try:
        shadow.run(steps, rng)
    except Mismatch as err:
        return unit, shadow.hands, shadow.decisions, f"unit {unit} (seed {seed}): {err}"
    return unit, shadow.hands, shadow.decisions, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="finished hands to compare (default 1,000,000)")
    parser.add_argument("--tables", type=int, default=64, help="tables per VectorEnv")
    parser.add_argument("--steps", type=int, default=200, help="batch steps per rule configuration")
    parser.add_argument("--full-every", type=int, default=8, help="compare everything every N steps (1: always)")
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    VectorEnv(1).reset(seed=0)  # compile (or load the cache) once before the workers start
    hands = decisions = units = 0
    start = time.perf_counter()
    bar = tqdm(total=args.hands, unit="hand", smoothing=0.05)
    with ProcessPoolExecutor(args.workers) as pool:

        def submit(unit: int):
            return pool.submit(run_unit, unit, args.seed, args.tables, args.steps, args.full_every)

        pending = {submit(u) for u in range(2 * args.workers)}
        next_unit = len(pending)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                _, h, d, mismatch = future.result()
                if mismatch is not None:
                    bar.close()
                    print(f"MISMATCH after {hands:,} hands: {mismatch}", file=sys.stderr)
                    for other in pending:
                        other.cancel()
                    return 1
                hands, decisions, units = hands + h, decisions + d, units + 1
                bar.update(h)
                if hands < args.hands:
                    pending.add(submit(next_unit))
                    next_unit += 1
    bar.close()
    elapsed = time.perf_counter() - start
    print(
        f"OK: {hands:,} hands ({decisions:,} decisions) in {units:,} random rule configurations agree with "
        f"sam_env.env() at every step; {elapsed:,.0f} s wall on {args.workers} worker(s). "
        f"Command: {' '.join(sys.argv)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
