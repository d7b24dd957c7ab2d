"""A Ray run: start or join Ray, build the learner and its env runners, learn, save, shut Ray down.

``train.py`` calls :func:`train` for configs with ``trainer: ray``. Ray is started locally on
``num_cpus`` CPUs, or joined at ``train.py --address`` / ``RAY_ADDRESS`` (a cluster made with
``ray start``, docs/rllib.md), and always shut down, also on an error, so no Ray process of a local
run outlives it. Checkpoints are the batched trainer's (:mod:`sam_env.training.batched.state`), so
``--resume`` continues a Ray run as it continues a local one.
"""

from __future__ import annotations

import os
from pathlib import Path

import ray

from sam_env import N_ACTIONS, VectorEnv

from ..batched.run import build_trainer
from ..batched.state import save_batched_checkpoint
from ..checkpoints import learn_and_save
from ..config import ConfigError, TrainResult
from ..speed import report_speed
from .config import RayConfig
from .learner import RayTrainer

MIN_OBJECT_STORE = 200 * 1024**2
MAX_OBJECT_STORE = 2 * 1024**3


def object_store_bytes(config: RayConfig) -> int:
    """Object store of a local Ray: room for two rollouts of every runner (one being read, one arriving),
    between 200 MiB and 2 GiB (Ray spills to disk beyond it)."""
    tables = VectorEnv(1, config.rule_config)
    hidden = tables.hidden_size if config.critic == "oracle" else 0
    row = 4 * (tables.observation_size + hidden) + N_ACTIONS + 64  # a decision's bytes: floats, mask, scalars
    rollout = config.num_tables * config.n_steps * row  # at most: every table step a learner decision
    return int(min(MAX_OBJECT_STORE, max(MIN_OBJECT_STORE, 2 * config.num_env_runners * rollout)))


def start_ray(config: RayConfig) -> str:
    """Join the cluster at ``RAY_ADDRESS`` (``train.py --address`` sets it), else start a local Ray on
    ``num_cpus`` CPUs; return where the run is."""
    address = os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address)
        return f"the Ray cluster at {address}"
    # "local": a new Ray even where a `ray start` cluster runs on this machine (None would join it).
    ray.init(
        address="local",
        num_cpus=config.num_cpus,
        include_dashboard=False,
        object_store_memory=object_store_bytes(config),
    )
    return f"a local Ray on {config.num_cpus} CPUs"


def train(config: RayConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    if not os.environ.get("RAY_ADDRESS") and config.num_env_runners > config.num_cpus:
        # Ray would wait forever for the CPUs of the missing actors.
        raise ConfigError(
            f"{config.num_env_runners} env runners need {config.num_env_runners} CPUs of the local Ray, "
            f"but num_cpus = {config.num_cpus}; add --set num_cpus={config.num_env_runners}, or join a cluster "
            "with --address"
        )
    where = start_ray(config)
    try:
        trainer = build_trainer(RayTrainer, config, run_dir, resume)
        nodes = trainer.collector.nodes()
        print(
            f"run {run_dir.name}: {config.total_timesteps:,} learner steps, {config.num_env_runners} env runner(s) x "
            f"{config.num_tables} tables on {len(set(nodes))} node(s) of {where}, learner on {trainer.device}; "
            f"logs in {run_dir}"
        )
        final, seconds = learn_and_save(trainer, run_dir, save_batched_checkpoint, config.total_timesteps)
    finally:
        ray.shutdown()
    report_speed(
        trainer,
        run_dir,
        split="time split (runners' mean)",
        num_env_runners=config.num_env_runners,
        num_tables_per_env_runner=config.num_tables,
        env_runner_nodes=nodes,
        learner_device=str(trainer.device),
    )
    return TrainResult(final, trainer.num_timesteps, seconds)
