"""Duplicate matches, played through the PettingZoo environment in a pool of worker processes.

A :class:`Match` seats one *candidate* against ``n - 1`` opponents. Every deal (:mod:`.deals`) is
played once per *seating*. A seating is an order of the opponents around the table and a *rotation*
``k``: the candidate sits in seat ``k`` and the opponents follow it in that order. The cards of each
seat and the would-be leader stay the same in every seating — they are passed to
``env.reset(options={"hands": ..., "leader": ...})``, which the environment supports for exactly
this — so over one deal the candidate plays every hand from every position, and luck of the cards
cancels out of the comparison.

When the opponents differ, one order is not enough: a bot that always sits right after a weak one
collects that bot's mistakes (greedy after random blocks its Sâm declarations), and a fixed order
measures seating, not skill. Every deal is then also played over the orders of
:func:`balanced_orders`, in which each bot follows each other bot equally often; summaries and
ratings average over all of them. With identical opponents there is one order, and the seatings are
the ``n`` rotations.

Games run through the environment (observation dict and ``seat_view``), the code path every bot,
trained or rule-based, sees in training. A match names its bots by spec (:data:`sam_env.agents.registry.BotSpec`:
a registry name, a checkpoint path or a checkpoint in memory); each worker process receives the specs
once and builds its own bots, so a policy being trained is evaluated on every core without being
registered anywhere. Every bot is reseeded for every hand from ``(seed, deal, seating, slot)``, so
results do not depend on the number of workers or on how deals are chunked.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv
from sam_env.agents.registry import BotSpec, label_of, load_bot
from tqdm import tqdm

import sam_env
from sam_env.bot import Bot
from sam_env.core import HandResult, RuleConfig, SeatView

from .deals import Deal, make_deal
from .replay import record_hand
from .stats import METRICS, Summary, hand_metrics, summarize


@dataclass(frozen=True)
class Match:
    """The candidate against ``opponents`` (``n - 1`` bot specs, in turn order after it).

    ``label``: the candidate's name in reports (default: its spec's, :func:`sam_env.agents.registry.label_of`).
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

    @property
    def seatings(self) -> np.ndarray:
        """``int[seating, slot]``: the seat of every slot in each seating this match plays every deal in.

        Seating ``o * n + k`` is opponent order ``o`` of :func:`balanced_orders` (only the given order
        when the opponents are all the same bot) with the candidate in seat ``k``.
        """
        n = len(self.slots)
        orders = balanced_orders(n) if len(set(self.names[1:])) > 1 else [tuple(range(1, n))]
        rows = []
        for order in orders:
            for k in range(n):
                seats = [0] * n
                seats[0] = k
                for position, slot in enumerate(order, start=1):
                    seats[slot] = (k + position) % n
                rows.append(seats)
        return np.array(rows, dtype=np.int32)


def balanced_orders(n_players: int) -> list[tuple[int, ...]]:
    """Orders of the opponent slots ``1 … n-1`` after the candidate (slot 0) in which, around the
    table, every slot sits directly after every other slot equally often.

    For a prime number of seats (2, 3, 5), the ``n - 1`` orders "every ``m``-th slot" (``m = 1 … n-1``:
    slot ``p·m mod n`` at position ``p``) put each ordered pair of slots side by side exactly once,
    since the pair ``(a, a + m)`` is adjacent only in order ``m``. Otherwise (4 seats) every order:
    3! = 6, in which each ordered pair is adjacent twice.
    """
    if all(n_players % d for d in range(2, n_players)):
        return [tuple(p * m % n_players for p in range(1, n_players)) for m in range(1, n_players)]
    return list(itertools.permutations(range(1, n_players)))


def hand_seed(seed: int, deal: int, seating: int, slot: int) -> int:
    """The seed an agent gets for one hand; independent of chunking and worker count."""
    return int(np.random.SeedSequence([seed, deal, seating, slot]).generate_state(1)[0])


Chooser = Callable[[int, dict, SeatView], int]
"""Picks the action of one decision from the deciding seat, its observation dict and its ``seat_view``."""


