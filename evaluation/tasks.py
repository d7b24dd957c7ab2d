"""One task of a tournament: some deals of one match, played in a worker process or in this one.

:func:`run_task` builds the match's bots (in the process that plays them: nothing built in the
parent crosses a process boundary), reseeds them for every hand from ``(seed, deal, seating, slot)``
so results do not depend on how deals are split, and plays every seating of every deal. When a
slot is a batched policy the hands of a group of deals are played in lockstep (:mod:`.lockstep`)
so that it decides for all of them in one call; the groups are fixed by the deal numbers alone.

A bot that raises or answers an illegal move stops the task with a :class:`~.failures.HandError`
that names the match, deal, seating, seat and bot; a :class:`~.workers.Position` is kept at the
decision being made, so that the parent can say where a worker was when its process died.
"""

from __future__ import annotations

import contextlib
import copy
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

import sam_env
from sam_env.agents.bot_objects import check_action, plays_in_lockstep
from sam_env.agents.networks.catalogue import resolutions
from sam_env.agents.registry import load_bot
from sam_env.bot import Bot, table_encoding_version
from sam_env.core import HandResult, RuleConfig

from .deals import make_deal
from .failures import HandError, HandFailure
from .lockstep import LockstepTable, TableError, play_in_lockstep
from .matches import Match, hand_seed, play_out
from .replay import record_hand
from .stats import METRICS, hand_metrics
from .workers import Position, one_torch_thread

LOCKSTEP_TABLES = 64
"""About how many hands a group plays at once when a slot is a batched policy: the batch a policy sees."""


