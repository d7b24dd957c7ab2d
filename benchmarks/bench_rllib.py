"""Learner steps per second of training: the SB3 path against RLlib with 0, 1 and 2 env runners.

Each row is one ``python train.py`` run in a subprocess, one after the other, with the same network
(256x256 tanh, separate heads), the same PPO settings (~2,048 learner decisions per update, 10
epochs of 512) and self-play opponents only (frozen snapshots in every other seat), so the two
trainers do the same work:

* SB3: ``configs/sb3.yaml`` with ``opponents={self_play: 1.0}`` and no evaluation during
  training; steps/s is SB3's own ``charts/steps_per_second`` at the end of the run (TensorBoard);
* RLlib: ``configs/rllib.yaml`` with ``num_env_runners`` 0, 1, 2; steps/s from the run's
  ``speed.json``: over the whole run, and after the first iteration (Ray and RLlib warm up there).

A learner step is one decision of the seat being trained (opponents' moves not counted), in both
trainers. Wall-clock time; the machine's load (other jobs) changes the figures, so the rows are
only comparable within one run of this script.

    python benchmarks/bench_rllib.py [--steps 12000] [--out /tmp/bench_rllib]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def train(out: Path, name: str, config: str, *sets: str) -> Path:
    """Run ``train.py`` and return its run folder."""
    runs = out / name
    command = [sys.executable, "train.py", "--config", config, "--set", f"run_dir={runs}", "--set", f"name={name}"]
    for item in ("progress_bar=false", "final_eval_deals=0", *sets):
        command += ["--set", item]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    subprocess.run(command, cwd=ROOT, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [run] = list(runs.iterdir())
    return run


def sb3_steps_per_second(run: Path) -> float:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run), size_guidance={"scalars": 0})
    events.Reload()
    return events.Scalars("charts/steps_per_second")[-1].value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=12_000, help="learner steps of every run (default 12000)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench_rllib"), help="where the runs go")
    args = parser.parse_args()
    steps = f"total_timesteps={args.steps}"
    rows = []
    started = time.perf_counter()
    sb3 = train(args.out, "sb3", "configs/sb3.yaml", steps, "opponents={self_play: 1.0}", "eval_every=0")
    rows.append(("SB3 MaskablePPO, 8 envs in one process", f"{sb3_steps_per_second(sb3):.0f}", "-"))
    for runners in (0, 1, 2):
        run = train(args.out, f"rllib{runners}", "configs/rllib.yaml", steps, f"num_env_runners={runners}")
        speed = json.loads((run / "speed.json").read_text())
        label = f"RLlib PPO, {runners} env runner(s) x 8 envs" + (" (sampling in the driver)" if not runners else "")
        rows.append(
            (
                label,
                f"{speed['learner_steps_per_second']:.0f}",
                f"{speed['learner_steps_per_second_after_first_iteration']:.0f}",
            )
        )
    print(f"learner steps/s, {args.steps:,} learner steps per run, {os.cpu_count()} CPUs, wall clock")
    print("| run | learner steps/s | after the first iteration |\n|---|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
