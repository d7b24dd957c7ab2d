"""Learning curves of a run, read back from its TensorBoard events."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def plot_learning_curve(run_dir: Path, out: Path, title: str) -> None:
    """Evaluation against the heuristic (with its CI), training money per hand, entropy and value loss."""
    import matplotlib  # imported here: only the end of a run needs a plotting backend

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    tags = set(events.Tags()["scalars"])

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
    panels = (
        (axes[0, 1], "charts/money_per_hand", "training money per hand (X, mixed opponents)"),
        (axes[1, 0], "train/entropy_loss", "entropy loss (−entropy)"),
        (axes[1, 1], "train/value_loss", "value loss"),
    )
    for ax, tag, name in panels:
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
    fig.savefig(out, dpi=110)
    plt.close(fig)
