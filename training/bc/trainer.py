"""The behaviour-cloning loop: passes of minibatches over the training rows, validation, evaluations, logs.

One :class:`BCTrainer` owns the network (:class:`~sam_env.agents.networks.policy.network.ActorCritic`, the layout
every policy checkpoint has), its Adam optimizer and the rows of :mod:`.data`. An epoch shuffles the training rows
with a generator seeded by ``(seed, epoch)``, fits the masked softmax over the legal moves to the recorded move by
cross-entropy (and, with ``fit_critic``, the value head to the money that followed), then measures the held-out
hands: their loss, and the accuracy — the share of decisions whose most probable legal move is the one recorded.
Logs go to TensorBoard under the other trainers' groups (``train/``, ``charts/``, ``eval/``, ``perf/``) plus
``val/``, with the decisions trained on as the step.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from torch.nn import functional
from tqdm import tqdm

from sam_env import N_ACTIONS
from sam_env.agents.networks.format import format_metadata
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.networks.policy.network import ActorCritic

from .. import progress
from ..common.masking import masked
from ..evaluate import EvaluatesDuringTraining
from ..speed import SpeedMeter
from .config import BCConfig
from .data import Decisions, TrainingData

ALGORITHM = "behaviour cloning (cross-entropy to the recorded move)"
SHUFFLE = 2
"""Spawn key of an epoch's minibatch order (after the run's seed; :mod:`.data`'s split is 1)."""
EVAL_BATCH = 8192
"""Rows per forward pass when measuring the validation rows (no gradient: memory is the only limit)."""


