"""Decisions per second of the rules engine alone (the target: at least 50,000 on one core).

Random masked play straight on :class:`sam_env.core.Hand`: ``legal_mask()`` then ``step()``, with
a fresh random deal from :class:`sam_env.core.Table` whenever a hand ends (the deal is part of the
cost). Random play declares Sâm half the time, which ends most hands after a few moves, so the
no-Sâm row is the figure for long hands.

    python benchmarks/bench_engine.py [--seconds 2] [--rounds 3] [--players 4] [--cpu 0] [--markdown out.md]

It runs on one core: it restarts itself with thread pools capped at one thread; ``--cpu N`` (or ``taskset -c N``)
also pins the process. Rates are per CPU-second of the process by default (``--clock wall`` for
elapsed time), each row's best of ``--rounds`` interleaved rounds.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import (
    PlayHand,
    RandomChoice,
    Spec,
    add_arguments,
    budget_of,
    measure_all,
    pin_to_cpu,
    publish,
    run_single_threaded,
    table,
)

from sam_env.core import RuleConfig, Table

TARGET_DECISIONS_PER_S = 50_000


def engine_play(rules: RuleConfig, seed: int) -> PlayHand:
    """One hand of random play on the engine per call."""
    table = Table(rules, np.random.default_rng(seed))
    choose = RandomChoice(seed)

    def play() -> tuple[int, int]:
        hand = table.new_hand()
        n = 0
        while not hand.over:
            hand.step(choose(hand.legal_mask().nonzero()[0]))
            n += 1
        return n, n

    return play


def engine_specs(players: int, seed: int) -> list[Spec]:
    rules, no_sam = RuleConfig(n_players=players), RuleConfig(n_players=players, allow_sam=False)
    return [
        Spec("engine (Hand.legal_mask + Hand.step)", lambda: engine_play(rules, seed)),
        Spec("engine, no Sâm (allow_sam=False)", lambda: engine_play(no_sam, seed)),
    ]


def main(argv: list[str] | None = None) -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    cpus = pin_to_cpu(args.cpu)
    budget = budget_of(args)
    rows = measure_all(engine_specs(args.players, args.seed), budget)
    verdict = "met" if max(r.decisions_per_s for r in rows) >= TARGET_DECISIONS_PER_S else "NOT met"
    figures = ", ".join(f"{r.name}: {r.decisions_per_s:,.0f}" for r in rows)
    target = f"Target: ≥ {TARGET_DECISIONS_PER_S:,} engine decisions/s on one core: {verdict} ({figures})."
    publish("Engine speed", table(rows, None, decisions_column=False), target, cpus, budget, args.markdown)


if __name__ == "__main__":
    main()
