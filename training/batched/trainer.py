"""The batched trainer: rollouts on a VectorEnv, masked PPO, a self-play pool, evaluations, checkpoints.

One :class:`BatchedTrainer` owns the tables, the learner network and its optimizer, and the pool of
frozen networks. :meth:`BatchedTrainer.learn` alternates a rollout (:mod:`.rollout`) and a PPO update
(:mod:`.ppo`); between them, on the config's step schedule, it adds a snapshot to the pool, runs a
duplicate evaluation (``sam_env.training.evaluate``) and writes a checkpoint (:mod:`.state`). Logs go to
TensorBoard under the SB3 path's tag names, so ``sam_env.training.curves`` plots either trainer's run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from tqdm import tqdm

from sam_env import N_ACTIONS, RuleConfig, VectorEnv
from sam_env.agents.bot_objects import PolicyBot, probe_bot
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, policy_metadata
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.registry import load_bot
from sam_env.evaluation.stats import METRICS
from sam_env.utils.deprecation import deprecated_names

from .. import progress
from ..checkpoints import network_of
from ..common import logs
from ..config import ConfigError
from ..evaluate import EvaluatesDuringTraining
from ..schedule import StepSchedule
from ..speed import SpeedMeter
from ..widen import fitted_to
from .config import BatchedConfig
from .network import OracleCritic, frozen_actor
from .pfsp import PrioritizedSeating, seating_for
from .ppo import PPOSettings, update
from .rollout import Collector


def torch_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` or ``auto`` (cuda when a GPU is visible)."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


def frozen_opponent_of(spec: str, rules: RuleConfig, source: str) -> PolicyCheckpoint | PolicyBot:
    """What a best response trains against (``sam-exploit --bot``): a policy network in sam-env's format (its
    checkpoint: the learner may start from its weights), a Q-network (the batched policy of its greedy moves) or
    a batched policy of one's own (a code spec: played as it is, on the arrays of every table where it sits);
    ``source`` starts the error for anything else."""
    bot = load_bot(spec, rules=rules)
    if isinstance(bot, PPOBot):
        return bot.checkpoint
    if isinstance(bot, QBot):  # a Q-network is the batched policy of its greedy moves (it has no policy weights)
        return PolicyBot(bot.best_actions, name=bot.name)
    if isinstance(bot, PolicyBot):
        probe_bot(bot, rules, repr(spec))
        return bot
    raise ConfigError(
        f"{source}: {spec!r} is not a network nor a batched policy; a best response trains against a network "
        "(a shipped name, a checkpoint) or a batched policy of your own (observations, masks) -> actions"
    )


class BatchedTrainer(EvaluatesDuringTraining):
    """Learner, optimizer, tables and pool of one run.

    Args:
        config: the run's config.
        start_step: learner steps already trained (a resumed run); the tables' deals, the seat
            draws and the sampling are seeded from ``(seed, start_step)``.
        fixed_opponents: frozen networks, or batched policies of one's own, that make up the whole pool for
            the run (a best response to a bot: ``sam_env.apps.exploit``); no snapshots of the learner are then added.
        logger: where the statistics go (default: nowhere; ``train.py`` passes a TensorBoard logger).
    """

    def __init__(
        self,
        config: BatchedConfig,
        start_step: int = 0,
        fixed_opponents: Sequence[PolicyCheckpoint | PolicyBot] = (),
        logger: Logger | None = None,
    ) -> None:
        self.config = config
        self.device = torch_device(config.device)
        rules = config.rule_config
        seeds = np.random.SeedSequence([config.seed, start_step]).spawn(4)
        torch.manual_seed(int(seeds[0].generate_state(1)[0]))
        self.venv = VectorEnv(
            config.num_tables,
            rules,
            seed=int(seeds[1].generate_state(1)[0]),
            encoding_version=config.encoding_version,
        )
        self.net = ActorCritic.fresh(config.arch, self.venv.observation_size, N_ACTIONS).to(self.device)
        self.seating = seating_for(config, np.random.default_rng(seeds[2]))
        self.self_play = not fixed_opponents
        self.pool: list[tuple[int, PolicyCheckpoint]] = []
        """The learner's snapshots (saved with a checkpoint), or the fixed opponents of a best response."""
        for opponent in fixed_opponents:
            if isinstance(opponent, PolicyCheckpoint):
                self.add_to_pool(0, opponent)
            else:  # a batched policy of one's own: played as it is, never saved with the learner's pool
                self.seating.add(opponent, 0, fixed=True)
        for spec in config.fixed_opponents:
            self.seating.add(frozen_actor(network_of(spec, rules, "fixed_opponents"), self.device), keep=0, fixed=True)
        if config.init_from is not None and start_step == 0:
            start = network_of(config.init_from, rules, "init_from")
            start = fitted_to(start, config.arch, config.init_from, config.seed, config.encoding_version)
            self.net.load_tensors(start.tensors)
        self.oracle = (
            OracleCritic(self.net, self.venv.hidden_size).to(self.device) if config.critic == "oracle" else None
        )
        """The perfect-information critic (``critic: oracle``), built from the starting network's critic."""
        parameters = [*self.net.parameters(), *(self.oracle.parameters() if self.oracle is not None else ())]
        self.optimizer = torch.optim.Adam(parameters, lr=config.learning_rate, eps=1e-5)
        self.collector = self.make_collector(int(seeds[3].generate_state(1)[0]))
        self.generator = np.random.default_rng(seeds[3].spawn(1)[0])
        self.settings = PPOSettings(
            n_epochs=config.n_epochs,
            batch_size=config.batch_size,
            clip_range=config.clip_range,
            ent_coef=config.ent_coef,
            vf_coef=config.vf_coef,
            max_grad_norm=config.max_grad_norm,
            target_kl=config.target_kl,
            gamma=config.gamma,
            gae_lambda=config.gae_lambda,
        )
        self.logger = logger
        self.num_timesteps = start_step
        self.n_updates = 0
        self.seconds = {"env": 0.0, "inference": 0.0, "bookkeeping": 0.0, "update": 0.0, "eval": 0.0}
        self.last_eval = ""
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, wall seconds, and X/hand with CI per opponent."""
        self.speed = SpeedMeter()
        """Learner steps when learning started and after every iteration (``speed.json``)."""

    def make_collector(self, seed: int) -> Collector:
        """What plays the rollouts: this process's tables (the Ray trainer plays them in actors, ``training.ray``)."""
        c = self.config
        return Collector(
            self.venv,
            self.seating,
            self.net,
            c.n_steps,
            c.reward_scale,
            self.device,
            c.snapshot_deterministic,
            seed=seed,
            oracle=self.oracle,
        )

    # ------------------------------------------------------------------ pool

    def snapshot(self, step: int | None = None) -> PolicyCheckpoint:
        """The learner's policy now, as a validated in-memory checkpoint."""
        step = self.num_timesteps if step is None else step
        c = self.config
        meta = policy_metadata(
            c.rule_config, c.arch, c.to_dict(), encoding_version=c.encoding_version, num_timesteps=step
        )
        return PolicyCheckpoint.in_memory(self.net.tensors(), meta, f"snapshot at step {step}")

    def add_to_pool(self, step: int, checkpoint: PolicyCheckpoint) -> None:
        self.pool.append((step, checkpoint))
        if self.self_play:
            del self.pool[: -self.config.pool_size]
        self.seating.add(frozen_actor(checkpoint, self.device), self.config.pool_size, fixed=not self.self_play)

    # ------------------------------------------------------------------ the loop

    def learning_rate(self) -> float:
        c = self.config
        if c.learning_rate_end is None:
            return c.learning_rate
        progress = min(1.0, self.num_timesteps / c.total_timesteps)
        return c.learning_rate + (c.learning_rate_end - c.learning_rate) * progress

    def learn(
        self,
        total_timesteps: int,
        on_checkpoint: object = None,
        label: str = "ppo",
        progress_bar: bool | None = None,
    ) -> None:
        """Train until ``total_timesteps`` learner steps; ``on_checkpoint(step)`` writes a checkpoint when due
        (:class:`sam_env.training.schedule.StepSchedule`)."""
        c = self.config
        if self.self_play and not self.pool:
            self.add_to_pool(self.num_timesteps, self.snapshot())
        schedule = StepSchedule(c, self.num_timesteps)
        started, start_step = time.perf_counter(), self.num_timesteps
        show = c.progress_bar if progress_bar is None else progress_bar
        bar = progress.bar(total_timesteps, self.num_timesteps, "step", show)
        self.wall_start = started - self.history[-1]["wall_seconds"] if self.history else started
        if not self.speed.marks:
            self.speed.mark(self.num_timesteps)
        while self.num_timesteps < total_timesteps:
            step = self.num_timesteps
            if self.self_play and schedule.due("snapshot", step):
                self.add_to_pool(step, self.snapshot())
            if schedule.due("eval", step):
                self.run_eval(label, bar)
            if on_checkpoint is not None and schedule.due("checkpoint", step):
                on_checkpoint(step)
            stats = self.collector.collect()
            for key, seconds in stats.seconds.items():
                self.seconds[key] += seconds
            clock = time.perf_counter()
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate()
            # A rollout in which no learner seat had a choice (a tiny run) has nothing to train on.
            train_logs = (
                update(
                    self.net,
                    self.optimizer,
                    self.collector.buffer,
                    self.settings,
                    self.device,
                    self.generator,
                    self.oracle,
                )
                if self.collector.buffer.size >= 2
                else {}
            )
            self.seconds["update"] += time.perf_counter() - clock
            self.n_updates += 1
            self.num_timesteps += stats.learner_steps
            progress.advance(bar, self.num_timesteps)
            self.speed.mark(self.num_timesteps)
            self._log(train_logs, stats, start_step, started, bar)
        bar.close()

    def _log(self, train_logs: dict[str, float], stats: object, start_step: int, started: float, bar: tqdm) -> None:
        elapsed = time.perf_counter() - started
        speed = (self.num_timesteps - start_step) / max(elapsed, 1e-9)  # for TensorBoard: the bar shows its own
        money = float(np.mean([m[0] for m in stats.metrics])) if stats.metrics else float("nan")
        bar.set_postfix_str(f"X/hand {money:+.2f} | eval {self.last_eval or '-'}", refresh=False)
        if self.logger is None:
            return
        for key, value in train_logs.items():
            self.logger.record(f"train/{key}", value)
        self.logger.record("train/learning_rate", self.learning_rate())
        self.logger.record("train/n_updates", self.n_updates)
        if stats.metrics:
            totals = np.asarray(stats.metrics, dtype=float).mean(axis=0)
            self.logger.record("charts/money_per_hand", money)
            self.logger.record("charts/hands", len(stats.metrics))
            for name in ("sam_declared", "sam_won", "chops_made", "chops_suffered"):
                self.logger.record(f"charts/{name}_per_hand", float(totals[METRICS.index(name)]))
        self.logger.record("charts/steps_per_second", speed)
        self.logger.record("charts/pool_size", len(self.pool))
        if isinstance(self.seating, PrioritizedSeating):  # the learner's rate of beating each opponent, and its draw
            snapshots = []
            for name, (p, _, chance) in self.seating.describe().items():
                if name.startswith("snapshot"):
                    snapshots.append(p)
                    continue
                self.logger.record(f"pfsp/p_beats_{name}", p)
                self.logger.record(f"pfsp/drawn_{name}", chance)
            if snapshots:
                self.logger.record("pfsp/p_beats_snapshots_mean", float(np.mean(snapshots)))
        for key, seconds in self.seconds.items():
            self.logger.record(f"perf/{key}_seconds", seconds)
        self.logger.dump(self.num_timesteps)


__getattr__ = deprecated_names(
    __name__, {"tensorboard_logger": (logs.tensorboard_logger, "sam_env.training.common.logs.tensorboard_logger")}
)
"""0.3's name of the TensorBoard logger, kept for a release (it moved to :mod:`..common.logs`)."""
