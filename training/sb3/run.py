"""An SB3 run: sb3-contrib's MaskablePPO with one learner seat per table, from scratch or from a checkpoint."""

from __future__ import annotations

import time
from pathlib import Path

from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import ConstantSchedule, LinearSchedule

from sam_env.agents.networks.policy.sb3 import policy_kwargs

from ..checkpoints import read_trainer_state
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from .callback import TrainingSchedule
from .checkpoints import restore_trainer, save_checkpoint, snapshot_of
from .config import SB3Config
from .opponents import make_vec_env

HYPER_PARAMETERS = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef")
HYPER_PARAMETERS += ("max_grad_norm", "target_kl", "seed")
"""Config fields passed to ``MaskablePPO`` under their own names."""


def train(config: SB3Config, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    run_name = run_dir.name
    trainer = None if resume is None else read_trainer_state(resume)
    start_step = 0 if trainer is None else int(trainer["num_timesteps"])
    vec_env = make_vec_env(config, start_step)
    learning_rate = (
        ConstantSchedule(config.learning_rate)
        if config.learning_rate_end is None
        else LinearSchedule(config.learning_rate, config.learning_rate_end, 1.0)
    )
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=learning_rate,
        policy_kwargs=policy_kwargs(config.arch),
        device="cpu",
        verbose=0,
        **{k: getattr(config, k) for k in HYPER_PARAMETERS},
    )
    model.set_logger(tensorboard_logger(run_dir))
    # The self-play pool: restored with the rest of the trainer state, or the untrained policy.
    if resume is not None and trainer is not None:
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
        schedule.speed.write(run_dir, config.trainer, n_envs=config.n_envs, vec_env=config.vec_env)
    train_seconds = time.perf_counter() - started
    vec_env.close()
    final = save_checkpoint(run_dir / "final", model, config, run_name, pool)
    return TrainResult(final, model.num_timesteps, train_seconds)
