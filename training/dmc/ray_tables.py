"""Deep Monte-Carlo with its tables in Ray actors (``trainer: dmc``, ``tables: ray``), split as DouZero splits it.

* **Actors** (:class:`TableActor`, ``table_workers`` of them, one CPU each, spread over the cluster's nodes): each
  holds ``num_tables`` tables and a copy of the Q-network on its CPU. Given the learner's weights, it plays
  ``n_steps`` table steps epsilon-greedily (:class:`~.selfplay.SelfPlay`, the local trainer's own code) and sends
  back the decisions whose hands ended, with their Monte-Carlo targets (:mod:`.targets`); the decisions of hands
  still being played wait in the actor for a later collection, as they wait in the local trainer.
* **The learner** (:class:`RayDMCTrainer`, in the driver process): the local trainer's loop, update, evaluations
  and checkpoints (:class:`~.trainer.DMCTrainer`), its network on ``device`` (a GPU where there is one, with
  ``device: auto``); the weights go to the actors through Ray's object store once per collection.

Actor 0 is seeded as the local trainer's tables are (from ``(seed, start_step)``), and actor ``i > 0`` from a seed
derived from ``(seed, i)``, so a seed fixes a run with a given number of actors, and with one actor and
``overlap_update: false`` the run is the local run, decision for decision and update for update (tested). With
``overlap_update: true`` the actors play the next collection while the learner fits the last one (one update
behind, as the local option is). Checkpoints are the local trainer's, so ``--resume`` continues a run either way.
This module imports Ray: :func:`sam_env.training.dmc.train` imports it for ``tables: ray`` only.
"""

from __future__ import annotations

import dataclasses
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch

from sam_env.agents.networks.qnet.network import QNetwork
from sam_env.encoding import observation_size

from ..common.ray_cluster import check_cpus, runner_seed, start_ray
from ..config import TrainResult
from .config import DMCConfig
from .run import train_with
from .selfplay import CollectStats
from .targets import Decisions, renumber
from .trainer import DMCTrainer, run_seeds, self_play

SYNC = "sync"
"""The learner's seconds on a collection beyond the actors' own play (weights out, decisions back, waiting)."""
Finished = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Decisions whose hand ended: observations, actions and Monte-Carlo targets."""


class TableActor:
    """One actor's tables and its copy of the network (see the module docstring); no Ray inside."""

    def __init__(self, config: DMCConfig, start_step: int, index: int) -> None:
        torch.set_num_threads(1)  # the one CPU this actor holds
        own = dataclasses.replace(config, seed=runner_seed(config.seed, index))
        seeds = run_seeds(own.seed, start_step)
        obs_size = observation_size(config.rule_config.n_players)
        self.net = QNetwork(config.q_arch, obs_size)
        self.decisions = Decisions.allocate(config.num_tables * config.n_steps, obs_size)
        self.selfplay = self_play(own, seeds, self.net, self.decisions)

    def collect(self, weights: dict[str, np.ndarray], steps: int) -> tuple[Finished, CollectStats]:
        """Play ``steps`` table steps with the learner's ``weights``; the decisions whose hand ended, and the stats."""
        self.net.load_tensors({k: np.array(v) for k, v in weights.items()})  # Ray's arrays are read-only
        stats = self.selfplay.collect(steps)
        obs, actions, targets, moved = self.decisions.take_finished()
        renumber(self.selfplay.trajectories.last, moved)
        return (obs, actions, targets), stats

    def node_id(self) -> str:
        return ray.get_runtime_context().get_node_id()


