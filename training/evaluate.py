"""Duplicate evaluations of the policy being trained, during the run and at its end (``evaluation``)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

from agents.checkpoint import PolicyCheckpoint
from agents.ppo_bot import PPOAgent
from agents.registry import register
from evaluation.report import markdown_table, text_table
from evaluation.stats import Summary
from evaluation.tournament import Match, run_matches


def evaluate(
    checkpoint: PolicyCheckpoint, label: str, opponents: Sequence[str], deals: int, seed: int
) -> list[Summary]:
    """Duplicate matches of the policy (greedy moves) against three copies of each opponent.

    Runs in this process (``workers=1``): the policy is registered here, and worker processes
    started another way than ``fork`` would not see it.
    """
    register(label, lambda s: PPOAgent(checkpoint, seed=s, name=label), replace=True)
    rules = checkpoint.rules
    matches = [Match(label, (o,) * (rules.n_players - 1)) for o in opponents]
    results = run_matches(matches, rules, deals, seed=seed, workers=1, progress=False)
    return [r.summary() for r in results]


def final_evaluation(
    checkpoint: PolicyCheckpoint,
    label: str,
    opponents: Sequence[str],
    deals: int,
    seed: int,
    run_dir: Path,
    report: dict[str, object],
) -> None:
    """Evaluate the final policy against each opponent; print the table, write ``evaluation.{md,json}``.

    ``report`` (run name, steps, training time) is written into ``evaluation.json`` beside the matches.
    """
    started = time.perf_counter()
    summaries = evaluate(checkpoint, label, opponents, deals, seed)
    title = f"{label} after {report['steps']:,} steps: {deals} deals in duplicate"
    print(f"\n{title} (seed {seed}, {time.perf_counter() - started:.0f} s)")
    print(text_table(summaries, []))
    (run_dir / "evaluation.md").write_text(f"{title}\n\n{markdown_table(summaries, [])}", encoding="utf-8")
    report = {**report, "eval_seed": seed, "matches": [s.to_dict() for s in summaries]}
    (run_dir / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
