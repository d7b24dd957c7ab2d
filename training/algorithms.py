"""The standard algorithms' table: which trainers it runs, on what budget, and how its rows are written.

One row per algorithm: the project's trainers, Tianshou's DQN, DouZero's Deep Monte-Carlo and NFSP, each a
shipped recipe (``train.py --config NAME``) with the overrides that put them on one budget. The
command line that trains and evaluates them, one run after another, is
``benchmarks/algorithms_table.py``; what it measures and how is on docs/standard_algorithms.md.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.evaluation.results import file_name, read_results
from sam_env.utils.files import write_text_atomic

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
    "ppo_selfplay": Algorithm("PPO, batched self-play", "self_play", NO_EVALS, 400_000),
    "ppo_vs_heuristic": Algorithm("PPO against heuristic seats", "vs_heuristic", NO_EVALS, 400_000),
    "sb3": Algorithm("SB3 MaskablePPO", "sb3", NO_EVALS, 20_000),
    "rllib": Algorithm("RLlib PPO", "rllib", {}, 40_000),
    "expert": Algorithm("Expert iteration", "expert", {**NO_EVALS, "init_from": None}, 2_000),
    "dqn": Algorithm("DQN (Tianshou)", "dqn", NO_EVALS, 4_000),
    "dmc": Algorithm("Deep Monte-Carlo (DouZero's)", "dmc", NO_EVALS, 1_000_000),
    "nfsp": Algorithm("NFSP (Heinrich & Silver)", "nfsp", NO_EVALS, 1_000_000),
}
"""The algorithms by key: the project's trainers, Tianshou's DQN, DouZero's Deep Monte-Carlo and Neural Fictitious
Self-Play as RLCard ships it."""


ABSOLUTE_PATH = re.compile(r"""(?:^|[\s'"=])(/[^\s'"]*)""")
"""An absolute path in a string: a word (of a command line, or a whole value) that starts with ``/``."""


def relative(path: str | os.PathLike, root: Path) -> str:
    """``path`` (absolute, or relative to the working directory) as the records keep it: relative to ``root``, the
    checkout, so that no record names a machine's folders."""
    return os.path.relpath(Path(path).absolute(), root)


def results_name(folder: Path, document: dict[str, Any]) -> str:
    """The name a run's results file is kept under in its ``folder``: the run's (``dmc__s1.v1-4p-quick.results.json``),
    not the one ``sam-eval`` gives it after the evaluated policy's path."""
    protocol = document["protocol"]
    return file_name(folder.name, protocol["players"], protocol["tier"])


def absolute_paths(value: Any, where: str = "") -> list[str]:
    """Every absolute path in the strings of ``value`` (nested dicts and lists), each as ``field: path``."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in absolute_paths(v, f"{where}.{k}" if where else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in absolute_paths(v, f"{where}[{i}]")]
    if isinstance(value, str):
        return [f"{where}: {m}" for m in ABSOLUTE_PATH.findall(value)]
    return []


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
    shows what the committed files hold, never a copy that could have drifted from them. The runs evaluated before
    results files kept their per-deal values (format 1) are read as the records they are (``legacy``: their
    headline recomputed, their rows as written); a later file is checked whole."""
    out = {}
    for key, record in records.items():
        file = record.get("evaluation", {}).get("file")
        if not file:
            raise RuntimeError(f"run {key} names no results file (evaluation.file); evaluate it again")
        path = Path(file) if Path(file).is_absolute() else root / file
        out[key] = {**record, "evaluation": {**record["evaluation"], **figures_of(read_results(path, legacy=True))}}
    return out


def finished_runs(results_dir: Path) -> dict[str, dict[str, Any]]:
    """Every finished run under ``results_dir`` by ``{algorithm}__s{seed}``: its folder's ``run.json``, written
    last (and whole), once its results file is in. They, not ``table.json``, are the record, so that instances of
    ``benchmarks/algorithms_table.py`` running side by side (one core each) never overwrite each other's runs."""
    records = {}
    for file in sorted(results_dir.glob("*/run.json")):
        record = json.loads(file.read_text(encoding="utf-8"))
        records[f"{record['algorithm']}__s{record['seed']}"] = record
    return records


def pending_jobs(keys: list[str], seeds: list[int], records: dict[str, dict[str, Any]]) -> list[tuple[str, int]]:
    """The ``(algorithm, seed)`` runs still to make, seed by seed (every algorithm's seed 1, then seed 2, …), so
    that a table cut short has every algorithm's first seeds rather than some algorithms' all."""
    return [(key, seed) for seed in seeds for key in keys if f"{key}__s{seed}" not in records]


def check_budget(records: dict[str, dict[str, Any]], budget_minutes: float) -> None:
    """Refuse a table whose finished runs were made on another budget: its rows would mix budgets."""
    other = sorted(k for k, r in records.items() if r["budget_minutes"] != budget_minutes)
    if other:
        raise ValueError(
            f"runs {', '.join(other)} were made on another budget than {budget_minutes:g} min "
            f"({', '.join(sorted({format(records[k]['budget_minutes'], 'g') for k in other}))} min): give that "
            "budget, or another --results-dir"
        )


def calibrated_rates(records: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Each algorithm's learner steps per second as its finished runs recorded it, so that a resumed table trains
    every seed the same number of steps (one calibration per algorithm in all); runs of one algorithm that
    disagree are refused."""
    rates: dict[str, float] = {}
    for key, record in sorted(records.items()):
        rate = rates.setdefault(record["algorithm"], record["rate"])
        if rate != record["rate"]:
            raise ValueError(
                f"run {key} was trained at {record['rate']} learner steps/s, its algorithm's others at {rate}"
            )
    return rates


@contextmanager
def claim(folder: Path) -> Iterator[bool]:
    """Hold ``folder`` (created if need be) for one run while the block runs: True if this process has it,
    False if another instance holds it. An exclusive ``flock`` on ``folder/.claim``, which the system releases
    when the holder ends, however it ends, so an interrupted run is free to be made again."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".claim", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


Train = Callable[[Algorithm, str, int, int], dict[str, Any]]
"""``train(algorithm, name, seed, steps)``: one ``train.py`` run; a dict with at least ``policy`` (the final
network's folder), ``steps``, ``wall_seconds``, ``cpu_seconds`` and ``speed`` (its ``speed.json``)."""
Evaluate = Callable[[str, Path], dict[str, Any]]
"""``evaluate(policy, folder)``: protocol v1 on the network, its results file written into ``folder``; a dict
with ``file`` and the figures of :func:`figures_of`."""


def make_runs(
    jobs: list[tuple[str, int]],
    results_dir: Path,
    budget_minutes: float,
    train: Train,
    evaluate: Evaluate,
    after_run: Callable[[dict[str, Any]], None] = lambda record: None,
) -> None:
    """Train and evaluate every job not finished or held by another instance, one after another.

    An algorithm is calibrated before its first run (a short run whose learner steps per second after the
    warm-up, from ``speed.json``, sets ``total_timesteps = rate x budget`` for all its seeds), unless finished
    runs recorded its rate. Each run's ``run.json`` is written whole into its folder, last; then ``after_run``
    is called with it. A record that names an absolute path (:func:`absolute_paths`) is refused: the records are
    committed, and a path of one machine means nothing on another.
    """
    rates = calibrated_rates(finished_runs(results_dir))
    for key, seed in jobs:
        folder = results_dir / f"{key}__s{seed}"
        with claim(folder) as ours:
            if not ours or (folder / "run.json").is_file():
                continue  # another instance is making it, or has made it meanwhile
            algorithm = ALGORITHMS[key]
            if key not in rates:
                calibration = train(algorithm, f"calibrate_{key}", 0, algorithm.calibration_steps)
                rates[key] = steps_per_second(calibration["speed"])
            steps = max(1, round(rates[key] * budget_minutes * 60))
            training = train(algorithm, f"table_{key}", seed, steps)
            evaluation = evaluate(training["policy"], folder)
            record = {
                "algorithm": key,
                "seed": seed,
                "budget_minutes": budget_minutes,
                "rate": rates[key],
                "training": training,
                "evaluation": evaluation,
            }
            found = absolute_paths(record)
            if found:
                raise ValueError(f"run {key}__s{seed}'s record names absolute paths (make them relative): {found}")
            write_text_atomic(folder / "run.json", json.dumps(record, indent=1) + "\n")
        after_run(record)


def table(records: dict[str, dict[str, Any]], planned_seeds: int) -> str:
    """The Markdown table: one row per algorithm (in :data:`ALGORITHMS`' order) with the seeds it has, the
    headline's mean and spread over them, each seed's headline, then the means over its seeds of X/hand against
    three heuristic seats, learner steps, training minutes and CPU minutes (``records``' figures as
    :func:`read_figures` reads them from the results files); every header says which columns are such means."""
    lines = [
        "| algorithm | seeds | headline X/hand, mean ± sd over seeds | per seed [95 % CI] | "
        "vs heuristic x3, mean over seeds | learner steps, mean over seeds | train min, mean over seeds | "
        "CPU min, mean over seeds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, algorithm in ALGORITHMS.items():
        runs = sorted((r for r in records.values() if r["algorithm"] == key), key=lambda r: r["seed"])
        if not runs:
            continue
        seeds = ", ".join(str(r["seed"]) for r in runs)
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
        lines.append(
            f"| {algorithm.label} | {seeds} | {scores.mean():+.2f}{spread} | {per_seed} | {vs} | {steps} | "
            f"{wall:.1f} | {cpu:.1f} |"
        )
    first = next(iter(records.values())) if records else {}
    evaluation = first.get("evaluation", {})
    machine = evaluation.get("machine", {})
    cores = f", {machine['cpu_count']} cores" if machine.get("cpu_count") else ""
    note = (
        f"\n\nBudget {first.get('budget_minutes', 0):g} min of training per run on one core (train min: a run's "
        f"wall time, start-up included; CPU min: its CPU time; both, like the steps and the score against three "
        f"heuristic seats, averaged over the row's seeds); {planned_seeds} seeds planned per algorithm, each row's "
        f"own in its seeds column (a row of one seed has no spread); protocol v1, {evaluation.get('tier', '?')} tier, "
        "4 seats; "
        f"machine: {machine.get('processor') or platform.machine()}{cores}, {platform.system()}. "
        "Written by `benchmarks/algorithms_table.py`."
    )
    return "\n".join(lines) + note
