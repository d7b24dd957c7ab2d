"""What a Q-network run (``trainer: dmc``, ``trainer: dqn``) does around its trainer's loop: checkpoints on the
way, each kept whole, the final network, the time split and ``speed.json``.

The two trainers differ in how they play and learn; the run around them is one. A trainer here has
``config``, ``learn(on_checkpoint=, label=)``, ``snapshot()`` (a :class:`~sam_env.agents.qnet.checkpoint.QCheckpoint`),
``num_timesteps``, ``n_updates``, ``history``, ``seconds`` (the time split) and ``speed``. Neither resumes
(``training.trainers`` says so to ``--resume``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml
from sam_env.agents.qnet.checkpoint import save_qnet

from .checkpoints import prune_checkpoints, step_folder, written_whole
from .config import TrainResult


def run_qnet_trainer(trainer: Any, run_dir: Path, speed_fields: Callable[[], Mapping[str, Any]]) -> TrainResult:
    """Learn with a checkpoint every ``checkpoint_every`` steps, save ``final/``, write ``speed.json`` with the
    trainer's own counts (``speed_fields()``, read once it has learned)."""
    config = trainer.config
    started = time.perf_counter()

    def checkpoint(step: int) -> None:
        save_qnet_checkpoint(step_folder(run_dir, step), trainer, run_dir.name)
        prune_checkpoints(run_dir, config.keep_checkpoints)

    trainer.learn(on_checkpoint=checkpoint, label=config.policy_label)
    seconds = time.perf_counter() - started
    final = save_qnet_checkpoint(run_dir / "final", trainer, run_dir.name)
    print("time split: " + ", ".join(f"{k} {v:.0f} s" for k, v in trainer.seconds.items()))
    fields = speed_fields()
    speed = trainer.speed.write(run_dir, config.trainer, **fields)
    print(f"{speed['learner_steps_per_second_after_warm_up']} learner steps/s after the first iteration (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)


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
