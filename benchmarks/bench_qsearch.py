"""CPU per searched decision of a search over a Q-network: QBot's numpy forward pass against the compiled one.

Why: the search probe of ``dmc_v2_5p`` (``sam-exploit --bot dmc_v2 --players 5 --probe search``) once ran at two
seconds a hand. Profiled, most of a search over a Q-network went to :class:`~sam_env.agents.networks.qnet.bot.QBot`'s
numpy forward pass on the few hundred rows of each rollout step; the search now plays a ``dmc`` network through
:class:`~sam_env.agents.search.qnetwork.CompiledQNetwork`. This script measures both on the same decisions: every
table size's recommended network (``best``, a Q-network at every size), the probe's budget (64 deals x 8
candidates, the network as the only model, no inference), and at 4 seats also ``dmc_search`` as shipped. Every
decision with a choice of a few hands of heuristic x n (default rules: Sâm on), searched one at a time as a bot
searches them, on one core (BLAS and numba single-threaded), timed by ``time.process_time``. Writes its section
of docs/search.md.

    python benchmarks/bench_qsearch.py [--decisions 64] [--markdown docs/search.md]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_search import decisions
from common import command_line, machine_line, pin_to_cpu, run_single_threaded, write_section

from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import best_for, shipped_checkpoint
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.search import DecisionPoint
from sam_env.agents.search.engine import BatchedSearch
from sam_env.agents.search.models import ShippedSearch, dmc_search_settings


def time_search(search: BatchedSearch, points: list[DecisionPoint], seed: int) -> tuple[float, list[int]]:
    """CPU ms per decision of ``search`` over ``points``, one at a time, and its moves."""
    search.search(points[:1], [np.random.default_rng(seed)])  # compiles and allocates, untimed
    generators = [np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(len(points))]
    start = time.process_time()
    moves = [search.search([p], [g])[0].move for p, g in zip(points, generators, strict=True)]
    return 1000 * (time.process_time() - start) / len(points), moves


def heuristic_decisions(n_players: int, count: int, seed: int) -> list[DecisionPoint]:
    """The first ``count`` decisions with a choice of hands of the heuristic at every seat of an ``n``-seat table."""
    return decisions(count, seed, RuleConfig(n_players=n_players))


def main() -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=64, help="decisions searched per row")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default="docs/search.md", help="write the table's section here ('' for none)")
    args = parser.parse_args()
    cpus = pin_to_cpu(args.cpu)
    lines = [
        "| seats | network | search | numpy forward (QBot), ms / decision | compiled, ms / decision | speed-up |",
        "|---:|---|---|---:|---:|---:|",
    ]
    rows: list[tuple[int, str, ShippedSearch]] = [(n, best_for(n).name, ShippedSearch()) for n in (2, 3, 4, 5)]
    rows.append((4, best_for(4).name, dmc_search_settings(4)))
    for n_players, network, settings in rows:
        checkpoint = shipped_checkpoint(network)
        points = heuristic_decisions(n_players, args.decisions, args.seed)
        budget = {"opponent_models": settings.opponent_models, "proposals": settings.proposals}
        slow = BatchedSearch(checkpoint, **budget)
        slow.network = QBot(checkpoint)  # the forward pass the search used before CompiledQNetwork
        slow_ms, slow_moves = time_search(slow, points, args.seed)
        fast_ms, fast_moves = time_search(BatchedSearch(checkpoint, **budget), points, args.seed)
        same = sum(a == b for a, b in zip(slow_moves, fast_moves, strict=True))
        models = "+".join(settings.opponent_models) or "the network alone"
        inference = f", inference from {settings.proposals}" if settings.proposals else ""
        lines.append(
            f"| {n_players} | `{network}` | 64x8, {models}{inference} | {slow_ms:.1f} | {fast_ms:.1f} "
            f"| {slow_ms / fast_ms:.1f}× ({same}/{len(points)} same moves) |"
        )
        print(lines[-1], flush=True)
    body = "\n".join(
        [
            f"{args.decisions} decisions with a choice per row (heuristic at every seat, default rules: Sâm on), "
            "each searched alone as a bot searches it, CPU time on one core:",
            "",
            *lines,
            "",
            f"`{command_line()}` — {machine_line(cpus)}",
        ]
    )
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_qsearch", body)


if __name__ == "__main__":
    main()
