"""The self-play study of docs/self_play.md: its table and its figure, read back from the runs' own evaluations.

Each run evaluates itself every ``eval_every`` learner steps on the same duplicate deals (``eval_seed``)
against its ``eval_opponents`` and logs the X/hand with its 95 % interval to TensorBoard. This script
reads those points back (``sam_env.training.curves.evaluation_series``), prints one Markdown table per opponent —
a row per run, a column per evaluation step — and draws the curves over learner steps and wall-clock
minutes (``sam_env.training.curves.plot_bot_curves``). It trains nothing: the runs are made with the commands
on the page.

With ``--panel-deals D`` it also plays every checkpoint each run saved (``checkpoints/step_*`` and
``final``) and the heuristic against ``n - 1`` copies of each held-out panel bot, on the same ``D``
duplicate deals (``--panel-seed``), and reports each checkpoint's **generalization margin**
(:mod:`sam_env.evaluation.panel`): a table of the margin averaged over the panel bots, and a figure with a
curve per run for every panel bot, over learner steps.

    python experiments/self_play_study.py --run "S: self-play=runs/S__s1__<time>" \\
        --run "B: 3/4 self, 1/4 heuristic=runs/B__s1__<time>" \\
        --figure docs/self_play_curves.png --markdown docs/self_play.md \\
        --panel-deals 200 --panel-figure docs/self_play_panel.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.panel import PANEL
from sam_env.evaluation.panel import BASELINE, panel_matches, per_deal_net
from sam_env.evaluation.report import write_section
from sam_env.evaluation.stats import paired_difference
from sam_env.evaluation.tournament import MatchResult, run_matches
from sam_env.training.curves import evaluation_series, plot_bot_curves

Margins = dict[str, dict[int, dict[str, tuple[float, float, float]]]]
"""run label → learner steps → panel bot (or ``"mean"``) → (margin, low, high)."""


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


def checkpoints(run: Path) -> dict[int, Path]:
    """Every network a run saved (``checkpoints/step_*`` and ``final``), by its learner steps."""
    folders = [*sorted((run / "checkpoints").glob("step_*")), run / "final"]
    return {int(load_policy(f).metadata["num_timesteps"]): f for f in folders if (f / "policy.json").exists()}


def panel_margins(runs: dict[str, Path], deals: int, seed: int, workers: int | None) -> Margins:
    """Each checkpoint's generalization margin against each panel bot and on average over them, the
    interval paired over deals (the heuristic's matches are played once, for all checkpoints)."""
    saved = {label: checkpoints(path) for label, path in runs.items()}
    paths = [str(f) for by_step in saved.values() for f in by_step.values()]
    if not paths:
        raise ValueError(f"no saved network (checkpoints/step_*, final) in {', '.join(map(str, runs.values()))}")
    tables = [load_policy(path).rules for path in paths]
    rules = tables[0]
    if any(t != rules for t in tables):
        raise ValueError("the runs' networks were trained for different tables; measure them in separate calls")
    results: list[MatchResult] = run_matches(panel_matches(paths, PANEL, rules.n_players), rules, deals, seed, workers)
    net = {(r.match.names[0], r.match.opponents[0]): per_deal_net(r) for r in results}
    margins: Margins = {}
    for label, by_step in saved.items():
        for step, folder in by_step.items():
            cell = {p: paired_difference(net[str(folder), p], net[BASELINE, p]) for p in PANEL}
            over_panel = {who: np.mean([net[who, p] for p in PANEL], axis=0) for who in (str(folder), BASELINE)}
            cell["mean"] = paired_difference(over_panel[str(folder)], over_panel[BASELINE])
            margins.setdefault(label, {})[step] = cell
    return margins


def margin_table(margins: Margins) -> str:
    """A row per run, a column per checkpoint (millions of steps): the margin averaged over the panel."""
    millions = sorted({round(step / 1e6) for by_step in margins.values() for step in by_step})
    lines = ["| run | " + " | ".join(f"{m}M" for m in millions) + " |", "|---|" + "---:|" * len(millions)]
    for label, by_step in margins.items():
        at = {round(step / 1e6): cell["mean"] for step, cell in by_step.items()}
        cells = ["" if m not in at else "{:+.2f} [{:+.2f}, {:+.2f}]".format(*at[m]) for m in millions]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot_panel_margins(margins: Margins, out: Path) -> None:
    """A panel per panel bot (and their mean): each run's margin over learner steps, with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [*PANEL, "mean"]
    fig, axes = plt.subplots(1, len(keys), figsize=(3.0 * len(keys), 3.2), sharey=True)
    for ax, key in zip(axes, keys, strict=True):
        for label, by_step in margins.items():
            steps = sorted(by_step)
            mean, low, high = (np.array([by_step[s][key][i] for s in steps]) for i in range(3))
            x = np.array(steps) / 1e6
            ax.plot(x, mean, marker="o", markersize=3, label=label)
            ax.fill_between(x, low, high, alpha=0.15)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_title("mean over the panel" if key == "mean" else key.removeprefix("panel_"), fontsize=9)
        ax.set_xlabel("learner steps (M)")
    axes[0].set_ylabel("generalization margin, X/hand")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=parse_run, action="append", required=True, help="LABEL=RUN_DIR (repeatable)")
    parser.add_argument("--figure", type=Path, help="write the curves here (PNG)")
    parser.add_argument("--markdown", help="replace this script's section of that page (docs/self_play.md)")
    parser.add_argument("--panel-deals", type=int, default=0, help="also measure every checkpoint on the panel")
    parser.add_argument("--panel-seed", type=int, default=12345, help="seed of the panel's deals (default 12345)")
    parser.add_argument("--panel-figure", type=Path, help="write the panel curves here (PNG)")
    parser.add_argument("--workers", type=int, default=None, help="tournament processes (default: one per core)")
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
    if args.panel_deals:
        margins = panel_margins(runs, args.panel_deals, args.panel_seed, args.workers)
        sections.append(
            f"### Generalization margin over training: mean over the {len(PANEL)} panel bots "
            f"(X/hand, 95 % CI paired over {args.panel_deals} deals, seed {args.panel_seed})\n\n"
            + margin_table(margins)
        )
        if args.panel_figure:
            plot_panel_margins(margins, args.panel_figure)
            sections.append(f"![Generalization margins over training]({args.panel_figure.name})")
    body = "\n\n".join(sections)
    print(body)
    if args.figure:
        plot_bot_curves(runs, args.figure)
        print(f"figure: {args.figure}")
    if args.markdown:
        write_section(args.markdown, "self_play_study", body)


if __name__ == "__main__":
    main()
