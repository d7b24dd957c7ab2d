"""Checkpoints of a batched run: the folder layout every trainer shares (:mod:`sam_env.training.checkpoints`).

``policy.*`` is what bots load; ``trainer.safetensors`` holds the optimizer moments, the pool's
weights and the oracle critic's (``critic: oracle``), ``trainer.json`` the step count, update
count, pool steps and evaluation history. The tables' deals and draws are not saved: a resumed run
seeds them from ``(seed, step)`` (as the SB3 path seeds its environments), so it plays fresh hands
rather than repeating the ones before. Nothing is pickled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
import yaml
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, load_policy, policy_metadata, save_policy

from ..checkpoints import load_optimizer, optimizer_tensors, written_whole
from ..config import ConfigError
from ..tables import trainer_that_wrote
from .trainer import BatchedTrainer

ORACLE = "oracle."
"""Prefix of the oracle critic's tensors in ``trainer.safetensors``."""


@written_whole
def save_batched_checkpoint(folder: Path, trainer: BatchedTrainer, run_name: str) -> Path:
    """Write policy, trainer state and config into ``folder`` (whole or not at all); return the policy's JSON path."""
    config, step = trainer.config, int(trainer.num_timesteps)
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), run_name=run_name, num_timesteps=step)
    policy_json = save_policy(folder / "policy", trainer.net.tensors(), meta)
    tensors: dict[str, torch.Tensor] = {"rng.torch": torch.get_rng_state(), **optimizer_tensors(trainer.optimizer)}
    if trainer.oracle is not None:
        for key, value in trainer.oracle.tensors().items():
            tensors[f"{ORACLE}{key}"] = torch.from_numpy(value)
    for i, (_, snap) in enumerate(trainer.pool):
        for key, value in snap.tensors.items():
            tensors[f"pool.{i}.{key}"] = torch.from_numpy(value.copy())
    save_file(tensors, str(folder / "trainer.safetensors"))
    state = {
        "trainer": config.trainer,  # batched, or ray (sam_env.training.ray_actors writes this same checkpoint)
        "num_timesteps": step,
        "n_updates": trainer.n_updates,
        "optimizer_param_groups": trainer.optimizer.state_dict()["param_groups"],
        "pool_steps": [s for s, _ in trainer.pool],
        "history": trainer.history,
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def restore_batched(folder: Path, state: Mapping[str, Any], trainer: BatchedTrainer) -> None:
    """Load policy, optimizer, step counts, pool and history into a trainer built for ``state['num_timesteps']``."""
    config = trainer.config
    if trainer_that_wrote(str(state.get("trainer"))) != config.trainer:
        raise ConfigError(f"{folder}: written by the {state.get('trainer', 'sb3')!r} trainer; resume it with that one")
    policy = load_policy(folder / "policy", n_players=config.rule_config.n_players)
    if policy.arch != config.arch:
        raise ConfigError(f"{folder}: the checkpoint's network {policy.arch} differs from the config's {config.arch}")
    try:
        tensors = load_file(str(folder / "trainer.safetensors"))
    except (OSError, SafetensorError) as err:
        raise ConfigError(f"{folder}: cannot read trainer.safetensors to resume: {err}") from None
    trainer.net.load_tensors(policy.tensors)
    oracle = {k[len(ORACLE) :]: v for k, v in tensors.items() if k.startswith(ORACLE)}
    if bool(oracle) != (trainer.oracle is not None):
        raise ConfigError(
            f"{folder}: trained with critic: {'oracle' if oracle else 'observation'}, but the config says "
            f"critic: {config.critic}; resume with the critic it was trained with"
        )
    if trainer.oracle is not None:
        trainer.oracle.load_state_dict({k: v.to(trainer.device) for k, v in oracle.items()})
    load_optimizer(trainer.optimizer, tensors, state["optimizer_param_groups"])  # moved to the device by torch
    torch.set_rng_state(tensors["rng.torch"])
    trainer.num_timesteps = int(state["num_timesteps"])
    trainer.n_updates = int(state["n_updates"])
    trainer.history = list(state.get("history", []))
    for i, step in enumerate(state["pool_steps"]):
        prefix = f"pool.{i}."
        snap = {k[len(prefix) :]: v.numpy() for k, v in tensors.items() if k.startswith(prefix)}
        meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), num_timesteps=step)
        trainer.add_to_pool(int(step), PolicyCheckpoint.in_memory(snap, meta, f"{folder} pool snapshot {i}"))
