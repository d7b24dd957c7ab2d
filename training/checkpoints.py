"""Checkpoints of a run, shared by the trainers that resume: finding and checking one before ``--resume``.

A checkpoint folder (``checkpoints/step_N/`` or ``final/``) holds ``policy.*`` (what bots load),
``trainer.*`` (optimizer moments, self-play pool and RNG states: ``trainer.json`` says which trainer
wrote it, ``sb3`` when it does not) and the run's ``config.yaml``. Each trainer writes and restores
its own (``training/sb3/checkpoints.py``, ``training/batched/state.py``). Nothing is pickled:
tensors are safetensors, everything else JSON or YAML.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from safetensors import SafetensorError, safe_open
from sam_env.agents.ppo.checkpoint import CheckpointError, PolicyCheckpoint, load_policy

from .config import ConfigError, RunConfig


def read_trainer_state(folder: Path) -> dict[str, Any]:
    """The ``trainer.json`` of a checkpoint folder, checked before a resumed run writes anything."""
    try:
        trainer = json.loads((folder / "trainer.json").read_text(encoding="utf-8"))
        int(trainer["num_timesteps"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ConfigError(
            f"{folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: {err!r}; "
            "expected a folder checkpoints/step_N or final/ written by train.py"
        ) from None
    return trainer


def check_resume(folder: Path, trainer: Mapping[str, Any], config: RunConfig) -> None:
    """Refuse a resume that cannot or should not run, before anything is written.

    Resuming writes into the checkpoint's run (``final/``, ``config.yaml``, TensorBoard events), so
    everything the trainer's restore needs is checked first: the trainer that wrote it, steps left
    to train (a total at or below the steps already done would only overwrite the run's results
    with a copy), a policy that loads and has the config's network and table, and a readable
    ``trainer.safetensors``.
    """
    written = trainer.get("trainer", "sb3")
    if written != config.trainer:
        raise ConfigError(
            f"{folder}: written by the {written!r} trainer, but its config says trainer: {config.trainer}"
        )
    done = int(trainer["num_timesteps"])
    if config.total_timesteps <= done:
        raise ConfigError(
            f"{folder} is at step {done:,} and total_timesteps is {config.total_timesteps:,}: nothing left to train, "
            f"and resuming would overwrite the run's final/ and config.yaml; raise the total, e.g. "
            f"--set total_timesteps={2 * done}, or start a new run with --config"
        )
    try:
        checked_policy(folder, config)
        with safe_open(str(folder / "trainer.safetensors"), framework="pt") as trainer_tensors:
            trainer_tensors.keys()
    except CheckpointError as err:
        raise ConfigError(f"cannot resume: {err}") from None
    except (OSError, SafetensorError) as err:
        raise ConfigError(
            f"cannot resume: {folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: "
            f"{err}"
        ) from None


def checked_policy(folder: Path, config: RunConfig) -> PolicyCheckpoint:
    """The checkpoint's policy, refused unless it has the config's network (and table)."""
    policy = load_policy(folder / "policy", n_players=config.rule_config.n_players)
    if policy.arch != config.arch:
        raise ConfigError(f"{folder}: the checkpoint's network {policy.arch} differs from the config's {config.arch}")
    return policy


def run_dir_of(checkpoint: Path) -> Path:
    """The run folder a checkpoint belongs to: ``<run>/checkpoints/step_N`` or ``<run>/final``."""
    folder = checkpoint.resolve()
    return folder.parent.parent if folder.parent.name == "checkpoints" else folder.parent
