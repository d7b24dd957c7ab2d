"""The expert-iteration loop: generate searched games, distill them, evaluate, checkpoint, log.

One :class:`ExpertTrainer` owns the network and its optimizer, the replay buffer (the targets of the
last ``buffer_iterations`` iterations), the tables (:class:`~.generate.SelfPlay`) and the search
(:class:`~.workers.SearchPool`). :meth:`ExpertTrainer.learn` runs iterations until
``total_timesteps`` moves of the network's seats; before each, the search is given the current
network, so each new network is the next search's rollout policy. Logs go to TensorBoard under
the other trainers' tag names (``charts/``, ``train/``, ``eval/``, ``perf/``) plus ``search/``
(the search's agreement with the network and its value gain), so ``sam_env.training.curves`` plots a run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch
from stable_baselines3.common.logger import Logger
from tqdm import tqdm

from sam_env import N_ACTIONS
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, policy_metadata
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.search.models import OpponentModel

from .. import progress
from ..evaluate import EvaluatesDuringTraining
from ..widen import fitted_to
from .config import ExpertConfig
from .distill import DistillSettings, Samples, distill
from .generate import IterationGames, SelfPlay
from .workers import SearchPool

DISTILL = 4
"""Spawn key of an iteration's minibatch order (after :mod:`.generate`'s keys)."""


def search_models(config: ExpertConfig) -> tuple[OpponentModel, ...]:
    """The search's models of the other seats besides the network, ready for the engine."""
    from ..checkpoints import network_of

    rules = config.rule_config
    return tuple(m if m == "heuristic" else network_of(m, rules, "search_models") for m in config.search_models)


