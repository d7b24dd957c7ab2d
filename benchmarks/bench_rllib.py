"""Learner steps per second on Ray against the local batched trainer, in one run: docs/results/bench_rllib.md.

Each row is one ``python train.py`` run in a subprocess, one after the other, on this machine's cores,
with evaluations, checkpoints and the final evaluation off; the rate is the run's ``speed.json``:

* **local batched** (``trainer: batched``): ``configs/vs_heuristic.yaml`` — 512 tables of the compiled
  ``VectorEnv`` in this process, one learner seat per table, the compiled heuristic in the other
  seats, a 256x256 network, 4 epochs of 512-decision minibatches;
* **Ray, 1 and 2 env runners** (``tables: ray``): the same config with ``--set tables=ray``, each
  env runner a Ray actor holding ``num_tables`` tables (so two runners bring twice the decisions to
  each update), the learner in the driver, on a local Ray of 2 CPUs;
* **the old RLlib path** (``trainer: rllib``): ``configs/rllib.yaml`` with one env runner of 8 tables
  (RLlib's multi-agent env runner, one ``MultiAgentEnv`` per table); the same network, self-play
  snapshots as opponents (the only opponents it has), ~2,048 learner decisions per update, 10 epochs
  of 512. Fewer learner steps: at its rate a run as long as the others would take an hour;
* **local batched again**, last: the machine's load drifts, so the ratio column is to the mean of
  the first and last rows.

A learner step is one decision of a seat being trained (opponents' moves not counted), in every
trainer. The rate compared is the one after the first iteration (Ray's actors, numba's cached
kernels, RLlib's build: the warm-up); the rate over the whole run is printed beside it. Wall clock:
on a shared machine the other jobs' load lowers every row, so only the ratios within one run of the
script mean something (the page records the load average before and after).

    python benchmarks/bench_rllib.py [--steps 300000] [--rllib-steps 8000] [--markdown docs/results/bench_rllib.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
OFF = ("progress_bar=false", "final_eval_deals=0")


@dataclass(frozen=True)
class Row:
    """One run of the table: its label, ``train.py`` arguments, and how its rollouts are sized."""

    label: str
    config: str
    sets: tuple[str, ...]
    cores: str
    batch: str


def rows(steps: int, rllib_steps: int) -> list[Row]:
    default = yaml.safe_load((ROOT / "configs" / "vs_heuristic.yaml").read_text())
    tables, n_steps = default["num_tables"], default["n_steps"]
    batched = (f"total_timesteps={steps}", "checkpoint_every=0", "eval_every=0")
    ray = (*batched, "tables=ray", "num_cpus=2")
    per_rollout = f"{{runners}} x {tables} tables x {n_steps} steps, minibatch {default['batch_size']}"
    local = Row(
        "local batched (`trainer: batched`)",
        "configs/vs_heuristic.yaml",
        batched,
        "1 (this process)",
        per_rollout.format(runners=1),
    )
    return [
        local,
        Row(
            "Ray, 1 env runner (`trainer: ray`)",
            "configs/vs_heuristic.yaml",
            (*ray, "table_workers=1"),
            "2 Ray CPUs: 1 runner + learner",
            per_rollout.format(runners=1),
        ),
        Row(
            "Ray, 2 env runners (`trainer: ray`)",
            "configs/vs_heuristic.yaml",
            (*ray, "table_workers=2"),
            "2 Ray CPUs: 2 runners + learner",
            per_rollout.format(runners=2),
        ),
        Row(
            "old RLlib path, 1 env runner (`trainer: rllib`)",
            "configs/rllib.yaml",
            (f"total_timesteps={rllib_steps}", "num_env_runners=1", "num_cpus=2"),
            "2 Ray CPUs: 1 runner + learner",
            "1 x 8 tables, ~2,048 learner decisions per update, minibatch 512",
        ),
        Row(f"{local.label}, again", local.config, local.sets, local.cores, local.batch),
    ]


def train(out: Path, name: str, row: Row) -> dict:
    """Run ``train.py`` for ``row`` and return its ``speed.json`` (with the run's Sâm rule)."""
    runs = out / name
    command = [sys.executable, "train.py", "--config", row.config, "--set", f"run_dir={runs}", "--set", f"name={name}"]
    for item in (*OFF, *row.sets):
        command += ["--set", item]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}  # a local Ray, never a cluster
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    [run] = list(runs.iterdir())
    speed = json.loads((run / "speed.json").read_text())
    rules = yaml.safe_load((run / "config.yaml").read_text()).get("rules") or {}
    speed["sam"] = "on" if rules.get("allow_sam", True) else "off"
    return speed


