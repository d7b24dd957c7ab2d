"""``sam-eval`` / ``python -m sam_env.apps.evaluate``: duplicate matches between bots, ratings and reports."""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sam_env.agents.networks.catalogue import resolutions
from sam_env.agents.panel import PANEL
from sam_env.agents.registry import listed
from sam_env.apps import evaluate_protocol
from sam_env.apps.evaluate_protocol import add_protocol_arguments
from sam_env.apps.options import add_rules_arguments, check_bots, opponent_lineup, refusals_reported, rules_from_args
from sam_env.core import RuleConfig
from sam_env.evaluation.failures import EvaluationError, HandFailure
from sam_env.evaluation.panel import panel_matches, panel_rows
from sam_env.evaluation.ratings import rate
from sam_env.evaluation.replay import ReplayWriter
from sam_env.evaluation.report import (
    markdown_table,
    panel_markdown,
    panel_text_table,
    plot,
    text_table,
    write_csv,
    write_json,
    write_panel_json,
)
from sam_env.evaluation.seating import adjacent_flows
from sam_env.evaluation.tournament import Match, MatchResult, run_matches
from sam_env.utils.extras import install_command

EPILOG = """\
examples:
  sam-eval --candidates heuristic greedy random --mirror random --deals 10000 --out results/eval
      every ordered pair (A against n-1 copies of B) over the same 10,000 deals, plus random
      against copies of itself to show the seat bias; ratings from all matches between different agents
  sam-eval --candidates ppo --against heuristic greedy random --deals 10000 --out results/ppo
      three matches: ppo against three heuristic bots, against three greedy bots, against three random bots
  sam-eval --candidates greedy --opponents ppo heuristic random --deals 2000 --out results/mixed
      one mixed table: greedy against ppo, heuristic and random together, every deal played over
      balanced orders of the opponents so that no bot always sits after the same one
  sam-eval --candidates ppo ppo_v1 --panel --deals 2000 --out results/panel
      each candidate and the heuristic against three copies of each held-out panel bot, and the table
      of generalization margins (candidate minus heuristic, paired over deals; docs/panel.md)
  sam-eval --candidates heuristic greedy --deals 100000 --ray --address auto
      the same tournament over a Ray cluster (pip install -e ".[rllib]"; docs/rllib.md)
  sam-eval --candidates my_agent.py:MyBot my_package.policies:make_policy --against heuristic --deals 2000
      your own bots, by file or by module: a sam_env.Bot class or factory, or a batched policy
      (observations, masks) -> actions, played in batches (docs/evaluation.md#evaluate-your-own-agent)
  sam-eval --protocol v1 --candidates my_agent.py:MyBot --quick
      protocol v1's 4-seat track at its quick tier: fixed deals, opponents and seeds, and a results file
      that sam-eval --validate checks (docs/score_your_agent.md, docs/protocol.md)
  sam-eval --compare leaderboard/ppo.v1-4p-full.results.json leaderboard/heuristic.v1-4p-full.results.json
      two results files of one track and tier: the headlines' difference, paired deal by deal
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sam-eval",
        description=(
            "Duplicate tournament for Sâm Lốc bots. Each deal is played once per seat rotation: the\n"
            "candidate takes every seat of the same cards while its opponents fill the others; when the\n"
            "opponents differ, also over balanced orders of the opponents (each bot sits after each other\n"
            "bot equally often). Reports X per hand with a 95% confidence interval over deals, win rate,\n"
            "X per hand by position relative to the would-be leader, ratings sorted by money (and\n"
            "openskill's, which counts places), and the money between neighbouring bots; writes\n"
            "summary.csv, summary.json, summary.md (with Sâm, chop and penalty counts) and\n"
            "x_per_hand.png to --out."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--candidates",
        nargs="+",
        metavar="BOT",
        help=f"agents to evaluate: registry names ({listed()}), checkpoint paths, or "
        "bots of your own as package.module:attr or path/to/file.py:attr (a sam_env.Bot class or factory, "
        "or a batched policy (observations, masks) -> actions); every bot option takes the same forms",
    )
    lineups = parser.add_mutually_exclusive_group()
    lineups.add_argument(
        "--against",
        nargs="+",
        metavar="NAME",
        help="one match per name: every candidate against n-1 copies of it (docs/evaluation.md)",
    )
    lineups.add_argument(
        "--opponents",
        nargs="+",
        metavar="NAME",
        help="one mixed table per candidate: n-1 names (or one name for all n-1 seats), seated over "
        "balanced orders (default without --against/--opponents: every ordered pair of candidates)",
    )
    lineups.add_argument(
        "--panel",
        nargs="*",
        metavar="NAME",
        help="every candidate and the heuristic against n-1 copies of each held-out panel bot (with no name, "
        f"the whole panel: {', '.join(PANEL)}); also prints and writes panel.md and panel.json: each "
        "candidate's generalization margin (its X/hand minus the heuristic's, 95%% CI paired over deals)",
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
    parser.add_argument(
        "--ray",
        action="store_true",
        help="spread the deals over a Ray cluster (RAY_ADDRESS or --address; else a local Ray with --workers "
        "CPUs): the same numbers as the local pool for the same seed; needs the rllib extra",
    )
    parser.add_argument("--address", metavar="ADDR", help="with --ray: the cluster to join (e.g. auto, host:6379)")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write every hand (rules, deal, each move with seat, bot and action, the ledger) to FILE as JSON "
        "Lines, match by match and deal by deal; sam-web shows them move by move",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_rules_arguments(parser)
    add_protocol_arguments(parser)
    return parser


def plan_matches(args: argparse.Namespace, rules: RuleConfig) -> list[Match]:
    """The matches the options ask for; raises ``ValueError`` on inconsistent options."""
    n = rules.n_players
    candidates = list(dict.fromkeys(args.candidates))
    mirror = candidates if args.mirror == [] else list(dict.fromkeys(args.mirror or []))
    against = list(dict.fromkeys(args.against or []))
    panel = None if args.panel is None else list(dict.fromkeys(args.panel or PANEL))
    check_bots([*candidates, *(args.opponents or []), *against, *mirror, *(panel or [])], rules)
    unknown_mirror = [m for m in mirror if m not in candidates]
    if unknown_mirror:
        raise ValueError(f"--mirror names must be among --candidates; not a candidate: {', '.join(unknown_mirror)}")
    if panel is not None:
        matches = panel_matches(candidates, panel, n)
    elif args.opponents:
        lineup = tuple(opponent_lineup(args.opponents, n))
        matches = [Match(c, lineup) for c in candidates]
    elif against:
        matches = [Match(c, (a,) * (n - 1)) for c in candidates for a in against if a != c]
        if not matches and not mirror:
            raise ValueError(
                "nothing to play: --against names only the candidate itself; "
                "use --mirror to play a bot against copies of itself"
            )
    else:
        if len(candidates) < 2 and not mirror:
            raise ValueError("a round-robin needs at least two --candidates (or use --opponents or --mirror)")
        matches = [Match(a, (b,) * (n - 1)) for a, b in itertools.permutations(candidates, 2)]
    return matches + [Match(m, (m,) * (n - 1)) for m in mirror]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if evaluate_protocol.wants_protocol_mode(args):  # --protocol v1 / --validate: sam_env.apps.evaluate_protocol
        return evaluate_protocol.run(parser, args, sys.argv[1:] if argv is None else list(argv))
    if not args.candidates:
        parser.error("the following arguments are required: --candidates")
    with refusals_reported(parser):
        if args.deals < 1:
            raise ValueError(f"--deals must be at least 1, got {args.deals}")
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        if args.seed < 0:
            raise ValueError(f"--seed must be an int >= 0, got {args.seed}")
        if args.address is not None and not args.ray:
            raise ValueError("--address names a Ray cluster; add --ray to play there")
        if args.ray and importlib.util.find_spec("ray") is None:
            raise ValueError(f"--ray needs Ray: {install_command('rllib')}")
        rules = rules_from_args(args)
        matches = plan_matches(args, rules)
        try:  # before the matches, not after them
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ValueError(f"cannot write the results to --out {args.out}: {err.strerror or err}") from None
        writer = None if args.record is None else ReplayWriter(args.record)
    networks = resolutions([name for m in matches for name in (m.candidate, *m.opponents)], rules.n_players)
    for name, network in networks.items():
        print(f"{name} plays {network['network']} here (weights sha256 {network['sha256'][:12]}…)")
    start = time.perf_counter()
    progress = not args.no_progress
    failures: list[HandFailure] = []
    try:
        results: list[MatchResult] = run_matches(
            matches,
            rules,
            args.deals,
            args.seed,
            args.workers,
            progress=progress,
            ray=args.ray,
            ray_address=args.address,
            record=None if writer is None else writer.write,
        )
    except EvaluationError as err:  # the matches that finished are reported and written all the same
        results, failures = err.results, err.failures
    finally:
        if writer is not None:
            writer.close()
    if not results:
        print_failures(failures, writer, args.record)
        return 1
    summaries = [r.summary() for r in results]
    ratings = rate(results)
    flows = adjacent_flows(results)
    elapsed = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    config = {
        "rules": rules.to_dict(),
        "deals": args.deals,
        "seed": args.seed,
        "workers": args.workers,
        "ray": args.ray,
        "matches": [{"candidate": m.candidate, "opponents": list(m.opponents)} for m in matches],
        "wall_clock_s": round(elapsed, 1),
    }
    if networks:  # "best" and family names move when a network ships: what each played here, by name and weights
        config["networks"] = networks
    if failures:
        config["failed"] = [f.to_dict() for f in failures]
    where = "Ray" if args.ray else f"{args.workers} worker(s)"
    title = f"Sâm Lốc, {rules.n_players} players, {args.deals} deals in duplicate (seed {args.seed})"
    write_csv(args.out / "summary.csv", summaries)
    write_json(args.out / "summary.json", config, summaries, ratings, flows)
    (args.out / "summary.md").write_text(markdown_table(summaries, ratings, flows), encoding="utf-8")
    if importlib.util.find_spec("matplotlib") is not None:
        plot(args.out / "x_per_hand.png", summaries, title)
    else:  # the base install evaluates; the figure needs the train extra's matplotlib
        print('x_per_hand.png not drawn: matplotlib is not installed (pip install "sam-env[train]")', file=sys.stderr)
    print(title)
    print(text_table(summaries, ratings, flows))
    if args.panel is not None and not failures:
        rows = panel_rows(results)
        (args.out / "panel.md").write_text(panel_markdown(rows), encoding="utf-8")
        write_panel_json(args.out / "panel.json", config, rows)
        print("\n" + panel_text_table(rows) + f"\n(also in panel.md and panel.json in {args.out})")
    print(
        f"\n{sum(s.hands for s in summaries)} hands in {elapsed:.1f} s on {where}\n"
        f"wrote summary.csv, summary.json, summary.md (every column) and x_per_hand.png to {args.out}"
    )
    if writer is not None:
        print(f"recorded {writer.count} hands to {args.record}")
    if failures:
        print_failures(failures, None, None)
        return 1
    return 0


def print_failures(failures: Sequence[HandFailure], writer: ReplayWriter | None, record: Path | None) -> None:
    """Say on stderr which matches failed, where and why (the tables above hold the others)."""
    lines = [f"sam-eval: {len(failures)} match(es) failed; the others are reported above:"]
    lines += [f"  {f.describe()}" for f in failures]
    if writer is not None:
        lines.append(f"recorded {writer.count} hands to {record}")
    print("\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
