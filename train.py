"""Train a Sâm Lốc bot with MaskablePPO and self-play, then evaluate it in duplicate against the baselines.

    python train.py                                     # configs/default.yaml: ~10 minutes on 2 CPU cores
    python train.py --config configs/shipped.yaml       # the run that made agents/pretrained/ppo.*
    python train.py --set total_timesteps=20000 --set opponents.heuristic=0.5
    python train.py --resume runs/<run>/final --set total_timesteps=900000

One learner seat (a different seat every hand) plays :class:`sam_env.SingleAgentEnv` against three
opponents drawn afresh for every hand and every seat from a mix set by the config: frozen snapshots
of the learner itself (a pool refreshed every ``snapshot_every`` steps, at most ``pool_size`` kept)
and the baseline bots ``random``, ``greedy`` and ``heuristic``. Every ``eval_every`` steps the current
policy plays a small duplicate tournament against the heuristic bot (``evaluation``). At the end the
final policy is evaluated against every baseline and the table, with 95 % confidence intervals, is
printed.

Everything a run writes goes to ``runs/<name>__s<seed>__<time>/``:

* ``events.out.tfevents.*`` — TensorBoard: ``charts/…`` (money per hand in X, pool, speed),
  ``train/…`` (SB3's losses, entropy, KL, clip fraction, learning rate), ``rollout/…`` (SB3's episode
  stats, in scaled reward), ``eval/…`` (duplicate X per hand against the heuristic, with its CI),
  ``perf/…`` (seconds spent in rollouts, updates, evaluations and in each kind of opponent);
* ``checkpoints/step_N/`` and ``final/`` — ``policy.safetensors`` + ``policy.json`` (what
  ``agents.ppo.bot.PPOBot`` loads), ``trainer.safetensors`` + ``trainer.json`` (optimizer moments,
  self-play pool and RNG states, for ``--resume``) and ``config.yaml``;
* ``learning_curve.png`` and ``evaluation.md`` / ``evaluation.json`` (the final evaluation).

Nothing is pickled: weights and optimizer state are safetensors, everything else JSON or YAML.
This file is the story of a run; its machinery (config, opponents, checkpoints, schedule,
evaluations, curves) is the ``training`` package; ``backend: rllib`` configs run on Ray (docs/rllib.md).
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
from training import rllib
from training.checkpoints import (
    check_resume,
    read_trainer_state,
    restore_trainer,
    run_dir_of,
    save_checkpoint,
    snapshot_of,
)
from training.config import OPPONENT_KINDS, ConfigError, TrainConfig, load_config, load_config_data
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
        "  python train.py                                   # configs/default.yaml (7-8 min on 2 idle cores)\n"
        "  python train.py --set total_timesteps=20000 --set opponents.heuristic=0.5\n"
        "  python train.py --set pi_layers=[128,128] --set learning_rate=1e-4\n"
        "  python train.py --resume runs/RUN/final --set total_timesteps=900000\n\n"
        f"config fields: {', '.join(f.name for f in fields(TrainConfig))}; "
        f"opponents.{{{','.join(OPPONENT_KINDS)}}}; rules.<any RuleConfig option>",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", type=Path, help="YAML training config (default: configs/default.yaml)")
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
            path = args.config or Path(__file__).parent / "configs" / "default.yaml"
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

    # 2. Seeds, then the learner's tables: opponents and deals of a resumed run are seeded from its step.
    random.seed(config.seed)
    np.random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    start_step = 0 if args.resume is None else int(trainer["num_timesteps"])
    vec_env = make_vec_env(config, start_step)

    # 3. The algorithm: sb3-contrib's MaskablePPO, every hyperparameter from the config.
    learning_rate = (
        ConstantSchedule(config.learning_rate)
        if config.learning_rate_end is None
        else LinearSchedule(config.learning_rate, config.learning_rate_end, 1.0)
    )
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        max_grad_norm=config.max_grad_norm,
        target_kl=config.target_kl,
        policy_kwargs=policy_kwargs(config.arch),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    model.set_logger(configure(str(run_dir), ["tensorboard"]))

    # 4. The self-play pool: restored with the rest of the trainer state, or the untrained policy.
    if args.resume is not None:
        try:
            pool = restore_trainer(args.resume, trainer, model, config)
        except (ConfigError, ValueError, KeyError) as err:
            print(f"error: cannot resume: {err!s}", file=sys.stderr)
            return 2
        print(f"resuming {run_name} at step {model.num_timesteps:,} with {len(pool)} snapshots in the pool")
    else:
        pool = [(0, snapshot_of(model, config, 0))]  # seats drawn as self-play before the first refresh
    for _, snapshot in pool:
        vec_env.env_method("add_snapshot", snapshot)

    # 5. Learn, with snapshots, evaluations and checkpoints on the schedule.
    print(f"run {run_name}: {config.total_timesteps:,} steps, {config.n_envs} envs ({config.vec_env}); logs: {run_dir}")
    started = time.perf_counter()
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        schedule = TrainingSchedule(config, run_dir, run_name, pool)
        model.learn(total_timesteps=remaining, callback=schedule, reset_num_timesteps=args.resume is None)
    train_seconds = time.perf_counter() - started
    vec_env.close()

    # 6. Save the final policy and the learning curve.
    final = save_checkpoint(run_dir / "final", model, config, run_name, pool)
    print(f"trained {model.num_timesteps:,} steps in {train_seconds / 60:.1f} min; final policy: {final}")
    plot_learning_curve(run_dir, run_dir / "learning_curve.png", f"{run_name}: {model.num_timesteps:,} steps")

    # 7. Evaluate the final policy in duplicate against every baseline.
    if config.final_eval_deals and config.final_eval_opponents:
        report = {"run": run_name, "steps": int(model.num_timesteps), "train_seconds": round(train_seconds, 1)}
        opponents, deals = config.final_eval_opponents, config.final_eval_deals
        final_evaluation(load_policy(final), f"ppo[{config.name}]", opponents, deals, config.eval_seed, run_dir, report)
    print(f"\nlearning curve: {run_dir / 'learning_curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
