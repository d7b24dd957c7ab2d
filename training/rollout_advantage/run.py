"""A rollout-advantage run: build the trainer (or restore it from a checkpoint), learn, save the final policy.

Checkpoints have the folder layout every trainer shares (:mod:`sam_env.training.checkpoints`): ``policy.*``
(the actor-critic, what bots load, with its lineage in ``policy.json``), ``trainer.safetensors`` (the
optimizer's moments, the advantage head and the pool's weights), ``trainer.json`` (steps, updates, pool
steps, evaluation history, lineage) and ``config.yaml``. Nothing is pickled. A resumed run seeds its
tables from ``(seed, step)``, so it plays fresh hands, and records the checkpoint it went on from as the
newest entry of its lineage (:mod:`sam_env.training.lineage`).
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import yaml
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, policy_metadata, save_policy

from ..checkpoints import (
    checked_policy,
    learn_and_save,
    load_optimizer,
    optimizer_tensors,
    read_trainer_state,
    written_whole,
)
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from ..lineage import LINEAGE, grown_from
from ..speed import report_speed
from .config import RolloutAdvantageConfig
from .trainer import RolloutAdvantageTrainer

HEAD = "advantage_head."
"""Prefix of the advantage head's tensors in ``trainer.safetensors``."""


def train(config: RolloutAdvantageConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from scratch or from the checkpoint folder ``resume``."""
    state = None if resume is None else read_trainer_state(resume)
    start = 0 if state is None else int(state["num_timesteps"])
    trainer = RolloutAdvantageTrainer(config, start, logger=tensorboard_logger(run_dir))
    if resume is not None and state is not None:
        restore(resume, state, trainer)
        where = f"{trainer.num_timesteps:,} labelled decisions"
        print(f"resuming {run_dir.name} at {where} ({len(trainer.lineage)} checkpoints in its lineage)")
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} labelled decisions, up to {config.max_moves} moves rolled out "
        f"each, {config.num_tables} tables; logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, run_dir, save_checkpoint)
    if trainer.stopped_early:
        where = f"{trainer.num_timesteps:,} labelled decisions"
        print(f"stopped at chunk_minutes = {config.chunk_minutes} after {where}; go on: --resume {run_dir / 'final'}")
    labeller = trainer.collector.labeller
    report_speed(
        trainer,
        run_dir,
        "labelled decisions",
        num_tables=config.num_tables,
        rollout_tables=config.rollout_tables,
        copies_rolled_out=labeller.copies,
        rollout_moves=labeller.moves,
    )
    return TrainResult(final, trainer.num_timesteps, seconds)


@written_whole
def save_checkpoint(folder: Path, trainer: RolloutAdvantageTrainer, run_name: str) -> Path:
    """Write policy, trainer state and config into ``folder`` (whole or not at all); return the policy's JSON path."""
    config, step = trainer.config, int(trainer.num_timesteps)
    extra = {"run_name": run_name, "num_timesteps": step, LINEAGE: trainer.lineage}
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), **extra)
    policy_json = save_policy(folder / "policy", trainer.net.tensors(), meta)
    tensors: dict[str, torch.Tensor] = {"rng.torch": torch.get_rng_state(), **optimizer_tensors(trainer.optimizer)}
    for key, value in trainer.head.tensors().items():
        tensors[f"{HEAD}{key}"] = torch.from_numpy(value)
    for i, (_, snap) in enumerate(trainer.pool):
        for key, value in snap.tensors.items():
            tensors[f"pool.{i}.{key}"] = torch.from_numpy(value.copy())
    save_file(tensors, str(folder / "trainer.safetensors"))
    state = {
        "trainer": config.trainer,
        "num_timesteps": step,
        "n_updates": trainer.n_updates,
        "optimizer_param_groups": trainer.optimizer.state_dict()["param_groups"],
        "pool_steps": [s for s, _ in trainer.pool],
        "history": trainer.history,
        "run_name": run_name,
        LINEAGE: trainer.lineage,
    }
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def restore(folder: Path, state: dict, trainer: RolloutAdvantageTrainer) -> None:
    """Load policy, head, optimizer, counts, pool and history into a trainer built for ``state['num_timesteps']``;
    the checkpoint becomes the newest entry of the trainer's lineage."""
    config = trainer.config
    if state.get("trainer") != config.trainer:
        raise ConfigError(f"{folder}: written by the {state.get('trainer', 'sb3')!r} trainer; resume it with that one")
    policy = checked_policy(folder, config)
    try:
        tensors = load_file(str(folder / "trainer.safetensors"))
    except (OSError, SafetensorError) as err:
        raise ConfigError(f"{folder}: cannot read trainer.safetensors to resume: {err}") from None
    trainer.net.load_tensors(policy.tensors)
    head = {k[len(HEAD) :]: v for k, v in tensors.items() if k.startswith(HEAD)}
    try:
        trainer.head.load_state_dict(head)
    except RuntimeError as err:
        raise ConfigError(f"{folder}: the advantage head does not fit the config's adv_layers: {err}") from None
    load_optimizer(trainer.optimizer, tensors, state["optimizer_param_groups"])
    torch.set_rng_state(tensors["rng.torch"])
    trainer.num_timesteps = int(state["num_timesteps"])
    trainer.n_updates = int(state["n_updates"])
    trainer.history = list(state.get("history", []))
    trainer.lineage = grown_from(policy, "resume")
    for i, step in enumerate(state["pool_steps"]):
        prefix = f"pool.{i}."
        snap = {k[len(prefix) :]: v.numpy() for k, v in tensors.items() if k.startswith(prefix)}
        meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), num_timesteps=step)
        trainer.add_to_pool(int(step), PolicyCheckpoint.in_memory(snap, meta, f"{folder} pool snapshot {i}"))
    trainer.players.set_learner(trainer.compiled())