class RayDMCTrainer(DMCTrainer):
    """The learner: :class:`~.trainer.DMCTrainer` whose collections are its actors'. Ray must be running."""

    plays_tables = False

    def __init__(self, config: DMCConfig, start_step: int = 0, logger: Any = None) -> None:
        super().__init__(config, start_step, logger=logger)
        actor = ray.remote(num_cpus=1)(TableActor)
        self.actors = [
            actor.options(scheduling_strategy="SPREAD").remote(config, start_step, i)
            for i in range(config.table_workers)
        ]
        self.seconds[SYNC] = 0.0
        self.pending: Finished | None = None
        """With ``overlap_update``: the last collection's finished decisions, fitted while the actors play the next."""

    def nodes(self) -> list[str]:
        """The Ray node id of every actor, in actor order."""
        return ray.get([a.node_id.remote() for a in self.actors])

    def close(self) -> None:
        """End the actors, giving their CPUs back to Ray (a run's end does it by shutting Ray down)."""
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []

    def speed_info(self) -> dict[str, object]:
        """What ``speed.json`` says of where the tables played."""
        return {"tables": "ray", "table_workers": len(self.actors), "table_worker_nodes": self.nodes()}

    def update_thread(self) -> nullcontext[None]:
        return nullcontext()  # the actors play in their own processes: the learner needs no second thread

    def iterate(self, pool: object) -> tuple[CollectStats, list[float], np.ndarray]:
        """One collection by every actor and one update: of that collection's decisions, or with
        ``overlap_update`` of the previous one's, fitted while the actors play.

        Seconds: ``env`` and ``inference`` are the actors' mean; ``update`` the fit's time beyond their play (all of
        it when it follows the collection, what outlasts the collection when it overlaps it); ``sync`` the rest of
        the iteration's wall time (weights out, decisions back, waiting for the slowest actor)."""
        clock = time.perf_counter()
        weights = ray.put(self.net.tensors())
        refs = [a.collect.remote(weights, self.config.n_steps) for a in self.actors]
        fitted: Finished | None = self.pending if self.config.overlap_update else None
        fit_start = time.perf_counter()
        losses = [] if fitted is None else self.update(*fitted)
        overlapped = time.perf_counter() - fit_start
        parts = ray.get(refs)
        finished: Finished = tuple(np.concatenate([part[i] for part, _ in parts]) for i in range(3))  # type: ignore[assignment]
        stats = merged([s for _, s in parts])
        played = sum(stats.seconds.values())
        if self.config.overlap_update:
            self.pending, trained = finished, (np.zeros(0, np.float32) if fitted is None else fitted[2])
            updating = max(0.0, overlapped - played)
        else:
            fit_start = time.perf_counter()
            losses = self.update(*finished)
            updating = time.perf_counter() - fit_start
            trained = finished[2]
        stats.seconds[SYNC] = max(0.0, time.perf_counter() - clock - updating - played)
        self.seconds["update"] += updating
        return stats, losses, trained

    def decisions_per_second(self) -> float:
        """Decisions trained on per wall second of the iterations (evaluations left out), Ray's share included."""
        busy = self.seconds["env"] + self.seconds["inference"] + self.seconds["update"] + self.seconds[SYNC]
        return (self.trained_decisions - self.trained_before) / max(busy, 1e-9)


def merged(parts: list[CollectStats]) -> CollectStats:
    """The actors' collections as one: their counts summed, their seconds averaged (they play at once)."""
    out = CollectStats()
    for part in parts:
        out.moves += part.moves
        out.decisions += part.decisions
        out.hands += part.hands
        out.sams_declared += part.sams_declared
        for key, seconds in part.seconds.items():
            out.seconds[key] = out.seconds.get(key, 0.0) + seconds / len(parts)
    return out


def train(config: DMCConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train ``config`` with its tables in Ray actors: Ray joined at ``RAY_ADDRESS`` or started locally on
    ``num_cpus`` CPUs, and always shut down, also on an error."""
    check_cpus(config.table_workers, config.num_cpus)
    obs_size = observation_size(config.rule_config.n_players)
    collection = config.num_tables * config.n_steps * (4 * obs_size + 16)  # a collection's decisions, at most
    where = start_ray(config.num_cpus, 2 * config.table_workers * collection)
    try:
        placed = f"{config.table_workers} Ray actor(s) x {config.num_tables} tables ({where})"
        result = train_with(RayDMCTrainer, config, run_dir, resume, where=placed)
    finally:
        ray.shutdown()
    return result
