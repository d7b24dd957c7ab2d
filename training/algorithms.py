"""The standard algorithms' table: which trainers it runs, on what budget, and how its rows are written.

One row per algorithm: the project's trainers, Tianshou's DQN and DouZero's Deep Monte-Carlo, each a
shipped recipe (``train.py --config NAME``) with the overrides that put them on one budget. The
command line that trains and evaluates them, one run after another, is
``benchmarks/algorithms_table.py``; what it measures and how is on docs/standard_algorithms.md.
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from sam_env.evaluation.results import read_results

QUIET = {"final_eval_deals": 0, "progress_bar": False, "torch_threads": 1}
"""Overrides of every run: no final evaluation (the protocol's replaces it), no bar, one torch thread."""
NO_EVALS = {"eval_every": 0, "checkpoint_every": 0}
"""Overrides of the trainers that evaluate and checkpoint on a schedule: neither during the budget."""


@dataclass(frozen=True)
class Algorithm:
    """One row of the table: its label, its shipped recipe (by name) and what the table changes in it."""

    label: str
    config: str
    overrides: dict[str, Any] = field(default_factory=dict)
    calibration_steps: int = 20_000
    """Learner steps of the calibration run: enough for a few iterations after the warm-up."""


ALGORITHMS: dict[str, Algorithm] = {
    "ppo_selfplay": Algorithm("PPO, batched self-play", "default", NO_EVALS, 400_000),
    "ppo_vs_heuristic": Algorithm("PPO against heuristic seats", "vs_heuristic", NO_EVALS, 400_000),
    "sb3": Algorithm("SB3 MaskablePPO", "sb3", NO_EVALS, 20_000),
    "rllib": Algorithm("RLlib PPO", "rllib", {}, 40_000),
    "expert": Algorithm("Expert iteration", "expert", {**NO_EVALS, "init_from": None}, 2_000),
    "dqn": Algorithm("DQN (Tianshou)", "dqn", NO_EVALS, 4_000),
    "dmc": Algorithm("Deep Monte-Carlo (DouZero's)", "dmc", NO_EVALS, 1_000_000),
}
"""The algorithms by key: the project's trainers, Tianshou's DQN and DouZero's Deep Monte-Carlo."""


def steps_per_second(speed: dict[str, Any]) -> float:
    """A run's learner steps per second: after its warm-up iteration where it had more than one, else overall."""
    rate = speed.get("learner_steps_per_second_after_warm_up") or speed.get("learner_steps_per_second")
    if not rate:
        raise RuntimeError(f"no learner steps per second in speed.json: {speed}")
    return float(rate)


def figures_of(document: dict[str, Any]) -> dict[str, Any]:
    """What the table shows of a protocol results file: its headline, X/hand by opponent, tier and machine."""
    return {
        "headline": {k: document["headline"][k] for k in ("score", "ci_low", "ci_high")},
        "rows": {r["opponent"]: r["x_per_hand"] for r in document["rows"]},
        "tier": document["protocol"]["tier"],
        "machine": document.get("machine", {}),
    }


def read_figures(records: dict[str, dict[str, Any]], root: Path) -> dict[str, dict[str, Any]]:
    """The records with every run's figures read again from its results file (``evaluation.file``, relative to
    ``root`` or absolute; validated by :func:`~sam_env.evaluation.results.read_results`), so that the table
    shows what the committed files hold, never a copy that could have drifted from them."""
    out = {}
    for key, record in records.items():
        file = record.get("evaluation", {}).get("file")
        if not file:
            raise RuntimeError(f"run {key} names no results file (evaluation.file); evaluate it again")
        path = Path(file) if Path(file).is_absolute() else root / file
        out[key] = {**record, "evaluation": {**record["evaluation"], **figures_of(read_results(path))}}
    return out


def finished_runs(results_dir: Path) -> dict[str, dict[str, Any]]:
    """Every finished run under ``results_dir`` by ``{algorithm}__s{seed}``: its folder's ``run.json``, written
    last, once its results file is in. They, not ``table.json``, are the record, so that instances of
    ``benchmarks/algorithms_table.py`` running side by side on disjoint ``--algorithms`` (one core each) never
    overwrite each other's runs."""
    records = {}
    for file in sorted(results_dir.glob("*/run.json")):
        record = json.loads(file.read_text(encoding="utf-8"))
        records[f"{record['algorithm']}__s{record['seed']}"] = record
    return records


def table(records: dict[str, dict[str, Any]], keys: list[str], budget: float, seeds: list[int]) -> str:
    """The Markdown table: one row per algorithm, the headline's mean and spread over seeds, then each seed
    (``records``' figures as :func:`read_figures` reads them from the results files)."""
    lines = [
        "| algorithm | headline X/hand, mean ± sd over seeds | per seed [95 % CI] | vs heuristic x3 | "
        "learner steps | train min | CPU min |",
        "|---|---|---|---|---|---|---|",
    ]
    for key in keys:
        runs = [records[f"{key}__s{s}"] for s in seeds if f"{key}__s{s}" in records]
        if not runs:
            continue
        scores = np.array([r["evaluation"]["headline"]["score"] for r in runs])
        spread = f" ± {scores.std(ddof=1):.2f}" if len(scores) > 1 else ""
        per_seed = ", ".join(
            f"{h['score']:+.2f} [{h['ci_low']:+.2f}, {h['ci_high']:+.2f}]"
            for h in (r["evaluation"]["headline"] for r in runs)
        )
        heuristic = [r["evaluation"]["rows"].get("heuristic") for r in runs]
        vs = f"{np.mean(heuristic):+.2f}" if all(v is not None for v in heuristic) else "–"
        steps = f"{np.mean([r['training']['steps'] for r in runs]):,.0f}"
        wall = np.mean([r["training"]["wall_seconds"] for r in runs]) / 60
        cpu = np.mean([r["training"]["cpu_seconds"] for r in runs]) / 60
        label = ALGORITHMS[key].label
        lines.append(
            f"| {label} | {scores.mean():+.2f}{spread} | {per_seed} | {vs} | {steps} | {wall:.1f} | {cpu:.1f} |"
        )
    first = next(iter(records.values()))["evaluation"] if records else {}
    machine = first.get("machine", {})
    cores = f", {machine['cpu_count']} cores" if machine.get("cpu_count") else ""
    note = (
        f"\n\nBudget {budget:g} min of training per run on one core (train min: the run's wall time, start-up "
        f"included), seeds {', '.join(map(str, seeds))}; protocol v1, {first.get('tier', '?')} tier, 4 seats; "
        f"machine: {machine.get('processor') or platform.machine()}{cores}, {platform.system()}. "
        "Written by `benchmarks/algorithms_table.py`."
    )
    return "\n".join(lines) + note
