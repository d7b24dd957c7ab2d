"""The self-play study of docs/self_play.md: its table and its figure, read back from the runs' own evaluations.

Each run evaluates itself every ``eval_every`` learner steps on the same duplicate deals (``eval_seed``)
against its ``eval_opponents`` and logs the X/hand with its 95 % interval to TensorBoard. This script
reads those points back (``training.curves.evaluation_series``), prints one Markdown table per opponent —
a row per run, a column per evaluation step — and draws the curves over learner steps and wall-clock
minutes (``training.curves.plot_bot_curves``). It trains nothing: the runs are made with the commands
on the page.

    python experiments/self_play_study.py --run "S: self-play=runs/S__s1__<time>" \\
        --run "B: 3/4 self, 1/4 heuristic=runs/B__s1__<time>" \\
        --figure docs/self_play_curves.png --markdown docs/self_play.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from evaluation.report import write_section
from training.curves import evaluation_series, plot_bot_curves


def parse_run(text: str) -> tuple[str, Path]:
    """``LABEL=RUN_DIR`` → (label, folder); the folder must hold the run's TensorBoard events."""
    label, sep, folder = text.rpartition("=")
    path = Path(folder)
    if not sep or not label or not any(path.glob("events.out.tfevents.*")):
        raise argparse.ArgumentTypeError(
            f"--run {text!r}: expected LABEL=RUN_DIR with a run folder holding TensorBoard events"
        )
    return label, path


def table(runs: dict[str, Path], opponent: str) -> str:
    """A Markdown table of X/hand [95 % CI] against ``opponent``: a row per run, a column per million steps."""
    series = {label: evaluation_series(path).get(opponent) for label, path in runs.items()}
    points = {
        label: {round(float(step) / 1e6): i for i, step in enumerate(s["steps"]) if step > 0}
        for label, s in series.items()
        if s is not None
    }
    millions = sorted({m for p in points.values() for m in p})
    lines = [
        "| run | " + " | ".join(f"{m}M" for m in millions) + " |",
        "|---|" + "---:|" * len(millions),
    ]
    for label, p in points.items():
        s = series[label]
        cells = []
        for m in millions:
            i = p.get(m)
            cells.append("" if i is None else f"{s['mean'][i]:+.2f} [{s['low'][i]:+.2f}, {s['high'][i]:+.2f}]")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=parse_run, action="append", required=True, help="LABEL=RUN_DIR (repeatable)")
    parser.add_argument("--figure", type=Path, help="write the curves here (PNG)")
    parser.add_argument("--markdown", help="replace this script's section of that page (docs/self_play.md)")
    args = parser.parse_args()
    runs = dict(args.run)
    opponents = sorted({name for path in runs.values() for name in evaluation_series(path)})
    sections = [
        f"### Against {name} ×3 (X/hand, 95 % CI over the evaluation's deals)\n\n{table(runs, name)}"
        for name in opponents
    ]
    hours = {label: np.nanmax(evaluation_series(path)[opponents[0]]["wall"]) / 3600 for label, path in runs.items()}
    sections.append(
        "Wall-clock hours to the last evaluation: " + ", ".join(f"{k} {v:.1f}" for k, v in hours.items()) + "."
    )
    body = "\n\n".join(sections)
    print(body)
    if args.figure:
        plot_bot_curves(runs, args.figure)
        print(f"figure: {args.figure}")
    if args.markdown:
        write_section(args.markdown, "self_play_study", body)


if __name__ == "__main__":
    main()
