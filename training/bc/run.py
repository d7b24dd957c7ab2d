"""A behaviour-cloning run: read and split the datasets, train, save the clone, write ``speed.json``.

A checkpoint folder holds, in the layout every trainer shares (:mod:`sam_env.training.checkpoints`), ``policy.*``
(format ``sam-env-policy``: ``load_bot``, ``sam-eval`` and ``sam-play`` take the folder; its metadata records the
datasets' encoding, and their files with their SHA-256 under ``bc_data``), ``trainer.json`` (the counts, every
epoch's losses and accuracies, the evaluation history, the data report) and ``config.yaml``. A run does not
resume: it is a few minutes of passes over a fixed dataset, and its length is ``epochs``, not the
``total_timesteps`` that ``--resume`` extends.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from sam_env.agents.networks.policy.checkpoint import save_policy

from ..checkpoints import learn_and_save, written_whole
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from ..speed import report_speed
from .config import BCConfig
from .data import load_decisions
from .trainer import BCTrainer


@written_whole
def save_bc_checkpoint(folder: Path, trainer: BCTrainer, run_name: str) -> Path:
    """Write the clone, its epochs' figures and the config (whole or not at all); return the policy's JSON path."""
    snapshot = trainer.snapshot()
    policy_json = save_policy(folder / "policy", snapshot.tensors, {**snapshot.metadata, "run_name": run_name})
    state = {
        "trainer": trainer.config.trainer,
        "num_timesteps": int(trainer.num_timesteps),
        "epoch": trainer.epoch,
        "n_updates": trainer.n_updates,
        "epochs": trainer.epochs_log,
        "history": trainer.history,
        "data": trainer.data.report,
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(trainer.config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def train(config: BCConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` from a fresh network (behaviour-cloning runs do not resume)."""
    if resume is not None:
        raise ConfigError("trainer: bc runs cannot be resumed; start a new run with --config")
    data = load_decisions(config)
    r = data.report
    print(
        f"run {run_dir.name}: behaviour cloning from {len(r['files'])} dataset file(s) (observation encoding "
        f"v{data.encoding_version}): {r['train_rows']:,} decisions of {r['train_hands']:,} hands to train on, "
        f"{r['val_rows']:,} of {r['val_hands']:,} held out ({r['forced_dropped']:,} forced and "
        f"{r['duplicate_rows_dropped']:,} in duplicate hands dropped); a uniform legal move's validation accuracy "
        f"{data.val.chance_accuracy():.3f}; {config.epochs} epochs; logs in {run_dir}"
    )
    trainer = BCTrainer(config, data, logger=tensorboard_logger(run_dir))
    final, seconds = learn_and_save(trainer, run_dir, save_bc_checkpoint)
    report_speed(trainer, run_dir, unit="decisions trained on", epochs=trainer.epoch, **r)
    return TrainResult(final, trainer.num_timesteps, seconds)
