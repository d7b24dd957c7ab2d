"""A match and its seatings, the seed of every hand, and the one AEC loop that plays a hand.

A :class:`Match` seats one *candidate* against ``n - 1`` opponents. Every deal (:mod:`.deals`) is
played once per *seating*: an order of the opponents around the table and a *rotation* ``k``, the
candidate in seat ``k`` and the opponents after it in that order (see :mod:`.tournament` for why
the orders are balanced).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv

from sam_env.agents.registry import BotSpec, label_of
from sam_env.bot import Bot
from sam_env.core import HandResult, SeatView

from .deals import Deal


@dataclass(frozen=True)
class Match:
    """The candidate against ``opponents`` (``n - 1`` bots, in turn order after it).

    Each bot is a spec (:data:`sam_env.agents.registry.BotSpec`: a name, a checkpoint, a code spec
    ``module:attr`` / ``file.py:attr``) or an object of your own that :func:`sam_env.load_bot` takes (a
    :class:`sam_env.Bot` class, factory or instance, a batched policy).
    ``label``: the candidate's name in reports (default: its spec's, :func:`sam_env.agents.registry.label_of`).
    """

    candidate: BotSpec | object
    opponents: tuple[BotSpec | object, ...]
    label: str | None = None

    @property
    def slots(self) -> tuple[BotSpec | object, ...]:
        """Bot specs by slot: slot 0 is the candidate, slot ``j`` the ``j``-th opponent."""
        return (self.candidate, *self.opponents)

    @property
    def names(self) -> tuple[str, ...]:
        """Bot names by slot, as reports and ratings show them."""
        return (self.label or label_of(self.candidate), *map(label_of, self.opponents))

    @property
    def description(self) -> str:
        """``candidate vs opponents``, as failures name the match."""
        return f"{self.names[0]} vs {self.opponents_label}"

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
