"""An expert-iteration run: build the trainer (or restore it from a checkpoint), learn, save the final policy."""

from __future__ import annotations

import json
from pathlib import Path

from ..checkpoints import learn_and_save, read_trainer_state
from ..common.logs import tensorboard_logger
from ..config import TrainResult
from .config import ExpertConfig
from .state import restore_expert, save_expert_checkpoint
from .trainer import ExpertTrainer


def train(config: ExpertConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir``, from ``init_from`` (or scratch) or from the checkpoint folder ``resume``;
    write ``speed.json`` beside the run's logs."""
    run_name = run_dir.name
    trainer = ExpertTrainer(config, logger=tensorboard_logger(run_dir), fresh=resume is None)
    if resume is not None:
        restore_expert(resume, read_trainer_state(resume), trainer)
        print(
            f"resuming {run_name} at step {trainer.num_timesteps:,} after iteration {trainer.iteration} "
            f"({trainer.searched:,} decisions searched)"
        )
    start = config.init_from or "a fresh network"
    print(
        f"run {run_name}: expert iteration from {start}, {config.total_timesteps:,} learner steps, "
        f"{config.decisions_per_iteration:,} searched decisions an iteration ({config.determinizations} deals x "
        f"{config.candidates} candidates), {config.num_tables} tables; logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, run_dir, save_expert_checkpoint)
    speed = trainer.speed()
    (run_dir / "speed.json").write_text(json.dumps(speed, indent=2) + "\n", encoding="utf-8")
    split = ", ".join(f"{k} {speed[f'{k}_seconds']:.0f} s" for k in trainer.seconds)
    print(
        f"{trainer.iteration} iterations, {speed['searched_decisions']:,} decisions searched "
        f"({speed['searched_decisions_per_search_second']}/s of search); time split: {split}; speed.json"
    )
    return TrainResult(final, trainer.num_timesteps, seconds)
