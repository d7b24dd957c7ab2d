"""Duplicate matches, played through the PettingZoo environment in a pool of worker processes.

A :class:`Match` seats one *candidate* against ``n - 1`` opponents. Every deal (:mod:`.deals`) is
played ``n`` times, once per *rotation* ``k``: the candidate sits in seat ``k`` and opponent ``j``
(``j = 1 … n-1``) in seat ``(k + j) % n``, so the opponents keep their order around the table. The
cards of each seat and the would-be leader stay the same in every rotation — they are passed to
``env.reset(options={"hands": ..., "leader": ...})``, which the environment supports for exactly
this — so over one deal the candidate plays every hand from every position, and luck of the cards
cancels out of the comparison.

Games run through the environment (observation dict and ``seat_view``), the code path every bot,
trained or rule-based, sees in training. A match names its bots by spec (:data:`agents.registry.BotSpec`:
a registry name, a checkpoint path or a checkpoint in memory); each worker process receives the specs
once and builds its own bots, so a policy being trained is evaluated on every core without being
registered anywhere. Every bot is reseeded for every hand from ``(seed, deal, rotation, slot)``, so
results do not depend on the number of workers or on how deals are chunked.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv
from tqdm import tqdm

import sam_env
from agents.registry import BotSpec, label_of, load_bot
from sam_env.bot import Bot
from sam_env.core import HandResult, RuleConfig

from .deals import Deal, make_deal
from .stats import METRICS, Summary, hand_metrics, summarize


@dataclass(frozen=True)
class Match:
    """The candidate against ``opponents`` (``n - 1`` bot specs, in turn order after it).

    ``label``: the candidate's name in reports (default: its spec's, :func:`agents.registry.label_of`).
    """

    candidate: BotSpec
    opponents: tuple[BotSpec, ...]
    label: str | None = None

    @property
    def slots(self) -> tuple[BotSpec, ...]:
        """Bot specs by slot: slot 0 is the candidate, slot ``j`` the ``j``-th opponent."""
        return (self.candidate, *self.opponents)

    @property
    def names(self) -> tuple[str, ...]:
        """Bot names by slot, as reports and ratings show them."""
        return (self.label or label_of(self.candidate), *map(label_of, self.opponents))

    @property
    def opponents_label(self) -> str:
        names = sorted(set(self.names[1:]))
        return names[0] + f" x{len(self.opponents)}" if len(names) == 1 else "+".join(self.names[1:])


def slot_seats(rotation: int, n_players: int) -> list[int]:
    """Seat of each slot in a rotation: the candidate in seat ``rotation``, the others after it."""
    return [(rotation + j) % n_players for j in range(n_players)]


def hand_seed(seed: int, deal: int, rotation: int, slot: int) -> int:
    """The seed an agent gets for one hand; independent of chunking and worker count."""
    return int(np.random.SeedSequence([seed, deal, rotation, slot]).generate_state(1)[0])


def play_hand(env: AECEnv, agents_by_seat: Sequence[Bot], deal: Deal) -> HandResult:
    """Play one hand of ``deal`` with ``agents_by_seat[seat]`` in each seat; return its result."""
    env.reset(options={"hands": list(deal.hands), "leader": deal.leader})
    raw = env.unwrapped
    for agent_id in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(agents_by_seat[raw.seat_of(agent_id)].act(observation, raw.seat_view(agent_id)))
    return raw.result


@dataclass(frozen=True)
class Task:
    """Deals ``start … stop-1`` of one match, as sent to a worker process (the match by its index)."""

    match_index: int
    rules: dict[str, object]
    seed: int
    start: int
    stop: int


_MATCHES: Sequence[Match] = ()
"""The matches of the tournament this worker process serves, sent once when the process starts."""


def _receive_matches(matches: Sequence[Match]) -> None:
    global _MATCHES
    _MATCHES = matches


def run_task(task: Task, matches: Sequence[Match] | None = None) -> tuple[Task, np.ndarray, np.ndarray]:
    """Play a task; return it with ``metrics[deal, rotation, slot, metric]`` and the deals' leaders.

    ``matches``: those the task's index refers to (default: the ones this worker process received).
    """
    rules = RuleConfig.from_dict(task.rules)
    n = rules.n_players
    env = sam_env.env(rules=rules)
    env.reset(seed=task.seed)
    match = (_MATCHES if matches is None else matches)[task.match_index]
    agents = [load_bot(spec, rules=rules) for spec in match.slots]
    metrics = np.zeros((task.stop - task.start, n, n, len(METRICS)), dtype=np.int32)
    leaders = np.zeros(task.stop - task.start, dtype=np.int32)
    for row, d in enumerate(range(task.start, task.stop)):
        deal = make_deal(rules, task.seed, d)
        leaders[row] = deal.leader
        for k in range(n):
            seats = slot_seats(k, n)
            by_seat: list[Bot] = [agents[0]] * n
            for slot, seat in enumerate(seats):
                agents[slot].reseed(hand_seed(task.seed, d, k, slot))
                by_seat[seat] = agents[slot]
            result = play_hand(env, by_seat, deal)
            for slot, seat in enumerate(seats):
                metrics[row, k, slot] = hand_metrics(result, seat)
    return task, metrics, leaders


@dataclass(frozen=True)
class MatchResult:
    """All hands of a match: ``metrics[deal, rotation, slot, metric]`` (see :data:`~.stats.METRICS`)."""

    match: Match
    metrics: np.ndarray
    leaders: np.ndarray

    def summary(self) -> Summary:
        """The candidate's results (slot 0) over every rotation of every deal."""
        return summarize(self.match.names[0], self.match.opponents_label, self.metrics[:, :, 0], self.leaders)


