"""A DQN run: build the trainer, learn with checkpoints on the way, save the final Q-network."""

from __future__ import annotations

import json
import time
from pathlib import Path

import yaml
from sam_env.agents.qnet.checkpoint import save_qnet

from ..checkpoints import prune_checkpoints, step_folder, written_whole
from ..config import ConfigError, TrainResult
from .config import DQNConfig
from .trainer import DQNTrainer


def train(config: DQNConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` from scratch (DQN runs do not resume: the replay buffer is not saved)."""
    if resume is not None:
        raise ConfigError("trainer: dqn runs cannot be resumed; start a new run with --config")
    from ..batched.trainer import tensorboard_logger

    trainer = DQNTrainer(config, logger=tensorboard_logger(run_dir))
    mix = ", ".join(f"{name} {weight:g}" for name, weight in config.opponents.weights().items() if weight)
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} learner steps on {config.n_envs} tables "
        f"(Tianshou DQN; opponents {mix}); logs in {run_dir}"
    )
    started = time.perf_counter()

    def checkpoint(step: int) -> None:
        save_dqn_checkpoint(step_folder(run_dir, step), trainer, run_dir.name)
        prune_checkpoints(run_dir, config.keep_checkpoints)

    trainer.learn(on_checkpoint=checkpoint, label=config.policy_label)
    seconds = time.perf_counter() - started
    final = save_dqn_checkpoint(run_dir / "final", trainer, run_dir.name)
    trainer.tables.close()
    split = ", ".join(f"{k} {v:.0f} s" for k, v in trainer.seconds.items())
    print(f"time split: {split}")
    speed = trainer.speed.write(run_dir, config.trainer, n_envs=config.n_envs, gradient_steps=trainer.n_updates)
    print(f"{speed['learner_steps_per_second_after_warm_up']} learner steps/s after the first iteration (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)


@written_whole
def save_dqn_checkpoint(folder: Path, trainer: DQNTrainer, run_name: str) -> Path:
    """Write the Q-network (``policy.*``, format ``sam-env-qnet``), the run's counts and history and its config
    (whole or not at all)."""
    snapshot = trainer.snapshot()
    policy_json = save_qnet(folder / "policy", snapshot.tensors, {**snapshot.metadata, "run_name": run_name})
    state = {
        "trainer": trainer.config.trainer,
        "num_timesteps": int(trainer.num_timesteps),
        "n_updates": trainer.n_updates,
        "history": trainer.history,
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(trainer.config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json
