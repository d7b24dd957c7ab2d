"""Does ``trainer: ray`` learn what the local trainer learns? Same config and steps, X/hand against the heuristic.

Two ``python train.py`` runs of ``configs/vs_heuristic.yaml`` (the compiled heuristic in the three other
seats, 512 tables per rollout, 256x256 network), ``--steps`` learner steps each, then each final
policy against the heuristic x3 in duplicate over the same ``--deals`` deals (every seat rotation,
95% CI over deals, deals seeded by ``eval_seed``, never seen in training):

* **local**: ``trainer: batched``, 512 tables in one process;
* **Ray, 2 env runners x 256 tables**: ``trainer: ray`` with the 512 tables split over two env runner
  actors of a local Ray, so each update trains on as many decisions as the local one. With *one*
  runner the Ray trainer plays and learns exactly what the local one does (``tests/training/test_ray.py``
  holds the weights equal), so the comparison worth making is two runners: other deals and seat
  draws (runner 1's seed is derived from the run's), the same learning.

The two final policies are then compared by their paired difference: both play the evaluation's deals again in
one ``run_matches`` call (the same deals and seatings), and Ray's X/hand minus the local one's is taken deal by
deal (:func:`sam_env.evaluation.stats.paired_difference`), which leaves out the cards both were dealt.

Runs already in ``--out`` (a folder with that name's ``evaluation.json``) are read, not trained
again, so the page can be rewritten from the runs that made it.

    nice -n 10 python benchmarks/ray_same_learning.py [--steps 1000000] [--deals 500] [--out /tmp/same_learning]
        [--markdown docs/results/ray_same_learning.md]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from tqdm import tqdm

from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import load_network
from sam_env.evaluation.panel import per_deal_net
from sam_env.evaluation.stats import paired_difference
from sam_env.evaluation.tournament import Match, run_matches

ROOT = Path(__file__).resolve().parents[1]
RUNS = {
    "local": ("trainer: batched, 512 tables", ()),
    "ray2x256": (
        "trainer: ray, 2 env runners x 256 tables",
        ("tables=ray", "table_workers=2", "num_tables=256", "num_cpus=2"),
    ),
}


def run(out: Path, name: str, sets: tuple[str, ...], steps: int, deals: int) -> Path:
    """The run folder of ``name`` in ``out``: found there, or trained now."""
    found = sorted(out.glob(f"{name}__s*/evaluation.json"))
    if found:
        return found[-1].parent
    command = [sys.executable, "train.py", "--config", "configs/vs_heuristic.yaml"]
    for item in (
        f"total_timesteps={steps}",
        "eval_every=0",
        f"final_eval_deals={deals}",
        "final_eval_opponents=[heuristic]",
        "progress_bar=false",
        f"run_dir={out}",
        f"name={name}",
        *sets,
    ):
        command += ["--set", item]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    with (out / f"{name}.log").open("w") as log:
        subprocess.run(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)
    return run(out, name, sets, steps, deals)


def paired(folders: list[Path], deals: int, seed: int) -> tuple[float, float, float]:
    """The second run's final policy minus the first's, X/hand against the heuristic, paired deal by deal."""
    policies = [str(folder / "final") for folder in folders]
    rules = RuleConfig.from_dict(load_network(policies[0]).metadata["rules"])
    opponents = ("heuristic",) * (rules.n_players - 1)
    results = run_matches([Match(policy, opponents) for policy in policies], rules, deals, seed=seed)
    first, second = (per_deal_net(result) for result in results)
    return paired_difference(second, first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="learner steps of each run")
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals of the final evaluation")
    parser.add_argument("--out", type=Path, default=Path("/tmp/same_learning"), help="where the runs are or go")
    parser.add_argument("--markdown", type=Path, help="also write the table as this docs page")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows, folders, seeds = [], [], set()
    for name, (label, sets) in tqdm(RUNS.items(), desc="runs", unit="run"):
        folder = run(args.out, name, sets, args.steps, args.deals)
        folders.append(folder)
        evaluation = json.loads((folder / "evaluation.json").read_text())
        speed = json.loads((folder / "speed.json").read_text())
        [match] = evaluation["matches"]
        seeds.add(evaluation["eval_seed"])  # the final evaluation's deals, the same for both runs
        rows.append(
            f"| {label} | {evaluation['steps']:,} | {match['x_per_hand']:+.2f} "
            f"[{match['ci_low']:+.2f}, {match['ci_high']:+.2f}] | {100 * match['win_rate']:.1f} | "
            f"{match['deals']} ({match['hands']:,} hands) | {speed['learner_steps_per_second_after_warm_up']:,.0f} |"
        )
    lines = [
        "| run | learner steps | X/hand vs heuristic x3 [95% CI] | win % | deals | learner steps/s |",
        "|---|---:|---:|---:|---:|---:|",
        *rows,
    ]
    [seed] = seeds
    difference = paired(folders, args.deals, seed)
    labels = [label for label, _ in RUNS.values()]
    verdict = (
        f"{labels[1]} minus {labels[0]}, paired deal by deal over the same {args.deals} deals: "
        "{:+.2f} [{:+.2f}, {:+.2f}] X/hand (95% CI).".format(*difference)
    )
    print("\n".join(lines))
    print(verdict)
    if args.markdown is not None:
        args.markdown.write_text(page(lines, verdict, args), encoding="utf-8")
        print(f"wrote {args.markdown}")


def page(lines: list[str], verdict: str, args: argparse.Namespace) -> str:
    return "\n".join(
        [
            "# Same learning on Ray: `trainer: ray` against the local trainer",
            "",
            f"Written by `nice -n 10 python benchmarks/ray_same_learning.py --steps {args.steps} --deals {args.deals} "
            "--markdown docs/results/ray_same_learning.md` (what the two runs are: the script's docstring). The same "
            "config (`configs/vs_heuristic.yaml`, the heuristic in the other seats) and the same number of learner "
            "steps; each "
            "final policy against the heuristic x3 in duplicate over the same deals, every seat rotation, 95% CI "
            "over deals.",
            "",
            *lines,
            "",
            f"{verdict} With one env runner the Ray trainer learns the local trainer's weights exactly "
            "(`tests/training/test_ray.py`); with two runners of half the tables each it plays other deals and "
            "seat draws, so the two runs differ as two seeds of one trainer may. The steps/s column was "
            "measured on 2 cores shared with other "
            "jobs, with both runs at once: a record of these runs, not a benchmark ([bench_rllib.md](bench_rllib.md)). "
            "One seed per run: a short check, not a strength claim.",
            "",
        ]
    )


if __name__ == "__main__":
    main()