def lockstep_deals(n_seatings: int) -> int:
    """Deals per lockstep group for a match of ``n_seatings`` seatings (groups start at multiples of it)."""
    return max(1, LOCKSTEP_TABLES // n_seatings)


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


TaskOutput = tuple[Task, np.ndarray, np.ndarray, np.ndarray, list[dict]]
"""What :func:`run_task` returns: the task, metrics, leaders, money passed on, hand records."""


def run_task(
    task: Task,
    matches: Sequence[Match],
    watch: Position | None = None,
    progress: Callable[[int], object] | None = None,
) -> TaskOutput:
    """Play a task; return it with ``metrics[deal, seating, slot, metric]``, the deals' leaders,
    ``passed_on[deal, seating, slot]``, the money the slot's seat paid, net, to the seat after it,
    and the hands' records in the order played when ``task.record`` (else an empty list).

    ``matches``: those the task's index refers to; ``watch``: kept at the decision being made;
    ``progress(hands)``: called as hands finish. Raises :class:`~.failures.HandError`.
    """
    rules = RuleConfig.from_dict(task.rules)
    match = matches[task.match_index]
    watch = watch if watch is not None else Position()
    play = _Play(task, match, rules, watch, progress or (lambda hands: None))
    watch.at(task.match_index, task.start, -1)
    agents = [play.build(slot) for slot in range(len(match.slots))]
    with one_torch_thread():
        if any(plays_in_lockstep(a) for a in agents):
            play.in_lockstep(agents)
        else:
            play.one_at_a_time(agents)
    return task, play.metrics, play.leaders, play.passed_on, play.records


class _Play:
    """The arrays of one task and the two ways to fill them."""

    def __init__(
        self, task: Task, match: Match, rules: RuleConfig, watch: Position, progress: Callable[[int], object]
    ) -> None:
        self.task, self.match, self.rules, self.watch, self.progress = task, match, rules, watch, progress
        self.seatings = match.seatings
        n, deals = rules.n_players, task.stop - task.start
        self.metrics = np.zeros((deals, len(self.seatings), n, len(METRICS)), dtype=np.int32)
        self.passed_on = np.zeros((deals, len(self.seatings), n), dtype=np.int32)
        self.leaders = np.zeros(deals, dtype=np.int32)
        self.records: list[dict] = []
        self.networks = resolutions(match.names, rules.n_players) if task.record else {}
        """What "best" or a family name among the match's bots plays at this table, by name and weights: resolved
        once, recorded with every hand that seats it."""

    def build(self, slot: int, first: Bot | None = None) -> Bot:
        """A bot for ``slot``, built here; an object passed in (not a spec) is copied, so that no two
        seats share one bot's state (as no two worker copies do)."""
        spec = self.match.slots[slot]
        try:
            bot = load_bot(spec, rules=self.rules)
        except Exception as err:  # reported as this match's failure, with the bot's name
            raise self._failure(None, None, None, slot, err) from err
        if bot is spec or bot is first or getattr(bot, "wrapped", None) is spec:
            with contextlib.suppress(Exception):  # a bot that cannot be copied is shared, as given
                bot = copy.deepcopy(bot)
        return bot

    def _another(self, slot: int, bot: Bot) -> Bot:
        """A second instance of a bot that has not played yet: a copy (cheap), else built again."""
        try:
            return copy.deepcopy(bot)
        except Exception:  # a bot that cannot be copied is built again from its spec
            return self.build(slot, bot)

    def one_at_a_time(self, agents: list[Bot]) -> None:
        n = self.rules.n_players
        env = sam_env.env(rules=self.rules, encoding_version=table_encoding_version(agents))
        env.reset(seed=self.task.seed)
        raw = env.unwrapped
        names = self.match.names
        for row, d in enumerate(range(self.task.start, self.task.stop)):
            deal = make_deal(self.rules, self.task.seed, d)
            self.leaders[row] = deal.leader
            for s, seats in enumerate(self.seatings):
                by_seat: list[Bot] = [agents[0]] * n
                slot_at = [0] * n
                for slot, seat in enumerate(seats):
                    agents[slot].reseed(hand_seed(self.task.seed, d, s, slot))
                    by_seat[seat], slot_at[seat] = agents[slot], slot
                self.watch.at(self.task.match_index, d, s)

                def choose(seat: int, observation: dict, view: object, by_seat: list[Bot] = by_seat) -> int:
                    self.watch.deciding(seat)
                    bot = by_seat[seat]
                    return check_action(bot.name, bot.act(observation, view), observation["action_mask"])

                env.reset(options={"hands": list(deal.hands), "leader": deal.leader})
                try:
                    result = play_out(env, choose)
                except Exception as err:  # placed at its deal, seating and seat
                    seat = self.watch.read()["seat"]
                    raise self._failure(d, s, seat, None if seat is None else slot_at[seat], err) from err
                self._book(row, s, seats, result, raw, names)
                self.progress(1)

    def in_lockstep(self, agents: list[Bot]) -> None:
        task, n_seatings = self.task, len(self.seatings)
        per_group = lockstep_deals(n_seatings)
        width = min(per_group, task.stop - task.start) * n_seatings
        envs = _environments(self.rules, width, table_encoding_version(agents))
        # A batched policy is one bot for every table; a per-decision bot gets one per table.
        bots = [
            [a] * width if plays_in_lockstep(a) else [a, *(self._another(slot, a) for _ in range(width - 1))]
            for slot, a in enumerate(agents)
        ]
        start = task.start
        while start < task.stop:
            stop = min(task.stop, (start // per_group + 1) * per_group)
            for slot, a in enumerate(agents):
                if plays_in_lockstep(a):
                    a.reseed(hand_seed(task.seed, start, n_seatings, slot))
            tables = self._deal_group(start, stop, envs, bots)
            try:
                play_in_lockstep(tables, task.match_index, self.watch)
            except TableError as err:
                table = tables[err.table]
                slot = None if err.seat is None else int(np.flatnonzero(self.seatings[table.seating] == err.seat)[0])
                last = tables[err.tables[-1]].deal if err.tables else None
                raise self._failure(table.deal, table.seating, err.seat, slot, err.__cause__, last) from err
            for table in tables:
                row = table.deal - task.start
                raw = table.env.unwrapped
                self._book(row, table.seating, self.seatings[table.seating], raw.result, raw, self.match.names)
            self.progress(len(tables))
            start = stop

    def _deal_group(self, start: int, stop: int, envs: list, bots: list[list[Bot]]) -> list[LockstepTable]:
        tables = []
        n = self.rules.n_players
        for d in range(start, stop):
            deal = make_deal(self.rules, self.task.seed, d)
            self.leaders[d - self.task.start] = deal.leader
            for s, seats in enumerate(self.seatings):
                k = len(tables)
                by_seat: list[Bot] = [bots[0][k]] * n
                for slot, seat in enumerate(seats):
                    bot = bots[slot][k]
                    if not plays_in_lockstep(bot):
                        bot.reseed(hand_seed(self.task.seed, d, s, slot))
                    by_seat[seat] = bot
                envs[k].reset(options={"hands": list(deal.hands), "leader": deal.leader})
                tables.append(LockstepTable(envs[k], by_seat, d, s))
        return tables

    def _book(self, row: int, s: int, seats: np.ndarray, result: HandResult, raw: object, names: tuple) -> None:
        n = self.rules.n_players
        to_next = _paid_to_next_seat(result, n)
        for slot, seat in enumerate(seats):
            self.metrics[row, s, slot] = hand_metrics(result, seat)
            self.passed_on[row, s, slot] = to_next[seat]
        if self.task.record:
            by_seat = [""] * n
            for slot, seat in enumerate(seats):
                by_seat[seat] = names[slot]
            d = self.task.start + row
            info = {"match": self.task.match_index, "deal": d, "seating": s, "candidate_seat": int(seats[0])}
            networks = {name: self.networks[name] for name in by_seat if name in self.networks}
            if networks:
                info["networks"] = networks
            self.records.append(record_hand(raw.hand, by_seat, info).to_dict())  # type: ignore[attr-defined]

    def _failure(
        self,
        deal: int | None,
        seating: int | None,
        seat: int | None,
        slot: int | None,
        err: BaseException | None,
        last_deal: int | None = None,
    ) -> HandError:
        error = "unknown error" if err is None else f"{type(err).__name__}: {err}"
        details = "" if err is None else "".join(traceback.format_exception(type(err), err, err.__traceback__))
        return HandError(
            HandFailure(
                match=self.task.match_index,
                label=self.match.description,
                deal=deal,
                seating=seating,
                seat=seat,
                bot=None if slot is None else self.match.names[slot],
                error=error,
                details=details,
                last_deal=last_deal,
            )
        )


_ENVIRONMENTS: dict[tuple[str, int], list] = {}
"""Environments of lockstep groups, kept per process and rules: every hand resets its table to an
explicit deal and leader, which draws nothing from an environment's generator, so reuse changes nothing."""


def _environments(rules: RuleConfig, width: int, encoding_version: int) -> list:
    """``width`` environments of these rules, encoding the observations that the latest seated network reads."""
    envs = _ENVIRONMENTS.setdefault((repr(rules), encoding_version), [])
    while len(envs) < width:
        envs.append(sam_env.env(rules=rules, encoding_version=encoding_version))
    return envs[:width]


def _paid_to_next_seat(result: HandResult, n_players: int) -> list[int]:
    """Per seat, the money it paid the seat after it in the hand minus what it received from that seat."""
    paid = [0] * n_players
    for t in result.ledger:
        if t.payee == (t.payer + 1) % n_players:
            paid[t.payer] += t.amount
        if t.payer == (t.payee + 1) % n_players:
            paid[t.payee] -= t.amount
    return paid
