"""Train a Sâm Lốc bot by self-play, then evaluate it in duplicate against the baselines.

    python train.py                                     # configs/default.yaml: batched self-play, 3M steps
    python train.py --config sb3                        # a recipe by name: sb3-contrib MaskablePPO against Python bots
    python train.py --config path/to/my_run.yaml        # a config file
    python train.py --set total_timesteps=2000000 --set rules.n_players=3
    python train.py --resume runs/<run> [--set total_timesteps=400000]   # its last whole checkpoint

The trainers, chosen by the config's ``trainer:`` key, are each a folder of ``training/`` with one entry
point, ``train(config, run_dir, resume)`` (``sam_env.training.trainers``):

* ``batched`` (the default, ``sam_env.training.batched``): thousands of tables of :class:`sam_env.VectorEnv`
  at once; the learner holds a share of the seats with one network for all of them, frozen
  snapshots of it and compiled bots the others; every step is one forward pass per network; masked
  PPO along each seat's trajectory.
* ``sb3`` (``sam_env.training.sb3``): one learner seat (a different one every hand) plays
  :class:`sam_env.SingleAgentEnv` with sb3-contrib's MaskablePPO against opponents drawn per hand and
  seat from snapshots and the ``random``, ``greedy`` and ``heuristic`` bots.
* ``ray`` (``sam_env.training.ray_actors``, the ``rllib`` extra): the batched trainer on Ray, its tables in env runner
  actors on one machine or a cluster (``--address``, docs/rllib.md); the same configs and checkpoints.
* ``rllib`` (``sam_env.training.rllib``, the ``rllib`` extra): multi-agent PPO on Ray RLlib, every seat a
  module, on one machine or a cluster (``--address``, docs/rllib.md).
* ``expert`` (``sam_env.training.expert``): expert iteration — a determinized search over the network, batched
  over the decisions of many ``VectorEnv`` tables, is distilled into it (cross-entropy to the search's
  move, squared error to its value), and the new network plays the next search's rollouts
  (docs/expert_iteration.md).

Along the way a run evaluates the policy in small duplicate tournaments (``evaluation``); at the end
it is evaluated against every baseline and the table, with 95 % confidence intervals, is printed.
A run writes to ``runs/<name>__s<seed>__<time>/``: ``config.yaml``, the trainer's logs (TensorBoard
events: ``charts/``, ``train/``, ``eval/``, ``perf/`` — where the time went), ``checkpoints/step_N/``
and ``final/`` (``policy.*`` for ``load_bot(path)``, ``trainer.*`` for ``--resume``, ``config.yaml``),
``learning_curve.png`` and ``evaluation.md`` / ``.json``. Nothing is pickled. This file is the story
of a run; its machinery is the ``training`` package.
"""

from __future__ import annotations

import os
import random
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import yaml
from sam_env.agents.registry import load_network
from sam_env.training.checkpoints import check_resume, read_trainer_state, resume_folder, run_dir_of
from sam_env.training.cli import parse_args
from sam_env.training.config import ConfigError
from sam_env.training.curves import FinalEvaluation, plot_learning_curve
from sam_env.training.evaluate import final_evaluation
from sam_env.training.trainers import TRAINERS, load_config

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
                    "(trainer: ray, the batched trainer on Ray, resumes: docs/rllib.md)"
                )
            check_resume(args.resume, read_trainer_state(args.resume), config)
        if args.address is not None:
            if not trainer.on_ray:
                on_ray = " or ".join(name for name, t in TRAINERS.items() if t.on_ray)
                raise ConfigError(f"--address is for configs with trainer: {on_ray} (a Ray cluster)")
            os.environ["RAY_ADDRESS"] = args.address  # what Ray joins (docs/rllib.md)
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

    # 2-5. Train: environments, model, learning with self-play, checkpoints — the trainer's own loop.
    try:
        result = trainer.train(config, run_dir, args.resume)
    except ConfigError as err:
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


if __name__ == "__main__":
    sys.exit(main())
