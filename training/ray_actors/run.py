"""A Ray run: start or join Ray, build the learner and its env runners, learn, save, shut Ray down.

``train.py`` calls :func:`train` (the registry's ``train_batched`` picks it) for batched configs with
``tables: ray``. Ray is started locally on
``num_cpus`` CPUs, or joined at ``train.py --address`` / ``RAY_ADDRESS`` (a cluster made with
``ray start``, docs/rllib.md), and always shut down, also on an error, so no Ray process of a local
run outlives it. Checkpoints are the batched trainer's (:mod:`sam_env.training.batched.state`), so
``--resume`` continues a Ray run as it continues a local one.
"""

from __future__ import annotations

from pathlib import Path

import ray

from sam_env import N_ACTIONS, VectorEnv

from ..batched.config import BatchedConfig
from ..batched.run import build_trainer
from ..batched.state import save_batched_checkpoint
from ..checkpoints import learn_and_save
from ..common.ray_cluster import check_cpus, start_ray
from ..config import TrainResult
from ..speed import report_speed
from .learner import RayTrainer


def object_store_bytes(config: BatchedConfig) -> int:
    """Object store of a local Ray: room for two rollouts of every runner (one being read, one arriving); start_ray
    keeps it between 200 MiB and 2 GiB (Ray spills to disk beyond it)."""
    tables = VectorEnv(1, config.rule_config)
    hidden = tables.hidden_size if config.critic == "oracle" else 0
    row = 4 * (tables.observation_size + hidden) + N_ACTIONS + 64  # a decision's bytes: floats, mask, scalars
    rollout = config.num_tables * config.n_steps * row  # at most: every table step a learner decision
    return 2 * config.table_workers * rollout


def train(config: BatchedConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    check_cpus(config.table_workers, config.num_cpus)
    where = start_ray(config.num_cpus, object_store_bytes(config))
    try:
        trainer = build_trainer(RayTrainer, config, run_dir, resume)
        nodes = trainer.collector.nodes()
        print(
            f"run {run_dir.name}: {config.total_timesteps:,} learner steps, {config.table_workers} env runner(s) x "
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
        table_workers=config.table_workers,
        num_tables_per_env_runner=config.num_tables,
        env_runner_nodes=nodes,
        learner_device=str(trainer.device),
    )
    return TrainResult(final, trainer.num_timesteps, seconds)
