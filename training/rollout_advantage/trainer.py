"""The rollout-advantage trainer's loop: collect labelled decisions, update, snapshot, evaluate, checkpoint.

One :class:`RolloutAdvantageTrainer` owns the real tables (:mod:`.collect`), the copies (:mod:`.labels`),
the learner's actor-critic, the advantage head, their optimizer, and the pool of frozen networks.
Each iteration collects ``labels_per_iteration`` labelled decisions played by the network as it is,
updates it on them (:mod:`.update`), and hands the new network to the tables (compiled, as the search
plays it: :class:`sam_env.agents.search.network.CompiledNetwork`). Snapshots, evaluations and checkpoints
follow the config's schedule (:class:`sam_env.training.schedule.StepSchedule`) in labelled decisions.
TensorBoard tags are the other trainers' (``charts/``, ``train/``, ``eval/``, ``perf/``), logged at the
step count, which a resumed run continues: its curves go on where the chunk before stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from tqdm import tqdm

from sam_env import N_ACTIONS
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, policy_metadata
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.search.network import CompiledNetwork
from sam_env.encoding import observation_size

from .. import progress
from ..checkpoints import network_of
from ..common.seating import Seating
from ..evaluate import EvaluatesDuringTraining
from ..lineage import LINEAGE, grown_from
from ..schedule import StepSchedule
from ..speed import SpeedMeter
from ..widen import fitted_to
from .collect import LabelCollector
from .config import RolloutAdvantageConfig
from .labels import RolloutLabeller
from .players import SeatPlayers
from .update import AdvantageHead, UpdateSettings, update


class RolloutAdvantageTrainer(EvaluatesDuringTraining):
    """Learner, advantage head, optimizer, tables and pool of one run.

    Args:
        config: the run's config.
        start_step: labelled decisions already trained on (a resumed run); the tables, seatings and
            rollouts are seeded from ``(seed, start_step)``, so a resumed run plays fresh hands.
        logger: where the statistics go (``train.py`` passes a TensorBoard logger); none: nowhere.
    """

    def __init__(self, config: RolloutAdvantageConfig, start_step: int = 0, logger: Logger | None = None) -> None:
        self.config = c = config
        self.device = torch.device("cpu")
        rules = c.rule_config
        seeds = np.random.SeedSequence([c.seed, start_step]).spawn(4)
        torch.manual_seed(int(seeds[0].generate_state(1)[0]))
        obs_size = observation_size(rules.n_players)
        self.net = ActorCritic.fresh(c.arch, obs_size, N_ACTIONS)
        self.lineage: list[dict[str, Any]] = []
        """The saved checkpoints this run grew from (:mod:`sam_env.training.lineage`), written into every checkpoint."""
        if c.init_from is not None and start_step == 0:
            start = network_of(c.init_from, rules, "init_from")
            self.net.load_tensors(fitted_to(start, c.arch, c.init_from, c.seed).tensors)
            self.lineage = grown_from(start, "init_from")
        self.head = AdvantageHead(c.adv_layers, obs_size, N_ACTIONS, c.activation)
        self.optimizer = torch.optim.Adam([*self.net.parameters(), *self.head.parameters()], lr=c.learning_rate)
        self.seating = Seating(
            c.num_tables, rules.n_players, c.learner_share, c.opponents.weights(), np.random.default_rng(seeds[1])
        )
        self.pool: list[tuple[int, PolicyCheckpoint]] = []
        """The learner's snapshots (saved with a checkpoint)."""
        for spec in c.fixed_opponents:
            self.seating.add(CompiledNetwork(network_of(spec, rules, "fixed_opponents")), keep=0, fixed=True)
        self.players = SeatPlayers(rules, CompiledNetwork(self.snapshot(start_step)), self.seating.pool)
        self.players.deterministic_pool = c.snapshot_deterministic
        labeller = RolloutLabeller(rules, c.rollout_tables, self.players)
        self.collector = LabelCollector(
            rules,
            c.num_tables,
            self.seating,
            self.players,
            labeller,
            c.label_share,
            c.max_moves,
            np.random.default_rng(seeds[2]),
        )
        self.generator = np.random.default_rng(seeds[3])
        self.settings = UpdateSettings(
            n_epochs=c.n_epochs,
            batch_size=c.batch_size,
            improvement=c.improvement,
            temperature=c.temperature,
            kl_coef=c.kl_coef,
            ent_coef=c.ent_coef,
            vf_coef=c.vf_coef,
            adv_coef=c.adv_coef,
            max_grad_norm=c.max_grad_norm,
            reward_scale=c.reward_scale,
        )
        self.logger = logger
        self.num_timesteps = start_step
        self.n_updates = 0
        self.seconds = {"tables": 0.0, "rollouts": 0.0, "update": 0.0, "eval": 0.0}
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, wall seconds, and X/hand with CI per opponent."""
        self.speed = SpeedMeter()
        self.last_eval = ""
        self.stopped_early = False
        """Whether :meth:`learn` stopped at ``chunk_minutes`` before ``total_timesteps``."""

    # ------------------------------------------------------------------ pool

    def snapshot(self, step: int | None = None) -> PolicyCheckpoint:
        """The learner's policy now, as a validated in-memory checkpoint (its lineage included)."""
        step = self.num_timesteps if step is None else step
        c = self.config
        meta = policy_metadata(c.rule_config, c.arch, c.to_dict(), num_timesteps=step, **{LINEAGE: self.lineage})
        return PolicyCheckpoint.in_memory(self.net.tensors(), meta, f"snapshot at step {step}")

    def compiled(self) -> CompiledNetwork:
        """The learner's actor as the tables play it."""
        return CompiledNetwork(self.snapshot())

    def add_to_pool(self, step: int, checkpoint: PolicyCheckpoint) -> None:
        self.pool.append((step, checkpoint))
        del self.pool[: -self.config.pool_size]
        self.seating.add(CompiledNetwork(checkpoint), self.config.pool_size)

    # ------------------------------------------------------------------ the loop

    def learn(self, on_checkpoint: Callable[[int], None] | None = None, label: str = "rollout") -> None:
        """Train to ``total_timesteps`` labelled decisions (or ``chunk_minutes``); ``on_checkpoint(step)`` when due."""
        c = self.config
        if not self.pool and c.opponents.self_play:
            self.add_to_pool(self.num_timesteps, self.snapshot())
        schedule = StepSchedule(c, self.num_timesteps)
        started = time.perf_counter()
        self.wall_start = started - self.history[-1]["wall_seconds"] if self.history else started
        deadline = started + 60 * c.chunk_minutes if c.chunk_minutes is not None else float("inf")
        bar = progress.bar(c.total_timesteps, self.num_timesteps, "label", c.progress_bar)
        self.speed.mark(self.num_timesteps)
        while self.num_timesteps < c.total_timesteps:
            step = self.num_timesteps
            if c.opponents.self_play and schedule.due("snapshot", step):
                self.add_to_pool(step, self.snapshot())
            if schedule.due("eval", step):
                self.run_eval(label, bar)
            if on_checkpoint is not None and schedule.due("checkpoint", step):
                on_checkpoint(step)
            if time.perf_counter() >= deadline:
                self.stopped_early = True
                break
            self.iterate(bar)
        bar.close()

    def iterate(self, bar: tqdm | None = None) -> dict[str, float]:
        """Collect one iteration's labels, update on them, hand the new network to the tables; the logs."""
        labels, stats = self.collector.collect(self.config.labels_per_iteration)
        for key, seconds in stats.seconds.items():
            self.seconds[key] += seconds
        clock = time.perf_counter()
        for group in self.optimizer.param_groups:
            group["lr"] = self.config.learning_rate
        logs = update(self.net, self.head, self.optimizer, labels, self.settings, self.device, self.generator)
        self.seconds["update"] += time.perf_counter() - clock
        self.players.set_learner(self.compiled())
        self.seating.forget_unused()
        self.n_updates += 1
        self.num_timesteps += len(labels)
        self.speed.mark(self.num_timesteps)
        rollout_seconds = stats.seconds["rollouts"] + stats.seconds["tables"]
        logs["labels_per_second"] = len(labels) / max(rollout_seconds, 1e-9)
        money = float(np.mean(stats.hands)) if stats.hands else float("nan")
        if bar is not None:  # its rate is the run's; labels per second of rolling out go to TensorBoard
            progress.advance(bar, self.num_timesteps)
            bar.set_postfix_str(f"X/hand {money:+.2f} | eval {self.last_eval or '-'}", refresh=False)
        if self.logger is not None:
            for key, value in logs.items():
                self.logger.record(f"train/{key}", value)
            self.logger.record("train/n_updates", self.n_updates)
            self.logger.record("charts/money_per_hand", money)
            self.logger.record("charts/hands", len(stats.hands))
            self.logger.record("charts/labels_per_second", logs["labels_per_second"])
            self.logger.record("charts/pool_size", len(self.pool))
            for key, seconds in self.seconds.items():
                self.logger.record(f"perf/{key}_seconds", seconds)
            self.logger.dump(self.num_timesteps)
        return logs
