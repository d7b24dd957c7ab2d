"""The network's gain per iteration of expert iteration: the table of docs/expert_iteration.md.

    cd benchmarks && nice -n 10 python expert_gain.py --markdown ../docs/expert_iteration.md
    cd benchmarks && python expert_gain.py --run RUN_FOLDER --markdown ../docs/expert_iteration.md

Runs ``train.py --config configs/expert.yaml`` (``trainer: expert``; ``--set`` overrides pass through, the final
evaluation is skipped) and reads the evaluations the trainer made before its first iteration and after every
one (``final/trainer.json``): each network **alone** — greedy moves, no search — in duplicate against
``n - 1`` copies of each of the config's ``eval_opponents`` on the same ``eval_deals`` deals of ``eval_seed``
(every deal once per seat rotation; X/hand with a 95 % interval over deals). ``--run`` reads a finished
run's folder instead of training (the same numbers: a run is reproducible from its config and seed).

The gain of an iteration is its network's X/hand minus the previous network's, on the same deals. It is a
difference of two intervals' centres, not a test: where the intervals overlap, it may be noise. Beside it, what
the trainer logged of the iteration: decisions searched, how often the search chose the network's most probable
move, the search's value of its move minus that of the network's move (in the search's own rollouts, X per
decision), and how often the distilled network's most probable move is the target's on the last pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml
from common import command_line, machine_line, write_section

from sam_env.training.trainers import config_from_dict

ROOT = Path(__file__).resolve().parents[1]


def train(config: Path, overrides: list[str], runs: Path) -> Path:
    """Run ``train.py`` on ``config`` into a new folder under ``runs``; return the run's folder."""
    runs.mkdir(parents=True, exist_ok=True)
    before = set(runs.iterdir())
    sets = [x for o in [*overrides, "final_eval_deals=0", f"run_dir={runs}"] for x in ("--set", o)]
    subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", str(config), *sets], check=True, cwd=ROOT)
    [run] = set(runs.iterdir()) - before
    return run


SEARCH_TAGS = {
    "search/decisions": "{:,.0f}",
    "search/agreement": "{:.0%}",
    "search/value_gain": "{:+.2f}",
    "train/target_agreement": "{:.0%}",
}
"""What the trainer logged of each iteration's search and distillation (TensorBoard), by step."""
SEARCH_HEAD = "| searched decisions | search = network's move | search's value gain (X) | network = target after |"


def search_logs(run: Path) -> dict[int, dict[str, float]]:
    """The run's :data:`SEARCH_TAGS` by learner step (the step of the iteration's evaluation)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run), size_guidance={"scalars": 0})
    events.Reload()
    tags = set(events.Tags()["scalars"])
    out: dict[int, dict[str, float]] = {}
    for tag in SEARCH_TAGS:
        for event in events.Scalars(tag) if tag in tags else []:
            out.setdefault(event.step, {})[tag] = event.value
    return out


def table(run: Path) -> tuple[str, str]:
    """The Markdown table of a run's evaluations and a plain verdict on the gain."""
    state = json.loads((run / "final" / "trainer.json").read_text(encoding="utf-8"))
    config = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8"))
    opponents = config["eval_opponents"]
    seats = int(config.get("rules", {}).get("n_players", 4)) - 1
    history = state["history"]
    logs = search_logs(run)
    head = "| iteration | learner steps | wall min " + SEARCH_HEAD + " "
    head += " | ".join(f"vs {o} x{seats}: X/hand [95% CI] | gain" for o in opponents)
    lines = [head + " |", "|---:|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(opponents)]
    for i, row in enumerate(history):
        cells = [str(int(row["iteration"])), f"{int(row['step']):,}", f"{row['wall_seconds'] / 60:.0f}"]
        logged = logs.get(int(row["step"]), {}) if i else {}
        cells += [SEARCH_TAGS[t].format(logged[t]) if t in logged else "" for t in SEARCH_TAGS]
        for o in opponents:
            x = row[f"x_per_hand_vs_{o}"]
            gain = "" if i == 0 else f"{x - history[i - 1][f'x_per_hand_vs_{o}']:+.2f}"
            cells += [f"{x:+.2f} [{row[f'ci_low_vs_{o}']:+.2f}, {row[f'ci_high_vs_{o}']:+.2f}]", gain]
        lines.append("| " + " | ".join(cells) + " |")
    first, last = history[0], history[-1]
    verdict = []
    for o in opponents:
        change = last[f"x_per_hand_vs_{o}"] - first[f"x_per_hand_vs_{o}"]
        apart = last[f"ci_low_vs_{o}"] > first[f"ci_high_vs_{o}"] or last[f"ci_high_vs_{o}"] < first[f"ci_low_vs_{o}"]
        word = "gained" if change > 0 else "lost"
        verdict.append(
            f"against {o} x{seats} the network {word} {abs(change):.2f} X/hand over {int(last['iteration'])} "
            f"iterations (side by side the intervals {'do not overlap' if apart else 'overlap'}; "
            "not a paired difference)"
        )
    return "\n".join(lines), "After the last iteration, " + "; ".join(verdict) + "."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "expert.yaml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="a train.py --set override")
    parser.add_argument("--runs", type=Path, default=ROOT / "runs", help="where the run's folder goes")
    parser.add_argument("--run", type=Path, default=None, help="a finished run's folder: read it, do not train")
    parser.add_argument("--markdown", default=None, help="also write the table to this Markdown file")
    parser.add_argument("--section", default=Path(__file__).stem, help="the page's section to replace (markers)")
    args = parser.parse_args()
    started = time.perf_counter()
    run = args.run if args.run is not None else train(args.config.resolve(), args.overrides, args.runs.resolve())
    rows, verdict = table(run)
    config = config_from_dict(yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8")), saved=True).to_dict()
    keys = ("init_from", "num_tables", "rule_bot_share", "play", "decisions_per_iteration", "determinizations")
    keys += ("candidates", "proposals", "target_temperature", "target_margin", "learning_rate", "n_epochs")
    keys += ("buffer_iterations", "total_timesteps")
    setting = ", ".join(f"{k} {config[k]}" for k in keys)
    measured = f"{config['eval_deals']} deals in duplicate (seed {config['eval_seed']}), the network alone, greedy"
    how = (
        f"Run `{run.name}` ({setting}); {measured}. `{command_line()}` — "
        f"{machine_line(','.join(map(str, sorted(os.sched_getaffinity(0)))))}, {time.perf_counter() - started:.0f} s"
    )
    body = "\n\n".join([rows, verdict, how])
    print(body)
    if args.markdown:
        write_section(args.markdown, args.section, body)


if __name__ == "__main__":
    main()
