"""What ``ppo_search``'s budget and opponent models buy: X/hand against the heuristic, and CPU time per decision.

Each search (``DETERMINIZATIONSxCANDIDATES``, optionally ``:MODEL+MODEL`` for its opponent models
besides the network and ``/PROPOSALS`` for inference from the hand's history, e.g.
``64x8:ppo_v1+heuristic/512``, which is ``ppo_search`` at 4 seats) plays the same
duplicate deals against heuristic ×3 as the network alone (``ppo``), so its gain over the network
is a paired difference over deals (95 % CI), and so is its gain over the first search listed. The
cost is CPU time per searched decision (one with more than one legal move), timed on one core over
the decisions of a few hands. Writes ``search_budget.md`` and ``search_budget.png``.

    python experiments/search_budget.py [--deals 300] [--budgets 64x8 64x8:ppo_v1+heuristic/512] [--workers 2]
    python experiments/search_budget.py --network dmc_v2 --budgets 64x8 64x8:heuristic/512   # over the Q-network

The searches are registered by name before the tournament's worker processes start, so they reach
workers that are forked (the default on Linux before Python 3.14).
"""

from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from common import run_single_threaded

import sam_env
from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import shipped_checkpoint
from sam_env.agents.registry import load_bot, register
from sam_env.agents.search import SearchBot
from sam_env.evaluation.stats import NET, mean_ci
from sam_env.evaluation.tournament import Match, play_out, run_matches


def parse_search(spec: str) -> tuple[int, int, tuple[str, ...], int]:
    """``"64x8:ppo_v1+heuristic/512"`` -> ``(64, 8, ("ppo_v1", "heuristic"), 512)``."""
    rest, _, proposals = spec.partition("/")
    budget, _, models = rest.partition(":")
    try:
        determinizations, candidates = (int(x) for x in budget.split("x"))
        inference = int(proposals) if proposals else 0
    except ValueError:
        raise SystemExit(
            f"--budgets: expected DETERMINIZATIONSxCANDIDATES[:MODEL+MODEL][/PROPOSALS], got {spec!r}"
        ) from None
    return determinizations, candidates, tuple(models.split("+")) if models else (), inference


def search_bot(spec: str, seed: int | None = None, network: str = "ppo") -> SearchBot:
    """The search a spec names, over a shipped 4-seat network (the registry factory of ``search_<spec>``)."""
    determinizations, candidates, models, proposals = parse_search(spec)
    return SearchBot(
        shipped_checkpoint(network),
        seed,
        determinizations,
        candidates,
        opponent_models=models,
        proposals=proposals,
        name=f"search_{spec}",
    )


def cpu_ms_per_decision(spec: str, hands: int, network: str = "ppo") -> tuple[float, float]:
    """CPU milliseconds per searched decision of a seat-0 search bot against heuristic ×3, and of its
    network alone on the same decisions (the reference, timed in the same loop)."""
    bot = search_bot(spec, seed=0, network=network)
    heuristic = load_bot("heuristic", seed=0)
    env, spent, network_spent, searched = sam_env.env(), 0.0, 0.0, 0

    def choose(seat: int, observation: dict, view: sam_env.core.SeatView) -> int:
        nonlocal spent, network_spent, searched
        if seat != 0:
            return heuristic.act(observation, view)
        start = time.process_time()
        action = bot.act(observation, view)
        middle = time.process_time()
        bot.network.act(observation, view)
        if observation["action_mask"].sum() > 1:
            spent += middle - start
            network_spent += time.process_time() - middle
            searched += 1
        return action

    env.reset(seed=hands)  # a warm-up hand, not timed: numba's cache and the tables load here
    play_out(env, choose)
    spent, network_spent, searched = 0.0, 0.0, 0
    for hand in range(hands):
        env.reset(seed=hand)
        play_out(env, choose)
    if searched == 0:
        raise RuntimeError(f"no decision with more than one legal move in {hands} hands; time more hands")
    return 1000 * spent / searched, 1000 * network_spent / searched


def main() -> None:
    run_single_threaded()  # one core per process: the timing and every worker
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument(
        "--budgets",
        nargs="+",
        default=["64x8", "64x8:ppo_v1+heuristic", "64x8:ppo_v1+heuristic/512"],
        help="DxK[:MODEL+MODEL][/PROPOSALS]",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--network", default="ppo", help="the shipped 4-seat network searched over (default ppo)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--timing-hands", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("results/search_budget"))
    args = parser.parse_args()
    for spec in args.budgets:  # registered before the pool forks, so every worker knows them
        search_bot(spec, network=args.network)  # a bad spec or model fails here, not in the workers
        register(f"search_{spec}", partial(search_bot, spec, network=args.network))
    matches = [Match(args.network, ("heuristic",) * 3)] + [
        Match(f"search_{spec}", ("heuristic",) * 3) for spec in args.budgets
    ]
    results = run_matches(matches, RuleConfig(), args.deals, seed=args.seed, workers=args.workers)
    per_deal = [r.metrics[:, :, 0, NET].mean(axis=1) for r in results]
    rows = []
    for spec, net in zip(args.budgets, per_deal[1:], strict=True):
        ms, network_ms = cpu_ms_per_decision(spec, args.timing_hands, args.network)
        rows.append((spec, ms, mean_ci(net), mean_ci(net - per_deal[0]), mean_ci(net - per_deal[1])))
    base = mean_ci(per_deal[0])
    lines = [
        f"Searches over {args.network} against heuristic x3: {args.deals} duplicate deals (seed {args.seed}), "
        "4 seats, Sâm on",
        "",
        "| search (deals x candidates: opponent models / proposals) | CPU ms / searched decision | X/hand | 95% CI "
        f"| gain over {args.network} | 95% CI | gain over {args.budgets[0]} | 95% CI |",
        "|---|---|---|---|---|---|---|---|",
        f"| {args.network} (no search) | {network_ms:.3f} | {base[0]:+.2f} | [{base[1]:+.2f}, {base[2]:+.2f}] "
        "| | | | |",
    ]
    for name, ms, (m, lo, hi), (g, glo, ghi), (f, flo, fhi) in rows:
        lines.append(
            f"| {name} | {ms:.0f} | {m:+.2f} | [{lo:+.2f}, {hi:+.2f}] | {g:+.2f} | [{glo:+.2f}, {ghi:+.2f}] "
            + ("| | |" if name == args.budgets[0] else f"| {f:+.2f} | [{flo:+.2f}, {fhi:+.2f}] |")
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "search_budget.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    fig, ax = plt.subplots(figsize=(6, 4))
    ms = [r[1] for r in rows]
    gains = np.array([r[3] for r in rows])
    ax.errorbar(ms, gains[:, 0], yerr=[gains[:, 0] - gains[:, 1], gains[:, 2] - gains[:, 0]], fmt="o", capsize=4)
    for name, x, _, (g, _, _), _ in rows:
        ax.annotate(name, (x, g), textcoords="offset points", xytext=(6, -12))
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("CPU ms per searched decision (one core)")
    ax.set_ylabel(f"gain over {args.network}, X/hand (95% CI)")
    ax.set_title(f"search over {args.network} vs heuristic x3, {args.deals} deals")
    fig.tight_layout()
    fig.savefig(args.out / "search_budget.png", dpi=120)
    print(f"wrote {args.out / 'search_budget.md'} and search_budget.png")


if __name__ == "__main__":
    main()
