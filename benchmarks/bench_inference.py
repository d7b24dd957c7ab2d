"""CPU time per decision of the network players in numpy: one ``PPOBot.act`` per decision, one core.

Why: a network plays in numpy, one decision at a time, in evaluations, ``sam-play`` and the web app, and the
target is at most 1 ms a decision on one CPU core. The move-scoring head (``PolicyArch.move_head``) and the
hand's history (observation encoding version 2) add work to every decision; this measures how much, against
the shipped 4-seat network (``ppo``: version 1, no head) on the same decisions in the same run.

Decisions: ``--hands`` hands of ``sam_env.env(encoding_version=2)`` (default rules, 4 seats) played by the
heuristic at every seat; every decision of every seat is kept (its observation dict). A version-1 network
reads the prefix of the version-2 observation, as it does at any version-2 table. Rows, timed on one core
with every thread pool capped at one thread, best of ``--rounds`` interleaved rounds, each a whole pass over
the decisions (CPU time of the process, ``time.process_time``):

* ``ppo`` (shipped; 256 × 256 tanh; version 1, no head): the reference;
* the same layers on version 2 with a move head of ``--move-head`` units (random weights: the time does
  not depend on the values);
* the same, without the head (what the history alone costs);
* ``dmc`` (shipped Q-network, 256 × 256 relu, version 1): one pass over the observation, then one row per legal
  move of the move's features (``QBot.act``);
* ``dmc_v2`` (shipped Q-network, ``dmc`` trained further: the 4-seat network of the strength targets).

    cd benchmarks && python bench_inference.py --cpu 1 --markdown ../docs/speed.md

``--markdown`` replaces (or appends) only this script's section of the file (``<!-- bench_inference:start -->``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import command_line, heuristic_decisions, machine_line, pin_to_cpu, run_single_threaded, write_section

from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import shipped_bot, shipped_checkpoint
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch, PolicyCheckpoint, policy_metadata
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.core import SeatView

TARGET_MS = 1.0


def decisions(hands: int, seed: int) -> list[tuple[dict, SeatView]]:
    """Every decision of ``hands`` heuristic hands at a version-2 table: (observation dict, view)."""
    return heuristic_decisions(hands, seed, {"encoding_version": 2})


def random_network(arch: PolicyArch, seed: int) -> PolicyCheckpoint:
    """A network of encoding version 2 with these layers, random weights (for timing only)."""
    meta = policy_metadata(RuleConfig(), arch, encoding_version=2)
    rng = np.random.default_rng(seed)
    shapes = arch.tensor_shapes(meta["observation_shape"][0], meta["n_actions"])
    tensors = {k: rng.normal(0, 0.1, size=s).astype(np.float32) for k, s in shapes.items()}
    return PolicyCheckpoint.in_memory(tensors, meta, "random network (timing)")


def time_pass(bot: PPOBot | QBot, states: list[tuple[dict, SeatView]]) -> float:
    """CPU seconds of one pass of ``bot.act`` over every state."""
    start = time.process_time()
    for observation, view in states:
        bot.act(observation, view)
    return time.process_time() - start


def layers_of(bot: PPOBot | QBot) -> str:
    """The hidden layers and activation, as the table shows them (a policy's move head too)."""
    arch = bot.checkpoint.arch
    if isinstance(bot, QBot):
        return " × ".join(map(str, arch.layers)) + f" {arch.activation}"
    head = f", head {arch.move_head}" if arch.move_head else ""
    return " × ".join(map(str, arch.pi)) + f" {arch.activation}{head}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200, help="heuristic hands whose decisions are timed")
    parser.add_argument("--move-head", type=int, default=64, help="units of the move-scoring head (default 64)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved passes; each row keeps its fastest")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default=None, help="also write the table to this Markdown file")
    args = parser.parse_args()
    run_single_threaded()
    cpus = pin_to_cpu(args.cpu)
    states = decisions(args.hands, args.seed)
    shipped = shipped_checkpoint("ppo")
    layers = shipped.arch
    rows = {
        "`ppo` (shipped: version 1, no move head)": PPOBot(shipped),
        f"version 2, move head of {args.move_head}": PPOBot(
            random_network(PolicyArch(layers.pi, layers.vf, layers.activation, args.move_head), args.seed)
        ),
        "version 2, no move head": PPOBot(random_network(layers, args.seed)),
        "`dmc` (shipped Q-network: version 1, one row per legal move)": shipped_bot("dmc"),
        "`dmc_v2` (shipped Q-network: `dmc` trained further)": shipped_bot("dmc_v2"),
    }
    best = dict.fromkeys(rows, float("inf"))
    for bot in rows.values():  # warm: first calls, caches
        time_pass(bot, states[:50])
    for _ in range(args.rounds):
        for name, bot in rows.items():
            best[name] = min(best[name], time_pass(bot, states))
    reference = best[next(iter(rows))]
    legal = np.mean([np.count_nonzero(o["action_mask"]) for o, _ in states])
    lines = [
        "| network | layers | CPU ms / decision | vs `ppo` | target ≤ 1 ms |",
        "|---|---|---:|---:|---|",
    ]
    for name, bot in rows.items():
        ms = 1000 * best[name] / len(states)
        shape = layers_of(bot)
        mark = "✓" if ms <= TARGET_MS else "✗"
        lines.append(f"| {name} | {shape} | {ms:.3f} | {best[name] / reference:.2f}× | {mark} |")
    how = (
        f"{len(states):,} decisions ({args.hands} heuristic hands, 4 seats, default rules; {legal:.1f} legal moves "
        f"a decision on average), `act` one decision at a time, best of {args.rounds} passes; one core, one "
        f"thread, CPU time of the process. `{command_line()}` — {machine_line(cpus)}"
    )
    body = "## Network players in numpy: time per decision\n\n" + "\n".join(lines) + "\n\n" + how
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_inference", body)


if __name__ == "__main__":
    main()
