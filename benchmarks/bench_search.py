"""Searched decisions per CPU-second: the batched search (sam_env.agents.search.engine) against the per-decision one.

Every row searches the same decisions (every decision with a choice of a few hands of heuristic x4,
4 seats, default rules: Sâm on), each with its own generator, at the same budget (deals x
candidates, no inference, the network as the only model unless ``--models`` says otherwise), on one
core (BLAS and numba single-threaded), timed by ``time.process_time``:

* **per-decision, numpy forward**: :class:`~sam_env.agents.search.reference.ReferenceSearch` with
  ``PPOBot``'s forward pass — the search ``ppo_search`` ran before the batched engine (the reference);
* **per-decision, compiled forward**: the same with the engine's network (:mod:`sam_env.agents.search.network`);
* **batched, B decisions per batch**: :class:`~sam_env.agents.search.engine.BatchedSearch`; B = 1 is
  ``SearchBot``'s own path.

The split columns say where each row's time goes (:data:`SPLIT`): the networks' forward passes,
the engine's steps, dealing (and copying), reading finished hands' money, and the rest (Python and
numpy around them); and, apart, how much of it the history replays take. Writes its section of
docs/search.md.

    python benchmarks/bench_search.py [--decisions 128] [--budget 64x8] [--batches 1 16 64]
    python benchmarks/bench_search.py --models ppo_v1 heuristic --proposals 512   # ppo_search at 4 seats
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from common import command_line, machine_line, pin_to_cpu, run_single_threaded, write_section

import sam_env
from sam_env import RuleConfig
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.agents.networks.catalogue import shipped_checkpoint
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.registry import load_bot
from sam_env.agents.search import DecisionPoint, engine
from sam_env.agents.search.engine import BatchedSearch
from sam_env.agents.search.network import CompiledNetwork
from sam_env.agents.search.reference import ReferenceSearch
from sam_env.evaluation.tournament import play_out
from sam_env.vector import VectorEnv
from sam_env.vector.playouts import Playouts

SPLIT = {
    "models": "the models' moves: the networks' forward passes (and the compiled heuristic's, if a model)",
    "step": "engine steps: moves, masks, observations (rollouts and replays)",
    "deal": "dealing the sampled deals (and copying tables)",
    "results": "reading the money of finished hands",
}
"""Where a row's CPU time goes (exclusive; ``rest``: Python and numpy around them). The history
replay's share is shown apart: it is made of steps and deals, and of the Python that drives them."""


def decisions(count: int, seed: int, rules: RuleConfig | None = None) -> list[DecisionPoint]:
    """The first ``count`` decisions with a choice of hands of the heuristic at every seat (4 seats unless
    ``rules`` say otherwise)."""
    env, heuristic, points = sam_env.env(rules=rules or RuleConfig()), load_bot("heuristic", seed=seed), []

    def record(seat: int, observation: dict, view: sam_env.core.SeatView) -> int:
        if observation["action_mask"].sum() > 1:
            points.append(DecisionPoint.of({k: v.copy() for k, v in observation.items()}, view))
        return heuristic.act(observation, view)

    hand = 0
    while len(points) < count:
        env.reset(seed=seed * 100_003 + hand)
        play_out(env, record)
        hand += 1
    return points[:count]


