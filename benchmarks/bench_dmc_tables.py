"""Deep Monte-Carlo's moves per second with its tables local and in Ray actors, in the same sitting: docs/rllib.md.

    cd benchmarks && python bench_dmc_tables.py --moves 2000000 --markdown ../docs/rllib.md

Every row is one ``python train.py`` run of ``configs/default.yaml`` (the recipe ``python train.py`` trains) for
``--moves`` moves, evaluations, checkpoints and the final evaluation off, differing only in where its tables play:

* ``tables: local`` — the recipe as it is (its ``overlap_update: true``: the update on a second thread beside the
  collection);
* ``tables: ray`` with one table worker, then with two (a local Ray on the machine's CPUs; the learner in the
  driver process) — each worker plays the recipe's 1,024 tables, so two workers play twice the moves per update.

The figure is ``speed.json``'s ``learner_steps_per_second_after_warm_up``: moves (every seat's, forced ones
included) per wall-clock second after the first iteration, numba's compile and Ray's start left out. Rows are run in
turn for ``--rounds`` rounds and each keeps its fastest. Ratios are to ``tables: local`` of the same sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import command_line, machine_line, write_section

ROOT = Path(__file__).resolve().parents[1]
ROWS = (
    ("`tables: local` (the recipe)", ["tables=local"]),
    ("`tables: ray`, 1 table worker", ["tables=ray", "table_workers=1"]),
    ("`tables: ray`, 2 table workers", ["tables=ray", "table_workers=2", "num_cpus=2"]),
)


def run(moves: int, sets: list[str]) -> dict:
    """One training run of the default recipe with ``sets``; its speed.json."""
    with tempfile.TemporaryDirectory() as runs:
        command = [sys.executable, "train.py", "--set", f"total_timesteps={moves}", "--set", f"run_dir={runs}"]
        for field in ("eval_every=0", "checkpoint_every=0", "final_eval_deals=0", "progress_bar=false", *sets):
            command += ["--set", field]
        env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
        subprocess.run(command, check=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        [folder] = list(Path(runs).iterdir())
        return json.loads((folder / "speed.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--markdown", default=None, help="write this script's section of the page (docs/rllib.md)")
    args = parser.parse_args()
    best: dict[str, dict] = {}
    for _ in range(args.rounds):
        for name, sets in ROWS:
            speed = run(args.moves, sets)
            if (
                name not in best
                or speed["learner_steps_per_second_after_warm_up"]
                > best[name]["learner_steps_per_second_after_warm_up"]
            ):
                best[name] = speed
            print(name, speed["learner_steps_per_second_after_warm_up"], flush=True)
    local = best[ROWS[0][0]]["learner_steps_per_second_after_warm_up"]
    lines = ["| where the tables play | moves / s | vs local | moves an update | learner |", "|---|---:|---:|---:|---|"]
    for name, sets in ROWS:
        s = best[name]
        rate = s["learner_steps_per_second_after_warm_up"]
        workers = int(dict(x.split("=") for x in sets).get("table_workers", 1))
        per_update = f"{workers * 1024 * 16:,}"  # the recipe's num_tables x n_steps, per table worker
        cells = [name, f"{rate:,.0f}", f"{rate / local:.2f}×", per_update, s["learner_device"]]
        lines.append("| " + " | ".join(cells) + " |")
    how = (
        f"`configs/default.yaml`, {args.moves:,} moves a run (4 seats, Sâm on), evaluations and checkpoints off; moves "
        f"per wall second after the first iteration, best of {args.rounds} rounds run in turn. "
        f"`{command_line()}` — {machine_line(str(os.cpu_count()) + ' CPUs')}"
    )
    body = "\n".join(lines) + "\n\n" + how
    print(body)
    if args.markdown:
        write_section(args.markdown, Path(sys.argv[0]).stem, body)


if __name__ == "__main__":
    main()
