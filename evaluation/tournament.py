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
a registry name, a checkpoint path or a checkpoint in memory, a code spec ``module:attr`` or
``file.py:attr``) or by object (a bot class, factory or instance, a batched policy). Worker processes
start fresh (:mod:`.workers`: ``spawn``) and receive the specs once, objects pickled; each builds its
own bots (:mod:`.tasks`), so a policy being trained is evaluated on every core without being
registered anywhere. An object that does not pickle is played in this process. Every bot is
reseeded for every hand from ``(seed, deal, seating, slot)``, so results do not depend on the number
of workers or on how deals are chunked.

A match whose bot raises, answers an illegal move or kills its worker stops at once and is reported
(deal, seating, seat, bot, error); the other matches play on, and :class:`~.failures.EvaluationError`
carries the failures and every finished match's results.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from sam_env.agents.bot_objects import PickledBot, pickled, plays_in_lockstep, probe_bot
from sam_env.agents.code_specs import BotSpecError, is_code_spec, loaded_files
from sam_env.agents.llm import ChatSpec
from sam_env.agents.registry import BUILT_IN, label_of, load_bot, registered_at_run_time
from sam_env.core import RuleConfig

from .failures import EvaluationError, HandError, HandFailure
from .matches import Match, balanced_orders, hand_seed, play_hand, play_out
from .stats import METRICS, Summary, summarize
from .tasks import Task, lockstep_deals, run_task
from .workers import Done, Failed, Progress, WorkerPool, WorkerSetup, one_torch_thread

