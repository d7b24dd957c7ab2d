"""Deep Monte-Carlo's moves per wall-clock second with and without ``overlap_update``, in the same run.

Why: the README's run trains ``configs/default.yaml`` on two cores for about ten minutes, so every move per
second is strength. A DMC iteration is a collection (the tables' steps and the network's forward passes over
every legal move) and an update (forward and backward passes over the finished decisions). ``overlap_update``
runs the update on a second thread while the tables play the network one update behind
(``sam_env.training.dmc``); this measures what it buys against the two ways of running without it: one torch
thread, and two (torch's intra-op threads within each pass).

Rows: the recipe of ``configs/default.yaml`` with evaluations and checkpoints off, from a fresh network; after
``--warm-up`` iterations (numba's cached compile, the first updates, the decisions waiting for their hands),
``--iterations`` iterations are timed by the wall clock and by the process's CPU time (both cores' work).
Rounds are interleaved and each row keeps its fastest. Moves count every seat's (forced ones included),
decisions those with a choice, the ones trained on. The recipe's rules (the defaults: Sâm on, 4 seats).

    cd benchmarks && python bench_dmc.py --markdown ../docs/standard_algorithms.md

``--markdown`` replaces (or appends) only this script's section of the page (``<!-- bench_dmc:start -->``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import torch
from common import command_line, machine_line, pin_to_cpu, write_section

from sam_env.training.dmc.config import DMCConfig
from sam_env.training.dmc.trainer import DMCTrainer
from sam_env.training.recipes import recipe_path
from sam_env.training.trainers import load_config


@dataclass(frozen=True)
class Row:
    """One way of running the recipe: whether the update overlaps the collection, and torch's threads."""

    name: str
    overlap: bool
    threads: int


ROWS = (
    Row("in turn, one torch thread", False, 1),
    Row("in turn, two torch threads", False, 2),
    Row("`overlap_update: true`, one torch thread", True, 1),
)


@dataclass
class Timed:
    moves: int
    decisions: int
    wall: float
    cpu: float


def recipe(overlap: bool) -> DMCConfig:
    """``configs/default.yaml`` with evaluations off and ``overlap_update`` as asked."""
    overrides = ["eval_every=0", "progress_bar=false", f"overlap_update={str(overlap).lower()}"]
    return load_config(recipe_path("default"), overrides)


def time_row(row: Row, args: argparse.Namespace) -> Timed:
    """Moves, decisions, wall and CPU seconds of ``--iterations`` iterations after ``--warm-up`` ones."""
    trainer = DMCTrainer(recipe(row.overlap))
    torch.set_num_threads(row.threads)
    with trainer.update_thread() as pool:
        for _ in range(args.warm_up):
            trainer.iterate(pool)
        moves, decisions, wall, cpu = 0, 0, time.perf_counter(), time.process_time()
        for _ in range(args.iterations):
            stats, _, _ = trainer.iterate(pool)
            moves += stats.moves
            decisions += stats.decisions
        return Timed(moves, decisions, time.perf_counter() - wall, time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=40, help="timed iterations per row and round")
    parser.add_argument("--warm-up", type=int, default=8, help="untimed iterations before them")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; each row keeps its fastest")
    parser.add_argument("--markdown", default=None, help="also write the table to this Markdown file")
    args = parser.parse_args()
    cpus = pin_to_cpu(None)
    best: dict[Row, Timed] = {}
    for _ in range(args.rounds):
        for row in ROWS:
            timed = time_row(row, args)
            if row not in best or timed.wall < best[row].wall:
                best[row] = timed
    reference = best[ROWS[0]]
    lines = [
        "| how the update runs | moves / wall s | decisions / wall s | vs in turn, one thread | CPU s / wall s |",
        "|---|---:|---:|---:|---:|",
    ]
    for row, timed in best.items():
        rate = timed.moves / timed.wall
        ratio = rate / (reference.moves / reference.wall)
        cells = f"{rate:,.0f} | {timed.decisions / timed.wall:,.0f} | {ratio:.2f}× | {timed.cpu / timed.wall:.2f}"
        lines.append(f"| {row.name} | {cells} |")
    c = recipe(False)
    rules = c.rule_config
    how = (
        f"`configs/default.yaml`'s recipe ({c.num_tables:,} tables × {c.n_steps} steps an update, "
        f"{'×'.join(map(str, c.pi_layers))}, batches of {c.batch_size:,}), a fresh network, evaluations off; "
        f"{args.iterations} iterations ({reference.moves:,} moves at every seat, forced ones included) timed after "
        f"{args.warm_up}, best of {args.rounds} interleaved rounds; {rules.n_players} seats, Sâm "
        f"{'on' if rules.allow_sam else 'off'}; wall clock, and CPU time of the process over it (both cores' work). "
        f"`{command_line()}` — {machine_line(cpus)}"
    )
    body = "## Overlapping the update with the collection\n\n" + "\n".join(lines) + "\n\n" + how
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_dmc", body)


if __name__ == "__main__":
    main()