def play_out(env: AECEnv, choose: Chooser) -> HandResult:
    """Play the hand ``env`` was reset to through to its end, asking ``choose`` at every decision
    and stepping the finished seats' dead steps itself; return the hand's result.

    The one AEC loop of the project's players: tournaments, the play app and the bot tests differ
    only in how they choose (and what they record or print on the way)."""
    raw = env.unwrapped
    for agent_id in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(choose(raw.seat_of(agent_id), observation, raw.seat_view(agent_id)))
    return raw.result


def play_hand(env: AECEnv, agents_by_seat: Sequence[Bot], deal: Deal) -> HandResult:
    """Play one hand of ``deal`` with ``agents_by_seat[seat]`` in each seat; return its result."""
    env.reset(options={"hands": list(deal.hands), "leader": deal.leader})
    return play_out(env, lambda seat, observation, view: agents_by_seat[seat].act(observation, view))


@dataclass(frozen=True)
class Task:
    """Deals ``start … stop-1`` of one match, as sent to a worker process (the match by its index).

    ``record``: also return the record of every hand (:mod:`.replay`, as dicts).
    """

    match_index: int
    rules: dict[str, object]
    seed: int
    start: int
    stop: int
    record: bool = False


_MATCHES: Sequence[Match] = ()
"""The matches of the tournament this worker process serves, sent once when the process starts."""


def _receive_matches(matches: Sequence[Match]) -> None:
    global _MATCHES
    _MATCHES = matches


TaskOutput = tuple[Task, np.ndarray, np.ndarray, np.ndarray, list[dict]]
"""What :func:`run_task` returns: the task, metrics, leaders, money passed on, hand records."""


def run_task(task: Task, matches: Sequence[Match] | None = None) -> TaskOutput:
    """Play a task; return it with ``metrics[deal, seating, slot, metric]``, the deals' leaders,
    ``passed_on[deal, seating, slot]``, the money the slot's seat paid, net, to the seat after it,
    and the hands' records in the order played when ``task.record`` (else an empty list).

    ``matches``: those the task's index refers to (default: the ones this worker process received).
    """
    rules = RuleConfig.from_dict(task.rules)
    n = rules.n_players
    env = sam_env.env(rules=rules)
    env.reset(seed=task.seed)
    match = (_MATCHES if matches is None else matches)[task.match_index]
    seatings = match.seatings
    agents = [load_bot(spec, rules=rules) for spec in match.slots]
    metrics = np.zeros((task.stop - task.start, len(seatings), n, len(METRICS)), dtype=np.int32)
    passed_on = np.zeros((task.stop - task.start, len(seatings), n), dtype=np.int32)
    leaders = np.zeros(task.stop - task.start, dtype=np.int32)
    records: list[dict] = []
    for row, d in enumerate(range(task.start, task.stop)):
        deal = make_deal(rules, task.seed, d)
        leaders[row] = deal.leader
        for s, seats in enumerate(seatings):
            by_seat: list[Bot] = [agents[0]] * n
            for slot, seat in enumerate(seats):
                agents[slot].reseed(hand_seed(task.seed, d, s, slot))
                by_seat[seat] = agents[slot]
            result = play_hand(env, by_seat, deal)
            to_next = _paid_to_next_seat(result, n)
            for slot, seat in enumerate(seats):
                metrics[row, s, slot] = hand_metrics(result, seat)
                passed_on[row, s, slot] = to_next[seat]
            if task.record:
                names = [""] * n
                for slot, seat in enumerate(seats):
                    names[seat] = match.names[slot]
                info = {"match": task.match_index, "deal": d, "seating": s, "candidate_seat": int(seats[0])}
                records.append(record_hand(env.unwrapped.hand, names, info).to_dict())
    return task, metrics, leaders, passed_on, records


def _paid_to_next_seat(result: HandResult, n_players: int) -> list[int]:
    """Per seat, the money it paid the seat after it in the hand minus what it received from that seat."""
    paid = [0] * n_players
    for t in result.ledger:
        if t.payee == (t.payer + 1) % n_players:
            paid[t.payer] += t.amount
        if t.payer == (t.payee + 1) % n_players:
            paid[t.payee] -= t.amount
    return paid


