"""Checkpoints of a Q-network run (``trainer: dmc``, ``trainer: dqn``), in the folder layout every trainer shares
(:mod:`sam_env.training.checkpoints`): ``policy.*`` (the Q-network, format ``sam-env-qnet``, what bots load),
``trainer.json`` (the run's counts and evaluation history) and ``config.yaml``.

A trainer here has ``config``, ``snapshot()`` (a :class:`~sam_env.agents.networks.qnet.checkpoint.QCheckpoint`),
``num_timesteps``, ``n_updates`` and ``history`` (DMC also ``trained_decisions``). A trainer that resumes (DMC)
also has ``state_tensors()`` and ``restore()``: its optimizer's moments and torch's generator go to
``trainer.safetensors`` (their param groups to ``trainer.json``), and :func:`restore_qnet` reads them back.
Tianshou's DQN does not resume (``training.trainers`` says so to ``--resume``). Nothing is pickled.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint, save_qnet

from .checkpoints import checked_network, written_whole
from .config import ConfigError


@written_whole
def save_qnet_checkpoint(folder: Path, trainer: Any, run_name: str) -> Path:
    """Write the Q-network (``policy.*``, format ``sam-env-qnet``), the run's counts and history and its config
    (whole or not at all)."""
    snapshot = trainer.snapshot()
    policy_json = save_qnet(folder / "policy", snapshot.tensors, {**snapshot.metadata, "run_name": run_name})
    state = {
        "trainer": trainer.config.trainer,
        "num_timesteps": int(trainer.num_timesteps),
        "n_updates": trainer.n_updates,
        **({"trained_decisions": trainer.trained_decisions} if hasattr(trainer, "trained_decisions") else {}),
        "history": trainer.history,
        "run_name": run_name,
    }
    if hasattr(trainer, "state_tensors"):
        save_file(trainer.state_tensors(), str(folder / "trainer.safetensors"))
        state["optimizer_param_groups"] = trainer.optimizer.state_dict()["param_groups"]
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(trainer.config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def restore_qnet(folder: Path, state: dict[str, Any], trainer: Any) -> None:
    """Load a checkpoint folder's Q-network, optimizer, counts and history into ``trainer`` (built for
    ``state['num_timesteps']``): :class:`ConfigError` when the network is not the config's or a file is missing."""
    try:
        network = checked_network(folder, trainer.config)
        tensors = load_file(str(folder / "trainer.safetensors"))
    except (CheckpointError, OSError, SafetensorError) as err:
        raise ConfigError(f"{folder}: cannot resume: {err}") from None
    if not isinstance(network, QCheckpoint):
        raise ConfigError(f"{folder}: holds a policy network, not a Q-network; resume it with its own trainer")
    if "rng.torch" not in tensors or "optimizer_param_groups" not in state:
        raise ConfigError(
            f"{folder}: no optimizer state to resume from (trainer.json's optimizer_param_groups and "
            "trainer.safetensors' rng.torch; a checkpoint written before DMC runs resumed has neither)"
        )
    trainer.restore(network, tensors, state)
