"""``train.py``'s command line: the parser, kept here so that it can be imported (the README test parses
every ``python train.py`` command of the docs with it) while ``train.py`` stays a script."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from .config import OPPONENT_KINDS, RunConfig
from .recipes import recipe_names
from .trainers import TRAINERS

EXAMPLES = """examples:
  python train.py                                   # the default recipe, configs/default.yaml
  python train.py --config sb3                      # a shipped recipe by name: trainer: sb3, sb3-contrib's MaskablePPO
  python train.py --config path/to/my_run.yaml      # a config file of your own
  python train.py --set total_timesteps=20000 --set opponents.heuristic=0.5
  python train.py --set pi_layers=[128,128] --set learning_rate=1e-4
  python train.py --resume runs/RUN --set total_timesteps=400000   # from its last whole checkpoint
"""


def build_parser() -> argparse.ArgumentParser:
    shared = [f.name for f in fields(RunConfig)]
    by_trainer = "; ".join(
        f"trainer: {name} adds {', '.join(f.name for f in fields(t.config) if f.name not in shared)}"
        for name, t in TRAINERS.items()
    )
    parser = argparse.ArgumentParser(
        prog="train.py",
        description="Train a Sâm Lốc bot, then evaluate it in duplicate against the baselines. The config's "
        "trainer: key picks the trainer (batched, the default: our masked PPO on the VectorEnv; sb3: sb3-contrib's "
        "MaskablePPO; dmc: Deep Monte-Carlo; rllib: multi-agent PPO on Ray RLlib; tables: ray puts dmc's or batched's "
        "tables in Ray actors, docs/rllib.md). "
        "Every config field is documented on its "
        "trainer's config class (training/<trainer>/config.py, training/config.py) and in the comments of "
        "configs/*.yaml.",
        epilog=f"{EXAMPLES}\nconfig fields: {', '.join(shared)}; {by_trainer}; "
        f"opponents.{{{','.join(OPPONENT_KINDS)}}}; rules.<any RuleConfig option>",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        type=Path,
        help=f"a shipped recipe by name ({', '.join(recipe_names())}; default: default) or a YAML config file; "
        "not with --resume",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config field, the value parsed as YAML; dotted keys reach nested fields "
        "(opponents.heuristic=0.5, rules.bao1=forced); repeatable",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue a run from its last whole checkpoint (a run folder), or from the checkpoint folder named "
        "(checkpoints/step_N or final/): its config.yaml, step count, learning-rate schedule, optimizer state, "
        "self-play pool and RNG states; --set may change e.g. total_timesteps",
    )
    parser.add_argument(
        "--address", metavar="ADDR", help="tables: ray or trainer: rllib: the Ray cluster to join (docs/rllib.md)"
    )
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume is not None and args.config is not None:
        parser.error("--resume reads the config saved in the checkpoint; change fields with --set instead of --config")
    return args