@dataclass(frozen=True)
class MatchResult:
    """All hands of a match: ``metrics[deal, seating, slot, metric]`` (see :data:`~.stats.METRICS`).

    ``passed_on[deal, seating, slot]``: net money the slot's seat paid the seat after it (see
    :func:`sam_env.evaluation.seating.adjacent_flows`).
    """

    match: Match
    metrics: np.ndarray
    leaders: np.ndarray
    passed_on: np.ndarray

    @property
    def seatings(self) -> np.ndarray:
        """``int[seating, slot]``: the seat of each slot in each seating (see :attr:`Match.seatings`)."""
        return self.match.seatings

    def summary(self) -> Summary:
        """The candidate's results (slot 0) over every seating of every deal."""
        return summarize(
            self.match.names[0],
            self.match.opponents_label,
            self.metrics[:, :, 0],
            self.leaders,
            candidate_seats=self.seatings[:, 0],
        )


def run_matches(
    matches: Sequence[Match],
    rules: RuleConfig,
    deals: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    ray: bool = False,
    ray_address: str | None = None,
    record: Callable[[dict], None] | None = None,
) -> list[MatchResult]:
    """Play every match over the same ``deals`` deals of ``seed``, on ``workers`` processes.

    ``workers`` defaults to one process per core; with 1 everything runs in this process.
    ``ray``: play the same chunks as Ray tasks instead (:mod:`.ray_pool`), on the cluster at
    ``ray_address`` (or ``RAY_ADDRESS``), else on a Ray started here with ``workers`` CPUs.
    Raises ``ValueError`` before any hand is played if a match does not seat exactly ``n`` agents
    (a missing opponent would fail in a worker, an extra one would silently never play) or seats a
    bot that cannot play these rules (an unknown name, a checkpoint for another seat count).

    ``record``: called with the record of every hand (:mod:`.replay`, as a dict), match by match,
    deal by deal, seating by seating, whatever the number of workers and the order chunks finish in.
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
        Task(i, rules.to_dict(), seed, start, min(start + chunk, deals), record is not None)
        for i, m in enumerate(matches)
        for start in range(0, deals, chunk)
    ]
    n_seatings = [len(m.seatings) for m in matches]
    metrics = [np.zeros((deals, s, n, len(METRICS)), dtype=np.int32) for s in n_seatings]
    passed_on = [np.zeros((deals, s, n), dtype=np.int32) for s in n_seatings]
    leaders = np.zeros(deals, dtype=np.int32)
    position = {(task.match_index, task.start): k for k, task in enumerate(tasks)}
    finished: dict[int, list[dict]] = {}
    written = 0
    with tqdm(total=deals * sum(n_seatings), unit="hand", disable=not progress, smoothing=0.05) as bar:

        def collect(task: Task, values: np.ndarray, task_leaders: np.ndarray, paid: np.ndarray, hands: list) -> None:
            nonlocal written
            metrics[task.match_index][task.start : task.stop] = values
            passed_on[task.match_index][task.start : task.stop] = paid
            leaders[task.start : task.stop] = task_leaders
            bar.update(values.shape[0] * values.shape[1])
            if record is not None:  # in task order: hold a chunk that finished early until those before it are written
                finished[position[task.match_index, task.start]] = hands
                while written in finished:
                    for hand in finished.pop(written):
                        record(hand)
                    written += 1

        if ray:
            from .ray_pool import run_on_ray  # Ray is an optional extra, imported only here

            for outcome in run_on_ray(run_task, tasks, tuple(matches), ray_address, workers):
                collect(*outcome)
        elif workers == 1:
            for task in tasks:
                collect(*run_task(task, matches))
        else:
            with ProcessPoolExecutor(workers, initializer=_receive_matches, initargs=(tuple(matches),)) as pool:
                for future in as_completed([pool.submit(run_task, t) for t in tasks]):
                    collect(*future.result())
    return [MatchResult(m, metrics[i], leaders.copy(), passed_on[i]) for i, m in enumerate(matches)]


def _is_count(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