class BCTrainer(EvaluatesDuringTraining):
    """Network, optimizer and data of one run (module docstring).

    Args:
        config: the run's config.
        data: the training and validation rows (:func:`.data.load_decisions`).
        logger: where the statistics go (default: nowhere; ``train.py`` passes a TensorBoard logger).
    """

    def __init__(self, config: BCConfig, data: TrainingData, logger: Logger | None = None) -> None:
        self.config = config
        self.data = data
        self.net = ActorCritic.fresh(config.arch, data.train.obs.shape[1], N_ACTIONS)
        self.actor = [p for name, p in self.net.named_parameters() if "value" not in name]
        self.critic = [p for name, p in self.net.named_parameters() if "value" in name]
        params = self.net.parameters() if config.fit_critic else self.actor
        self.optimizer = torch.optim.Adam(params, lr=config.learning_rate)
        self.logger = logger
        self.num_timesteps = 0
        """Decisions trained on: rows × passes (what ``train.py`` reports as the run's steps)."""
        self.epoch = 0
        self.n_updates = 0
        self.per_batch = -(-data.train.size // config.batch_size)
        self.epochs_log: list[dict[str, float]] = []
        """One row per epoch: the training and validation losses and accuracies."""
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, epoch, wall seconds, and X/hand with CI per opponent."""
        self.seconds = {"train": 0.0, "validate": 0.0, "eval": 0.0}
        self.speed = SpeedMeter()
        self.last_eval = ""
        self.wall_start = time.perf_counter()

    def snapshot(self) -> PolicyCheckpoint:
        """The network now, as a validated in-memory checkpoint of the datasets' encoding."""
        c = self.config
        trained_as = {"algorithm": ALGORITHM, "class": "MaskableActorCriticPolicy"}
        extra = {"num_timesteps": self.num_timesteps, "epoch": self.epoch, "bc_data": self.data.report}
        meta = format_metadata(
            PolicyCheckpoint, c.rule_config, c.arch, trained_as, c.to_dict(), self.data.encoding_version, extra
        )
        return PolicyCheckpoint.in_memory(self.net.tensors(), meta, f"clone after epoch {self.epoch}")

    def learning_rate(self) -> float:
        """The step size of the next minibatch: constant, or falling linearly to ``learning_rate_end`` at the last."""
        c = self.config
        if c.learning_rate_end is None:
            return c.learning_rate
        done = self.n_updates / max(c.epochs * self.per_batch - 1, 1)
        return c.learning_rate + (c.learning_rate_end - c.learning_rate) * min(done, 1.0)

    def learn(self, on_checkpoint: Callable[[int], object] | None = None, label: str = "bc") -> None:
        """Train ``epochs`` passes; ``on_checkpoint(step)`` writes a checkpoint when one is due.

        Evaluations come after every ``eval_every`` epochs, none before the first: an untrained network's
        near-uniform play (it declares Sâm about half the time) says nothing about the clone, and costs as much.
        """
        c = self.config
        bar = progress.bar(c.epochs * self.data.train.size, 0, "decision", c.progress_bar)
        self.wall_start = time.perf_counter()
        self.speed.mark(self.num_timesteps)
        try:
            while self.epoch < c.epochs:
                clock = time.perf_counter()
                train_logs = self.train_epoch(bar)
                self.seconds["train"] += time.perf_counter() - clock
                clock = time.perf_counter()
                val_logs = self.validate(self.data.val)
                self.seconds["validate"] += time.perf_counter() - clock
                self.epoch += 1
                self.speed.mark(self.num_timesteps)
                self._log(train_logs, val_logs, bar)
                if c.eval_every and self.epoch % c.eval_every == 0:
                    self.run_eval(label, bar)
                if on_checkpoint is not None and c.checkpoint_every and self.epoch % c.checkpoint_every == 0:
                    on_checkpoint(self.num_timesteps)
        finally:
            bar.close()

    def train_epoch(self, bar: tqdm) -> dict[str, float]:
        """One pass of minibatches over the training rows; their mean loss, accuracy and entropy."""
        c, rows = self.config, self.data.train
        obs, mask = torch.from_numpy(rows.obs), torch.from_numpy(rows.mask)
        action = torch.from_numpy(rows.action)
        value = torch.from_numpy(rows.money * np.float32(c.reward_scale))
        order = torch.from_numpy(np.random.default_rng([c.seed, SHUFFLE, self.epoch]).permutation(rows.size))
        sums = {"policy_loss": 0.0, "accuracy": 0.0, "entropy_loss": 0.0, "value_loss": 0.0}
        self.net.train()
        for start in range(0, rows.size, c.batch_size):
            idx = order[start : start + c.batch_size]
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate()
            logits = masked(self.net.logits(obs[idx], mask[idx]), mask[idx])
            loss = policy_loss = functional.cross_entropy(logits, action[idx])
            if c.fit_critic:
                value_loss = functional.mse_loss(self.net.value(obs[idx]), value[idx])
                loss = loss + value_loss
                sums["value_loss"] += value_loss.item() * len(idx)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.actor, c.max_grad_norm)
            if c.fit_critic:
                torch.nn.utils.clip_grad_norm_(self.critic, c.max_grad_norm)
            self.optimizer.step()
            self.n_updates += 1
            with torch.no_grad():
                log_probs = torch.log_softmax(logits, dim=-1)
                sums["entropy_loss"] += (log_probs.exp() * log_probs).sum(-1).sum().item()
                sums["accuracy"] += (logits.argmax(-1) == action[idx]).sum().item()
            sums["policy_loss"] += policy_loss.item() * len(idx)
            self.num_timesteps += len(idx)
            progress.advance(bar, self.num_timesteps)
        out = {k: v / rows.size for k, v in sums.items()}
        if not c.fit_critic:
            del out["value_loss"]
        return out

    @torch.no_grad()
    def validate(self, rows: Decisions) -> dict[str, float]:
        """Loss and accuracy on ``rows`` (the held-out hands), and a uniform legal move's accuracy beside them."""
        if rows.size == 0:
            return {}
        self.net.eval()
        loss, correct = 0.0, 0
        for start in range(0, rows.size, EVAL_BATCH):
            part = slice(start, start + EVAL_BATCH)
            obs, mask = torch.from_numpy(rows.obs[part]), torch.from_numpy(rows.mask[part])
            action = torch.from_numpy(rows.action[part])
            logits = masked(self.net.logits(obs, mask), mask)
            loss += functional.cross_entropy(logits, action, reduction="sum").item()
            correct += int((logits.argmax(-1) == action).sum().item())
        return {"loss": loss / rows.size, "accuracy": correct / rows.size, "chance_accuracy": rows.chance_accuracy()}

    def eval_fields(self) -> dict[str, float]:
        return {"epoch": self.epoch}

    def eval_heading(self, step: int) -> str:
        return f"epoch {self.epoch}, {step:,} decisions"

    def _log(self, train_logs: dict[str, float], val_logs: dict[str, float], bar: tqdm) -> None:
        row = {"epoch": self.epoch, "step": self.num_timesteps, **{f"train_{k}": v for k, v in train_logs.items()}}
        row |= {f"val_{k}": v for k, v in val_logs.items()}
        self.epochs_log.append(row)
        val = f" | val loss {val_logs['loss']:.4f} accuracy {val_logs['accuracy']:.4f}" if val_logs else ""
        line = (
            f"epoch {self.epoch}/{self.config.epochs}: train loss {train_logs['policy_loss']:.4f} "
            f"accuracy {train_logs['accuracy']:.4f}{val}"
        )
        bar.write(line)
        bar.set_postfix_str(f"epoch {self.epoch}{val} | eval {self.last_eval or '-'}", refresh=False)
        if self.logger is None:
            return
        record = self.logger.record
        for key, value in train_logs.items():
            record(f"train/{key}", value)
        for key, value in val_logs.items():
            record(f"val/{key}", value)
        record("train/learning_rate", self.optimizer.param_groups[0]["lr"])
        record("train/n_updates", self.n_updates)
        record("charts/epoch", self.epoch)
        elapsed = max(time.perf_counter() - self.wall_start, 1e-9)
        record("charts/steps_per_second", self.num_timesteps / elapsed)
        for key, seconds in self.seconds.items():
            record(f"perf/{key}_seconds", seconds)
        self.logger.dump(self.num_timesteps)
