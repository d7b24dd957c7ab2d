"""Checkpoints of an expert-iteration run, in the layout every trainer shares (:mod:`sam_env.training.checkpoints`).

``policy.*`` is what bots load; ``trainer.safetensors`` holds Adam's moments and the replay buffer
(the targets of the last ``buffer_iterations`` iterations: a few MB each), ``trainer.json`` the
step, iteration and decision counts, the evaluation history and the seconds spent. With the
network's weights that is everything an iteration reads — its tables and generators are seeded
from ``(seed, iteration)`` — so a resumed run trains exactly what the uninterrupted run would
have. Nothing is pickled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from sam_env.agents.networks.policy.checkpoint import policy_metadata, save_policy

from ..checkpoints import checked_policy, load_optimizer, optimizer_tensors, written_whole
from ..config import ConfigError
from .distill import Samples
from .trainer import ExpertTrainer

BUFFER = "buffer."


@written_whole
def save_expert_checkpoint(folder: Path, trainer: ExpertTrainer, run_name: str) -> Path:
    """Write policy, trainer state and config into ``folder`` (whole or not at all); return the policy's JSON path."""
    config, step = trainer.config, int(trainer.num_timesteps)
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), run_name=run_name, num_timesteps=step)
    policy_json = save_policy(folder / "policy", trainer.net.tensors(), meta)
    tensors = optimizer_tensors(trainer.optimizer)
    for i, samples in enumerate(trainer.buffer):
        for key, value in samples.arrays().items():
            tensors[f"{BUFFER}{i}.{key}"] = torch.from_numpy(np.ascontiguousarray(value))
    save_file(tensors, str(folder / "trainer.safetensors"))
    state = {
        "trainer": "expert",
        "num_timesteps": step,
        "iteration": trainer.iteration,
        "searched_decisions": trainer.searched,
        "buffer_iterations": len(trainer.buffer),
        "optimizer_param_groups": trainer.optimizer.state_dict()["param_groups"],
        "history": trainer.history,
        "seconds": trainer.seconds,
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def restore_expert(folder: Path, state: Mapping[str, Any], trainer: ExpertTrainer) -> None:
    """Load the network, optimizer, buffer, counts and history of a checkpoint into a new trainer."""
    if state.get("trainer") != "expert":
        raise ConfigError(f"{folder}: written by the {state.get('trainer', 'sb3')!r} trainer; resume it with that one")
    policy = checked_policy(folder, trainer.config)
    try:
        tensors = load_file(str(folder / "trainer.safetensors"))
    except (OSError, SafetensorError) as err:
        raise ConfigError(f"{folder}: cannot read trainer.safetensors to resume: {err}") from None
    trainer.net.load_tensors(policy.tensors)
    load_optimizer(trainer.optimizer, tensors, state["optimizer_param_groups"])
    for group in trainer.optimizer.param_groups:
        group["lr"] = trainer.config.learning_rate  # the config's (a resume may --set another)
    names = [f.name for f in fields(Samples)]
    buffer = []
    for i in range(int(state["buffer_iterations"])):
        try:
            buffer.append(Samples(**{k: tensors[f"{BUFFER}{i}.{k}"].numpy() for k in names}))
        except KeyError as err:
            raise ConfigError(f"{folder}: trainer.safetensors lacks the buffer's {err.args[0]}") from None
    keep = trainer.config.buffer_iterations
    trainer.buffer = buffer[-keep:]
    trainer.num_timesteps = int(state["num_timesteps"])
    trainer.iteration = int(state["iteration"])
    trainer.searched = int(state["searched_decisions"])
    trainer.history = list(state.get("history", []))
    trainer.seconds.update(state.get("seconds", {}))