def table(results: list[tuple[Row, dict]]) -> list[str]:
    # The local trainer runs first and last: the load of a shared machine drifts, and the mean of the
    # two is the reference every row's ratio is taken to.
    local = (
        results[0][1]["learner_steps_per_second_after_warm_up"]
        + results[-1][1]["learner_steps_per_second_after_warm_up"]
    ) / 2
    lines = [
        "| run | learner steps/s after warm-up | ratio to local (mean of both local rows) | over the whole run | "
        "learner steps | cores | "
        "rollout (batch size) | Sâm |",
        "|---|---:|---:|---:|---:|---|---|---|",
    ]
    for row, speed in results:
        rate = speed["learner_steps_per_second_after_warm_up"]
        lines.append(
            f"| {row.label} | {rate:,.0f} | {rate / local:.2f} | {speed['learner_steps_per_second']:,.0f} | "
            f"{speed['learner_steps']:,} | {row.cores} | {row.batch} | {speed['sam']} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300_000, help="learner steps of the batched and Ray runs")
    parser.add_argument("--rllib-steps", type=int, default=8_000, help="learner steps of the RLlib run")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench_rllib"), help="where the runs go")
    parser.add_argument("--markdown", type=Path, help="also write the table as this docs page")
    args = parser.parse_args()
    if args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"--out {args.out} is not empty: give a new folder")
    load_before = os.getloadavg()
    started = time.perf_counter()
    results = []
    for i, row in enumerate(tqdm(rows(args.steps, args.rllib_steps), desc="runs", unit="run")):
        results.append((row, train(args.out, f"row{i}", row)))
    minutes = (time.perf_counter() - started) / 60
    load_after = os.getloadavg()
    machine = f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), no GPU in use"
    load = f"load average {load_before[1]:.1f} before, {load_after[1]:.1f} after (5-minute)"
    header = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine}, {load}, {minutes:.0f} min in all; wall clock"
    lines = table(results)
    print(header)
    print("\n".join(lines))
    if args.markdown is not None:
        shared = max(load_before[1], load_after[1]) > 0.5 * (os.cpu_count() or 1)
        args.markdown.write_text(page(header, lines, args, shared), encoding="utf-8")
        print(f"wrote {args.markdown}")


def page(header: str, lines: list[str], args: argparse.Namespace, shared: bool) -> str:
    """The docs page; ``shared``: the load average says other jobs ran on the cores during the measurement."""
    command = f"python benchmarks/bench_rllib.py --steps {args.steps} --rllib-steps {args.rllib_steps}"
    load_note = (
        "**The machine was shared**: these cores also ran other jobs during the measurement (the load average "
        "above), so every row is lower than on an idle machine, and by an amount that changes while the script "
        "runs; compare the rows of this one run (the ratio column), not the absolute figures with other pages."
        if shared
        else "The machine was otherwise idle (the load average above); the ratio column compares rows of this one "
        "run, the figure to compare with other pages' rows measured the same way."
    )
    return "\n".join(
        [
            "# Training throughput on Ray: the local trainer, `trainer: ray` and `trainer: rllib`",
            "",
            f"Written by `{command} --markdown docs/results/bench_rllib.md` (`benchmarks/bench_rllib.py`; what each "
            "row runs is in its docstring). Which path to use when: [rllib.md](../rllib.md).",
            "",
            f"{header}.",
            "",
            load_note,
            "",
            *lines,
            "",
            "A learner step is one decision of a seat being trained; opponents' moves are not counted. "
            "*After warm-up*: from the end of the first iteration (rollout and update) to the end of the run, "
            "as `speed.json` reports it. The Ray rows hold the local row's config with `trainer: ray`; each env "
            "runner plays `num_tables` tables, so with two runners each update trains on twice the decisions. "
            "The Ray rows run two or three processes (env runners and the learner) where the local trainer runs "
            "one; on cores shared with other jobs the scheduler gives more processes more CPU time, which can lift "
            "a Ray row above the local one. On an idle machine one env runner cannot beat the local trainer: "
            "its runner and learner take turns (the learner waits for the rollout, the runner for the weights) "
            "and the rollouts also travel through Ray's object store. "
            "The RLlib row plays self-play snapshots (its only opponents) with RLlib's PPO settings "
            "(`configs/rllib.yaml`), as in earlier releases. Sâm: whether the báo Sâm phase is played "
            "(docs/rules.md); on in every row, the default rules.",
            "",
        ]
    )


if __name__ == "__main__":
    main()
