"""``sam-eval --protocol v1`` and ``sam-eval --validate``: the benchmark's side of the evaluation command.

``sam-eval --protocol v1 --candidates SPEC [--players N] [--quick | --tier T]`` plays protocol v1's
track (:mod:`sam_env.evaluation.protocol`) for each candidate and writes one results file each
(:mod:`sam_env.evaluation.results`) to ``--out`` (default ``results/protocol``) or, with
``--leaderboard``, to the repository's ``leaderboard/`` folder, rebuilding docs/leaderboard.md.
``sam-eval --validate FILE ...`` checks results files against the schema and the protocol and recomputes every
figure from the per-deal values they keep, ``sam-eval --reproduce FILE ...`` plays them again and compares every
stored value (:mod:`sam_env.evaluation.reproduce`), and ``sam-eval --compare FILE_A FILE_B`` pairs two of them
deal by deal (A's headline minus B's, with its interval).
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from sam_env.apps.options import check_bots, refusals_reported
from sam_env.evaluation.protocol import NAME, TIERS, ProtocolError, Track

FIXED_BY_PROTOCOL = ("--deals", "--seed", "--rules", "--against", "--opponents", "--panel", "--mirror", "--record")
"""Options that protocol v1 fixes (deals, seed, rules, opponents) or that it does not offer: refused with it."""
DEFAULT_OUT = Path("results/protocol")


def add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the protocol mode, in their own group of ``sam-eval --help``."""
    group = parser.add_argument_group(f"protocol {NAME} (docs/protocol.md, docs/score_your_agent.md)")
    group.add_argument(
        "--protocol",
        choices=[NAME],
        help=f"play protocol {NAME}'s track for --players (default 4): fixed deals, opponents and seeds; writes one "
        "results file per candidate to --out (default results/protocol); no other line-up, deal or rule option",
    )
    group.add_argument(
        "--tier",
        choices=list(TIERS),
        default=None,
        help="; ".join(f"{t.name}: {t.about}" for t in TIERS.values()) + " (default full)",
    )
    group.add_argument("--quick", action="store_true", help="the quick tier (same as --tier quick)")
    group.add_argument(
        "--leaderboard",
        action="store_true",
        help="write the results file to leaderboard/ and rebuild docs/leaderboard.md (run at the top of a checkout)",
    )
    group.add_argument(
        "--validate",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="check results files against the schema and the protocol (hash, suite, deals, rules) and recompute "
        "every figure (rows, margins, headline) from the per-deal values they keep, naming the wrong field; exit 1 "
        "if any fails",
    )
    group.add_argument(
        "--reproduce",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="rebuild each file's candidate from its spec, check its fingerprint, play its track again (with --deals "
        "N: its first N deals) and compare every stored value; prints what differs, exit 1 if anything does. With "
        "--out DIR, also writes each reproduced file (whole tracks only) there",
    )
    group.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("FILE_A", "FILE_B"),
        help="the paired difference of two results files' headline scores (A minus B), deal by deal, with its 95%% "
        "interval: both valid, of one track and tier",
    )


def wants_protocol_mode(args: argparse.Namespace) -> bool:
    """Whether the options are this module's (the protocol, validation, or an option that only they take)."""
    return bool(
        args.protocol or args.validate or args.reproduce or args.compare or args.tier or args.quick or args.leaderboard
    )


