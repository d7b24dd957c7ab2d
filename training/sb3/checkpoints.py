"""Checkpoints of an SB3 run: the policy, SB3's optimizer, the self-play pool and the RNG states.

The folder layout is the one every trainer shares (:mod:`sam_env.training.checkpoints`); ``trainer.json``
says ``"trainer": "sb3"``. Nothing is pickled.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from sb3_contrib import MaskablePPO

from sam_env.agents.networks.format import save_weights
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, policy_metadata, save_policy

from ..checkpoints import checked_policy, written_whole
from ..config import ConfigError
from .config import SB3Config


def policy_tensors(model: MaskablePPO) -> dict[str, np.ndarray]:
    """The policy's state dict as float32 numpy arrays (detached copies)."""
    return {k: v.detach().cpu().numpy().astype(np.float32, copy=True) for k, v in model.policy.state_dict().items()}


def snapshot_of(model: MaskablePPO, config: SB3Config, step: int) -> PolicyCheckpoint:
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), num_timesteps=step)
    return PolicyCheckpoint.in_memory(policy_tensors(model), meta, f"snapshot at step {step}")


@written_whole
def save_checkpoint(
    folder: Path, model: MaskablePPO, config: SB3Config, run_name: str, pool: list[tuple[int, PolicyCheckpoint]]
) -> Path:
    """Write policy, trainer state and config into ``folder`` (whole or not at all); return the policy's JSON path."""
    step = int(model.num_timesteps)
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), run_name=run_name, num_timesteps=step)
    policy_json = save_policy(folder / "policy", policy_tensors(model), meta)
    optimizer = model.policy.optimizer.state_dict()
    _, mt_key, mt_pos, mt_has_gauss, mt_gauss = np.random.get_state()
    tensors = {"rng.torch": torch.get_rng_state(), "rng.numpy": torch.from_numpy(mt_key.copy())}
    for index, state in optimizer["state"].items():
        for key, value in state.items():
            tensors[f"optimizer.{index}.{key}"] = value.detach().clone()
    for i, (_, snap) in enumerate(pool):
        for key, value in snap.tensors.items():
            tensors[f"pool.{i}.{key}"] = torch.from_numpy(value.copy())
    save_weights(tensors, folder / "trainer.safetensors", save_file)
    trainer = {
        "trainer": "sb3",
        "num_timesteps": step,
        "n_updates": int(model._n_updates),
        "optimizer_param_groups": optimizer["param_groups"],
        "pool_steps": [s for s, _ in pool],
        "rng": {"python": random.getstate(), "numpy": [int(mt_pos), int(mt_has_gauss), float(mt_gauss)]},
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(trainer) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def restore_trainer(
    folder: Path, trainer: Mapping[str, Any], model: MaskablePPO, config: SB3Config
) -> list[tuple[int, PolicyCheckpoint]]:
    """Load policy, optimizer, step count and RNG states into ``model``; return the self-play pool.

    ``trainer`` is the folder's ``trainer.json`` (:func:`~sam_env.training.checkpoints.read_trainer_state`).
    """
    policy = checked_policy(folder, config)
    try:
        tensors = load_file(str(folder / "trainer.safetensors"))
    except (OSError, SafetensorError) as err:
        raise ConfigError(
            f"{folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: {err}"
        ) from None
    model.policy.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in policy.tensors.items()})
    state: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        if key.startswith("optimizer."):
            _, index, name = key.split(".", 2)
            state.setdefault(int(index), {})[name] = value
    model.policy.optimizer.load_state_dict({"state": state, "param_groups": trainer["optimizer_param_groups"]})
    model.num_timesteps = int(trainer["num_timesteps"])
    model._n_updates = int(trainer["n_updates"])
    torch.set_rng_state(tensors["rng.torch"])
    pos, has_gauss, gauss = trainer["rng"]["numpy"]
    np.random.set_state(("MT19937", tensors["rng.numpy"].numpy(), pos, has_gauss, gauss))
    version, internal, gauss_next = trainer["rng"]["python"]
    random.setstate((version, tuple(internal), gauss_next))
    pool = []
    for i, step in enumerate(trainer["pool_steps"]):
        prefix = f"pool.{i}."
        snap = {k[len(prefix) :]: v.numpy() for k, v in tensors.items() if k.startswith(prefix)}
        meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), num_timesteps=step)
        pool.append((step, PolicyCheckpoint.in_memory(snap, meta, f"{folder} pool snapshot {i}")))
    return pool
