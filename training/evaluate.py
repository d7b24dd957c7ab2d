"""Duplicate evaluations of the policy being trained, during the run and at its end (``evaluation``)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.evaluation.report import markdown_table, text_table
from sam_env.evaluation.stats import Summary
from sam_env.evaluation.tournament import Match, run_matches

from .config import IN_TRAINING_SEEDS

if TYPE_CHECKING:
    from stable_baselines3.common.logger import Logger
    from tqdm import tqdm


def in_training_seed(eval_seed: int) -> int:
    """The deal seed of the evaluations during a run whose ``eval_seed`` is given: a range of its own.

    The final evaluation plays the deals of ``eval_seed`` (below :data:`~.config.IN_TRAINING_SEEDS`, which
    the config checks) and ``sam-eval`` those of 0 unless told otherwise, so no deal that chose a checkpoint
    by its curve also judges it (deal ``i`` of seed ``s`` is drawn from ``default_rng([s, i])``).
    """
    return IN_TRAINING_SEEDS + eval_seed


def evaluate(
    checkpoint: PolicyCheckpoint, label: str, opponents: Sequence[str], deals: int, seed: int
) -> list[Summary]:
    """An evaluation during a run: :func:`duplicate_evaluation` on the deals of :func:`in_training_seed` of
    ``seed`` (the run's ``eval_seed``), disjoint from the final evaluation's."""
    return duplicate_evaluation(checkpoint, label, opponents, deals, in_training_seed(seed))


def duplicate_evaluation(
    checkpoint: PolicyCheckpoint, label: str, opponents: Sequence[str], deals: int, seed: int
) -> list[Summary]:
    """Duplicate matches of the policy (greedy moves) against ``n - 1`` copies of each opponent, on the deals
    of ``seed``.

    The checkpoint itself is the candidate's spec, so the tournament's worker processes (one per
    core: the learner waits for the result) each build the policy from it.
    """
    rules = checkpoint.rules
    matches = [Match(checkpoint, (o,) * (rules.n_players - 1), label=label) for o in opponents]
    results = run_matches(matches, rules, deals, seed=seed, workers=None, progress=False)
    return [r.summary() for r in results]


def final_evaluation(
    checkpoint: PolicyCheckpoint,
    label: str,
    opponents: Sequence[str],
    deals: int,
    seed: int,
    run_dir: Path,
    report: dict[str, object],
) -> list[Summary]:
    """Evaluate the final policy against each opponent on the deals of ``seed`` (the run's ``eval_seed``, not
    the deals of the evaluations during the run); print the table, write ``evaluation.{md,json}``.

    ``report`` (run name, steps, training time) is written into ``evaluation.json`` beside the matches.
    Returns the matches' summaries, one per opponent (the learning curve draws the heuristic's).
    """
    started = time.perf_counter()
    summaries = duplicate_evaluation(checkpoint, label, opponents, deals, seed)
    title = f"{label} after {report['steps']:,} steps: {deals} deals in duplicate"
    print(f"\n{title} (seed {seed}, {time.perf_counter() - started:.0f} s)")
    print(text_table(summaries, []))
    (run_dir / "evaluation.md").write_text(f"{title}\n\n{markdown_table(summaries, [])}", encoding="utf-8")
    report = {**report, "eval_seed": seed, "matches": [s.to_dict() for s in summaries]}
    (run_dir / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return summaries


def record_evaluation(
    row: dict[str, float], opponents: Sequence[str], summaries: Sequence[Summary], logger: Logger | None, seats: int
) -> str:
    """Add a during-run evaluation to ``row`` (its ``step`` and the trainer's own fields) and to TensorBoard.

    Every trainer logs the same ``eval/x_per_hand_vs_<bot>``, ``eval/ci_low_vs_<bot>``, ``eval/ci_high_vs_<bot>``
    and ``eval/win_rate_vs_<bot>`` scalars, which ``sam_env.training.curves`` reads back; returns the progress line's
    summary, ``vs <bot> x<seats> X/hand [CI], …``.
    """
    for name, s in zip(opponents, summaries, strict=True):
        row[f"x_per_hand_vs_{name}"] = s.x_per_hand
        row[f"ci_low_vs_{name}"] = s.ci_low
        row[f"ci_high_vs_{name}"] = s.ci_high
        row[f"win_rate_vs_{name}"] = s.win_rate
    if logger is not None:
        for key, value in row.items():
            if key != "step":
                logger.record(f"eval/{key}", value)
        logger.dump(row["step"])
    return (
        ", ".join(
            f"vs {name} x{seats} {s.x_per_hand:+.2f} [{s.ci_low:+.2f}, {s.ci_high:+.2f}]"
            for name, s in zip(opponents, summaries, strict=True)
        )
        + f" X/hand over {summaries[0].deals} deals"
    )


class EvaluatesDuringTraining:
    """``run_eval``: the during-run evaluation every trainer on the batched engine shares (a mixin).

    It reads the trainer's ``config`` (``eval_opponents``, ``eval_deals``, ``eval_seed``, ``rule_config``),
    ``num_timesteps``, ``snapshot()``, ``wall_start`` and ``logger``, and adds to its ``seconds["eval"]``,
    ``history`` and ``last_eval``. A trainer adds fields of its own to the row with :meth:`eval_fields`.
    """

    def eval_fields(self) -> dict[str, float]:
        """The trainer's own fields of an evaluation row, between ``step`` and ``wall_seconds`` (none here)."""
        return {}

    def eval_heading(self, step: int) -> str:
        """How a progress line names the point of the run an evaluation was made at."""
        return f"step {step:>10,}"

    def run_eval(self, label: str, bar: tqdm | None = None) -> None:
        """Duplicate evaluation of the current network (greedy moves) against each of ``eval_opponents``."""
        clock = time.perf_counter()
        c, step = self.config, self.num_timesteps  # type: ignore[attr-defined]
        summaries = evaluate(self.snapshot(), label, c.eval_opponents, c.eval_deals, c.eval_seed)  # type: ignore[attr-defined]
        self.seconds["eval"] += time.perf_counter() - clock  # type: ignore[attr-defined]
        row: dict[str, float] = {"step": step, **self.eval_fields()}
        row["wall_seconds"] = time.perf_counter() - self.wall_start  # type: ignore[attr-defined]
        line = record_evaluation(row, c.eval_opponents, summaries, self.logger, c.rule_config.n_players - 1)  # type: ignore[attr-defined]
        self.history.append(row)  # type: ignore[attr-defined]
        first = summaries[0]
        self.last_eval = f"{first.x_per_hand:+.2f} [{first.ci_low:+.2f}, {first.ci_high:+.2f}]"
        if bar is not None:
            bar.write(f"{self.eval_heading(step)} ({row['wall_seconds']:.0f} s): {line}")