class Clocks:
    """CPU time spent inside some methods, by category (wrapped in place for the run)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.rows = 0
        """Rows the models were asked about (observations with a choice)."""

    def wrap(self, owner: object, name: str, category: str) -> None:
        method = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            start = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.spent[category] = self.spent.get(category, 0.0) + time.process_time() - start
                if category == "models":  # (self, observations, masks[, rows])
                    rows = args[3] if len(args) > 3 and args[3] is not None else kwargs.get("rows", args[1])
                    self.rows += len(rows) if rows is not None else 0

        setattr(owner, name, timed)


@dataclass
class Row:
    name: str
    batch: int
    seconds: float
    moves: list[int]
    spent: dict[str, float]
    rows: int


def run_row(name: str, batch: int, search: Callable[[], list[int]], clocks: Clocks) -> Row:
    clocks.spent.clear()
    clocks.rows = 0
    start = time.process_time()
    moves = search()
    return Row(name, batch, time.process_time() - start, moves, dict(clocks.spent), clocks.rows)


def main() -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=128, help="decisions searched by every row")
    parser.add_argument("--budget", default="64x8", help="DETERMINIZATIONSxCANDIDATES (default 64x8)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64], help="decisions per batch")
    parser.add_argument("--models", nargs="*", default=[], help="models of the other seats besides the network")
    parser.add_argument("--proposals", type=int, default=0, help="inference from the hand's history (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default="docs/search.md", help="write the table's section here ('' for none)")
    args = parser.parse_args()
    deals, candidates = (int(x) for x in args.budget.split("x"))
    cpus = pin_to_cpu(args.cpu)
    points = decisions(args.decisions, args.seed)
    children = np.random.SeedSequence(args.seed).spawn(len(points))

    def rngs() -> list[np.random.Generator]:
        return [np.random.default_rng(c) for c in children]

    checkpoint = shipped_checkpoint("ppo")
    rules = RuleConfig()
    clocks = Clocks()
    clocks.wrap(PPOBot, "best_actions", "models")
    clocks.wrap(CompiledNetwork, "logits", "models")
    clocks.wrap(BatchedHeuristic, "__call__", "models")
    for owner, name, category in (
        (VectorEnv, "reset", "deal"),
        (VectorEnv, "step", "step"),
        (VectorEnv, "results", "results"),
        (Playouts, "deal", "deal"),
        (Playouts, "copy", "deal"),
        (Playouts, "step", "step"),
        (Playouts, "advance", "step"),
        (Playouts, "observe", "step"),
        (Playouts, "net", "results"),
        (ReferenceSearch, "_replay", "replay"),
        (engine, "replay_histories", "replay"),
    ):
        clocks.wrap(owner, name, category)
    numpy_bot = PPOBot(checkpoint)
    models = tuple(args.models)
    numpy_policies = (
        numpy_bot.best_actions,
        *(BatchedHeuristic(rules) if m == "heuristic" else PPOBot(shipped_checkpoint(m)).best_actions for m in models),
    )
    budget = {"opponent_models": models, "proposals": args.proposals}
    compiled = BatchedSearch(checkpoint, deals, candidates, **budget).policies(rules)

    def per_decision(policies: tuple, rank: Callable) -> Callable[[], list[int]]:
        reference = ReferenceSearch(policies, rank, rules, deals, candidates, args.proposals)
        reference.act(points[0], np.random.default_rng(0))  # compiles and loads the kernels, untimed
        return lambda: [reference.act(p, r)[0] for p, r in zip(points, rngs(), strict=True)]

    def batched(size: int) -> Callable[[], list[int]]:
        tables = size * max(deals * candidates, args.proposals)
        search = BatchedSearch(checkpoint, deals, candidates, max_tables=tables, **budget)
        search.search(points[:size], rngs()[:size])  # compiles and allocates, untimed
        generators = rngs()
        return lambda: [
            r.move
            for start in range(0, len(points), size)
            for r in search.search(points[start : start + size], generators[start : start + size])
        ]

    rows = [
        run_row(
            "per-decision, numpy forward (reference)",
            1,
            per_decision(numpy_policies, lambda o, m: numpy_bot.logits(o)),
            clocks,
        ),
        run_row(
            "per-decision, compiled forward",
            1,
            per_decision(compiled, lambda o, m: compiled[0].logits(o[None], m[None])[0]),
            clocks,
        ),
        *(run_row(f"batched, {size} per batch", size, batched(size), clocks) for size in args.batches),
    ]
    reference = rows[0]
    lines = [
        f"{len(points)} decisions with a choice (heuristic x4, 4 seats, default rules: Sâm on), "
        f"{deals} deals x {candidates} candidates, "
        + (f"inference from {args.proposals} proposals" if args.proposals else "no inference")
        + ", models: network"
        + "".join(f", {m}" for m in models)
        + "; one core, one thread; CPU time of the process (`time.process_time`)",
        "",
        "| search | decisions per batch | CPU s | decisions / CPU-s | CPU ms / decision | vs reference "
        "| same moves as reference | model rows / decision | µs / model row | "
        + " | ".join(SPLIT)
        + " | rest | history replay (included before) |",
        "|---|" + "---:|" * (10 + len(SPLIT)),
    ]
    for row in rows:
        rate = len(points) / row.seconds
        same = np.mean(np.array(row.moves) == np.array(reference.moves))
        parts = [row.spent.get(category, 0.0) for category in SPLIT]
        parts += [row.seconds - sum(parts), row.spent.get("replay", 0.0)]
        lines.append(
            f"| {row.name} | {row.batch} | {row.seconds:.1f} | {rate:.1f} | {1000 / rate:.1f} "
            f"| {reference.seconds / row.seconds:.1f}x | {same:.0%} | {row.rows / len(points):,.0f} "
            f"| {1e6 * row.spent.get('models', 0.0) / max(row.rows, 1):.1f} | "
            + " | ".join(f"{s:.2f} s ({s / row.seconds:.0%})" for s in parts)
            + " |"
        )
    lines += ["", f"`{command_line()}` — {machine_line(cpus)}"]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        section = "bench_search" + ("_" + "_".join([*models, str(args.proposals)]) if models or args.proposals else "")
        write_section(args.markdown, section, text)


if __name__ == "__main__":
    main()
