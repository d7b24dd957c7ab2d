"""Checkpoints of a Q-network run (``trainer: dmc``, ``trainer: dqn``), in the folder layout every trainer shares
(:mod:`sam_env.training.checkpoints`): ``policy.*`` (the Q-network, format ``sam-env-qnet``, what bots load),
``trainer.json`` (the run's counts and evaluation history) and ``config.yaml``.

A trainer here has ``config``, ``snapshot()`` (a :class:`~sam_env.agents.qnet.checkpoint.QCheckpoint`),
``num_timesteps``, ``n_updates`` and ``history`` (DMC also ``trained_decisions``). Neither trainer resumes
(``training.trainers`` says so to ``--resume``), so nothing else is saved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from sam_env.agents.qnet.checkpoint import save_qnet

from .checkpoints import written_whole


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
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(trainer.config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json
