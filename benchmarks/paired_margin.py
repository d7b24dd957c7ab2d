"""A network against another bot (the network it started from, a shipped one), paired on the same deals: each one's
X/hand against n − 1 copies of an opponent (duplicate deals, every seat rotation, 95 % CI over deals) and their
difference deal by deal.

Both matches play the same deals in the same seatings (one ``run_matches`` call, one seed), so the difference's
interval (:func:`sam_env.evaluation.stats.paired_difference`) leaves out the cards both were dealt. Writes its
section (``--section``, headed ``--title``) of the page given with ``--markdown`` (docs/rollout_training.md for the
rollout-advantage runs).

    python benchmarks/paired_margin.py --candidate runs/RUN/final --baseline ppo --against heuristic --deals 1000
    python benchmarks/paired_margin.py --candidate dmc_search --players 4 --baseline dmc_v2 ppo_search --deals 500

Several baselines are each paired with the candidate on the same deals (one run). A candidate that is not a network
(a search, a rule bot) takes ``--players``.

``--share 0.9`` adds the candidate against 90 % of the baseline's margin, paired deal by deal (a target posed as a
share of another bot's margin is met when that row's lower bound is above 0).
"""

from __future__ import annotations

import argparse
import time

from common import command_line, machine_line, pin_to_cpu, write_section

from sam_env import RuleConfig
from sam_env.agents.registry import load_bot
from sam_env.evaluation.panel import paired_nets
from sam_env.evaluation.stats import mean_ci, paired_difference
from sam_env.evaluation.tournament import Match, run_matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidate", required=True, help="the trained network (a checkpoint path or a shipped name)")
    parser.add_argument("--baseline", nargs="+", default=["ppo"], help="the bots it is compared with (default ppo)")
    parser.add_argument("--against", default="heuristic", help="the opponent, n − 1 copies (default heuristic)")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--players", type=int, default=None, help="table size (default: the candidate network's)")
    parser.add_argument("--seed", type=int, default=2024, help="the deals (pick one no run trained or evaluated on)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--label", default=None, help="the candidate's name in the table (default: its path)")
    parser.add_argument(
        "--share",
        type=float,
        default=None,
        help="also the candidate against this share of the baseline's margin, paired (0.9: is it 90 %% of it?)",
    )
    parser.add_argument("--markdown", default=None, help="write the section into this page")
    parser.add_argument(
        "--section", default="paired_margin", help="the page's section to write (default paired_margin)"
    )
    parser.add_argument("--title", default="A short run, measured", help="the section's heading")
    args = parser.parse_args()
    if args.share is not None and not 0 < args.share <= 1:
        parser.error(f"--share must be a share of the baseline's margin in (0, 1], got {args.share}")
    if args.players is not None:
        rules = RuleConfig(n_players=args.players)
    else:
        bot = load_bot(args.candidate)
        if not hasattr(bot, "checkpoint"):
            parser.error(f"{args.candidate!r} is not a network: give the table size with --players")
        rules = bot.checkpoint.rules  # a network's own table
    opponents = (args.against,) * (rules.n_players - 1)
    matches = [Match(args.candidate, opponents), *(Match(b, opponents) for b in args.baseline)]
    started = time.perf_counter()
    results = run_matches(matches, rules, args.deals, seed=args.seed, workers=args.workers)
    minutes = (time.perf_counter() - started) / 60
    pairs = [paired_nets(results[0], result) for result in results[1:]]  # refused unless on the same deals
    candidate, baselines = pairs[0][0], [baseline for _, baseline in pairs]
    label = args.label or args.candidate
    opposition = f"{args.against} ×{rules.n_players - 1}"
    cells = "{:+.2f} [{:+.2f}, {:+.2f}]"
    rows = [
        f"| {label} | {opposition} | {args.deals:,} | {cells.format(*mean_ci(candidate))} |",
        *(
            f"| {name} | {opposition} | {args.deals:,} | {cells.format(*mean_ci(baseline))} |"
            for name, baseline in zip(args.baseline, baselines, strict=True)
        ),
    ]
    for name, baseline in zip(args.baseline, baselines, strict=True):
        difference = paired_difference(candidate, baseline)
        rows.append(f"| **{label} − {name}** (paired) | | | **{cells.format(*difference)}** |")
        if args.share is not None:
            share = paired_difference(candidate, args.share * baseline)
            rows.append(f"| **{label} − {args.share:g} × {name}** (paired) | | | **{cells.format(*share)}** |")
    table = "\n".join(["| bot | opponents | deals | X/hand [95 % CI] |", "|---|---|---:|---:|", *rows])
    how = (
        f"Duplicate deals (every seat rotation), seed {args.seed}, greedy moves; the difference is paired deal by "
        f"deal; {minutes:.0f} min of wall time for the {len(matches)} matches. `{command_line()}` — "
        f"{machine_line(pin_to_cpu(None))}"
    )
    body = f"{table}\n\n{how}"
    print(body)
    if args.markdown:
        write_section(args.markdown, args.section, f"## {args.title}\n\n{body}")


if __name__ == "__main__":
    main()
