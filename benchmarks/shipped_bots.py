"""Every shipped network on fresh deals: the tables and the figure of docs/results/ppo_strength.md.

    cd benchmarks && nice -n 10 python shipped_bots.py --deals 2000 --seed 7 --workers 1 \
        --markdown ../docs/results/ppo_strength.md --figure ../docs/shipped_bots.png --json ../results/shipped_bots.json

For every seat count of ``--players`` and every network shipped for it (each entry of the catalogue,
:mod:`sam_env.agents.networks.catalogue`, by its own name; who meets whom is :mod:`sam_env.evaluation.suites`), one
duplicate tournament (:func:`sam_env.evaluation.tournament.run_matches`: every deal once per seat rotation, X/hand
with a 95 % interval over deals), all matches on the same ``--deals`` deals of ``--seed``:

1. the network against ``n - 1`` heuristic bots, and at 4 seats against ``n - 1`` copies of ``ppo_v1``;
2. the network and the heuristic against ``n - 1`` copies of each held-out panel bot, and the
   network's **generalization margin** against each (its X/hand minus the heuristic's, the interval
   paired over deals: :mod:`sam_env.evaluation.panel`, the numbers of ``sam-eval --panel``).

Each table marks the strength targets beside the figures (4 seats: ≥ +4 against the heuristic, ≥ +1.5
against ``ppo_v1``; other seat counts ≥ +3; every generalization margin ≥ +1): ✓ where the point
estimate meets its target, ✗ where it does not.
Use a seed no choice of any shipped bot was made on: the shipped bots were picked on seed 0's deals.

``--markdown`` replaces this script's section of the page (``<!-- shipped_bots:start -->`` …).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from common import command_line, machine_line, run_single_threaded, write_section

from sam_env.agents.networks.catalogue import entries
from sam_env.core import RuleConfig
from sam_env.evaluation.panel import BASELINE, PanelRow, panel_matches, panel_rows
from sam_env.evaluation.stats import Summary
from sam_env.evaluation.suites import HELD_OUT_PANEL as PANEL
from sam_env.evaluation.suites import SHIPPED_BOT_REFERENCE, shipped_bot_networks, shipped_bot_opponents
from sam_env.evaluation.tournament import Match, MatchResult, run_matches

REFERENCE = SHIPPED_BOT_REFERENCE
"""The first 4-seat bot, the second opponent of the 4-seat targets (``suites.SHIPPED_BOT_REFERENCE``)."""
TARGETS = {BASELINE: {4: 4.0}, REFERENCE: {4: 1.5}}
"""The strength targets, X/hand: opponent → seat count → the least a network should score."""
OTHER_SEATS_TARGET = 3.0
"""The target against the heuristic at the seat counts ``TARGETS`` does not name."""
MARGIN_TARGET = 1.0
"""The least generalization margin against every panel bot."""


def networks_for(n_players: int) -> list[str]:
    """The shipped networks made for ``n_players`` seats, by their catalogue names, the recommended one first
    (:func:`sam_env.evaluation.suites.shipped_bot_networks`)."""
    return list(shipped_bot_networks(n_players))


def opponents_for(n_players: int) -> list[str]:
    """The fixed opponents of the first table: the heuristic, and ``ppo_v1`` where it can sit
    (:func:`sam_env.evaluation.suites.shipped_bot_opponents`)."""
    return list(shipped_bot_opponents(n_players))


def plan(networks: Sequence[str], n_players: int) -> list[Match]:
    """The first table's matches (no network against copies of itself), then the panel's."""
    k = n_players - 1
    fixed = [Match(net, (opp,) * k) for net in networks for opp in opponents_for(n_players) if opp != net]
    return fixed + panel_matches(networks, PANEL, n_players)


def target(opponent: str, n_players: int) -> float:
    """The target against ``n - 1`` copies of ``opponent`` (NaN: none)."""
    return TARGETS.get(opponent, {}).get(n_players, OTHER_SEATS_TARGET if opponent == BASELINE else float("nan"))


def _cell(x: float, low: float, high: float, goal: float | None = None) -> str:
    """``x [low, high]``, and ✓ or ✗ as ``x`` meets ``goal`` (none for no goal or a NaN one)."""
    mark = "" if goal is None or goal != goal else (" ✓" if x >= goal else " ✗")
    return f"{x:+.2f} [{low:+.2f}, {high:+.2f}]{mark}"


def strength_table(by: dict[tuple[str, str], Summary], networks: Sequence[str], n: int) -> str:
    """A row per network, a column per fixed opponent: X/hand [95 % CI] and the target's mark."""
    opponents = opponents_for(n)
    head = ["network", *(f"vs {o} ×{n - 1} (target ≥ {target(o, n):+.1f})" for o in opponents)]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(opponents)]
    for net in networks:
        cells = ["–" if (net, o) not in by else _cell(*_stats(by[net, o]), target(o, n)) for o in opponents]
        lines.append("| " + " | ".join([f"`{net}`", *cells]) + " |")
    return "\n".join(lines)


