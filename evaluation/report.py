"""Reports of an evaluation: a terminal table, CSV, JSON, Markdown and a plot of X per hand."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from sam_env.utils.files import write_text_atomic

from .panel import BASELINE, PanelRow
from .ratings import RatingRow
from .seating import NeighbourFlow
from .stats import EVENT_METRICS, Summary

TERMINAL_WIDTH = 100
"""Columns the terminal tables fit in; the files (CSV, JSON, Markdown) hold every column."""


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:+.{digits}f}"


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _aligned(head: list[str], rows: list[list[str]], text_columns: int, indent: str = "") -> list[str]:
    """Rows as aligned text: the first ``text_columns`` columns left-aligned, numbers right-aligned.

    Long text cells (checkpoint paths, long line-ups) are shortened with "…" until the table fits
    :data:`TERMINAL_WIDTH`.
    """
    rows = [list(r) for r in rows]
    while True:
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        if len(indent) + sum(widths) + 2 * (len(widths) - 1) <= TERMINAL_WIDTH:
            break
        widest = max(range(text_columns), key=lambda i: widths[i])
        if widths[widest] <= 8:
            break
        for r in rows:
            r[widest] = _shorten(r[widest], widths[widest] - 1)
    lines = [
        indent
        + "  ".join(
            c.ljust(w) if i < text_columns else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [head, *rows]
    ]
    lines.insert(1, indent + "  ".join("-" * w for w in widths))
    return [line.rstrip() for line in lines]


def text_table(summaries: Sequence[Summary], ratings: Sequence[RatingRow], flows: Sequence[NeighbourFlow] = ()) -> str:
    """The main results as aligned plain text that fits 100 columns (event counts are in the files)."""
    n = len(summaries[0].by_position) if summaries else 0
    head = ["agent", "opponents", "hands", "win%", "X/hand", "95% CI"]
    rows = [
        [
            s.agent,
            s.opponents,
            str(s.hands),
            f"{100 * s.win_rate:.1f}",
            _fmt(s.x_per_hand),
            f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]",
        ]
        for s in summaries
    ]
    out = _aligned(head, rows, 2)
    out += ["", "X/hand by position (posP: the agent P seats after the would-be leader; pos0 = the leader)"]
    position_rows = [[s.agent, s.opponents, *(_fmt(x) for x in s.by_position)] for s in summaries]
    out += _aligned(["agent", "opponents", *(f"pos{p}" for p in range(n))], position_rows, 2)
    if ratings:
        out += [
            "",
            "ratings, sorted by money: X/hand over the rated hands; openskill's ordinal (mu - 3 sigma,",
            "Plackett-Luce) counts places in each hand, not amounts",
            *(_shorten(line, TERMINAL_WIDTH) for line in _ground_lines(ratings)),
        ]
        rating_rows = [
            [r.agent, _fmt(r.x_per_hand), f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}"] for r in ratings
        ]
        out += _aligned(["agent", "X/hand", "mu", "sigma", "ordinal"], rating_rows, 1, indent="  ")
    if flows:
        out += ["", "neighbours: X/hand that 'after' took from 'before' when seated right after it"]
        flow_rows = [[f.before, f.after, str(f.hands), _fmt(f.x_per_hand)] for f in flows]
        out += _aligned(["before", "after", "hands", "X/hand"], flow_rows, 2, indent="  ")
    return "\n".join(out)


def _ground_lines(ratings: Sequence[RatingRow]) -> list[str]:
    """What the ratings rest on (the line-ups every candidate met) and the matches left out of them."""
    ground = ", ".join(ratings[0].rests_on) or "every match between different agents"
    lines = [f"rated only where every candidate met the same opponents: {ground}"]
    left_out = [match for r in ratings for match in r.left_out]
    if left_out:
        lines.append(f"not rated (opponents no other candidate met): {', '.join(left_out)}")
    return lines


def markdown_table(
    summaries: Sequence[Summary], ratings: Sequence[RatingRow], flows: Sequence[NeighbourFlow] = ()
) -> str:
    """The main columns as a Markdown table (for docs), then the ratings and the money between neighbours."""
    n = len(summaries[0].by_position) if summaries else 0
    head = ["agent", "opponents", "hands", "win %", "X/hand", "95% CI", *[f"pos {p}" for p in range(n)]]
    head += ["Sâm decl/won", "Sâm blocks", "chops made/suffered", "resp.", "fin. on 2", "cóng"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in summaries:
        c = s.counts
        cells = [
            s.agent,
            s.opponents,
            str(s.hands),
            f"{100 * s.win_rate:.1f}",
            f"**{_fmt(s.x_per_hand)}**",
            f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]",
            *(f"{_fmt(m)} ± {h:.2f}" for m, h in zip(s.by_position, s.by_position_half_width, strict=True)),
            f"{c['sam_declared']}/{c['sam_won']}",
            str(c["sam_blocks"]),
            f"{c['chops_made']}/{c['chops_suffered']}",
            str(c["responsibility"]),
            str(c["finish_on_two"]),
            str(c["cong"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if ratings:
        lines += [
            "",
            "Ratings, sorted by money (X/hand over the rated hands); openskill's ordinal",
            "(mu − 3 sigma, Plackett–Luce) counts places in each hand, not amounts.",
            " ".join(_ground_lines(ratings)),
            "",
            "| agent | X/hand | mu | sigma | ordinal | hands |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.agent} | {_fmt(r.x_per_hand)} | {r.mu:.2f} | {r.sigma:.2f} | {r.ordinal:.2f} | {r.games} |"
            for r in ratings
        ]
    if flows:
        lines += [
            "",
            "Money between neighbours: X/hand that *after* took from *before* when seated right after it.",
            "",
        ]
        lines += ["| before | after | hands | X/hand |", "|---|---|---|---|"]
        lines += [f"| {f.before} | {f.after} | {f.hands} | {_fmt(f.x_per_hand)} |" for f in flows]
    return "\n".join(lines) + "\n"


def _interval(x: float, low: float, high: float) -> str:
    return f"{_fmt(x)} [{_fmt(low)}, {_fmt(high)}]"


def _panel_cells(row: PanelRow) -> list[str]:
    return [
        row.panel_bot,
        row.candidate,
        str(row.deals),
        _interval(row.x_per_hand, row.ci_low, row.ci_high),
        _interval(row.baseline_x_per_hand, row.baseline_ci_low, row.baseline_ci_high),
        _interval(row.margin, row.margin_low, row.margin_high),
    ]


PANEL_HEAD = ["panel bot", "candidate", "deals", "candidate X/hand", f"{BASELINE} X/hand", "generalization margin"]


def panel_text_table(rows: Sequence[PanelRow]) -> str:
    """Generalization margins (:mod:`.panel`) as aligned plain text that fits 100 columns."""
    lines = [
        f"generalization margins: the candidate's and the {BASELINE}'s X/hand against n-1 copies of each",
        f"panel bot, same deals and seatings; margin = candidate - {BASELINE}, its 95% CI paired over deals",
    ]
    return "\n".join(lines + _aligned(PANEL_HEAD, [_panel_cells(r) for r in rows], 2))


def panel_markdown(rows: Sequence[PanelRow]) -> str:
    """Generalization margins as a Markdown table, X/hand with its 95 % interval in every cell."""
    lines = ["| " + " | ".join(PANEL_HEAD) + " |", "|" + "---|" * len(PANEL_HEAD)]
    for r in rows:
        cells = _panel_cells(r)
        cells[-1] = f"**{_fmt(r.margin)}** [{_fmt(r.margin_low)}, {_fmt(r.margin_high)}]"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_panel_json(path: Path, config: dict[str, object], rows: Sequence[PanelRow]) -> None:
    data = {"config": config, "baseline": BASELINE, "rows": [asdict(r) for r in rows]}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_csv(path: Path, summaries: Sequence[Summary]) -> None:
    n = len(summaries[0].by_position) if summaries else 0
    fields = ["agent", "opponents", "deals", "hands", "win_rate", "x_per_hand", "ci_low", "ci_high"]
    fields += [f"x_pos{p}" for p in range(n)] + [f"x_pos{p}_half_width" for p in range(n)] + list(EVENT_METRICS)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for s in summaries:
            writer.writerow(
                [s.agent, s.opponents, s.deals, s.hands, s.win_rate, s.x_per_hand, s.ci_low, s.ci_high]
                + list(s.by_position)
                + list(s.by_position_half_width)
                + [s.counts[c] for c in EVENT_METRICS]
            )


def write_json(
    path: Path,
    config: dict[str, object],
    summaries: Sequence[Summary],
    ratings: Sequence[RatingRow],
    flows: Sequence[NeighbourFlow] = (),
) -> None:
    data = {
        "config": config,
        "matches": [s.to_dict() for s in summaries],
        "ratings": [asdict(r) for r in ratings],
        "neighbours": [asdict(f) for f in flows],
    }
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def plot(path: Path, summaries: Sequence[Summary], title: str) -> None:
    """Horizontal bars of X per hand with 95 % interval whiskers, one per match."""
    import matplotlib  # imported here: only reports need a plotting backend

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{s.agent} vs {s.opponents}" for s in summaries]
    means = [s.x_per_hand for s in summaries]
    errors = [[s.x_per_hand - s.ci_low for s in summaries], [s.ci_high - s.x_per_hand for s in summaries]]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(summaries) + 1.5))
    y = list(range(len(summaries)))[::-1]
    colors = ["tab:green" if m > 0 else "tab:red" for m in means]
    ax.barh(y, means, xerr=errors, color=colors, alpha=0.8, capsize=4)
    ax.set_yticks(y, labels)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("X per hand (95% CI over deals)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _page_and_markers(path: str, name: str) -> tuple[str, str, str]:
    """A page's text ("" where it does not exist yet) and the markers of script ``name``'s section."""
    file = Path(path)
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    return text, f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def read_section(path: str, name: str) -> str | None:
    """The body of script ``name``'s section in a Markdown file, or None where the file or section is missing."""
    text, start, end = _page_and_markers(path, name)
    if start not in text or end not in text:
        return None
    return text.split(start, 1)[1].split(end, 1)[0].strip("\n")


def write_section(path: str, name: str, body: str) -> None:
    """Replace the section of script ``name`` in a Markdown file (or append it), leaving the rest alone.

    Several benchmark scripts write to one page (docs/speed.md); each owns the text between its
    ``<!-- name:start -->`` and ``<!-- name:end -->`` markers.
    """
    text, start, end = _page_and_markers(path, name)
    section = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section + "\n"
    write_text_atomic(path, text)  # scripts running side by side may rewrite one page
