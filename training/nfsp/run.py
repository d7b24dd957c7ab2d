"""An NFSP run: the trainer, its checkpoints and ``speed.json``.

A checkpoint folder holds, in the layout every trainer shares (:mod:`sam_env.training.checkpoints`), ``policy.*``:
the average policy (format ``sam-env-policy``, what ``load_bot``, ``sam-eval`` and ``sam-play`` take), and beside it
``best_response.*``: the Q-network (format ``sam-env-qnet``, kind ``dqn``; ``load_bot(folder / "best_response.json")``
plays it), ``trainer.json`` (the counts and the evaluation history) and ``config.yaml``. A run does not resume:
its reservoir and circular buffer (hundreds of MB) are not saved, and NFSP without the reservoir would be another
algorithm (the average policy would forget the best responses before the resume).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from sam_env.agents.networks.policy.checkpoint import save_policy
from sam_env.agents.networks.qnet.checkpoint import save_qnet

from ..checkpoints import learn_and_save, written_whole
from ..common.logs import tensorboard_logger
from ..config import ConfigError, TrainResult
from ..speed import report_speed
from .config import NFSPConfig
from .trainer import NFSPTrainer

BEST_RESPONSE = "best_response"
"""The stem of the best response's files in a checkpoint folder."""


@written_whole
def save_nfsp_checkpoint(folder: Path, trainer: NFSPTrainer, run_name: str) -> Path:
    """Write the average policy, the best response, the counts and history and the config (whole or not at all);
    return the average policy's JSON path."""
    policy, best = trainer.snapshot(), trainer.best_response_snapshot()
    policy_json = save_policy(folder / "policy", policy.tensors, {**policy.metadata, "run_name": run_name})
    save_qnet(folder / BEST_RESPONSE, best.tensors, {**best.metadata, "run_name": run_name})
    state = {
        "trainer": trainer.config.trainer,
        "num_timesteps": int(trainer.num_timesteps),
        "decisions": trainer.decisions,
        "best_response_decisions": trainer.best_response_decisions,
        "rl_updates": trainer.rl_updates,
        "sl_updates": trainer.sl_updates,
        "reservoir": {"size": len(trainer.reservoir), "offered": trainer.reservoir.offered},
        "history": trainer.history,
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(trainer.config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def train(config: NFSPConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` in ``run_dir`` from scratch (NFSP runs do not resume: the memories are not saved)."""
    if resume is not None:
        raise ConfigError("trainer: nfsp runs cannot be resumed (the reservoir is not saved); start a new run")
    trainer = NFSPTrainer(config, logger=tensorboard_logger(run_dir))
    print(
        f"run {run_dir.name}: {config.total_timesteps:,} moves of self-play on {config.num_tables} tables "
        f"(NFSP, anticipatory parameter {config.anticipatory_param}); logs in {run_dir}"
    )
    final, seconds = learn_and_save(trainer, run_dir, save_nfsp_checkpoint)
    report_speed(
        trainer,
        run_dir,
        num_tables=config.num_tables,
        decisions=trainer.decisions,
        decisions_per_second=round(trainer.decisions_per_second(), 1),
        rl_updates=trainer.rl_updates,
        sl_updates=trainer.sl_updates,
    )
    print(f"{trainer.decisions_per_second():,.0f} decisions collected and trained on per second (speed.json)")
    return TrainResult(final, trainer.num_timesteps, seconds)
