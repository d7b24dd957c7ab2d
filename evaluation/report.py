"""Reports of an evaluation: a terminal table, CSV, JSON, Markdown and a plot of X per hand."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from .ratings import RatingRow
from .stats import EVENT_METRICS, Summary


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:+.{digits}f}"


def text_table(summaries: Sequence[Summary], ratings: Sequence[RatingRow]) -> str:
    """The results as aligned plain text, for the terminal."""
    n = len(summaries[0].by_position) if summaries else 0
    head = ["agent", "opponents", "deals", "hands", "win%", "X/hand", "95% CI"]
    head += [f"pos{p}" for p in range(n)] + list(EVENT_METRICS)
    rows = [
        [
            s.agent,
            s.opponents,
            str(s.deals),
            str(s.hands),
            f"{100 * s.win_rate:.1f}",
            _fmt(s.x_per_hand),
            f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]",
            *(_fmt(x) for x in s.by_position),
            *(str(s.counts[c]) for c in EVENT_METRICS),
        ]
        for s in summaries
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = [
        "  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in [head, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    out = "\n".join(lines)
    out += "\n(posP: X/hand with the agent P seats after the would-be leader; pos0 = the leader)"
    if ratings:
        out += "\n\nratings (openskill Plackett-Luce, sorted by ordinal = mu - 3 sigma)\n"
        out += "\n".join(
            f"  {r.agent:<12} mu {r.mu:7.2f}  sigma {r.sigma:5.2f}  ordinal {r.ordinal:7.2f}" for r in ratings
        )
    return out


def markdown_table(summaries: Sequence[Summary], ratings: Sequence[RatingRow]) -> str:
    """The main columns as a Markdown table (for docs), then the ratings."""
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
        lines += ["", "| agent | mu | sigma | ordinal |", "|---|---|---|---|"]
        lines += [f"| {r.agent} | {r.mu:.2f} | {r.sigma:.2f} | {r.ordinal:.2f} |" for r in ratings]
    return "\n".join(lines) + "\n"


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
    path: Path, config: dict[str, object], summaries: Sequence[Summary], ratings: Sequence[RatingRow]
) -> None:
    data = {
        "config": config,
        "matches": [s.to_dict() for s in summaries],
        "ratings": [asdict(r) for r in ratings],
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
