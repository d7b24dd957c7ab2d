"""The NFSP loop: play the tables, train the best response and the average policy on their memories, evaluate.

One :class:`NFSPTrainer` owns the tables (:class:`~.selfplay.SelfPlay`), the three networks — the Q-network (the
best response) with its target copy, and the average policy, an actor-critic in the project's policy layout —
their optimizers and the two memories (:mod:`.buffers`). Each iteration plays ``n_steps`` table steps, then takes
``rl_replay_ratio x decisions / rl_batch_size`` double-DQN steps on minibatches of the circular buffer (each also
a TD(0) step of the average policy's critic on the minibatch's average-policy transitions) and
``sl_replay_ratio x decisions / sl_batch_size`` cross-entropy steps of the average policy on minibatches of the
reservoir (fractions carry over to the next iteration). RLCard takes one step of each per transition, on every
transition; on a budget of minutes the ratios say how many samples a decision buys instead. Logs go to TensorBoard
under the other trainers' tag names (``charts/``, ``train/``, ``eval/``, ``perf/``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from torch import nn
from torch.nn import functional as F
from tqdm import tqdm

from sam_env import N_ACTIONS, VectorEnv
from sam_env.agents.networks.policy.checkpoint import PolicyArch, PolicyCheckpoint, policy_metadata
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint, qnet_metadata
from sam_env.agents.networks.qnet.network import QNetwork

from .. import progress
from ..common.masking import masked
from ..evaluate import EvaluatesDuringTraining
from ..schedule import StepSchedule
from ..speed import SpeedMeter
from .buffers import ReplayBuffer, ReservoirBuffer
from .config import NFSPConfig
from .selfplay import CollectStats, SelfPlay
from .targets import double_q_targets, value_targets

ALGORITHM = "NFSP (Heinrich & Silver), the average policy"
"""What trained the saved policy, in its metadata (``policy.algorithm``)."""
BEST_RESPONSE_ALGORITHM = "NFSP (Heinrich & Silver), the best response (double DQN)"


def head_parameters(net: ActorCritic, head: str) -> list[nn.Parameter]:
    """The parameters of the actor-critic's policy (``"pi"``) or value (``"vf"``) head: no layer is shared."""
    names = {"pi": ("mlp_extractor.policy_net", PolicyArch.POLICY.out), "vf": ("mlp_extractor.value_net", "value_net")}
    return [p for name, p in net.named_parameters() if name.startswith(names[head])]