def _stats(s: Summary) -> tuple[float, float, float]:
    """X/hand and its 95 % interval."""
    return s.x_per_hand, s.ci_low, s.ci_high


def margin_table(rows: Sequence[PanelRow], networks: Sequence[str], n: int) -> str:
    """The heuristic's own X/hand against each panel bot, then each network's generalization margin."""
    by = {(r.candidate, r.panel_bot): r for r in rows}
    head = [f"against ×{n - 1}", *(f"`{p}`" for p in PANEL)]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(PANEL)]
    base = [by[networks[0], p] for p in PANEL]
    cells = [_cell(r.baseline_x_per_hand, r.baseline_ci_low, r.baseline_ci_high) for r in base]
    lines.append("| " + " | ".join([f"{BASELINE}: its X/hand", *cells]) + " |")
    for net in networks:
        row = [by[net, p] for p in PANEL]
        cells = [_cell(r.margin, r.margin_low, r.margin_high, MARGIN_TARGET) for r in row]
        lines.append("| " + " | ".join([f"`{net}`: margin", *cells]) + " |")
    return "\n".join(lines)


def plot(path: Path, margins: dict[int, list[PanelRow]]) -> None:
    """One panel per seat count: each network's generalization margin against each panel bot, with its
    interval, and the target line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seats = sorted(margins)
    fig, axes = plt.subplots(1, len(seats), figsize=(4.2 * len(seats), 3.6), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], seats, strict=True):
        nets = list(dict.fromkeys(r.candidate for r in margins[n]))
        width = 0.8 / len(nets)
        for i, net in enumerate(nets):
            rows = [r for r in margins[n] if r.candidate == net]
            xs = [PANEL.index(r.panel_bot) + (i - (len(nets) - 1) / 2) * width for r in rows]
            ys = [r.margin for r in rows]
            err = [[r.margin - r.margin_low for r in rows], [r.margin_high - r.margin for r in rows]]
            ax.errorbar(xs, ys, yerr=err, fmt="o", markersize=4, capsize=2, label=net)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.axhline(MARGIN_TARGET, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xticks(range(len(PANEL)), [p.removeprefix("panel_") for p in PANEL], rotation=30)
        ax.set_title(f"{n} seats")
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("generalization margin, X/hand (95% CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure_link(args: argparse.Namespace) -> str:
    """The figure's path as the page links it: relative to the page's folder (the page may sit below docs/)."""
    if not args.markdown:
        return args.figure.name
    return Path(os.path.relpath(args.figure.resolve(), Path(args.markdown).resolve().parent)).as_posix()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deals of every match (default 2000)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the deals and the bots' draws (default 7)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the tournament (default 2)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5], help="seat counts (default 2 3 4 5)")
    parser.add_argument("--markdown", default=None, help="write the tables into this page's shipped_bots section")
    parser.add_argument("--figure", type=Path, default=None, help="write the margins' figure here (PNG)")
    parser.add_argument("--json", type=Path, default=None, help="write every match's summary and margin here")
    args = parser.parse_args()
    sections, margins, record = [], {}, {"deals": args.deals, "seed": args.seed, "seats": {}}
    started = time.perf_counter()
    hands = 0
    missing = [n for n in args.players if not networks_for(n)]
    if missing:
        sizes = sorted({e.seats for e in entries()})
        parser.error(f"--players: no network is shipped for {missing} seats; the catalogue has {sizes} seats")
    for n in args.players:
        rules, networks = RuleConfig(n_players=n), networks_for(n)
        results: list[MatchResult] = run_matches(plan(networks, n), rules, args.deals, args.seed, args.workers)
        hands += sum(r.metrics.shape[0] * r.metrics.shape[1] for r in results)
        by = {(r.match.names[0], r.match.opponents[0]): r.summary() for r in results}
        margins[n] = panel_rows(results)
        record["seats"][n] = {
            "summaries": [s.to_dict() for s in by.values()],
            "margins": [vars(r) for r in margins[n]],
        }
        sections += [
            f"### {n} seats",
            strength_table(by, networks, n),
            margin_table(margins[n], networks, n),
        ]
    minutes = (time.perf_counter() - started) / 60
    how = (
        f"`{command_line()}`: {hands:,} hands in {minutes:.0f} min on {args.workers} worker(s). "
        f"{machine_line('any CPU')}"
    )
    figure = f"![Generalization margins of the shipped networks]({figure_link(args)})" if args.figure else ""
    body = "\n\n".join(s for s in [*sections, figure, how] if s)
    print(body)
    if args.figure:
        plot(args.figure, margins)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        write_section(args.markdown, Path(__file__).stem, body)


if __name__ == "__main__":
    run_single_threaded()
    main()