def run(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run the protocol or the validation the options ask for; the exit status."""
    for option, files in (("--validate", args.validate), ("--compare", args.compare), ("--reproduce", args.reproduce)):
        if files:
            others = (
                "--protocol",
                "--candidates",
                "--validate",
                "--reproduce",
                "--compare",
                "--tier",
                "--quick",
                "--leaderboard",
            )
            given = [a for a in others if getattr(args, a[2:])]
            given.remove(option)
            if given:
                parser.error(f"{option} reads files; it takes no {' or '.join(given)}")
    if args.validate:
        return validate_files(args.validate)
    if args.compare:
        return compare_files(*args.compare)
    if args.reproduce:
        return reproduce_files(parser, args, argv)
    if not args.protocol:
        parser.error(f"--tier, --quick and --leaderboard go with --protocol {NAME}")
    return run_protocol(parser, args, argv)


def validate_files(paths: Sequence[Path]) -> int:
    """Print a verdict for every file; 0 when all are valid protocol results."""
    from sam_env.evaluation.results import ResultsError, read_results

    failed = 0
    for path in paths:
        try:
            document = read_results(path)
        except ModuleNotFoundError as err:  # jsonschema is a base dependency: only a broken install lacks it
            print(f"{path}: cannot check: {err.name} is missing; reinstall sam-env (pip install sam-env)")
            return 2
        except ResultsError as err:
            failed += 1
            print(f"{path}: INVALID: {err}")
            continue
        h, p = document["headline"], document["protocol"]
        print(
            f"{path}: valid protocol {NAME} result: {document['candidate']['label']}, {p['players']} players, "
            f"{p['tier']} tier, headline {h['score']:+.2f} X/hand [{h['ci_low']:+.2f}, {h['ci_high']:+.2f}]"
        )
    return 1 if failed else 0


def compare_files(first: Path, second: Path) -> int:
    """Print both headlines and their paired difference; 1 (with the reason) when the files do not pair."""
    from sam_env.evaluation.results import ResultsError, paired_headlines, read_results

    try:
        # the headline's per-deal values, which a format-1 file keeps and its validation checks, are all that pair
        documents = [read_results(first, legacy=True), read_results(second, legacy=True)]
        difference = paired_headlines(*documents)
    except ResultsError as err:
        print(f"cannot compare {first} and {second}: {err}")
        return 1
    labels = [d["candidate"]["label"] for d in documents]
    for path, document in zip((first, second), documents, strict=True):
        h = document["headline"]
        interval = f"{h['score']:+.2f} [{h['ci_low']:+.2f}, {h['ci_high']:+.2f}]"
        print(f"{path}: {document['candidate']['label']}, headline {interval}")
    p = documents[0]["protocol"]
    print(
        f"{labels[0]} - {labels[1]}, paired over the {p['deals']:,} deals of protocol {NAME} ({p['players']} players, "
        f"{p['tier']} tier): {difference[0]:+.2f} X/hand [{difference[1]:+.2f}, {difference[2]:+.2f}]"
    )
    return 0


def reproduce_files(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Play every file again and print what differs (:func:`sam_env.evaluation.reproduce.report`); with ``--out``,
    write the reproduced files there. 0 when every value of every file is reproduced."""
    from sam_env.evaluation.failures import EvaluationError
    from sam_env.evaluation.reproduce import report, reproduce_runs
    from sam_env.evaluation.results import ResultsError, write_results

    with refusals_reported(parser):
        fixed = [o for o in FIXED_BY_PROTOCOL if o != "--deals" and _given(argv, o)]
        if fixed or args.ray or args.players is not None:
            named = [*fixed, *(["--ray"] if args.ray else []), *(["--players"] if args.players is not None else [])]
            raise ValueError(f"--reproduce plays what each file names: drop {', '.join(named)}")
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        deals = args.deals if _given(argv, "--deals") else None
        if deals is not None and deals < 2:
            raise ValueError(f"--deals with --reproduce plays a file's first N deals, N >= 2; got {deals}")
        out = args.out if _given(argv, "--out") else None
        if out is not None and deals is not None:
            raise ValueError("--out writes reproduced results files, which need the whole track: drop --deals")
        targets = [] if out is None else [out / path.name for path in args.reproduce]
        twice = sorted({t.name for t in targets if targets.count(t) > 1})
        if twice:
            raise ValueError(f"--out would write two files named {', '.join(twice)}: reproduce them into two folders")
        taken = [str(t) for t in targets if t.exists()]
        if taken:
            raise ValueError(f"results files exist already, and are kept: {', '.join(taken)}; move them or use --out")
    items = []
    try:
        for run in reproduce_runs(args.reproduce, deals=deals, workers=args.workers, progress=not args.no_progress):
            for item in run:  # each run's files as soon as it ends: a long list keeps what is done
                print("\n".join(report(item)), flush=True)
                if out is not None:
                    target = out / item.path.name
                    write_results(target, item.reproduced_document())
                    print(f"  wrote {target}", flush=True)
            items += run
    except (ResultsError, ValueError, EvaluationError) as err:  # a file, a candidate or a hand that fails
        parser.exit(2, f"{parser.prog}: error: cannot reproduce: {err}\n")
    failed = sum(not item.equal for item in items)
    print(f"{len(items) - failed} of {len(items)} file(s) reproduced")
    return 1 if failed else 0


def _given(argv: Sequence[str], option: str) -> bool:
    return any(a == option or a.startswith(option + "=") for a in argv)


def run_protocol(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]) -> int:
    import os

    from sam_env.agents.registry import label_of
    from sam_env.evaluation.failures import EvaluationError
    from sam_env.evaluation.leaderboard import FOLDER, PAGE, write_page
    from sam_env.evaluation.protocol_run import run_track
    from sam_env.evaluation.results import build_results, file_name, write_results

    with refusals_reported(parser):
        fixed = [o for o in FIXED_BY_PROTOCOL if _given(argv, o)]
        if fixed or args.ray:
            named = [*fixed, *(["--ray"] if args.ray else [])]
            raise ValueError(f"protocol {NAME} fixes the deals, seed, rules and opponents: drop {', '.join(named)}")
        if not args.candidates:
            raise ValueError(f"--protocol {NAME} needs --candidates")
        if args.quick and args.tier not in (None, "quick"):
            raise ValueError(f"--quick is the quick tier; it cannot go with --tier {args.tier}")
        if args.leaderboard and _given(argv, "--out"):
            raise ValueError(f"--leaderboard writes to {FOLDER}/; drop --out")
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        tier = "quick" if args.quick else args.tier or "full"
        try:
            track = Track(4 if args.players is None else args.players, tier)
        except ProtocolError as err:
            raise ValueError(str(err)) from None
        out = FOLDER if args.leaderboard else args.out if _given(argv, "--out") else DEFAULT_OUT
        if args.leaderboard and not (FOLDER.is_dir() and PAGE.is_file()):
            raise ValueError(f"--leaderboard runs at the top of a sam-env checkout: no {FOLDER}/ or {PAGE} here")
        candidates = list(dict.fromkeys(args.candidates))
        paths = [out / file_name(label_of(c), track.players, tier) for c in candidates]
        taken = [str(p) for p in paths if p.exists()]
        if taken:
            raise ValueError(f"results files exist already, and are kept: {', '.join(taken)}; move them or use --out")
        check_bots(candidates, track.rules)
    print(
        f"protocol {NAME}, {track.players} players, {tier} tier: {track.deals} deals x {track.players} seats against "
        f"{len(track.opponents)} opponents; deal set SHA-256 {track.pinned_sha256}"
    )
    try:
        all_scores = run_track(track, candidates, workers=args.workers, progress=not args.no_progress)
    except ProtocolError as err:
        parser.exit(1, f"{parser.prog}: error: {err}\n")
    except EvaluationError as err:  # a bot that raised, or a language model's server that stopped answering
        lines = "\n".join(f"  {f.describe()}" for f in err.failures)
        parser.exit(1, f"{parser.prog}: error: the run did not finish, so it wrote no results file:\n{lines}\n")
    command = shlex.join(["sam-eval", *argv])
    for path, scores in zip(paths, all_scores, strict=True):
        write_results(path, build_results(track, scores, command))
        h = scores.headline
        print(
            f"\n{scores.label}: headline {h.score:+.2f} X/hand [{h.ci_low:+.2f}, {h.ci_high:+.2f}] (95% CI over deals)"
        )
        for r in scores.rows:
            margin = "" if r.margin is None else f"  margin over heuristic {r.margin['margin']:+.2f}"
            print(f"  vs {r.opponents:<20} {r.x_per_hand:+6.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}]{margin}")
        if scores.agent is not None:
            print(agent_summary(scores.agent))
        print(f"wrote {path}")
    wall, cpu = all_scores[0].wall_time_s, all_scores[0].cpu_time_s
    cpu_text = "" if cpu is None else f", {cpu:.0f} s of CPU"
    print(f"{wall:.0f} s wall{cpu_text} on {args.workers} worker(s) ({os.cpu_count()} cores)")
    if args.leaderboard:
        write_page()
        print(f"rebuilt {PAGE}; commit it with the results file")
    return 0


def agent_summary(agent: dict) -> str:
    """A language model's replies in a few lines: what docs/llm.md explains, as a run prints it."""
    a = agent
    return (
        f"  {a['decisions']:,} decisions, legal moves {a['legal_moves']}: {a['replies']:,} replies, "
        f"{100 * a['first_reply_legal_rate']:.1f}% of first replies legal; invalid replies {a['unparsed']:,} naming no "
        f"move, {a['illegal']:,} an illegal one, {a['refused']:,} refused; {a['fallbacks']:,} fallbacks "
        f"({100 * a['fallback_rate']:.1f}% of decisions)\n"
        f"  {a['calls']:,} calls to the server, {a['cached']:,} replies from the cache; {a['prompt_tokens']:,} prompt "
        f"and {a['completion_tokens']:,} completion tokens; the harness's own time {a['harness_ms_per_decision']:.2f} "
        "ms per decision"
    )
