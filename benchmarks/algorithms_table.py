"""The standard algorithms' table: every trainer on one budget, several seeds, each final network under protocol v1.

    python benchmarks/algorithms_table.py                 # the table: 8 algorithms x 3 seeds x 15 min, quick tier
    python benchmarks/algorithms_table.py --algorithms dmc dqn --seeds 1 --budget-minutes 0.2 --page /tmp/t.md

**The budget.** Every run trains for the same wall time on one core (``--budget-minutes``, default 15, with
``torch_threads: 1``; RLlib adds its env-runner process). The trainers stop at a step count, not a time,
so each algorithm is first *calibrated*: a short run of its config measures its learner steps per second
(``speed.json``, after the warm-up iteration), and every seed's run then gets
``total_timesteps = rate x budget``. Each run's own training seconds and CPU seconds are recorded beside
its score, so a run that the machine slowed down shows it. Evaluations during training and the final
evaluation of ``train.py`` are switched off (they would cost budget); checkpoints are left to the end.
Every run starts from a fresh network (expert iteration's recipe starts from the shipped ``ppo``: here
``init_from: null``).

**The evaluation** of each final network is one documented command, ``--eval-command`` (default:
``sam-eval --protocol v1 --tier {tier} --candidates {policy} --out {out}``); it must write one protocol
results file (``*.results.json``) into ``{out}``, which is read back, validated
(:func:`sam_env.evaluation.results.read_results`) and kept under ``--results-dir`` (default
``benchmarks/algorithms_table/``, committed with the page) for the docs to cite.
The default tier is ``quick`` (400 deals at four seats, in every rotation, against the whole suite):
the full tier's 4,000 deals would cost more than the training itself.

**The outputs.** ``--results-dir`` holds one folder per (algorithm, seed) with its results file and
``run.json`` (config, steps, seconds, command lines), and ``table.json`` with every run; the table —
the headline score's mean and spread over seeds, each seed's score with its interval, steps and time —
goes into ``--page`` between this script's markers (:func:`sam_env.evaluation.report.write_section`),
its figures read from the results files (:func:`sam_env.training.algorithms.read_figures`), not from ``table.json``.
The runs are made seed by seed, and the page is rewritten after each, so a table cut short shows every
algorithm's first seeds. A run whose ``run.json`` exists is not run again, so an interrupted table resumes where
it stopped, with each algorithm's rate as its finished runs recorded it (one calibration per algorithm in all);
a table made on another budget is refused. An instance holds each run's folder while it makes it (a lock the
system drops when the process ends), so two instances can share a two-core machine, one run each at a time::

    python benchmarks/algorithms_table.py --algorithms ppo_selfplay sb3 expert dmc --workers 1  # in one shell
    python benchmarks/algorithms_table.py --algorithms ppo_vs_heuristic rllib dqn --workers 1   # in another
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from sam_env.evaluation.report import write_section
from sam_env.evaluation.results import SUFFIX, read_results
from sam_env.training.algorithms import (
    ALGORITHMS,
    QUIET,
    Algorithm,
    check_budget,
    figures_of,
    finished_runs,
    make_runs,
    pending_jobs,
    read_figures,
    relative,
    results_name,
    table,
)
from sam_env.utils.files import write_text_atomic

ROOT = Path(__file__).resolve().parents[1]
SECTION = "algorithms_table"
DEFAULT_EVAL = (
    "sam-eval --protocol v1 --tier {tier} --candidates {policy} --out {out} --workers {workers} --no-progress"
)


def train(algorithm: Algorithm, name: str, seed: int, steps: int, run_dir: Path) -> dict[str, Any]:
    """One ``train.py`` run; its final policy, steps, wall and CPU seconds and speed, and the command (every path
    relative to the checkout, the Python as ``python``: a record names no machine's folders)."""
    overrides = {**QUIET, **algorithm.overrides, "name": name, "seed": seed, "total_timesteps": steps}
    overrides["run_dir"] = relative(run_dir, ROOT)
    command = [sys.executable, "train.py", "--config", algorithm.config]
    for key, value in overrides.items():
        command += ["--set", f"{key}={json.dumps(value)}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    runs = sorted(run_dir.glob(f"{name}__s{seed}__*"))
    if not runs:
        raise RuntimeError(f"{shlex.join(command)} left no run folder {name}__s{seed}__* in {run_dir}")
    run = runs[-1]
    speed = json.loads((run / "speed.json").read_text(encoding="utf-8"))
    return {
        "command": shlex.join(["python", *command[1:]]),
        "run": relative(run, ROOT),
        "policy": relative(run / "final", ROOT),
        "steps": int(speed["learner_steps"]),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), 1),
        "speed": speed,
    }


