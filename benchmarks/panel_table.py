"""How strong and how different the held-out panel bots are: the tables of docs/panel.md.

    cd benchmarks && nice -n 10 python panel_table.py --deals 1000 --workers 2 --markdown ../docs/panel.md

One duplicate tournament (:func:`sam_env.evaluation.tournament.run_matches`: every deal once per seat rotation,
X/hand with a 95 % interval over deals), every match on the same ``--deals`` deals of ``--seed``:

1. **strength**: each panel bot against ``n - 1`` heuristic bots, the heuristic against ``n - 1``
   copies of it, and the panel bot against ``n - 1`` greedy bots;
2. **the panel among itself**: each panel bot against ``n - 1`` copies of each other one;
3. **generalization margins** of ``--candidates`` (default ``ppo ppo_v1``): the same matches and
   numbers as ``sam-eval --candidates ppo ppo_v1 --panel --deals D --seed S`` (a hand's result
   depends only on the seed, the deal, the seating and the slot, not on which matches run with it).

Then **style**, on the decisions with a choice of ``--hands`` hands whose seats are drawn uniformly
from the heuristic and the panel (the decisions of every kind of player): how often two bots pick
the same move on the same decision, and each bot's CPU time per decision on one core (one process,
thread pools capped at one thread), best of three passes over the decisions, as a ratio to the
heuristic's measured in the same pass.

``--markdown`` replaces this script's section of the page (``<!-- panel_table:start -->`` …).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from common import command_line, machine_line, run_single_threaded, write_section
from tqdm import tqdm

import sam_env
from sam_env.agents.registry import load_bot
from sam_env.core import RuleConfig, SeatView
from sam_env.evaluation.panel import panel_matches, panel_rows
from sam_env.evaluation.report import panel_markdown
from sam_env.evaluation.stats import Summary
from sam_env.evaluation.suites import HELD_OUT_PANEL as PANEL
from sam_env.evaluation.suites import PANEL_BASELINE as BASELINE
from sam_env.evaluation.tournament import Match, MatchResult, play_out, run_matches

STYLE_BOTS = (BASELINE, *PANEL)


def _cell(s: Summary) -> str:
    return f"{s.x_per_hand:+.2f} [{s.ci_low:+.2f}, {s.ci_high:+.2f}]"


def plan(candidates: Sequence[str], n: int) -> list[Match]:
    """Every match of the three tournament tables, each once."""
    others = (n - 1,)
    matches = [Match(p, (BASELINE,) * others[0]) for p in PANEL]
    matches += [Match(p, ("greedy",) * others[0]) for p in PANEL]
    matches += [Match(p, (q,) * others[0]) for p in PANEL for q in PANEL if p != q]
    matches += panel_matches(candidates, PANEL, n)  # the heuristic against each panel bot, then the candidates
    return matches


def strength_table(by: dict[tuple[str, str], Summary], n: int) -> str:
    k = n - 1
    head = [
        "panel bot",
        f"vs {BASELINE} ×{k}",
        f"{BASELINE} vs it ×{k}",
        f"vs greedy ×{k}",
        f"vs the other panel bots ×{k} (mean)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|---:|---:|"]
    for p in PANEL:
        others = [by[p, q].x_per_hand for q in PANEL if q != p]
        cells = [f"`{p}`", _cell(by[p, BASELINE]), _cell(by[BASELINE, p]), _cell(by[p, "greedy"])]
        cells.append(f"{np.mean(others):+.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def round_robin_table(by: dict[tuple[str, str], Summary], n: int) -> str:
    head = ["candidate \\ opponents ×" + str(n - 1), *(f"`{q}`" for q in PANEL)]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(PANEL)]
    for p in PANEL:
        lines.append("| " + " | ".join([f"`{p}`", *("–" if p == q else _cell(by[p, q]) for q in PANEL)]) + " |")
    return "\n".join(lines)


def record_decisions(rules: RuleConfig, hands: int, seed: int) -> list[tuple[dict, SeatView]]:
    """Observations and views of every decision with a choice, in hands of randomly drawn style bots."""
    env, rng, states = sam_env.env(rules=rules), np.random.default_rng(seed), []
    for hand in tqdm(range(hands), desc="recording decisions", unit="hand"):
        bots = [load_bot(STYLE_BOTS[int(i)], seed=hand) for i in rng.integers(len(STYLE_BOTS), size=rules.n_players)]
        env.reset(seed=seed * 1_000_003 + hand)

        def choose(seat: int, observation: dict, view: SeatView, bots: list = bots) -> int:
            if len(view.legal) > 1:
                states.append(({k: v.copy() for k, v in observation.items()}, view))
            return bots[seat].act(observation, view)

        play_out(env, choose)
    return states


def style_tables(states: list[tuple[dict, SeatView]], seed: int) -> tuple[str, str]:
    """The agreement matrix, and each bot's CPU time per decision (best of 3 passes) beside the heuristic's."""
    bots = {name: load_bot(name, seed=seed) for name in STYLE_BOTS}
    choices = {name: np.array([bots[name].act(o, v) for o, v in states]) for name in STYLE_BOTS}
    head = ["", *(f"`{b}`" for b in STYLE_BOTS)]
    agree = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(STYLE_BOTS)]
    for a in STYLE_BOTS:
        cells = [f"{100 * np.mean(choices[a] == choices[b]):.0f} %" for b in STYLE_BOTS]
        agree.append("| " + " | ".join([f"`{a}`", *cells]) + " |")
    best = dict.fromkeys(STYLE_BOTS, float("inf"))
    for _ in range(3):
        for name, bot in bots.items():
            start = time.process_time()
            for observation, view in states:
                bot.act(observation, view)
            best[name] = min(best[name], (time.process_time() - start) / len(states))
    timing = ["| bot | µs per decision (CPU) | vs heuristic |", "|---|---:|---:|"]
    timing += [f"| `{b}` | {1e6 * best[b]:.0f} | {best[b] / best[BASELINE]:.2f}× |" for b in STYLE_BOTS]
    return "\n".join(agree), "\n".join(timing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals of every match (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the bots' draws (default 0)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the tournament (default 2)")
    parser.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    parser.add_argument("--candidates", nargs="*", default=["ppo", "ppo_v1"], help="bots whose margins to report")
    parser.add_argument("--hands", type=int, default=400, help="hands whose decisions the style tables use")
    parser.add_argument("--markdown", default=None, help="write the tables into this page's panel_table section")
    args = parser.parse_args()
    rules = RuleConfig(n_players=args.players)
    started = time.perf_counter()
    results: list[MatchResult] = run_matches(
        plan(args.candidates, rules.n_players), rules, args.deals, args.seed, args.workers
    )
    by = {(r.match.names[0], r.match.opponents[0]): r.summary() for r in results}
    margins = [r for r in results if r.match.candidate in (BASELINE, *args.candidates)]
    tournament_s = time.perf_counter() - started
    states = record_decisions(rules, args.hands, args.seed)
    agreement, timing = style_tables(states, args.seed)
    hands = sum(r.metrics.shape[0] * r.metrics.shape[1] for r in results)
    how = (
        f"`{command_line()}`: {len(results)} matches, {hands:,} hands in {tournament_s / 60:.0f} min "
        f"on {args.workers} worker(s); style tables on {len(states):,} decisions of {args.hands} hands. "
        f"{machine_line('any CPU')}"
    )
    k = rules.n_players - 1
    body = "\n\n".join(
        [
            f"### Strength ({rules.n_players} seats, {args.deals:,} deals in duplicate, seed {args.seed})",
            "X/hand of the first-named bot, 95 % interval over deals.",
            strength_table(by, rules.n_players),
            f"### The panel among itself: each row's bot against {k} copies of each column's",
            round_robin_table(by, rules.n_players),
            f"### Generalization margins: against {k} copies of each panel bot, the candidate's X/hand "
            f"and the {BASELINE}'s on the same deals, and the difference (95 % interval paired over deals)",
            panel_markdown(panel_rows(margins)).rstrip("\n") if args.candidates else "(no candidates)",
            "### Style: how often two bots choose the same move on the same decision",
            agreement,
            "### Speed: CPU time per decision on one core",
            timing,
            how,
        ]
    )
    print(body)
    if args.markdown:
        write_section(args.markdown, Path(__file__).stem, body)


if __name__ == "__main__":
    run_single_threaded()
    main()
