"""``sam-eval`` / ``python -m apps.evaluate``: duplicate matches between bots, ratings and reports."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.registry import available
from apps.options import add_rules_arguments, check_bots, opponent_lineup, rules_from_args
from evaluation.ratings import rate
from evaluation.report import markdown_table, plot, text_table, write_csv, write_json
from evaluation.tournament import Match, run_matches
from sam_env.core import RuleConfig

EPILOG = """\
examples:
  sam-eval --candidates heuristic greedy random --mirror random --deals 10000 --out results/eval
      every ordered pair (A against n-1 copies of B) over the same 10,000 deals, plus random
      against copies of itself to show the seat bias; ratings from all matches between different agents
  sam-eval --candidates heuristic --opponents greedy random random --deals 2000 --out results/mixed
      the heuristic against a fixed line-up, seated in that order after it
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sam-eval",
        description=(
            "Duplicate tournament for Sâm Lốc bots. Each deal is played once per seat rotation: the\n"
            "candidate takes every seat of the same cards while its opponents fill the others in a\n"
            "fixed order. Reports X per hand with a 95% confidence interval over deals, win rate, X per\n"
            "hand by position relative to the would-be leader, Sâm, chops and penalties, and openskill\n"
            "ratings; writes summary.csv, summary.json, summary.md and x_per_hand.png to --out."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--candidates",
        nargs="+",
        required=True,
        metavar="NAME",
        help=f"agents to evaluate: registry names ({', '.join(available())}) or policy checkpoint paths",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        metavar="NAME",
        help="a fixed line-up for every candidate: n-1 names in turn order after it, or one name for all "
        "n-1 seats (default: a round-robin of every ordered pair of candidates)",
    )
    parser.add_argument(
        "--mirror",
        nargs="*",
        metavar="NAME",
        help="also play these candidates against copies of themselves (shows the seat bias); "
        "with no name, every candidate",
    )
    parser.add_argument("--deals", type=int, default=1000, help="number of deals (default 1000)")
    parser.add_argument(
        "--seed", type=int, default=0, help="tournament seed: the deals and the bots' draws (default 0)"
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per core)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("results/eval"), help="output directory (default results/eval)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_rules_arguments(parser)
    return parser


def plan_matches(args: argparse.Namespace, rules: RuleConfig) -> list[Match]:
    """The matches the options ask for; raises ``ValueError`` on inconsistent options."""
    n = rules.n_players
    candidates = list(dict.fromkeys(args.candidates))
    mirror = candidates if args.mirror == [] else list(dict.fromkeys(args.mirror or []))
    check_bots([*candidates, *(args.opponents or []), *mirror], rules)
    unknown_mirror = [m for m in mirror if m not in candidates]
    if unknown_mirror:
        raise ValueError(f"--mirror names must be among --candidates; not a candidate: {', '.join(unknown_mirror)}")
    if args.opponents:
        lineup = tuple(opponent_lineup(args.opponents, n))
        matches = [Match(c, lineup) for c in candidates]
    else:
        if len(candidates) < 2 and not mirror:
            raise ValueError("a round-robin needs at least two --candidates (or use --opponents or --mirror)")
        matches = [Match(a, (b,) * (n - 1)) for a, b in itertools.permutations(candidates, 2)]
    return matches + [Match(m, (m,) * (n - 1)) for m in mirror]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.deals < 1:
            raise ValueError(f"--deals must be at least 1, got {args.deals}")
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        rules = rules_from_args(args)
        matches = plan_matches(args, rules)
    except ValueError as err:
        parser.error(str(err))
    start = time.perf_counter()
    results = run_matches(matches, rules, args.deals, args.seed, args.workers, progress=not args.no_progress)
    summaries = [r.summary() for r in results]
    ratings = rate(results)
    elapsed = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    config = {
        "rules": rules.to_dict(),
        "deals": args.deals,
        "seed": args.seed,
        "workers": args.workers,
        "matches": [{"candidate": m.candidate, "opponents": list(m.opponents)} for m in matches],
        "wall_clock_s": round(elapsed, 1),
    }
    title = f"Sâm Lốc, {rules.n_players} players, {args.deals} deals in duplicate (seed {args.seed})"
    write_csv(args.out / "summary.csv", summaries)
    write_json(args.out / "summary.json", config, summaries, ratings)
    (args.out / "summary.md").write_text(markdown_table(summaries, ratings), encoding="utf-8")
    plot(args.out / "x_per_hand.png", summaries, title)
    print(title)
    print(text_table(summaries, ratings))
    print(
        f"\n{sum(s.hands for s in summaries)} hands in {elapsed:.1f} s on {args.workers} worker(s); "
        f"wrote {args.out}/summary.csv, summary.json, summary.md, x_per_hand.png"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
