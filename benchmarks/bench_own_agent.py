"""How fast a tournament plays a batched policy of one's own, beside a shipped network: docs/evaluation.md's table.

    cd benchmarks && nice -n 10 python bench_own_agent.py --deals 300 --markdown ../docs/evaluation.md

Every row is one duplicate match against three ``random`` bots (cheap opponents, so the candidate's own
cost shows) over the same ``--deals`` deals, in this process (``workers=1``), single-threaded (every
BLAS/OpenMP pool and torch at one thread), timed in CPU seconds of the process (robust to other work on a
shared machine), the rows interleaved over ``--rounds``
rounds and each row's fastest kept:

* ``ppo`` — the shipped network as sam-env plays it: numpy, one decision at a time (``PPOBot.act``);
* the same weights as a **batched policy** in numpy (``PPOBot.best_actions``), and as a **torch network**
  (``torch.nn.Sequential`` of the same layers) — both played in lockstep batches
  (:mod:`sam_env.evaluation.lockstep`);
* the torch network asked **one decision at a time** (a ``sam_env.Bot`` whose ``act`` calls it on one row):
  what the batching buys;
* ``random`` against ``random`` — the environment alone, the floor of every row.

All network rows pick the most probable legal move of the same weights; the table says whether their
results are identical to ``ppo``'s (a float rounding tie could flip one decision; none is expected).
``--markdown`` replaces this script's section of the page (``<!-- bench_own_agent:start -->`` …).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch
from common import command_line, machine_line, pin_to_cpu, run_single_threaded, write_section

import sam_env
from sam_env.agents.networks.catalogue import shipped_bot
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.core import RuleConfig
from sam_env.evaluation.tasks import lockstep_deals
from sam_env.evaluation.tournament import Match, MatchResult, run_matches


def torch_network(bot: PPOBot) -> torch.nn.Module:
    """The shipped network's actor rebuilt in torch from its own weights."""
    layers: list[torch.nn.Module] = []
    for weight, bias in bot._hidden:
        linear = torch.nn.Linear(weight.shape[1], weight.shape[0])
        linear.weight.data, linear.bias.data = torch.from_numpy(weight.copy()), torch.from_numpy(bias.copy())
        layers += [linear, getattr(torch.nn, bot.checkpoint.arch.activation_fn.torch)()]
    weight, bias = bot._out
    out = torch.nn.Linear(weight.shape[1], weight.shape[0])
    out.weight.data, out.bias.data = torch.from_numpy(weight.copy()), torch.from_numpy(bias.copy())
    return torch.nn.Sequential(*layers, out).eval()


class TorchPolicy:
    """A torch network as a batched policy: the most probable legal action of every row."""

    def __init__(self, net: torch.nn.Module) -> None:
        self.net = net

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            logits = self.net(torch.from_numpy(observations))
            return logits.masked_fill(~torch.from_numpy(masks), float("-inf")).argmax(dim=1).numpy()


class TorchOneAtATime(sam_env.Bot):
    """The same torch network asked for one decision per call, as a per-decision bot."""

    name = "torch, one decision at a time"

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.policy = TorchPolicy(net)

    def act(self, observation: dict, view: object) -> int:
        rows = observation["observation"][None].astype(np.float32)
        return int(self.policy(rows, observation["action_mask"][None].astype(bool))[0])


def numpy_best_actions(bot: PPOBot) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def best_actions(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return bot.best_actions(observations, masks)

    return best_actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU (Linux)")
    parser.add_argument("--markdown", default=None, help="also write the table to this Markdown file")
    args = parser.parse_args()
    run_single_threaded()
    torch.set_num_threads(1)
    cpus = pin_to_cpu(args.cpu)
    rules = RuleConfig()
    ppo = shipped_bot("ppo")
    net = torch_network(ppo)
    rows: dict[str, object] = {
        "ppo (shipped network, numpy, one decision at a time)": "ppo",
        "same network as a batched policy, numpy": numpy_best_actions(ppo),
        "same network in torch as a batched policy": TorchPolicy(net),
        "same torch network, one decision at a time": TorchOneAtATime(net),
        "random (the environment alone)": "random",
    }
    best: dict[str, float] = {}
    results: dict[str, MatchResult] = {}
    for _ in range(args.rounds):
        for label, candidate in rows.items():
            match = Match(candidate, ("random",) * 3, label=label)
            started = time.process_time()
            [results[label]] = run_matches([match], rules, args.deals, seed=args.seed, workers=1, progress=False)
            best[label] = min(best.get(label, float("inf")), time.process_time() - started)
    reference = results["ppo (shipped network, numpy, one decision at a time)"]
    shipped = best["ppo (shipped network, numpy, one decision at a time)"]
    hands = args.deals * len(reference.seatings)
    batch = lockstep_deals(len(reference.seatings)) * len(reference.seatings)
    lines = [
        "| candidate (against random ×3) | hands per CPU-second | vs ppo | X/hand | same moves as ppo |",
        "|---|---:|---:|---:|---|",
    ]
    for label in rows:
        r = results[label]
        same = (
            "—"
            if r is reference or label.startswith("random")
            else "yes"
            if np.array_equal(r.metrics, reference.metrics)
            else "no"
        )
        lines.append(
            f"| {label} | {hands / best[label]:,.0f} | {shipped / best[label]:.2f}× | "
            f"{r.summary().x_per_hand:+.2f} | {same} |"
        )
    how = (
        f"{args.deals} deals × {len(reference.seatings)} seatings = {hands:,} hands a row, one process, one thread, "
        f"CPU time of the process, best of {args.rounds} interleaved rounds; a batched policy decides for {batch} "
        f"hands at a time; {rules.n_players} seats, default rules (Sâm on). `{command_line()}` — "
        f"{machine_line(cpus)}, torch {torch.__version__}"
    )
    body = "\n".join(lines) + "\n\n" + how
    print(body)
    if args.markdown:
        write_section(args.markdown, "bench_own_agent", body)


if __name__ == "__main__":
    main()
