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
the ``training`` package.
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
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure
from stable_baselines3.common.utils import ConstantSchedule, LinearSchedule

from agents.ppo.checkpoint import load_policy
from agents.ppo.sb3 import policy_kwargs
from training.batched.run import train_batched
from training.checkpoints import read_trainer_state, restore_trainer, run_dir_of, save_checkpoint, snapshot_of
from training.config import OPPONENT_KINDS, ConfigError, TrainConfig, load_config
from training.curves import plot_learning_curve
from training.evaluate import final_evaluation
from training.opponents import make_vec_env
from training.schedule import TrainingSchedule


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train a Sâm Lốc bot: MaskablePPO with self-play against a mix of frozen snapshots and the "
        "baseline bots, then a duplicate evaluation against the baselines. Every config field is documented in "
        "the TrainConfig docstring (training/config.py) and in the comments of configs/*.yaml.",
        epilog="examples:\n"
        "  python train.py                                   # configs/default.yaml (~10 min on 2 cores)\n"
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
    args = parser.parse_args(argv)
    if args.resume is not None and args.config is not None:
        parser.error("--resume reads the config saved in the checkpoint; change fields with --set instead of --config")
    return args


def train_sb3(
    config: TrainConfig, run_dir: Path, run_name: str, resume: Path | None, trainer: dict | None
) -> tuple[Path, int, float]:
    """sb3-contrib's MaskablePPO, one learner seat per table against the opponent mix."""
    start_step = 0 if trainer is None else int(trainer["num_timesteps"])
    vec_env = make_vec_env(config, start_step)
    learning_rate = (
        ConstantSchedule(config.learning_rate)
        if config.learning_rate_end is None
        else LinearSchedule(config.learning_rate, config.learning_rate_end, 1.0)
    )
    hyper = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef")
    hyper += ("max_grad_norm", "target_kl", "seed")
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=learning_rate,
        policy_kwargs=policy_kwargs(config.arch),
        device="cpu",
        verbose=0,
        **{k: getattr(config, k) for k in hyper},
    )
    model.set_logger(configure(str(run_dir), ["tensorboard"]))
    # The self-play pool: restored with the rest of the trainer state, or the untrained policy.
    if resume is not None:
        try:
            pool = restore_trainer(resume, trainer, model, config)
        except (ValueError, KeyError) as err:
            raise ConfigError(str(err)) from None
        print(f"resuming {run_name} at step {model.num_timesteps:,} with {len(pool)} snapshots in the pool")
    else:
        pool = [(0, snapshot_of(model, config, 0))]  # seats drawn as self-play before the first refresh
    for _, snapshot in pool:
        vec_env.env_method("add_snapshot", snapshot)
    print(
        f"run {run_name}: {config.total_timesteps:,} steps, {config.n_envs} envs ({config.vec_env}); logs in {run_dir}"
    )
    started = time.perf_counter()
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        schedule = TrainingSchedule(config, run_dir, run_name, pool)
        model.learn(total_timesteps=remaining, callback=schedule, reset_num_timesteps=resume is None)
    train_seconds = time.perf_counter() - started
    vec_env.close()
    return save_checkpoint(run_dir / "final", model, config, run_name, pool), model.num_timesteps, train_seconds


def main(argv: Sequence[str] | None = None) -> int:
    # 1. The config: a file (or the checkpoint's, to resume) and --set overrides, validated as a whole.
    args = parse_args(argv)
    try:
        if args.resume is not None:
            config = load_config(args.resume / "config.yaml", args.overrides)
            trainer = read_trainer_state(args.resume)
        else:
            config, trainer = (
                load_config(args.config or Path(__file__).parent / "configs" / "default.yaml", args.overrides),
                None,
            )
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.resume is not None:
        run_dir = run_dir_of(args.resume)
        run_name = run_dir.name
    else:
        run_name = f"{config.name}__s{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(config.run_dir) / run_name
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