class NFSPTrainer(EvaluatesDuringTraining):
    """Tables, networks, optimizers and memories of one run.

    Args:
        config: the run's config.
        logger: where the statistics go (default: nowhere; ``train.py`` passes a TensorBoard logger).
    """

    def __init__(self, config: NFSPConfig, logger: Logger | None = None) -> None:
        self.config = c = config
        seeds = np.random.SeedSequence(c.seed).spawn(4)
        torch.manual_seed(int(seeds[0].generate_state(1)[0]))
        venv = VectorEnv(c.num_tables, c.rule_config, seed=int(seeds[1].generate_state(1)[0]))
        obs_size = venv.observation_size
        self.policy = ActorCritic.fresh(c.arch, obs_size, N_ACTIONS)
        self.q_net = QNetwork(c.q_arch, obs_size)
        self.target = copy.deepcopy(self.q_net).requires_grad_(False)
        self.rl_optimizer = torch.optim.Adam(self.q_net.parameters(), lr=c.rl_learning_rate)
        self.sl_optimizer = torch.optim.Adam(head_parameters(self.policy, "pi"), lr=c.sl_learning_rate)
        self.value_optimizer = torch.optim.Adam(head_parameters(self.policy, "vf"), lr=c.rl_learning_rate)
        self.transitions = ReplayBuffer(c.rl_buffer_size, obs_size)
        self.reservoir = ReservoirBuffer(c.reservoir_size, obs_size)
        rng = np.random.default_rng(seeds[2])
        self.selfplay = SelfPlay(
            venv, self.policy, self.q_net, self.transitions, self.reservoir, c.anticipatory_param, c.reward_scale, rng
        )
        self.generator = np.random.default_rng(seeds[3])
        """Draws the minibatches."""
        self.logger = logger
        self.num_timesteps = 0
        self.decisions = 0
        self.best_response_decisions = 0
        self.rl_updates = 0
        self.sl_updates = 0
        self.owed = {"rl": 0.0, "sl": 0.0}
        """Gradient steps due but not taken yet (the fraction of a step an iteration's decisions bought)."""
        self.seconds = {"env": 0.0, "inference": 0.0, "rl_update": 0.0, "sl_update": 0.0, "eval": 0.0}
        """Wall seconds of the loop's parts (logging and checkpoints aside)."""
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, wall seconds, and X/hand with CI per opponent."""
        self.speed = SpeedMeter()
        self.last_eval = ""

    @property
    def n_updates(self) -> int:
        """Gradient steps of both networks."""
        return self.rl_updates + self.sl_updates

    def snapshot(self) -> PolicyCheckpoint:
        """The average policy now, as a validated in-memory checkpoint (what evaluations and checkpoints use)."""
        c = self.config
        meta = policy_metadata(c.rule_config, c.arch, c.to_dict(), num_timesteps=self.num_timesteps)
        meta["policy"] = {**meta["policy"], "algorithm": ALGORITHM}
        return PolicyCheckpoint.in_memory(
            self.policy.tensors(), meta, f"nfsp average policy at step {self.num_timesteps}"
        )

    def best_response_snapshot(self) -> QCheckpoint:
        """The best response's Q-network now (a ``dqn`` Q-network: ``load_bot`` plays its best legal move)."""
        c = self.config
        meta = qnet_metadata(
            c.rule_config, c.q_arch, BEST_RESPONSE_ALGORITHM, c.to_dict(), num_timesteps=self.num_timesteps
        )
        return QCheckpoint.in_memory(self.q_net.tensors(), meta, f"nfsp best response at step {self.num_timesteps}")

    def learn(self, on_checkpoint: Callable[[int], None] | None = None, label: str = "nfsp") -> None:
        """Train to ``total_timesteps`` moves; ``on_checkpoint(step)`` writes a checkpoint when one is due."""
        c = self.config
        schedule = StepSchedule(c, self.num_timesteps)
        bar = progress.bar(c.total_timesteps, self.num_timesteps, "move", c.progress_bar)
        self.wall_start = time.perf_counter()
        self.speed.mark(self.num_timesteps)
        while self.num_timesteps < c.total_timesteps:
            if schedule.due("eval", self.num_timesteps):
                self.run_eval(label, bar)
            if on_checkpoint is not None and schedule.due("checkpoint", self.num_timesteps):
                on_checkpoint(self.num_timesteps)
            stats, losses = self.iterate()
            self.num_timesteps += stats.moves
            progress.advance(bar, self.num_timesteps)
            self.speed.mark(self.num_timesteps)
            self._log(stats, losses, bar)
        bar.close()

    def iterate(self) -> tuple[CollectStats, dict[str, list[float]]]:
        """One collection of ``n_steps`` table steps, then the gradient steps its decisions bought."""
        c = self.config
        stats = self.selfplay.collect(c.n_steps, c.epsilon(self.num_timesteps))
        for key, seconds in stats.seconds.items():
            self.seconds[key] += seconds
        self.decisions += stats.decisions
        self.best_response_decisions += stats.best_response_decisions
        losses: dict[str, list[float]] = {"rl": [], "value": [], "sl": []}
        clock = time.perf_counter()
        for _ in range(self._due("rl", stats.decisions, c.rl_replay_ratio, c.rl_batch_size, len(self.transitions))):
            rl_loss, value_loss = self.rl_update()
            losses["rl"].append(rl_loss)
            if value_loss is not None:
                losses["value"].append(value_loss)
        now = time.perf_counter()
        self.seconds["rl_update"] += now - clock
        for _ in range(self._due("sl", stats.decisions, c.sl_replay_ratio, c.sl_batch_size, len(self.reservoir))):
            losses["sl"].append(self.sl_update())
        self.seconds["sl_update"] += time.perf_counter() - now
        return stats, losses

    def _due(self, key: str, decisions: int, ratio: float, batch_size: int, stored: int) -> int:
        """The gradient steps of ``key``'s network due now: none before its memory holds ``learning_starts`` entries
        and a batch (nothing is owed for the decisions before), else the whole ones owed."""
        if stored < max(self.config.learning_starts, batch_size):
            return 0
        self.owed[key] += ratio * decisions / batch_size
        steps = int(self.owed[key])
        self.owed[key] -= steps
        return steps

    def rl_update(self) -> tuple[float, float | None]:
        """One double-DQN step of the Q-network on a minibatch of transitions, and one TD(0) step of the average
        policy's critic on its average-policy transitions (``None`` if it has none): the two losses."""
        c = self.config
        batch = self.transitions.sample(c.rl_batch_size, self.generator)
        obs, next_obs = torch.from_numpy(batch.obs), torch.from_numpy(batch.next_obs)
        reward, done = torch.from_numpy(batch.reward), torch.from_numpy(batch.done)
        with torch.no_grad():
            next_mask = torch.from_numpy(batch.next_mask)
            targets = double_q_targets(reward, done, self.q_net(next_obs), self.target(next_obs), next_mask, c.gamma)
        values = self.q_net(obs).gather(1, torch.from_numpy(batch.action)[:, None]).squeeze(1)
        loss = F.mse_loss(values, targets)
        self._step(self.rl_optimizer, loss, self.q_net.parameters())
        self.rl_updates += 1
        if self.rl_updates % c.target_update_every == 0:
            self.target.load_state_dict(self.q_net.state_dict())
        rows = torch.from_numpy(np.flatnonzero(batch.average))
        if rows.numel() == 0:
            return loss.item(), None
        with torch.no_grad():
            critic_targets = value_targets(reward[rows], done[rows], self.policy.value(next_obs[rows]), c.gamma)
        value_loss = F.mse_loss(self.policy.value(obs[rows]), critic_targets)
        self._step(self.value_optimizer, value_loss, head_parameters(self.policy, "vf"))
        return loss.item(), value_loss.item()

    def sl_update(self) -> float:
        """One step of the average policy: cross-entropy of its masked softmax to best-response moves of the
        reservoir."""
        obs, masks, actions = self.reservoir.sample(self.config.sl_batch_size, self.generator)
        logits = masked(self.policy.logits(torch.from_numpy(obs)), torch.from_numpy(masks))
        loss = F.cross_entropy(logits, torch.from_numpy(actions))
        self._step(self.sl_optimizer, loss, head_parameters(self.policy, "pi"))
        self.sl_updates += 1
        return loss.item()

    def _step(self, optimizer: torch.optim.Optimizer, loss: torch.Tensor, parameters: Iterable[nn.Parameter]) -> None:
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(parameters), self.config.max_grad_norm)
        optimizer.step()

    def decisions_per_second(self) -> float:
        """Decisions collected per wall second of playing and training (evaluations left out)."""
        busy = sum(seconds for key, seconds in self.seconds.items() if key != "eval")
        return self.decisions / max(busy, 1e-9)

    def _log(self, stats: CollectStats, losses: dict[str, list[float]], bar: tqdm) -> None:
        means = {key: float(np.mean(values)) if values else float("nan") for key, values in losses.items()}
        bar.set_postfix_str(f"sl {means['sl']:.3f} rl {means['rl']:.3f} | eval {self.last_eval or '-'}", refresh=False)
        if self.logger is None:
            return
        elapsed = time.perf_counter() - self.wall_start
        for key, mean in means.items():
            self.logger.record(f"train/{key}_loss", mean)
        self.logger.record("train/rl_updates", self.rl_updates)
        self.logger.record("train/sl_updates", self.sl_updates)
        self.logger.record("train/exploration_rate", self.config.epsilon(self.num_timesteps))
        self.logger.record("train/reservoir_size", len(self.reservoir))
        self.logger.record("charts/steps_per_second", self.num_timesteps / max(elapsed, 1e-9))
        self.logger.record("charts/decisions_per_second", self.decisions_per_second())
        self.logger.record("charts/hands", stats.hands)
        if stats.decisions:
            self.logger.record("charts/best_response_share", stats.best_response_decisions / stats.decisions)
        for key, seconds in self.seconds.items():
            self.logger.record(f"perf/{key}_seconds", seconds)
        self.logger.dump(self.num_timesteps)
