"""Is ``best`` the strongest shipped network at each table size? Every shipped network of a size against n − 1
heuristic seats on the same duplicate deals (every seat rotation), and ``best`` minus each of the others, paired
deal by deal, with 95 % intervals over deals.

``best`` holds when every difference's upper bound is at or above 0: no shipped network of its size is shown to
be stronger. Writes one section per table size into the page given with ``--markdown`` (docs/results/best.md).

    python benchmarks/best_check.py --players 2 3 4 5 --deals 1000 --seed 7006 --markdown docs/results/best.md
"""

from __future__ import annotations

import argparse

from common import command_line, machine_line, pin_to_cpu, write_section

from sam_env.agents.networks.catalogue import BEST, best_for, entries
from sam_env.core import RuleConfig
from sam_env.evaluation.panel import paired_nets
from sam_env.evaluation.stats import mean_ci, paired_difference
from sam_env.evaluation.tournament import Match, run_matches

CELLS = "{:+.2f} [{:+.2f}, {:+.2f}]"


def check_size(players: int, deals: int, seed: int, workers: int | None) -> tuple[str, bool]:
    """The section for one table size, and whether ``best`` holds there."""
    best = best_for(players)
    others = [e.name for e in entries() if e.seats == players and e.name != best.name]
    opponents = ("heuristic",) * (players - 1)
    names = [best.name, *others]
    results = run_matches([Match(n, opponents) for n in names], RuleConfig(n_players=players), deals, seed, workers)
    rows = []
    holds = True
    for name, result in zip(names, results, strict=True):
        _, nets = paired_nets(results[0], result)
        rows.append(f"| `{name}` | {CELLS.format(*mean_ci(nets))} | |")
    for name, result in zip(others, results[1:], strict=True):
        best_nets, other = paired_nets(results[0], result)  # refused unless both played the same deals and seatings
        diff = paired_difference(best_nets, other)
        holds &= diff[2] >= 0
        rows.append(f"| **`{best.name}` − `{name}`** (paired) | | **{CELLS.format(*diff)}** |")
    verdict = "holds: no difference's upper bound is below 0" if holds else "does NOT hold: a network below is stronger"
    table = "\n".join(["| network | X/hand vs heuristic [95 % CI] | difference [95 % CI] |", "|---|---:|---:|", *rows])
    body = (
        f"## {players} seats: `{BEST}` is `{best.name}`\n\n{table}\n\n"
        f"`{BEST}` {verdict} at {players} seats. {deals:,} deals × {players} seat rotations against "
        f"heuristic × {players - 1}, seed {seed}, greedy moves."
    )
    return body, holds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7006, help="the deals (one no run trained or evaluated on)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--markdown", default=None, help="write each size's section into this page")
    args = parser.parse_args()
    for players in args.players:
        body, _ = check_size(players, args.deals, args.seed, args.workers)
        body += f"\n\n`{command_line()}` — {machine_line(pin_to_cpu(None))}"
        print(body, flush=True)
        if args.markdown:
            write_section(args.markdown, f"best_{players}p", body)


if __name__ == "__main__":
    main()
