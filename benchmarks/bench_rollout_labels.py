"""Labelled decisions per CPU-second of the rollout-advantage trainer (sam_env.training.rollout_advantage), on one core.

A labelled decision is one learner decision with a choice whose candidate moves (every legal move, at most
``--max-moves``) were each played to the end of the hand on a copy of the table, hidden hands included, by the
table's occupants under common random numbers. Every row plays the shipped 4-seat network ``ppo`` (256×256,
tanh) as the learner, default rules (Sâm on), ``--tables`` real tables and up to ``--rollout-tables`` copies
at once, on one core (BLAS, numba and torch single-threaded), timed by ``time.process_time``; each row's best
of ``--rounds`` rounds is kept. Rows differ by who sits at the other seats and how many decisions are labelled:

* **self-play**: the learner at every seat (its copies too);
* **vs heuristic ×3**: one learner seat per table, the compiled heuristic at the others;
* **recipe mix**: ``configs/rollout_advantage.yaml``'s seats: each seat the learner's with probability 0.5, the
  others half snapshots (here the same network, frozen), half heuristic.

The reference, measured in the same run, is the same tables playing without labels (learner decisions per
CPU-second); the update is the recipe's (``configs/rollout_advantage.yaml``) torch update of one iteration's
labels, and the end-to-end figure combines the recipe's collection and its update. Writes its section of
docs/rollout_training.md.

    python benchmarks/bench_rollout_labels.py [--labels 4000] [--rounds 3] [--max-moves 8] [--markdown PATH]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from common import command_line, machine_line, pin_to_cpu, run_single_threaded, write_section

run_single_threaded()

import numpy as np  # noqa: E402  (after the restart that caps the thread pools)
import torch  # noqa: E402

from sam_env import RuleConfig  # noqa: E402
from sam_env.agents.networks.catalogue import shipped_checkpoint  # noqa: E402
from sam_env.agents.search.network import CompiledNetwork  # noqa: E402
from sam_env.training.common.seating import Seating  # noqa: E402
from sam_env.training.rollout_advantage.collect import CollectStats, LabelCollector  # noqa: E402
from sam_env.training.rollout_advantage.config import RolloutAdvantageConfig  # noqa: E402
from sam_env.training.rollout_advantage.labels import RolloutLabeller  # noqa: E402
from sam_env.training.rollout_advantage.players import SeatPlayers  # noqa: E402
from sam_env.training.rollout_advantage.trainer import RolloutAdvantageTrainer  # noqa: E402
from sam_env.training.rollout_advantage.update import update  # noqa: E402
from sam_env.training.trainers import load_config  # noqa: E402

PAGE = "docs/rollout_training.md"
RECIPE = Path(__file__).resolve().parents[1] / "configs" / "rollout_advantage.yaml"


@dataclass(frozen=True)
class Seats:
    """Who sits at the other seats: the learner's share of the seats and the opponents' weights."""

    name: str
    learner_share: float
    opponents: dict[str, float]


SEATS = (
    Seats("self-play (the learner at every seat)", 1.0, {"heuristic": 1.0}),
    Seats("vs heuristic ×3 (one learner seat a table)", 0.0, {"heuristic": 1.0}),
    Seats("recipe mix (learner 0.5; snapshots, heuristic)", 0.5, {"self_play": 0.5, "heuristic": 0.5}),
)


@dataclass
class Measured:
    """One row: labelled decisions (or learner decisions, unlabelled) and the CPU seconds they took."""

    name: str
    label_share: float
    count: int
    seconds: float
    copies: int
    moves: int

    @property
    def rate(self) -> float:
        return self.count / self.seconds


def collector(seats: Seats, label_share: float, args: argparse.Namespace, rules: RuleConfig) -> LabelCollector:
    rng = np.random.default_rng(args.seed)
    network = shipped_checkpoint("ppo")
    seating = Seating(args.tables, rules.n_players, seats.learner_share, seats.opponents, rng)
    if seats.opponents.get("self_play"):
        seating.add(CompiledNetwork(network), keep=1)
    players = SeatPlayers(rules, CompiledNetwork(network), seating.pool)
    labeller = RolloutLabeller(rules, args.rollout_tables, players)
    return LabelCollector(rules, args.tables, seating, players, labeller, label_share, args.max_moves, rng)


def measure_labels(seats: Seats, label_share: float, args: argparse.Namespace, rules: RuleConfig) -> Measured:
    """The best of ``rounds`` collections of ``labels`` labelled decisions (after a warm-up collection)."""
    source = collector(seats, label_share, args, rules)
    source.collect(args.labels // 10)
    best = None
    for _ in range(args.rounds):
        copies, moves = source.labeller.copies, source.labeller.moves
        start = time.process_time()
        labels, _ = source.collect(args.labels)
        row = Measured(
            seats.name,
            label_share,
            len(labels),
            time.process_time() - start,
            source.labeller.copies - copies,
            source.labeller.moves - moves,
        )
        best = row if best is None or row.rate > best.rate else best
    return best


def measure_play(seats: Seats, args: argparse.Namespace, rules: RuleConfig) -> Measured:
    """The reference: the same tables with no labels, learner decisions (with a choice) per CPU-second."""
    source = collector(seats, 1.0, args, rules)
    best = None
    for _ in range(args.rounds):
        stats = CollectStats()
        start = time.process_time()
        while time.process_time() - start < args.seconds:
            source.step(stats, label=False)
        row = Measured(seats.name, 0.0, stats.learner_choices, time.process_time() - start, 0, 0)
        best = row if best is None or row.rate > best.rate else best
    return best


def measure_update(args: argparse.Namespace) -> tuple[float, int, RolloutAdvantageConfig]:
    """Labels per CPU-second through one update of the recipe (``configs/rollout_advantage.yaml``), the number of
    labels it had, and the recipe."""
    overrides = [
        f"num_tables={args.tables}",
        f"rollout_tables={args.rollout_tables}",
        f"max_moves={args.max_moves}",
        f"labels_per_iteration={args.labels}",
        "eval_every=0",
        "progress_bar=false",
    ]
    config = load_config(RECIPE, overrides)
    trainer = RolloutAdvantageTrainer(config)
    labels, _ = trainer.collector.collect(args.labels)
    start = time.process_time()
    update(trainer.net, trainer.head, trainer.optimizer, labels, trainer.settings, trainer.device, trainer.generator)
    return len(labels) / (time.process_time() - start), len(labels), config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=int, default=4000, help="labelled decisions per row and round")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds of the reference's rounds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per row; the best is kept")
    parser.add_argument("--tables", type=int, default=256, help="real tables")
    parser.add_argument("--rollout-tables", type=int, default=4096, help="copies played at once")
    parser.add_argument("--max-moves", type=int, default=8, help="candidate moves per labelled decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default=None, help=f"write the section into this page (e.g. {PAGE})")
    args = parser.parse_args()
    cpus = pin_to_cpu(args.cpu)
    torch.set_num_threads(1)
    rules = RuleConfig()
    head = (
        "| seats | labelled | labelled decisions/s | copies/label | moves/copy | "
        "reference: unlabelled learner decisions/s | ratio |"
    )
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    rows = []
    for seats in SEATS:
        reference = measure_play(seats, args, rules)
        for share in (1.0, 0.5):
            row = measure_labels(seats, share, args, rules)
            rows.append(row)
            lines.append(
                f"| {seats.name} | {share:.0%} | {row.rate:,.0f} | {row.copies / row.count:.2f} | "
                f"{row.moves / max(row.copies, 1):.1f} | {reference.rate:,.0f} | {row.rate / reference.rate:.3f} |"
            )
            print(lines[-1], flush=True)
    update_rate, update_labels, config = measure_update(args)
    recipe = next(r for r in rows if r.name == SEATS[2].name and r.label_share == config.label_share)
    end_to_end = 1 / (1 / recipe.rate + 1 / update_rate)
    head = "×".join(map(str, config.adv_layers))
    verdict = (
        f"The recipe's update (torch, {update_labels:,} labels, {config.n_epochs} epochs of minibatches of "
        f"{config.batch_size}, the actor-critic {'×'.join(map(str, config.pi_layers))} and the advantage head {head}) "
        f"takes {update_rate:,.0f} labelled decisions per CPU-second. With the recipe's collection (the recipe mix at "
        f"a {config.label_share:.0%} label share: {recipe.rate:,.0f}/s), a whole iteration makes "
        f"**{end_to_end:,.0f} labelled decisions per CPU-second** on one core (the target: 3,000)."
    )
    how = (
        f"One core: BLAS, numba and torch single-threaded; rates per CPU-second of the process "
        f"(`time.process_time`), best of {args.rounds} rounds of {args.labels:,} labels; {args.tables} real tables, "
        f"up to {args.rollout_tables:,} copies at once, at most {args.max_moves} candidate moves per decision; "
        f"default rules (Sâm on). `{command_line()}` — {machine_line(cpus)}"
    )
    body = "\n\n".join(["\n".join(lines), verdict, how])
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_rollout_labels", f"## Speed\n\n{body}")


if __name__ == "__main__":
    main()
