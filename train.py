"""Train a Sâm Lốc bot by self-play, then evaluate it in duplicate against the baselines.

    python train.py                                     # configs/default.yaml: batched self-play, ~6M steps
    python train.py --config configs/sb3.yaml           # sb3-contrib MaskablePPO against Python bots
    python train.py --set total_timesteps=2000000 --set rules.n_players=3
    python train.py --resume runs/<run>/checkpoints/step_000200000 [--set total_timesteps=400000]

Two trainers, chosen by the config's ``trainer``:

* ``batched`` (``training.batched``): thousands of tables of :class:`sam_env.VectorEnv` at once; the
  learner holds a share of the seats with one network for all of them, frozen snapshots of it
  (a pool refreshed every ``snapshot_every`` steps) the others; every step is one forward pass per
  network; masked PPO along each seat's trajectory.
* ``sb3``: one learner seat (a different one every hand) plays :class:`sam_env.SingleAgentEnv` with
  sb3-contrib's MaskablePPO against opponents drawn per hand and seat from snapshots and the
  ``random``, ``greedy`` and ``heuristic`` bots.

Every ``eval_every`` steps the policy plays a small duplicate tournament (``evaluation``); at the end it
is evaluated against every baseline and the table, with 95 % confidence intervals, is printed.
A run writes to ``runs/<name>__s<seed>__<time>/``: TensorBoard events (``charts/``, ``train/``,
``eval/``, ``perf/`` — where the time went), ``checkpoints/step_N/`` and ``final/`` (``policy.*`` for
``load_bot(path)``, ``trainer.*`` for ``--resume``, ``config.yaml``), ``learning_curve.png`` and
``evaluation.md`` / ``.json``. Nothing is pickled. This file is the story of a run; its machinery is
the ``training`` package; ``backend: rllib`` configs run on Ray RLlib (docs/rllib.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

import numpy as np
import torch
import yaml

from agents.ppo.checkpoint import load_policy
from training import rllib
from training.batched.run import train_batched
from training.checkpoints import check_resume, read_trainer_state, run_dir_of
from training.config import OPPONENT_KINDS, ConfigError, TrainConfig, load_config, load_config_data
from training.curves import plot_learning_curve
from training.evaluate import final_evaluation
from training.sb3_trainer import train_sb3


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train a Sâm Lốc bot: masked PPO with self-play against a mix of frozen snapshots and the "
        "baseline bots (trainer: batched, our PPO on the VectorEnv, or trainer: sb3, sb3-contrib's MaskablePPO), "
        "then a duplicate evaluation against the baselines. Every config field is documented in "
        "the TrainConfig docstring (training/config.py) and in the comments of configs/*.yaml; backend: rllib "
        "configs run on Ray RLlib (docs/rllib.md).",
        epilog="examples:\n"
        "  python train.py                                   # configs/default.yaml: batched, 6M steps (README)\n"
        "  python train.py --set total_timesteps=20000 --set opponents.heuristic=0.5\n"
        "  python train.py --set pi_layers=[128,128] --set learning_rate=1e-4\n"
        "  python train.py --resume runs/RUN/checkpoints/step_000100000 --set total_timesteps=400000\n\n"
        f"config fields: {', '.join(f.name for f in fields(TrainConfig))}; "
        f"opponents.{{{','.join(OPPONENT_KINDS)}}}; rules.<any RuleConfig option>",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config", type=Path, help="YAML training config (default: configs/default.yaml; not with --resume)"
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
        metavar="CHECKPOINT_DIR",
        help="continue a run from checkpoints/step_N or final/ (its config.yaml, step count, learning-rate schedule, "
        "optimizer state, self-play pool and RNG states); --set may change e.g. total_timesteps",
    )
    parser.add_argument("--address", metavar="ADDR", help="backend: rllib: the Ray cluster to join (docs/rllib.md)")
    args = parser.parse_args(argv)
    if args.resume is not None and args.config is not None:
        parser.error("--resume reads the config saved in the checkpoint; change fields with --set instead of --config")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    # 1. The config: a file (or the checkpoint's, to resume) and --set overrides, validated as a whole.
    args = parse_args(argv)
    try:
        if args.resume is not None:
            config = load_config(args.resume / "config.yaml", args.overrides, args.address)
            trainer = read_trainer_state(args.resume)
            check_resume(args.resume, trainer, config)
        else:
            path, trainer = args.config or Path(__file__).parent / "configs" / "default.yaml", None
            if (data := load_config_data(path, args.overrides)).get("backend") == "rllib":  # on Ray RLlib
                return rllib.run(data, args.address)
            config = load_config(path, args.overrides, args.address)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    fresh_name = f"{config.name}__s{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = run_dir_of(args.resume) if args.resume is not None else Path(config.run_dir) / fresh_name
    run_name = run_dir.name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    random.seed(config.seed)
    np.random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)

    # 2-5. Train: our batched PPO on VectorEnv, or sb3-contrib's MaskablePPO on one learner seat per table.
    try:
        if config.trainer == "batched":
            final, steps, train_seconds = train_batched(config, run_dir, run_name, args.resume, trainer)
        else:
            final, steps, train_seconds = train_sb3(config, run_dir, run_name, args.resume, trainer)
    except ConfigError as err:
        print(f"error: cannot resume: {err!s}", file=sys.stderr)
        return 2

    # 6. The learning curve.
    print(f"trained {steps:,} steps in {train_seconds / 60:.1f} min; final policy: {final}")
    plot_learning_curve(run_dir, run_dir / "learning_curve.png", f"{run_name}: {steps:,} steps")

    # 7. Evaluate the final policy in duplicate against every baseline.
    if config.final_eval_deals and config.final_eval_opponents:
        report = {"run": run_name, "steps": int(steps), "train_seconds": round(train_seconds, 1)}
        label = f"ppo[{config.name}]"
        opponents, deals = config.final_eval_opponents, config.final_eval_deals
        final_evaluation(load_policy(final), label, opponents, deals, config.eval_seed, run_dir, report)
    print(f"\nlearning curve: {run_dir / 'learning_curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
