"""``python train.py``, top to bottom: the config, the run folder and its seeds, the trainer's own loop, the
final evaluation in duplicate and the learning curve (``train.py``'s docstring tells the story of a run).

The steps live here, in the installed package, so that ``train.py`` stays a script a user runs and its
tests import :func:`main` by its module name.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import yaml

from sam_env.agents.networks.catalogue import load_network

from .checkpoints import check_resume, read_trainer_state, resume_folder, run_dir_of
from .cli import parse_args
from .config import ConfigError
from .curves import FinalEvaluation, plot_learning_curve
from .evaluate import final_evaluation
from .tables import uses_ray
from .trainers import TRAINERS, load_config

DEFAULT_CONFIG = "default"
"""The shipped recipe ``configs/default.yaml``, by name: found wherever sam-env is installed."""


def main(argv: Sequence[str] | None = None) -> int:
    # 1. The config: a file (or the checkpoint's, to resume) and --set overrides, validated as a whole;
    #    its trainer: key picks the trainer. A deprecated key is the user's to fix, so its warning shows.
    args = parse_args(argv)
    try:
        if args.resume is not None:  # a run folder resumes from its last whole checkpoint
            named, args.resume = args.resume, resume_folder(args.resume)
            if args.resume != named:
                print(f"resuming {named} from its last whole checkpoint, {args.resume}")
        with warnings.catch_warnings():
            warnings.simplefilter("default", DeprecationWarning)
            if args.resume is not None:
                config = load_config(args.resume / "config.yaml", args.overrides, saved=True)
            else:
                config = load_config(args.config or DEFAULT_CONFIG, args.overrides)
        trainer = TRAINERS[config.trainer]
        if args.resume is not None:
            if not trainer.resumes:
                raise ConfigError(
                    f"trainer: {config.trainer} runs cannot be resumed yet; start a new run with --config "
                    "(trainers dmc and batched resume, with tables: ray too: docs/rllib.md)"
                )
            check_resume(args.resume, read_trainer_state(args.resume), config)
        if args.address is not None:
            if not uses_ray(config):
                raise ConfigError(
                    "--address is for configs that run on Ray (a Ray cluster): tables: ray (trainers dmc and batched) "
                    "or trainer: rllib"
                )
            os.environ["RAY_ADDRESS"] = args.address  # what Ray joins (docs/rllib.md)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    fresh_name = f"{config.name}__s{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = run_dir_of(args.resume) if args.resume is not None else Path(config.run_dir) / fresh_name
    run_name = run_dir.name
    fresh = not run_dir.exists()
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    random.seed(config.seed)
    np.random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)

    # 2-5. Train: environments, model, learning with self-play, checkpoints — the trainer's own loop.
    try:
        result = trainer.train(config, run_dir, args.resume)
    except ConfigError as err:
        if fresh and not any((run_dir / kept).exists() for kept in ("checkpoints", "final")):
            shutil.rmtree(run_dir, ignore_errors=True)  # a run its trainer refused never started: leave no trace
        print(f"error: {err}", file=sys.stderr)
        return 2

    # 6. Evaluate the final policy in duplicate against every baseline.
    print(f"trained {result.steps:,} steps in {result.seconds / 60:.1f} min; final policy: {result.policy}")
    final = None
    if config.final_eval_deals and config.final_eval_opponents:
        report = {"run": run_name, "steps": int(result.steps), "train_seconds": round(result.seconds, 1)}
        opponents, deals = config.final_eval_opponents, config.final_eval_deals
        summaries = final_evaluation(
            load_network(result.policy), config.policy_label, opponents, deals, config.eval_seed, run_dir, report
        )
        by_opponent = dict(zip(opponents, summaries, strict=True))
        final = FinalEvaluation(int(result.steps), by_opponent["heuristic"]) if "heuristic" in by_opponent else None

    # 7. The learning curve, from the run's TensorBoard events (an rllib run logs progress.jsonl instead),
    #    ending at the final evaluation.
    curve = run_dir / "learning_curve.png"
    if plot_learning_curve(run_dir, curve, f"{run_name}: {result.steps:,} steps", final):
        print(f"\nlearning curve: {curve}")
    return 0
