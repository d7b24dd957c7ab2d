"""A DMC run: build the trainer, learn with checkpoints on the way, save the final network."""

from __future__ import annotations

import json
import time
from pathlib import Path

import yaml
from sam_env.agents.qnet.checkpoint import save_qnet

from ..checkpoints import prune_checkpoints, step_folder, written_whole
from ..config import ConfigError, TrainResult
from .config import DMCConfig
from .trainer import DMCTrainer


def train(config: DMCConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` from scratch (DMC runs do not resume)."""
    if resume is not None:
        raise ConfigError("trainer: dmc runs cannot be resumed; start a new run with --config")
    from ..batched.trainer import tensorboard_logger

    trainer = DMCTrainer(config, logger=tensorboard_logger(run_dir))
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} moves of self-play on {config.num_tables} tables "
        f"(Deep Monte-Carlo, epsilon {config.epsilon}); logs in {run_dir}"
    )
    started = time.perf_counter()

    def checkpoint(step: int) -> None:
        save_dmc_checkpoint(step_folder(run_dir, step), trainer, run_dir.name)
        prune_checkpoints(run_dir, config.keep_checkpoints)

    trainer.learn(on_checkpoint=checkpoint, label=config.policy_label)
    seconds = time.perf_counter() - started
    final = save_dmc_checkpoint(run_dir / "final", trainer, run_dir.name)
    split = ", ".join(f"{k} {v:.0f} s" for k, v in trainer.seconds.items())
    print(f"time split: {split}")
    speed = trainer.speed.write(
        run_dir,
        config.trainer,
        num_tables=config.num_tables,
        trained_decisions=trainer.trained_decisions,
        decisions_per_second=round(trainer.decisions_per_second(), 1),
    )
    print(
        f"{speed['learner_steps_per_second_after_warm_up']} moves/s after the first iteration, "
        f"{speed['decisions_per_second']:,} decisions trained on per second (speed.json)"
    )
    return TrainResult(final, trainer.num_timesteps, seconds)


@written_whole
def save_dmc_checkpoint(folder: Path, trainer: DMCTrainer, run_name: str) -> Path:
    """Write the network (``policy.*``, format ``sam-env-qnet``), the run's counts and history and its config
    (whole or not at all)."""
    snapshot = trainer.snapshot()
    policy_json = save_qnet(folder / "policy", snapshot.tensors, {**snapshot.metadata, "run_name": run_name})
    state = {
        "trainer": trainer.config.trainer,
        "num_timesteps": int(trainer.num_timesteps),
        "n_updates": trainer.n_updates,
        "trained_decisions": trainer.trained_decisions,
        "history": trainer.history,
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(trainer.config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json
