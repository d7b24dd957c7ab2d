"""Learning curves of a run, read back from its TensorBoard events."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.evaluation.stats import Summary


@dataclass(frozen=True)
class FinalEvaluation:
    """The run's final evaluation against the heuristic (``train.py`` step 7): drawn as the curve's last point.

    It comes after the last learner step, on more deals than the run's own evaluations, so it is the
    figure's most precise point; without it the curve would stop short of the policy the run shipped.
    """

    step: int
    summary: Summary


def plot_learning_curve(run_dir: Path, out: Path, title: str, final: FinalEvaluation | None = None) -> bool:
    """Evaluation against the heuristic (with its CI), training money per hand, entropy and value loss.

    ``final``: the final evaluation against the heuristic, the evaluation panel's last point. Returns
    whether it drew the figure: a run without TensorBoard events (``trainer: rllib``) has none.
    """
    import matplotlib  # imported here: only the end of a run needs a plotting backend

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = learning_curve_figure(run_dir, title, final)
    if fig is None:
        return False
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


PANELS: tuple[tuple[str, str], ...] = (
    ("val/accuracy", "held-out decisions where the clone plays the recorded move"),
    ("val/loss", "held-out cross-entropy to the recorded moves"),
    ("charts/money_per_hand", "training money per hand (X, mixed opponents)"),
    ("train/entropy_loss", "entropy loss (−entropy)"),
    ("train/value_loss", "value loss"),
    ("train/loss", "loss: squared error of the move values"),
    ("train/target_mean_abs", "mean |target|: the money a decision led to (scaled)"),
    ("train/rl_loss", "best response's loss (double DQN)"),
    ("train/sl_loss", "average policy's loss (cross-entropy)"),
    ("charts/sam_declared_per_hand", "Sâm declared per hand"),
)
"""The panels beside the evaluation, in order of preference: the first three a run logged (each trainer logs its
own: behaviour cloning's held-out accuracy and loss, PPO's money and losses, Deep Monte-Carlo's loss and targets,
NFSP's two losses); a panel with nothing to show is left blank."""


def learning_curve_figure(run_dir: Path, title: str, final: FinalEvaluation | None = None) -> Any | None:
    """The figure :func:`plot_learning_curve` saves (a matplotlib ``Figure``), or None without events."""
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    tags = set(events.Tags()["scalars"])
    if not tags:
        return None

    def series(tag: str) -> tuple[np.ndarray, np.ndarray]:
        if tag not in tags:
            return np.array([]), np.array([])
        points = {e.step: e.value for e in events.Scalars(tag)}  # a resumed run may repeat steps
        steps = np.array(sorted(points))
        return steps, np.array([points[s] for s in steps])

    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    ax = axes[0, 0]
    steps, mean = series("eval/x_per_hand_vs_heuristic")
    _, low = series("eval/ci_low_vs_heuristic")
    _, high = series("eval/ci_high_vs_heuristic")
    if steps.size:
        ax.plot(steps, mean, marker="o", color="tab:blue")
        ax.fill_between(steps, low, high, alpha=0.25, color="tab:blue", label="95% CI over deals")
    if final is not None:
        s = final.summary
        ax.errorbar(
            [final.step],
            [s.x_per_hand],
            yerr=[[s.x_per_hand - s.ci_low], [s.ci_high - s.x_per_hand]],
            marker="D",
            color="tab:red",
            capsize=4,
            label=f"final evaluation, {s.deals:,} deals",
        )
        steps, mean = np.append(steps, final.step), np.append(mean, s.x_per_hand)
        low, high = np.append(low, s.ci_low), np.append(high, s.ci_high)
    if steps.size:
        ax.legend(loc="lower right")
    if steps.size > 2:
        # The untrained policy declares Sâm every hand (about -60 X): keep it from flattening the rest.
        bottom, top = min(low[1:].min(), 0.0), max(high[1:].max(), 0.0)
        pad = 0.15 * (top - bottom) + 0.1
        ax.set_ylim(bottom - pad, top + pad)
        shown = (bottom - pad <= mean) & (mean <= top + pad)
        hidden = [f"step {s:,}: {m:+.1f}" for s, m in zip(steps[~shown], mean[~shown], strict=True)]
        if hidden:
            ax.text(0.02, 0.03, "off the scale: " + ", ".join(hidden), transform=ax.transAxes, fontsize=8)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_title("duplicate evaluation vs heuristic x3 (X/hand)")
    shown = [(tag, name) for tag, name in PANELS if tag in tags][:3]
    for ax, (tag, name) in zip((axes[0, 1], axes[1, 0], axes[1, 1]), shown, strict=False):
        steps, values = series(tag)
        if steps.size:
            ax.plot(steps, values, linewidth=0.8, alpha=0.5, color="tab:gray")
            window = max(1, steps.size // 30)
            smooth = np.convolve(values, np.ones(window) / window, mode="valid")
            ax.plot(steps[window - 1 :], smooth, color="tab:orange")
        ax.set_title(name)
    for ax in axes[1]:
        ax.set_xlabel("learner steps")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def evaluation_series(run_dir: Path) -> dict[str, dict[str, np.ndarray]]:
    """Per opponent: steps, wall seconds, X/hand and its CI bounds of a run's evaluations."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    tags = set(events.Tags()["scalars"])

    def values(tag: str) -> dict[int, float]:
        return {e.step: e.value for e in events.Scalars(tag)} if tag in tags else {}

    wall = values("eval/wall_seconds")
    out: dict[str, dict[str, np.ndarray]] = {}
    for tag in sorted(t for t in tags if t.startswith("eval/x_per_hand_vs_")):
        name = tag.removeprefix("eval/x_per_hand_vs_")
        mean, low, high = values(tag), values(f"eval/ci_low_vs_{name}"), values(f"eval/ci_high_vs_{name}")
        steps = np.array(sorted(mean))
        out[name] = {
            "steps": steps,
            "wall": np.array([wall.get(s, np.nan) for s in steps]),
            "mean": np.array([mean[s] for s in steps]),
            "low": np.array([low[s] for s in steps]),
            "high": np.array([high[s] for s in steps]),
        }
    return out


def plot_bot_curves(runs: dict[str, Path], out: Path, skip_first: bool = True) -> None:
    """X/hand against each evaluation opponent over learner steps (left) and wall-clock minutes (right),
    one line per run (``runs``: label → run folder). ``skip_first``: leave out the untrained policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = {label: evaluation_series(path) for label, path in runs.items()}
    opponents = sorted({name for s in series.values() for name in s})
    fig, axes = plt.subplots(len(opponents), 2, figsize=(11, 3.6 * len(opponents)), squeeze=False)
    for row, name in enumerate(opponents):
        for col, (key, xlabel) in enumerate((("steps", "learner steps"), ("wall", "wall-clock minutes"))):
            ax = axes[row, col]
            for index, (label, s) in enumerate(series.items()):
                if name not in s:
                    continue
                d = {k: v[1:] if skip_first else v for k, v in s[name].items()}
                x = d[key] / 60 if key == "wall" else d[key]
                color = f"C{index % 10}"  # a run keeps its colour in every panel
                ax.plot(x, d["mean"], marker="o", label=label, color=color)
                ax.fill_between(x, d["low"], d["high"], alpha=0.2, color=color)
            ax.axhline(0, color="black", linewidth=0.8)
            ax.set_xlabel(xlabel)
            ax.set_title(f"duplicate X/hand vs {name} (95% CI)")
            ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
