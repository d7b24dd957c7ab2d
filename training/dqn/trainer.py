"""The DQN loop on Tianshou: collect with exploration, update from the replay buffer, evaluate, checkpoint, log.

Tianshou does the learning — its ``Net`` (an MLP), ``DiscreteQLearningPolicy`` (masked greedy moves and
masked epsilon-greedy exploration), ``DQN`` (double-Q targets from a target network, MSE), ``Collector``
and ``VectorReplayBuffer`` — in the loop its own off-policy trainer runs: collect ``step_per_collect``
moves within a training step, then ``update_per_step`` gradient steps per move collected. This module
adds what every trainer of the project has: the exploration schedule, duplicate evaluations,
checkpoints a bot loads (the ``Net``'s layers under the Q-network checkpoint's names, :func:`q_tensors`),
TensorBoard logs under the shared tag names and a progress bar.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step
from torch import nn
from tqdm import tqdm

from sam_env import N_ACTIONS
from sam_env.agents.networks.layers import ACTIVATIONS
from sam_env.agents.networks.qnet.checkpoint import QArch, QCheckpoint, qnet_metadata
from sam_env.encoding import observation_size

from .. import progress
from ..evaluate import EvaluatesDuringTraining
from ..schedule import StepSchedule
from ..speed import SpeedMeter
from .config import DQNConfig
from .tables import make_tables

ALGORITHM = "DQN (Tianshou, double Q)"


def q_network(arch: QArch, obs_size: int) -> Net:
    """Tianshou's MLP for ``arch``: observation → one Q-value per action."""
    activation = getattr(nn, ACTIVATIONS[arch.activation].torch)
    return Net(state_shape=obs_size, action_shape=N_ACTIONS, hidden_sizes=list(arch.layers), activation=activation)


def q_tensors(net: Net, arch: QArch) -> dict[str, np.ndarray]:
    """The ``Net``'s weights under the Q-network checkpoint's names (its ``Linear`` layers in order)."""
    linears = [m for m in net.modules() if isinstance(m, nn.Linear)]
    if len(linears) != len(arch.layers) + 1:
        raise ValueError(f"expected {len(arch.layers) + 1} linear layers for {arch}, found {len(linears)}")
    names = [f"hidden.{i}" for i in range(len(arch.layers))] + ["out"]
    out: dict[str, np.ndarray] = {}
    for name, layer in zip(names, linears, strict=True):
        out[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        out[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    return out


class DQNTrainer(EvaluatesDuringTraining):
    """Tables, Tianshou's algorithm, collector and buffer of one run.

    Args:
        config: the run's config.
        logger: where the statistics go (default: nowhere; ``train.py`` passes a TensorBoard logger).
    """

    def __init__(self, config: DQNConfig, logger: Logger | None = None) -> None:
        self.config = config
        torch.manual_seed(config.seed)
        np.random.seed(config.seed)  # Tianshou's exploration draws from numpy's global generator
        self.tables = make_tables(config)
        self.net = q_network(config.q_arch, observation_size(config.rule_config.n_players))
        space = self.tables.action_space[0]
        self.policy = DiscreteQLearningPolicy(model=self.net, action_space=space, eps_training=config.eps_start)
        self.algorithm = DQN(
            policy=self.policy,
            optim=AdamOptimizerFactory(lr=config.learning_rate),
            gamma=config.gamma,
            n_step_return_horizon=config.n_step_return,
            target_update_freq=config.target_update_freq,
            is_double=True,
        )
        self.buffer = VectorReplayBuffer(config.buffer_size, config.n_envs)
        self.collector = Collector(self.algorithm, self.tables, self.buffer, exploration_noise=True)
        self.logger = logger
        self.num_timesteps = 0
        self.n_updates = 0
        self.seconds = {"collect": 0.0, "update": 0.0, "eval": 0.0}
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, wall seconds, and X/hand with CI per opponent."""
        self.speed = SpeedMeter()
        self.last_eval = ""
        self.returns: list[float] = []

    def snapshot(self) -> QCheckpoint:
        """The Q-network now, as a validated in-memory checkpoint (what evaluations and checkpoints use)."""
        c = self.config
        meta = qnet_metadata(c.rule_config, c.q_arch, ALGORITHM, c.to_dict(), num_timesteps=self.num_timesteps)
        tensors = q_tensors(self.net, c.q_arch)
        return QCheckpoint.in_memory(tensors, meta, f"dqn network at step {self.num_timesteps}")

    def learn(self, on_checkpoint: Callable[[int], None] | None = None, label: str = "dqn") -> None:
        """Train to ``total_timesteps`` learner moves; ``on_checkpoint(step)`` writes a checkpoint when one is due."""
        c = self.config
        schedule = StepSchedule(c, self.num_timesteps)
        bar = progress.bar(c.total_timesteps, self.num_timesteps, "step", c.progress_bar)
        self.wall_start = time.perf_counter()
        self.collector.reset()
        self.speed.mark(self.num_timesteps)
        if c.learning_starts:  # random legal moves into the buffer: the warm-up iteration of speed.json
            stats = self.collector.collect(n_step=min(c.learning_starts, c.total_timesteps), random=True)
            self._collected(stats.n_collected_steps, stats.returns, bar)
            self.speed.mark(self.num_timesteps)
        while self.num_timesteps < c.total_timesteps:
            if schedule.due("eval", self.num_timesteps):
                self.run_eval(label, bar)
            if on_checkpoint is not None and schedule.due("checkpoint", self.num_timesteps):
                on_checkpoint(self.num_timesteps)
            clock = time.perf_counter()
            self.policy.set_eps_training(c.epsilon(self.num_timesteps))
            with policy_within_training_step(self.policy):
                stats = self.collector.collect(n_step=c.step_per_collect)
                self.seconds["collect"] += time.perf_counter() - clock
                clock = time.perf_counter()
                losses = [
                    self.algorithm.update(buffer=self.buffer, sample_size=c.batch_size).loss
                    for _ in range(max(1, round(c.update_per_step * stats.n_collected_steps)))
                ]
            self.n_updates += len(losses)
            self.seconds["update"] += time.perf_counter() - clock
            self._collected(stats.n_collected_steps, stats.returns, bar)
            self.speed.mark(self.num_timesteps)
            self._log(losses, bar)
        bar.close()

    def _collected(self, steps: int, returns: np.ndarray, bar: tqdm) -> None:
        self.num_timesteps += steps
        progress.advance(bar, self.num_timesteps)
        self.returns = [float(r) / self.config.reward_scale for r in returns]

    def _log(self, losses: list[float], bar: tqdm) -> None:
        elapsed = time.perf_counter() - self.wall_start
        speed = self.num_timesteps / max(elapsed, 1e-9)  # for TensorBoard: the bar shows its own
        loss = float(np.mean(losses)) if losses else float("nan")
        bar.set_postfix_str(f"loss {loss:.3f} | eval {self.last_eval or '-'}", refresh=False)
        if self.logger is None:
            return
        self.logger.record("train/loss", loss)
        self.logger.record("train/n_updates", self.n_updates)
        self.logger.record("train/exploration_rate", self.policy.eps_training)
        if self.returns:
            self.logger.record("charts/money_per_hand", float(np.mean(self.returns)))
            self.logger.record("charts/hands", len(self.returns))
        self.logger.record("charts/steps_per_second", speed)
        for key, seconds in self.seconds.items():
            self.logger.record(f"perf/{key}_seconds", seconds)
        self.logger.dump(self.num_timesteps)
