"""The leaderboard: the committed results files of protocol v1 in one folder, and the docs page built from them.

Every ``*.results.json`` file in ``leaderboard/`` at the top of the repository (:data:`FOLDER`) is
one entry: one candidate on one track (seat count) and tier. :func:`render` turns them into the
generated section of ``docs/leaderboard.md`` (:data:`PAGE`): a table per track and tier, sorted by
the headline score, with its interval, each row linking to the entry's details below it — the
command that produced it, the candidate's fingerprint, the machine, the time and every row. sam-web's
leaderboard reads the same files (:func:`board`).

Adding an entry is one command, ``sam-eval --protocol v1 --candidates SPEC --leaderboard``, which
writes the results file here and rebuilds the page; tests/evaluation/test_leaderboard.py rebuilds the
page from the files and fails when the committed page differs. ``python -m
sam_env.evaluation.leaderboard`` rebuilds it by hand (``--check``: only compare).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .protocol import NAME, TIERS
from .report import read_section, write_section
from .results import LEGACY_FORMAT_VERSION, SUFFIX, ResultsError, read_results

FOLDER = Path("leaderboard")
"""The folder of committed results files, relative to the repository's top."""
PAGE = Path("docs/leaderboard.md")
SECTION = "leaderboard"
"""The name of the page's generated section (between ``<!-- leaderboard:start -->`` and ``:end -->``)."""


@dataclass(frozen=True)
class Entry:
    """One results file of the leaderboard."""

    name: str
    """Its file name."""
    document: dict[str, Any]

    @property
    def players(self) -> int:
        return int(self.document["protocol"]["players"])

    @property
    def tier(self) -> str:
        return str(self.document["protocol"]["tier"])

    @property
    def label(self) -> str:
        return str(self.document["candidate"]["label"])

    @property
    def score(self) -> float:
        return float(self.document["headline"]["score"])

    @property
    def legacy(self) -> bool:
        """A format-1 file (sam-env 0.3): its headline is checked against its per-deal values, its rows are as
        written (:mod:`.results`); the page marks it until it is played again."""
        return self.document["format_version"] == LEGACY_FORMAT_VERSION

    @property
    def anchor(self) -> str:
        """The id of its details on the page: its file name without the suffix, ``.`` as ``-``."""
        return self.name.removesuffix(SUFFIX).replace(".", "-").lower()


def read_entries(folder: Path = FOLDER) -> list[Entry]:
    """Every results file in ``folder``, validated (a format-1 file as the record it is: ``legacy``), by file name;
    :class:`ResultsError` naming the file."""
    entries = []
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            entries.append(Entry(path.name, read_results(path, legacy=True)))
        except ResultsError as err:
            raise ResultsError(err.field, f"{path}: {err}") from None
    return entries