def run_matches(
    matches: Sequence[Match],
    rules: RuleConfig,
    deals: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
) -> list[MatchResult]:
    """Play every match over the same ``deals`` deals of ``seed``, on ``workers`` processes.

    ``workers`` defaults to one process per core; with 1 everything runs in this process.
    Raises ``ValueError`` before any hand is played if a match does not seat exactly ``n`` agents
    (a missing opponent would fail in a worker, an extra one would silently never play) or seats a
    bot that cannot play these rules (an unknown name, a checkpoint for another seat count).
    """
    if not isinstance(rules, RuleConfig):
        raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
    if not _is_count(deals):
        raise ValueError(f"deals must be an int >= 1, got {deals!r}")
    if workers is not None and not _is_count(workers):
        raise ValueError(f"workers must be None (one per core) or an int >= 1, got {workers!r}")
    n = rules.n_players
    for m in matches:
        if len(m.opponents) != n - 1:
            raise ValueError(
                f"match {m.names[0]} vs {list(m.names[1:])}: a {n}-player table needs {n - 1} opponents, "
                f"got {len(m.opponents)}"
            )
    for label, spec in {name: spec for m in matches for name, spec in zip(m.names, m.slots, strict=True)}.items():
        try:
            load_bot(spec, rules=rules)  # a bot that cannot sit at this table fails here, not in a worker
        except ValueError as err:
            raise ValueError(f"{label} cannot play this {n}-player table: {err}") from None
    workers = workers or os.cpu_count() or 1
    chunk = max(1, min(200, math.ceil(deals / (4 * workers))))
    tasks = [
        Task(i, rules.to_dict(), seed, start, min(start + chunk, deals))
        for i, m in enumerate(matches)
        for start in range(0, deals, chunk)
    ]
    metrics = [np.zeros((deals, n, n, len(METRICS)), dtype=np.int32) for _ in matches]
    leaders = np.zeros(deals, dtype=np.int32)
    with tqdm(total=len(matches) * deals * n, unit="hand", disable=not progress, smoothing=0.05) as bar:

        def collect(task: Task, values: np.ndarray, task_leaders: np.ndarray) -> None:
            metrics[task.match_index][task.start : task.stop] = values
            leaders[task.start : task.stop] = task_leaders
            bar.update(values.shape[0] * n)

        if workers == 1:
            for task in tasks:
                collect(*run_task(task, matches))
        else:
            with ProcessPoolExecutor(workers, initializer=_receive_matches, initargs=(tuple(matches),)) as pool:
                for future in as_completed([pool.submit(run_task, t) for t in tasks]):
                    collect(*future.result())
    return [MatchResult(m, metrics[i], leaders.copy()) for i, m in enumerate(matches)]


def _is_count(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