def evaluate(template: str, policy: str, out: Path, tier: str, workers: int) -> dict[str, Any]:
    """Run the evaluation command (in the checkout, on paths relative to it); the one results file it wrote into
    ``out``, read, validated and renamed after ``out``'s run (``dmc__s1.v1-4p-quick.results.json``), not after
    the policy's path."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"*{SUFFIX}"):  # a run interrupted during its evaluation: evaluate it again
        old.unlink()
    paths = {"policy": shlex.quote(relative(ROOT / policy, ROOT)), "out": shlex.quote(relative(out, ROOT))}
    command = template.format(**paths, tier=tier, workers=workers)
    words = shlex.split(command)
    if shutil.which(words[0]) is None and Path(sys.executable).with_name(words[0]).is_file():
        words[0] = str(Path(sys.executable).with_name(words[0]))  # sam-eval beside this Python, venv not activated
    started = time.perf_counter()
    done = subprocess.run(words, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    files = sorted(out.glob(f"*{SUFFIX}"))
    if len(files) != 1:
        raise RuntimeError(f"{command} wrote {len(files)} results files into {out}; expected one *{SUFFIX}")
    document = read_results(files[0])
    file = files[0].rename(out / results_name(out, document))
    return {
        "command": command,
        "file": relative(file, ROOT),
        "seconds": round(time.perf_counter() - started, 1),
        **figures_of(document),
    }


def write_page(page: Path, results_dir: Path, planned_seeds: int, verbose: bool = False) -> None:
    """Write the table of every finished run into ``page`` between this script's markers, its figures read from
    the results files (the page shows what they hold), and ``table.json`` beside the runs."""
    records = finished_runs(results_dir)
    write_text_atomic(results_dir / "table.json", json.dumps(records, indent=1) + "\n")
    body = table(read_figures(records, ROOT), planned_seeds)
    page.parent.mkdir(parents=True, exist_ok=True)
    if not page.exists():
        page.write_text("# Standard algorithms on one budget\n", encoding="utf-8")
    write_section(str(page), SECTION, body)
    if not verbose:
        return
    print(f"\n{body}\n\nwrote {page} and {results_dir / 'table.json'}")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if page.resolve().is_relative_to(ROOT / "docs") and page.name not in nav:
        print(f"{page.name} is not in mkdocs.yml's nav yet: add it (the strict docs build refuses a page outside)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--algorithms", nargs="+", choices=list(ALGORITHMS), default=list(ALGORITHMS))
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1..N of every algorithm (default 3)")
    parser.add_argument("--budget-minutes", type=float, default=15.0, help="training wall minutes per run")
    parser.add_argument("--tier", default="quick", help="protocol v1 tier of the evaluations (default quick)")
    parser.add_argument("--workers", type=int, default=2, help="evaluation worker processes (default 2)")
    parser.add_argument("--eval-command", default=DEFAULT_EVAL, help=f"the evaluation (default: {DEFAULT_EVAL!r})")
    parser.add_argument("--runs-dir", type=Path, default=ROOT / "runs" / "algorithms_table")
    parser.add_argument("--results-dir", type=Path, default=ROOT / "benchmarks" / "algorithms_table")
    parser.add_argument("--page", type=Path, default=ROOT / "docs" / "results" / "algorithms.md")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.budget_minutes <= 0:
        parser.error("--seeds must be at least 1 and --budget-minutes above 0")
    records = finished_runs(args.results_dir)
    try:
        check_budget(records, args.budget_minutes)
    except ValueError as err:
        parser.error(str(err))
    jobs = pending_jobs(args.algorithms, list(range(1, args.seeds + 1)), records)
    print(f"{len(jobs)} runs of {args.budget_minutes:g} min (+ calibration and evaluation); {len(records)} done")
    bar = tqdm(total=len(jobs), unit="run")

    def after_run(record: dict) -> None:
        h = record["evaluation"]["headline"]
        tqdm.write(
            f"{record['algorithm']} seed {record['seed']}: "
            f"{h['score']:+.2f} [{h['ci_low']:+.2f}, {h['ci_high']:+.2f}] X/hand"
        )
        write_page(args.page, args.results_dir, args.seeds)  # a table cut short still shows its runs
        bar.update()

    make_runs(
        jobs,
        args.results_dir,
        args.budget_minutes,
        train=lambda algorithm, name, seed, steps: train(algorithm, name, seed, steps, args.runs_dir),
        evaluate=lambda policy, folder: evaluate(args.eval_command, policy, folder, args.tier, args.workers),
        after_run=after_run,
    )
    bar.close()
    write_page(args.page, args.results_dir, args.seeds, verbose=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