def _x(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def _interval(low: float, high: float) -> str:
    return f"[{_x(low)}, {_x(high)}]"


def _row_by(entry: Entry, opponent: str) -> dict[str, Any] | None:
    return next((r for r in entry.document["rows"] if r["opponent"] == opponent), None)


def _mean_of(entry: Entry, group: str, key: str = "x_per_hand") -> str:
    rows = [r for r in entry.document["rows"] if r["group"] == group]
    if not rows:
        return "–"
    values = [r["margin"]["margin"] if key == "margin" else r[key] for r in rows]
    return _x(sum(values) / len(values))


def _summary_table(entries: list[Entry]) -> list[str]:
    suite = TIERS[entries[0].tier].suite
    head = ["#", "candidate", "headline X/hand", "95% CI"]
    head += {
        "search": ["vs ppo_search"],
        "text": ["vs greedy", "vs heuristic", "vs ppo", "legal moves", "first reply legal", "fallbacks"],
        "main": ["vs greedy", "vs heuristic", "panel margin", "vs networks", "vs random"],
    }[suite]
    head += ["deals", "run"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if h != "candidate" else "---" for h in head) + "|"]
    for rank, entry in enumerate(sorted(entries, key=lambda e: (-e.score, e.label)), start=1):
        h = entry.document["headline"]
        label = f"`{entry.label}`" + (f" {LEGACY_MARK}" if entry.legacy else "")
        cells = [str(rank), label, _x(h["score"]), _interval(h["ci_low"], h["ci_high"])]
        if suite == "search":
            cells += [_x(entry.document["rows"][0]["x_per_hand"])]  # the search tier's one row: ppo_search
        elif suite == "text":
            cells += [_x(r["x_per_hand"]) for r in entry.document["rows"]]  # greedy, heuristic, ppo
            cells += _agent_cells(entry.document.get("agent"))
        else:
            greedy, heuristic, random = (_row_by(entry, name) for name in ("greedy", "heuristic", "random"))
            cells += [_x(greedy["x_per_hand"]) if greedy else "–", _x(heuristic["x_per_hand"]) if heuristic else "–"]
            cells += [_mean_of(entry, "panel", "margin"), _mean_of(entry, "network")]
            cells += [_x(random["x_per_hand"]) if random else "–"]
        cells += [str(entry.document["protocol"]["deals"]), f"[details](#{entry.anchor})"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _agent_cells(agent: dict[str, Any] | None) -> list[str]:
    """A language model's track and reply rates (docs/llm.md); a bot reads its legal moves, so none for it."""
    if agent is None:
        return ["(a bot)", "–", "–"]
    return [
        agent["legal_moves"],
        f"{100 * agent['first_reply_legal_rate']:.1f}%",
        f"{100 * agent['fallback_rate']:.1f}%",
    ]


LEGACY_MARK = "(format 1)"
LEGACY_NOTE = (
    f"{LEGACY_MARK}: a file of sam-env 0.3 (format 1), not yet played again: its headline is recomputed from the "
    "per-deal values it keeps, but its rows keep none, so `sam-eval --validate` cannot hold them and refuses it; "
    "`sam-eval --reproduce FILE --out DIR` plays it again in format 2."
)
"""How the page marks a format-1 entry, and what the mark means."""


def _commit(package: dict[str, Any]) -> str:
    """`` at commit `abc123…` (modified)`` for a file run from a git checkout, else nothing."""
    if "commit" not in package:
        return ""
    return f" at commit `{package['commit'][:12]}`" + (" with changes" if package.get("modified") else "")


def _details(entry: Entry) -> list[str]:
    d = entry.document
    fp, m = d["candidate"]["fingerprint"], d["machine"]
    load = m["load_average"]
    cpu = "" if d["cpu_time_s"] is None else f", {d['cpu_time_s']:.0f} s of CPU"
    shared = f" (shared by {d['candidates_in_run']} candidates)" if d["candidates_in_run"] > 1 else ""
    lines = [
        f"#### `{entry.label}`, {entry.players} players, {entry.tier} tier {{#{entry.anchor}}}",
        "",
        f"- file: `{FOLDER.as_posix()}/{entry.name}`",
        f"- command: `{d['command']}`",
        f"- candidate: `{d['candidate']['spec']}`; fingerprint ({fp['kind']}): "
        + (f"`{fp['sha256'][:16]}…`, SHA-256 of {fp['of']}" if fp["sha256"] else fp["of"]),
        f"- sam-env {d['package']['version']}{_commit(d['package'])}, results format {d['format_version']}, "
        f"environment {d['environment']['name']}, "
        f"deal set `{d['protocol']['deal_set_sha256'][:16]}…`",
        f"- {d['wall_time_s']:.0f} s wall{cpu}{shared} with {m['workers']} worker(s) on {m['cpu_count']} × "
        f"{m['processor']}" + (f", load average {load[0]:.2f} → {load[1]:.2f}" if load else "") + f"; {d['created']}",
        "",
        "| opponents | group | hands | X/hand | 95% CI | win % | margin over heuristic [95% CI] |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    agent = d.get("agent")
    if agent is not None:
        lines[-3:-3] = [
            f"- language model `{agent['model']}`: legal moves {agent['legal_moves']}, template {agent['template']}, "
            f"temperature {agent['temperature']}, max tokens {agent['max_tokens']}, {agent['retries']} retries; "
            f"{agent['decisions']:,} decisions, {agent['replies']:,} replies ({agent['unparsed']:,} named no move, "
            f"{agent['illegal']:,} an illegal one, {agent['refused']:,} refused), {agent['fallbacks']:,} fallbacks; "
            f"{agent['calls']:,} calls ({agent['cached']:,} replies from the cache), {agent['prompt_tokens']:,} prompt "
            f"and {agent['completion_tokens']:,} completion tokens",
        ]
    for r in d["rows"]:
        g = r.get("margin")
        margin = f"{_x(g['margin'])} {_interval(g['margin_low'], g['margin_high'])}" if g else ""
        lines.append(
            f"| {r['opponents']} | {r['group']} | {r['hands']} | {_x(r['x_per_hand'])} | "
            f"{_interval(r['ci_low'], r['ci_high'])} | {100 * r['win_rate']:.1f} | {margin} |"
        )
    return [*lines, ""]


def render(entries: Sequence[Entry]) -> str:
    """The page's generated section: per track and tier, the summary table, then every entry's details."""
    if not entries:
        return f"No entries yet: the folder `{FOLDER.as_posix()}/` holds no `*{SUFFIX}` file."
    groups: dict[tuple[int, str], list[Entry]] = {}
    for entry in entries:
        groups.setdefault((entry.players, entry.tier), []).append(entry)
    order = list(TIERS)
    lines: list[str] = []
    for players, tier in sorted(groups, key=lambda k: (k[0] != 4, k[0], order.index(k[1]))):
        group = groups[players, tier]
        first = group[0].document["protocol"]
        lines += [
            f"### {players} players, {tier} tier",
            "",
            f"Protocol {NAME}, {first['deals']} deals (deal set SHA-256 `{first['deal_set_sha256']}`), "
            f"{len(group)} entr{'y' if len(group) == 1 else 'ies'}, sorted by the headline score.",
            "",
            *_summary_table(group),
            "",
            *([LEGACY_NOTE, ""] if any(e.legacy for e in group) else []),
        ]
    lines += ["### Details of every entry", ""]
    for entry in sorted(entries, key=lambda e: (e.players, order.index(e.tier), -e.score, e.label)):
        lines += _details(entry)
    return "\n".join(lines).rstrip("\n")


def page_differs(folder: Path = FOLDER, page: Path = PAGE) -> str | None:
    """None when ``page``'s generated section is what ``folder``'s files give; else what differs."""
    expected = render(read_entries(folder))
    found = read_section(str(page), SECTION)
    if found is None:
        return f"{page} has no <!-- {SECTION}:start --> … <!-- {SECTION}:end --> section"
    if found != expected:
        return f"{page}'s leaderboard is not the one {folder}/ gives: rebuild it with python -m {__name__}"
    return None


def write_page(folder: Path = FOLDER, page: Path = PAGE) -> None:
    """Rebuild the generated section of ``page`` from ``folder``'s results files."""
    write_section(str(page), SECTION, render(read_entries(folder)))


def board(document: dict[str, Any], source: str) -> dict[str, Any]:
    """A results file as sam-web's leaderboard shows it: its rows as matches, and its headline."""
    label, p = document["candidate"]["label"], document["protocol"]
    matches = [
        {key: r[key] for key in ("opponents", "deals", "hands", "x_per_hand", "ci_low", "ci_high", "win_rate")}
        | {"agent": label, "source": source}
        for r in document["rows"]
    ]
    h = document["headline"]
    headline = {
        "agent": label,
        "track": f"{NAME}, {p['players']} players, {p['tier']}",
        "score": h["score"],
        "ci_low": h["ci_low"],
        "ci_high": h["ci_high"],
        "deals": p["deals"],
        "command": document["command"],
        "source": source,
    }
    return {
        "source": source,
        "players": p["players"],
        "deals": p["deals"],
        "seed": p["seed"],
        "matches": matches,
        "ratings": [],
        "headline": headline,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sam_env.evaluation.leaderboard",  # not __name__: that is __main__ when run with -m
        description=f"Rebuild {PAGE}'s leaderboard from the results files in {FOLDER}/ (at the repository's top).",
    )
    parser.add_argument("--folder", type=Path, default=FOLDER, help=f"the results files' folder (default {FOLDER})")
    parser.add_argument("--page", type=Path, default=PAGE, help=f"the page (default {PAGE})")
    parser.add_argument("--check", action="store_true", help="only say whether the page is current (exit 1 if not)")
    args = parser.parse_args(argv)
    if not args.folder.is_dir() or not args.page.is_file():
        parser.error(
            f"no folder {args.folder}/ or no page {args.page} in {Path.cwd()}: they are a sam-env checkout's files, so "
            "run this at its top, or name them with --folder and --page"
        )
    try:
        if args.check:
            problem = page_differs(args.folder, args.page)
            print(problem or f"{args.page} is current")
            return 1 if problem else 0
        write_page(args.folder, args.page)
    except ResultsError as err:
        parser.exit(1, f"{parser.prog}: error: {err}\n")
    print(f"rebuilt {args.page} from {len(read_entries(args.folder))} results file(s) in {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
