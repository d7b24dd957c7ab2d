"""The Deep Monte-Carlo loop: collect self-play decisions, fit the Q-network to their returns, evaluate, checkpoint.

One :class:`DMCTrainer` owns the tables (:class:`~.selfplay.SelfPlay`), the Q-network, its optimizer and
the decisions waiting for their hand to end (:class:`~.targets.Decisions`). Each iteration plays
``n_steps`` table steps, takes the decisions whose hand has ended with their Monte-Carlo targets, and
runs ``n_epochs`` passes of minibatch squared-error steps over them (DouZero's loss); with ``overlap_update`` the
update of the decisions finished so far runs on a second thread while the tables play a copy of the network one
update behind (:meth:`DMCTrainer.iterate`). Logs go to
TensorBoard under the other trainers' tag names (``charts/``, ``train/``, ``eval/``, ``perf/``), so
``sam_env.training.curves`` plots a run.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from tqdm import tqdm

from sam_env import VectorEnv
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint, qnet_metadata
from sam_env.agents.networks.qnet.network import QNetwork
from sam_env.encoding import observation_size
from sam_env.move_features import move_features

from .. import progress
from ..checkpoints import load_optimizer, network_of, optimizer_tensors
from ..config import ConfigError
from ..evaluate import EvaluatesDuringTraining
from ..lineage import LINEAGE, grown_from
from ..schedule import StepSchedule
from ..speed import SpeedMeter
from .config import DMCConfig
from .selfplay import CollectStats, SelfPlay
from .targets import Decisions, renumber

ALGORITHM = "DMC (Deep Monte-Carlo, DouZero's)"


def starting_network(config: DMCConfig, obs_size: int) -> QCheckpoint:
    """The Q-network ``config.init_from`` names, refused (:class:`ConfigError` naming ``init_from``) unless it
    is a Q-network of the config's layers for the config's table."""
    start = network_of(config.init_from, config.rule_config, "init_from", kind=QBot)
    if start.arch != config.q_arch or start.obs_size != obs_size:
        raise ConfigError(
            f"init_from: {config.init_from!r} has the network {start.arch} on {start.obs_size} inputs, the config "
            f"{config.q_arch} on {obs_size}; set pi_layers and activation to the network's"
        )
    return start


def run_seeds(seed: int, start_step: int) -> list[np.random.SeedSequence]:
    """The seeds of a run's torch generator, tables and draws: from ``seed``, and ``start_step`` for a resumed run
    (it plays fresh hands rather than repeating the first ones)."""
    return np.random.SeedSequence(seed if start_step == 0 else [seed, start_step]).spawn(3)


def self_play(config: DMCConfig, seeds: list[np.random.SeedSequence], net: QNetwork, decisions: Decisions) -> SelfPlay:
    """The tables of a run (or of one Ray actor) and their epsilon-greedy play of ``net``, seeded by ``seeds``."""
    venv = VectorEnv(config.num_tables, config.rule_config, seed=int(seeds[1].generate_state(1)[0]))
    rng = np.random.default_rng(seeds[2])
    return SelfPlay(venv, net, decisions, config.epsilon, config.reward_scale, rng)


def learner_device(device: str) -> torch.device:
    """``cpu``, ``cuda``, or for ``auto`` the GPU when there is one; :class:`ConfigError` for a GPU that is not."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda, but torch sees no GPU here; use device: auto (a GPU when there is one) or cpu")
    return torch.device(device)


