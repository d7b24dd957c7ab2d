"""Many hands in lockstep, so that a batched policy decides for all of them in one call (and a bot that waits on
a server, a :class:`sam_env.ConcurrentBot`, gets all their decisions at once and sends its requests together).

A batched policy (:class:`sam_env.agents.bot_objects.PolicyBot`: ``policy(observations, masks) ->
actions``, a torch network for instance) pays a fixed cost per call that one decision at a time
would pay at every decision. So the tournament plays a group of hands at once, each at its own
table (its own environment, reset to its deal and seating): every table is played forward — its
per-decision bots answering at once, exactly as in :func:`~.tournament.play_out` — until a batched
policy is to act or the hand is over; then each batched policy gets the rows of every table waiting
for it in one call, and the round repeats until every hand is over.

Hands are the environment's, decision for decision, so the results are those of one hand at a time
for any policy that answers each row from that row alone. Each table has its own instances of the
per-decision bots (reseeded per hand by the caller, as in the one-at-a-time loop), so interleaving
the tables changes none of their draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv

from sam_env.agents.bot_objects import IllegalActionError, PolicyBot, check_action, plays_in_lockstep
from sam_env.bot import Bot
from sam_env.concurrent_bot import ConcurrentBot

from .workers import Position


@dataclass
class LockstepTable:
    """One hand in a lockstep group: its environment (already reset), its bots by seat, and where it
    belongs in the match (for positions and failures)."""

    env: AECEnv
    by_seat: Sequence[Bot]
    deal: int
    seating: int


class TableError(Exception):
    """A decision failed at table ``table`` (or in a batched call for ``tables``); the cause is chained."""

    def __init__(self, table: int, seat: int | None, bot: str, tables: Sequence[int] = ()) -> None:
        super().__init__(f"table {table}, seat {seat}, bot {bot}")
        self.table, self.seat, self.bot, self.tables = table, seat, bot, tuple(tables)


def play_in_lockstep(tables: Sequence[LockstepTable], match: int, position: Position) -> None:
    """Play every table's hand to its end (see the module docstring); :class:`TableError` on the
    first decision that raises or is illegal. ``position`` is kept at the decision being made."""
    pending = list(range(len(tables)))
    while pending:
        waiting: dict[int, list[tuple[int, int, dict, object]]] = {}
        policies: dict[int, PolicyBot | ConcurrentBot] = {}
        for t in pending:
            asked = _advance(tables[t], t, match, position)
            if asked is not None:
                seat, observation, view = asked
                bot = tables[t].by_seat[seat]
                policies[id(bot)] = bot  # type: ignore[assignment]
                waiting.setdefault(id(bot), []).append((t, seat, observation, view))
        pending = []
        for key, rows in waiting.items():
            bot = policies[key]
            ts = [t for t, _, _, _ in rows]
            position.at(match, tables[ts[0]].deal, tables[ts[0]].seating, -1, tables[ts[-1]].deal)
            try:
                actions = _decide(bot, rows)
            except IllegalActionError as err:
                t, seat, _, _ = rows[getattr(err, "row", 0) or 0]
                raise TableError(t, seat, bot.name) from err
            except Exception as err:  # the policy's own error, for the whole batch
                raise TableError(ts[0], None, bot.name, ts) from err
            for (t, _, _, _), action in zip(rows, actions, strict=True):
                tables[t].env.step(action)
                pending.append(t)
        pending.sort()


def _decide(bot: PolicyBot | ConcurrentBot, rows: Sequence[tuple[int, int, dict, object]]) -> list[int]:
    """The bot's actions for the waiting rows ``(table, seat, observation, view)``, each checked legal
    (:class:`~sam_env.agents.bot_objects.IllegalActionError` with the row of the first that is not)."""
    if isinstance(bot, PolicyBot):
        observations = np.stack([o["observation"] for _, _, o, _ in rows])
        masks = np.stack([o["action_mask"] for _, _, o, _ in rows])
        return bot.decide(observations, masks).tolist()
    actions = list(bot.act_many([o for _, _, o, _ in rows], [v for _, _, _, v in rows]))  # type: ignore[misc]
    if len(actions) != len(rows):
        raise ValueError(f"{bot.name}: act_many answered {len(actions)} decisions for {len(rows)}")
    checked = []
    for row, ((_, _, observation, _), action) in enumerate(zip(rows, actions, strict=True)):
        try:
            checked.append(check_action(bot.name, action, observation["action_mask"]))
        except IllegalActionError as err:
            raise IllegalActionError(bot.name, action, err.legal, row) from None
    return checked


def _advance(table: LockstepTable, t: int, match: int, position: Position) -> tuple[int, dict, object] | None:
    """Play the table until a batched policy or a concurrent bot must decide (its seat, observation and view) or the
    hand ends (None)."""
    env = table.env
    raw = env.unwrapped
    while env.agents:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        agent = env.agent_selection
        seat = raw.seat_of(agent)
        bot = table.by_seat[seat]
        if plays_in_lockstep(bot):  # a batched policy reads observation rows only: no view built for it
            return seat, observation, raw.seat_view(agent) if isinstance(bot, ConcurrentBot) else None
        position.at(match, table.deal, table.seating, seat)
        try:
            action = check_action(bot.name, bot.act(observation, raw.seat_view(agent)), observation["action_mask"])
        except Exception as err:  # placed at its table and seat by the caller
            raise TableError(t, seat, bot.name) from err
        env.step(action)
    return None