class ExpertTrainer(EvaluatesDuringTraining):
    """Network, optimizer, buffer, tables and search of one run (module docstring).

    Args:
        config: the run's config.
        logger: where the statistics go (default: nowhere; ``train.py`` passes a TensorBoard logger).
        fresh: start from ``init_from`` (or a new network); a resumed run loads its checkpoint instead.
    """

    def __init__(self, config: ExpertConfig, logger: Logger | None = None, fresh: bool = True) -> None:
        from ..checkpoints import network_of

        self.config = config
        rules = config.rule_config
        self.selfplay = SelfPlay(config.num_tables, rules, config.rule_bot_share, config.seed)
        self.net = ActorCritic.fresh(config.arch, self.selfplay.venv.observation_size, N_ACTIONS)
        if config.init_from is not None and fresh:
            start = network_of(config.init_from, rules, "init_from")
            self.net.load_tensors(fitted_to(start, config.arch, config.init_from, config.seed).tensors)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate, eps=1e-5)
        models = search_models(config)
        self.search = SearchPool(
            config.determinizations, config.candidates, models, config.search_workers, config.proposals
        )
        self.settings = DistillSettings(
            n_epochs=config.n_epochs,
            batch_size=config.batch_size,
            max_grad_norm=config.max_grad_norm,
            temperature=config.target_temperature,
            margin=config.target_margin,
            reward_scale=config.reward_scale,
        )
        self.logger = logger
        self.num_timesteps = 0
        self.iteration = 0
        self.searched = 0
        """Decisions searched over the whole run (resumed runs included)."""
        self.buffer: list[Samples] = []
        """The targets of the last ``buffer_iterations`` iterations, oldest first."""
        self.history: list[dict[str, float]] = []
        """One row per evaluation: step, iteration, wall seconds, and X/hand with CI per opponent."""
        self.seconds = {"search": 0.0, "play": 0.0, "train": 0.0, "eval": 0.0}
        self.warm: tuple[int, int, float] | None = None
        """Learner steps, searched decisions and the clock after this process's first iteration."""
        self.last_eval = ""

    def snapshot(self) -> PolicyCheckpoint:
        """The network now, as a validated in-memory checkpoint."""
        c = self.config
        meta = policy_metadata(c.rule_config, c.arch, c.to_dict(), num_timesteps=self.num_timesteps)
        return PolicyCheckpoint.in_memory(self.net.tensors(), meta, f"network after iteration {self.iteration}")

    def learn(self, on_checkpoint: Callable[[int], object] | None = None, label: str = "expert") -> None:
        """Run iterations until ``total_timesteps``; ``on_checkpoint(step)`` writes a checkpoint when due."""
        c = self.config
        bar = progress.bar(c.total_timesteps, self.num_timesteps, "step", c.progress_bar)
        self.started = time.perf_counter()
        self.start = (self.num_timesteps, self.searched, self.iteration)
        self.start_seconds = dict(self.seconds)
        self.wall_start = self.started - (self.history[-1]["wall_seconds"] if self.history else 0.0)
        if self.iteration == 0 and c.eval_every:
            self.run_eval(label, bar)
        try:
            while self.num_timesteps < c.total_timesteps:
                self.search.update(self.snapshot())
                games = self.selfplay.play(
                    self.net,
                    self.search,
                    self.iteration,
                    c.decisions_per_iteration,
                    c.total_timesteps - self.num_timesteps,
                    c.play,
                )
                for key in ("search", "play"):
                    self.seconds[key] += games.seconds[key]
                self.buffer = [*self.buffer, games.samples][-c.buffer_iterations :]
                clock = time.perf_counter()
                samples = Samples.concat(self.buffer)
                rng = np.random.default_rng(self.selfplay.seeds(self.iteration, DISTILL))
                train_logs = distill(self.net, self.optimizer, samples, self.settings, rng) if samples.size else {}
                self.seconds["train"] += time.perf_counter() - clock
                self.iteration += 1
                self.num_timesteps += games.learner_steps
                self.searched += games.searched
                if self.warm is None:
                    self.warm = (self.num_timesteps, self.searched, time.perf_counter())
                progress.advance(bar, self.num_timesteps)
                self._log(games, train_logs, bar)
                if c.eval_every and self.iteration % c.eval_every == 0:
                    self.run_eval(label, bar)
                if on_checkpoint is not None and c.checkpoint_every and self.iteration % c.checkpoint_every == 0:
                    on_checkpoint(self.num_timesteps)
        finally:
            bar.close()
            self.search.close()

    def eval_fields(self) -> dict[str, float]:
        return {"iteration": self.iteration}

    def eval_heading(self, step: int) -> str:
        return f"iteration {self.iteration}, step {step:,}"

    def speed(self) -> dict[str, float | int]:
        """This process's speed (``speed.json``): over the run, and after the first iteration (the
        compiled kernels load and the buffers fill there)."""
        seconds = time.perf_counter() - self.started
        steps, searched = self.num_timesteps - self.start[0], self.searched - self.start[1]
        spent = {k: v - self.start_seconds[k] for k, v in self.seconds.items()}
        out: dict[str, float | int] = {
            "learner_steps": steps,
            "searched_decisions": searched,
            "iterations": self.iteration,
            "seconds": round(seconds, 1),
            "learner_steps_per_second": round(steps / max(seconds, 1e-9), 1),
            "searched_decisions_per_second": round(searched / max(seconds, 1e-9), 2),
            "searched_decisions_per_search_second": round(searched / max(spent["search"], 1e-9), 2),
            **{f"{k}_seconds": round(v, 1) for k, v in spent.items()},
            "search_workers": self.config.search_workers,
        }
        if self.warm is not None and self.iteration - self.start[2] > 1:
            since = max(time.perf_counter() - self.warm[2], 1e-9)
            steps, searched = self.num_timesteps - self.warm[0], self.searched - self.warm[1]
            out["learner_steps_per_second_after_first_iteration"] = round(steps / since, 1)
            out["searched_decisions_per_second_after_first_iteration"] = round(searched / since, 2)
        return out

    def _log(self, games: IterationGames, train_logs: dict[str, float], bar: tqdm) -> None:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        speed = (self.num_timesteps - self.start[0]) / elapsed
        bar.set_postfix_str(
            f"iteration {self.iteration} | agreement {games.agreement:.2f} | gain {games.value_gain:+.2f} X | "
            f"eval {self.last_eval or '-'}",
            refresh=False,
        )
        if self.logger is None:
            return
        record = self.logger.record
        for key, value in train_logs.items():
            record(f"train/{key}", value)
        record("train/learning_rate", self.config.learning_rate)
        record("train/n_updates", self.iteration)
        if games.metrics:
            record("charts/money_per_hand", games.money_per_hand)
            record("charts/hands", len(games.metrics))
        record("charts/steps_per_second", speed)
        record("charts/iteration", self.iteration)
        record("search/decisions", games.searched)
        record("search/decisions_total", self.searched)
        record("search/agreement", games.agreement)
        record("search/value_gain", games.value_gain)
        record("search/value", float(np.mean(games.samples.value)) if games.samples.size else float("nan"))
        record("search/without_value", games.searched - games.samples.size)
        record("search/decisions_per_second", games.searched / max(games.seconds["search"], 1e-9))
        for key, seconds in self.seconds.items():
            record(f"perf/{key}_seconds", seconds)
        self.logger.dump(self.num_timesteps)