class DMCTrainer(EvaluatesDuringTraining):
    """Tables, network, optimizer and waiting decisions of one run.

    Args:
        config: the run's config.
        start_step: the step a resumed run starts at (0 for a new run). A resumed run's tables, draws and
            minibatch order are seeded from ``(seed, start_step)``, so it plays fresh hands rather than
            repeating the first ones (the batched trainer does the same).
        logger: where the statistics go (default: nowhere; ``train.py`` passes a TensorBoard logger).
    """

    plays_tables = True
    """Whether this process plays the tables (the Ray learner, :mod:`.ray_tables`, leaves them to its actors)."""

    def __init__(self, config: DMCConfig, start_step: int = 0, logger: Logger | None = None) -> None:
        self.config = config
        seeds = run_seeds(config.seed, start_step)
        torch.manual_seed(int(seeds[0].generate_state(1)[0]))
        self.device = learner_device(config.device)
        obs_size = observation_size(config.rule_config.n_players)
        self.net = QNetwork(config.q_arch, obs_size)
        self.lineage: list[dict[str, Any]] = []
        """The checkpoints this run grew from, the oldest first (:mod:`sam_env.training.lineage`)."""
        if config.init_from is not None and start_step == 0:
            start = starting_network(config, obs_size)
            self.net.load_tensors(start.tensors)
            self.lineage = grown_from(start, "init_from")
        self.net.to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate)
        behind = self.plays_tables and (config.overlap_update or self.device.type != "cpu")
        self.actor = copy.deepcopy(self.net).cpu() if behind else self.net
        """The network the tables play: ``net`` itself, or a copy on the CPU (given the new weights after each update)
        with ``overlap_update`` (then one update behind) or a learner on a GPU."""
        if self.plays_tables:
            self.decisions = Decisions.allocate(config.num_tables * config.n_steps, obs_size)
            self.selfplay = self_play(config, seeds, self.actor, self.decisions)
        self.generator = np.random.default_rng(seeds[2].spawn(1)[0])
        self.logger = logger
        self.num_timesteps = start_step
        self.n_updates = 0
        self.trained_decisions = 0
        self.trained_before = 0
        """Decisions trained on before this session (a resumed run's): :meth:`decisions_per_second` counts this
        session's, over this session's seconds."""
        self.seconds = {"env": 0.0, "inference": 0.0, "update": 0.0, "eval": 0.0}
        """Wall seconds of the loop's parts (logging and checkpoints aside); with ``overlap_update``, ``update`` is
        taking the finished decisions out and the wait for the update thread after a collection (the update's time
        beyond the collection's)."""
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, wall seconds, and X/hand with CI per opponent."""
        self.speed = SpeedMeter()
        self.last_eval = ""

    def snapshot(self) -> QCheckpoint:
        """The network now, as a validated in-memory checkpoint (what evaluations and checkpoints use)."""
        c = self.config
        extra = {LINEAGE: self.lineage} if self.lineage else {}
        meta = qnet_metadata(c.rule_config, c.q_arch, ALGORITHM, c.to_dict(), num_timesteps=self.num_timesteps, **extra)
        return QCheckpoint.in_memory(self.net.tensors(), meta, f"dmc network at step {self.num_timesteps}")

    def state_tensors(self) -> dict[str, torch.Tensor]:
        """What a checkpoint's ``trainer.safetensors`` keeps to resume: Adam's moments and torch's generator."""
        return {"rng.torch": torch.get_rng_state(), **optimizer_tensors(self.optimizer)}

    def restore(self, network: QCheckpoint, tensors: dict[str, torch.Tensor], state: dict) -> None:
        """Continue from a checkpoint: its network, optimizer moments (with ``state``'s param groups), counts and
        evaluation history; the checkpoint becomes the newest entry of the run's lineage. Decisions not yet fitted
        when it was written are not kept: those whose hands were still being played, and with ``overlap_update``
        those whose hands ended during the last collection (the next update's)."""
        self.net.load_tensors(network.tensors)
        self.actor.load_state_dict(self.net.state_dict())
        self.lineage = grown_from(network, "resume")
        load_optimizer(self.optimizer, tensors, state["optimizer_param_groups"])
        torch.set_rng_state(tensors["rng.torch"])
        self.num_timesteps = int(state["num_timesteps"])
        self.n_updates = int(state["n_updates"])
        self.trained_decisions = self.trained_before = int(state.get("trained_decisions", 0))
        self.history = list(state.get("history", []))

    def learn(self, on_checkpoint: Callable[[int], None] | None = None, label: str = "dmc") -> None:
        """Train to ``total_timesteps`` moves; ``on_checkpoint(step)`` writes a checkpoint when one is due."""
        c = self.config
        schedule = StepSchedule(c, self.num_timesteps)
        bar = progress.bar(c.total_timesteps, self.num_timesteps, "move", c.progress_bar)
        self.wall_start = time.perf_counter()
        self.speed.mark(self.num_timesteps)
        with self.update_thread() as pool:
            while self.num_timesteps < c.total_timesteps:
                if schedule.due("eval", self.num_timesteps):
                    self.run_eval(label, bar)
                if on_checkpoint is not None and schedule.due("checkpoint", self.num_timesteps):
                    on_checkpoint(self.num_timesteps)
                stats, losses, targets = self.iterate(pool)
                for key, seconds in stats.seconds.items():
                    self.seconds[key] += seconds
                self.num_timesteps += stats.moves
                self.trained_decisions += len(targets)
                progress.advance(bar, self.num_timesteps)
                self.speed.mark(self.num_timesteps)
                self._log(losses, targets, stats, bar)
        bar.close()

    def update_thread(self) -> ThreadPoolExecutor | nullcontext[None]:
        """The context that :meth:`iterate` takes its pool from: a thread for the update with ``overlap_update``,
        else none (``with trainer.update_thread() as pool: trainer.iterate(pool)``)."""
        if self.config.overlap_update:
            return ThreadPoolExecutor(1, thread_name_prefix="dmc-update")
        return nullcontext()

    def iterate(self, pool: ThreadPoolExecutor | None) -> tuple[CollectStats, list[float], np.ndarray]:
        """One collection of ``n_steps`` table steps and one update: ``(collection, losses, targets trained on)``.

        Without a pool the update fits the decisions whose hand ended by the end of this collection, after it.
        With one (``overlap_update``) it fits those that ended before it, on the pool's thread while the
        tables play ``actor``, which then takes the updated weights: every draw keeps its thread and its
        order (the tables' from the self-play generator, the minibatches' from ``generator``), so a seed
        still fixes the run.
        """
        if pool is None:
            stats = self.selfplay.collect(self.config.n_steps)
            clock = time.perf_counter()
            obs, actions, targets = self._take_finished()
            losses = self.update(obs, actions, targets)
            if self.actor is not self.net:  # a learner on a GPU: the tables' copy takes its weights
                self.actor.load_state_dict(self.net.state_dict())
            self.seconds["update"] += time.perf_counter() - clock
            return stats, losses, targets
        clock = time.perf_counter()
        obs, actions, targets = self._take_finished()
        fitting = pool.submit(self.update, obs, actions, targets)
        waited = time.perf_counter() - clock
        stats = self.selfplay.collect(self.config.n_steps)
        clock = time.perf_counter()
        losses = fitting.result()
        self.actor.load_state_dict(self.net.state_dict())
        self.seconds["update"] += waited + time.perf_counter() - clock
        return stats, losses, targets

    def _take_finished(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The decisions whose hand has ended, with their targets, taken out of the waiting ones."""
        obs, actions, targets, moved = self.decisions.take_finished()
        renumber(self.selfplay.trajectories.last, moved)
        return obs, actions, targets

    def update(self, obs: np.ndarray, actions: np.ndarray, targets: np.ndarray) -> list[float]:
        """``n_epochs`` passes of minibatch steps of the squared error between Q(state, move) and the target."""
        c = self.config
        moves = torch.from_numpy(move_features(obs, actions)).to(self.device)
        obs_t, targets_t = torch.from_numpy(obs).to(self.device), torch.from_numpy(targets).to(self.device)
        losses = []
        for _ in range(c.n_epochs):
            order = torch.from_numpy(self.generator.permutation(len(targets)))
            for start in range(0, len(targets), c.batch_size):
                idx = order[start : start + c.batch_size].to(self.device)
                rows = torch.arange(len(idx), device=self.device)
                values = self.net.move_values(obs_t[idx], rows, moves[idx])
                loss = torch.nn.functional.mse_loss(values, targets_t[idx])
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
                self.optimizer.step()
                losses.append(loss.item())
                self.n_updates += 1
        return losses

    def decisions_per_second(self) -> float:
        """Decisions trained on per wall second of collecting and updating (evaluations left out)."""
        busy = self.seconds["env"] + self.seconds["inference"] + self.seconds["update"]
        return (self.trained_decisions - self.trained_before) / max(busy, 1e-9)

    def _log(self, losses: list[float], targets: np.ndarray, stats: CollectStats, bar: tqdm) -> None:
        elapsed = time.perf_counter() - self.wall_start
        moves_per_second = self.num_timesteps / max(elapsed, 1e-9)  # for TensorBoard: the bar shows its own
        loss = float(np.mean(losses)) if losses else float("nan")
        bar.set_postfix_str(f"loss {loss:.3f} | eval {self.last_eval or '-'}", refresh=False)
        if self.logger is None:
            return
        self.logger.record("train/loss", loss)
        self.logger.record("train/n_updates", self.n_updates)
        self.logger.record("train/samples", len(targets))
        if len(targets):
            self.logger.record("train/target_mean_abs", float(np.abs(targets).mean()))
        self.logger.record("charts/steps_per_second", moves_per_second)
        self.logger.record("charts/decisions_per_second", self.decisions_per_second())
        self.logger.record("charts/hands", stats.hands)
        if stats.hands:
            self.logger.record("charts/sam_declared_per_hand", stats.sams_declared / stats.hands)
        for key, seconds in self.seconds.items():
            self.logger.record(f"perf/{key}_seconds", seconds)
        self.logger.dump(self.num_timesteps)
