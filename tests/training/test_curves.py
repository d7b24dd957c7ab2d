"""The learning curve (sam_env.training.curves) ends at the final evaluation, not at the last during-run one."""

from __future__ import annotations

from pathlib import Path

import matplotlib
from stable_baselines3.common.logger import configure

from sam_env.evaluation.stats import Summary
from sam_env.training.curves import FinalEvaluation, learning_curve_figure, plot_learning_curve

matplotlib.use("Agg")

EVALUATIONS = {0: (-40.0, -45.0, -35.0), 1000: (0.5, -0.1, 1.1), 2000: (1.2, 0.6, 1.8)}
"""step -> X/hand vs the heuristic and its interval, as a run logs them (``eval/...`` scalars)."""


def write_events(run_dir: Path) -> None:
    """TensorBoard events the way every trainer writes them (SB3's logger, ``record_evaluation``'s tags)."""
    logger = configure(str(run_dir), ["tensorboard"])
    for step, (mean, low, high) in EVALUATIONS.items():
        logger.record("eval/x_per_hand_vs_heuristic", mean)
        logger.record("eval/ci_low_vs_heuristic", low)
        logger.record("eval/ci_high_vs_heuristic", high)
        logger.record("train/value_loss", 1.0 / (step + 1))
        logger.dump(step)
    logger.close()


def final_summary(mean: float, low: float, high: float) -> Summary:
    return Summary("policy", "heuristic x3", 1000, 4000, 0.3, mean, low, high, (mean,) * 4, (0.1,) * 4, {})


def evaluation_panel_points(fig: object) -> set[tuple[float, float]]:
    """Every (step, X/hand) point drawn on the evaluation panel (top left); TensorBoard keeps float32."""
    ax = fig.axes[0]
    return {(float(x), round(float(y), 3)) for line in ax.get_lines() for x, y in zip(*line.get_data(), strict=True)}


def test_the_curve_ends_at_the_final_evaluation(tmp_path: Path) -> None:
    write_events(tmp_path)
    final = FinalEvaluation(2600, final_summary(1.5, 1.3, 1.7))
    points = evaluation_panel_points(learning_curve_figure(tmp_path, "run", final))
    assert {(1000.0, 0.5), (2000.0, 1.2), (2600.0, 1.5)} <= points
    assert max(x for x, _ in points) == 2600.0
    # Its interval is drawn and kept on the scale.
    ax = learning_curve_figure(tmp_path, "run", FinalEvaluation(2600, final_summary(1.5, 1.3, 4.0))).axes[0]
    assert ax.get_ylim()[1] > 4.0
    assert any("final evaluation, 1,000 deals" in t.get_text() for t in ax.get_legend().get_texts())


def test_without_a_final_evaluation_the_curve_is_the_runs_own(tmp_path: Path) -> None:
    write_events(tmp_path)
    points = evaluation_panel_points(learning_curve_figure(tmp_path, "run"))
    assert max(x for x, _ in points) == 2000.0
    assert plot_learning_curve(tmp_path, tmp_path / "curve.png", "run") and (tmp_path / "curve.png").stat().st_size


def test_a_run_without_events_draws_nothing(tmp_path: Path) -> None:
    assert learning_curve_figure(tmp_path, "run") is None
    assert not plot_learning_curve(tmp_path, tmp_path / "curve.png", "run")
    assert not (tmp_path / "curve.png").exists()


def test_the_panels_are_those_the_trainer_logged(tmp_path: Path) -> None:
    """Deep Monte-Carlo (the README's run) logs no PPO losses: its own loss and targets fill the panels."""
    logger = configure(str(tmp_path), ["tensorboard"])
    for step in (0, 1000, 2000):
        for tag, value in (("x_per_hand", 0.5), ("ci_low", 0.2), ("ci_high", 0.8)):
            logger.record(f"eval/{tag}_vs_heuristic", value)
        logger.record("train/loss", 1.0 / (step + 1))
        logger.record("train/target_mean_abs", 0.3)
        logger.record("charts/sam_declared_per_hand", 0.01)
        logger.dump(step)
    logger.close()
    axes = learning_curve_figure(tmp_path, "run").axes
    assert [ax.get_title() for ax in axes[1:]] == [
        "loss: squared error of the move values",
        "mean |target|: the money a decision led to (scaled)",
        "Sâm declared per hand",
    ]
    assert all(ax.get_lines() for ax in axes[1:])