__all__ = [
    "EvaluationError",
    "Match",
    "MatchResult",
    "Task",
    "balanced_orders",
    "hand_seed",
    "play_hand",
    "play_out",
    "run_matches",
    "run_task",
]


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

    ``workers`` defaults to one process per core; with 1 everything runs in this process. Worker
    processes start fresh (``spawn``, :mod:`.workers`); matches that seat an object that does not
    pickle (a lambda, a closure) are played in this process whatever ``workers`` says.
    ``ray``: play the same chunks as Ray tasks instead (:mod:`.ray_pool`), on the cluster at
    ``ray_address`` (or ``RAY_ADDRESS``), else on a Ray started here with ``workers`` CPUs.
    Raises ``ValueError`` before any hand is played if a match does not seat exactly ``n`` agents
    (a missing opponent would fail in a worker, an extra one would silently never play) or seats a
    bot that cannot play these rules (an unknown name, a checkpoint for another seat count, a spec
    that does not import, a bot of your own that fails or answers an illegal move on a first decision).

    A match whose bot fails during play stops at once (its failure is printed as it happens); the
    others are played to the end, then :class:`~.failures.EvaluationError` is raised with the
    failures and the finished matches' results.

    ``record``: called with the record of every hand (:mod:`.replay`, as a dict), match by match,
    deal by deal, seating by seating, whatever the number of workers and the order chunks finish in
    (a failed match's hands up to its failure are recorded, none after).
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
    batched = check_bots(matches, rules)
    workers = workers or os.cpu_count() or 1
    portable, here = _portable(matches)
    chunk = max(1, min(200, math.ceil(deals / (4 * workers))))
    tasks = []
    for i, m in enumerate(matches):
        step = chunk
        if batched & set(m.names):  # whole lockstep groups per task: results independent of the chunking
            group = lockstep_deals(len(m.seatings))
            step = group * math.ceil(chunk / group)
        recorded = record is not None
        tasks += [Task(i, rules.to_dict(), seed, a, min(a + step, deals), recorded) for a in range(0, deals, step)]
    n_seatings = [len(m.seatings) for m in matches]
    metrics = [np.zeros((deals, s, n, len(METRICS)), dtype=np.int32) for s in n_seatings]
    passed_on = [np.zeros((deals, s, n), dtype=np.int32) for s in n_seatings]
    leaders = np.zeros(deals, dtype=np.int32)
    position = {(task.match_index, task.start): k for k, task in enumerate(tasks)}
    finished: dict[int, list[dict]] = {}
    failures: dict[int, HandFailure] = {}
    written = 0
    with tqdm(total=deals * sum(n_seatings), unit="hand", disable=not progress, smoothing=0.05) as bar:

        def flush() -> None:  # in task order: hold a chunk that finished early until those before it are written
            nonlocal written
            while written in finished:
                for hand in finished.pop(written):
                    record(hand)  # type: ignore[misc]
                written += 1

        def collect(task: Task, values: np.ndarray, task_leaders: np.ndarray, paid: np.ndarray, hands: list) -> None:
            if task.match_index in failures:
                return
            metrics[task.match_index][task.start : task.stop] = values
            passed_on[task.match_index][task.start : task.stop] = paid
            leaders[task.start : task.stop] = task_leaders
            if record is not None:
                finished[position[task.match_index, task.start]] = hands
                flush()

        def fail(failure: HandFailure) -> None:
            if failure.match in failures:
                return
            failures[failure.match] = failure
            bar.write(f"match failed: {failure.describe()}")
            if record is not None:  # its chunks that will never come are written as empty
                for (i, _), k in position.items():
                    if i == failure.match and k >= written:
                        finished.setdefault(k, [])
                flush()

        if ray:
            from .ray_pool import run_on_ray  # Ray is an optional extra, imported only here

            for outcome in run_on_ray(run_task, tasks, tuple(portable), ray_address, workers):
                bar.update(outcome[1].shape[0] * outcome[1].shape[1])
                collect(*outcome)
        else:
            pooled = [t for t in tasks if workers > 1 and t.match_index not in here]
            if pooled:
                setup = WorkerSetup(run_task, tuple(portable), loaded_files(), _registered_payloads())
                size = min(workers, len(pooled))
                pool = WorkerPool(setup, size, lambda t, at, error: _failure(matches, t, at, error))
                for event in pool.run(pooled, skip=lambda t: t.match_index in failures):
                    if isinstance(event, Progress):
                        bar.update(event.hands)
                    elif isinstance(event, Done):
                        collect(*event.output)
                    elif isinstance(event, Failed):
                        fail(event.failure)
            for task in (t for t in tasks if t not in pooled):
                if task.match_index in failures:
                    continue
                try:
                    collect(*run_task(task, matches, progress=bar.update))
                except HandError as err:
                    fail(err.failure)
    results = [MatchResult(m, metrics[i], leaders.copy(), passed_on[i]) for i, m in enumerate(matches)]
    if failures:
        raise EvaluationError(
            [failures[i] for i in sorted(failures)], [r for i, r in enumerate(results) if i not in failures]
        )
    return results


def check_bots(matches: Sequence[Match], rules: RuleConfig) -> set[str]:
    """Build every bot of ``matches`` once for ``rules`` (in this process), so that one that cannot sit at
    the table fails before any hand; a bot from code (a code spec, an object, a name registered at run
    time) is also asked for one decision (:func:`~sam_env.agents.bot_objects.probe_bot`). Returns the
    names of the bots that are batched policies (played in lockstep)."""
    n = rules.n_players
    batched = set()
    for label, spec in {name: spec for m in matches for name, spec in zip(m.names, m.slots, strict=True)}.items():
        try:
            bot = load_bot(spec, rules=rules)
            if _from_code(spec):
                with one_torch_thread():  # as it will play
                    probe_bot(bot, rules, label)
        except BotSpecError:
            raise
        except ValueError as err:
            raise ValueError(f"{label} cannot play this {n}-player table: {err}") from None
        if plays_in_lockstep(bot):
            batched.add(label)
    return batched


def _from_code(spec: object) -> bool:
    """Whether a bot comes from code outside sam-env (it is probed before play; shipped bots are tested)."""
    if isinstance(spec, str):
        return spec in registered_at_run_time() or (is_code_spec(spec) and spec not in BUILT_IN)
    if isinstance(spec, ChatSpec):  # a language model: probing it would spend a request
        return False
    return isinstance(spec, PickledBot) or not (isinstance(spec, os.PathLike) or hasattr(spec, "tensors"))


def _portable(matches: Sequence[Match]) -> tuple[list[Match], set[int]]:
    """The matches as worker processes receive them (objects pickled), and the indices of those that
    must be played in this process (an object, or a factory registered at run time, that does not pickle)."""
    local_names = {name for name, payload in _registered_payloads(strict=False).items() if payload is None}
    portable, here = [], set()
    for i, m in enumerate(matches):
        slots = []
        for spec in m.slots:
            if isinstance(spec, (str, os.PathLike, PickledBot, ChatSpec)) or hasattr(spec, "tensors"):  # plain data
                here.update([i] if isinstance(spec, str) and spec in local_names else [])
                slots.append(spec)
                continue
            carried = pickled(spec, label_of(spec))
            if carried is None:
                here.add(i)
            slots.append(carried or spec)
        portable.append(Match(slots[0], tuple(slots[1:]), m.label or m.names[0]))
    return portable, here


def _registered_payloads(strict: bool = True) -> dict[str, bytes | None]:
    """The factories :func:`~sam_env.agents.registry.register` added, pickled (None: does not pickle;
    left out when ``strict``)."""
    payloads = {name: pickled(factory, name) for name, factory in registered_at_run_time().items()}
    out = {name: (None if p is None else p.payload) for name, p in payloads.items()}
    return {k: v for k, v in out.items() if v is not None} if strict else out


def _failure(matches: Sequence[Match], task: Task, at: dict[str, int | None], error: str) -> HandFailure:
    """The failure of a task whose worker died (or raised outside a hand), placed by its last position."""
    match = matches[task.match_index]
    seat, seating = at["seat"], at["seating"]
    bot = None
    if seat is not None and seating is not None:
        bot = match.names[int(np.flatnonzero(match.seatings[seating] == seat)[0])]
    return HandFailure(
        match=task.match_index,
        label=match.description,
        deal=at["deal"],
        seating=seating,
        seat=seat,
        bot=bot,
        error=error.strip().splitlines()[-1] if "\n" in error.strip() else error,
        details=error,
        last_deal=at["last_deal"],
    )


def _is_count(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
