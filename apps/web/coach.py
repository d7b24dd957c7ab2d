"""The coach: each legal move's value in X, from a Q-network reading only what the person's seat observes.

A Q-network (:class:`~sam_env.agents.networks.qnet.bot.QBot`) values a move as the money its seat
should receive from this decision to the end of the hand if it plays that move — Deep Monte-Carlo's
target, trained in X times the run's ``reward_scale`` — so the coach divides by that scale and shows
X, the units of the bet. :meth:`Coach.values` takes the seat's observation vector and action mask and
nothing else: the network is evaluated on exactly what the environment gives that seat, so a value
can never move with a card the seat has not seen (``tests/apps/webapp/test_coach.py`` deals two
tables that differ only in hidden cards and compares).

Which network: ``best`` at the table's size (:mod:`sam_env.agents.networks.catalogue`) when it is a
Q-network, as it is at every size shipped today (2–5 seats); were ``best`` a policy network (its
logits are no values in X), the coach takes the newest Q-network shipped for that size instead and
says so (:attr:`Coach.note`).

*Think longer* (:func:`think`) asks a determinized search over the same network
(:class:`sam_env.agents.search.SearchBot`) for the values of the network's preferred moves: each is the seat's
mean money to the end of the hand over deals sampled from the cards the seat cannot see, played out. The
search reads the seat's observation and its own view (its hand, the public history), never another hand.

The review of a hand (:class:`Review`) keeps, for every decision of the person that had a choice, the
move played and its value, the network's best move and its value, and the regret (best − played,
never negative); a forced move (one legal move) has nothing to regret and is only counted.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from sam_env.agents.networks.catalogue import BEST, entries, resolve, shipped_bot
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.core import COMBOS
from sam_env.core.rules import MAX_PLAYERS, MIN_PLAYERS

from .errors import BadRequest

if TYPE_CHECKING:
    from sam_env.agents.search import SearchBot
    from sam_env.core import SeatView

DIGITS = 4
"""Decimals of X a value keeps: a ten-thousandth of the bet is far below what a network can tell apart."""
THINK_DEALS = 64
"""Deals a *think longer* samples (``SearchBot``'s default budget: more add little, docs/results/ppo_search.md)."""
THINK_CANDIDATES = 8
"""The network's preferred moves a *think longer* plays out."""


@dataclass(frozen=True)
class Coach:
    """A Q-network that values a seat's legal moves, and what the page says about it."""

    bot: QBot
    network: str
    """The shipped network's name (``dmc_v2``)."""
    note: str | None = None
    """Why it is not ``best`` at this size, when it is not."""

    @property
    def scale(self) -> float:
        """Network units per X: the ``reward_scale`` its training multiplied money by (1 when not recorded)."""
        training = self.bot.checkpoint.metadata.get("training") or {}
        return float(training.get("reward_scale", 1.0))

    def values(self, observation: np.ndarray, mask: np.ndarray) -> dict[int, float]:
        """Each legal action's value in X, from the seat's observation vector and action mask only."""
        legal = np.asarray(mask, dtype=bool)
        if not legal.any():
            raise ValueError("the coach values a decision: the seat's action mask has no legal move")
        row = self.bot.legal_values(np.asarray(observation, dtype=np.float32)[None, :], legal[None, :])[0]
        return {int(a): round(float(row[a]) / self.scale, DIGITS) for a in np.flatnonzero(legal)}

    def info(self) -> dict[str, Any]:
        return {"network": self.network, "note": self.note}


def coach_network(n_players: int) -> tuple[str, str | None]:
    """The shipped Q-network the coach uses at ``n_players`` seats, and a note when it is not ``best``."""
    best = resolve(BEST, n_players)
    if best.kind == "qnet":
        return best.name, None
    for e in entries():  # recommended first, then by family, newest generation first
        if e.kind == "qnet" and e.seats == n_players:
            return e.name, f"{BEST} at {n_players} seats is {best.name}, a policy network: the coach uses {e.name}"
    raise BadRequest(f"no Q-network is shipped for {n_players}-player tables, so there is no coach for them")


def coach_networks() -> dict[str, str]:
    """The coach's network at each table size that has one (``{"4": "dmc_v2", ...}``), as the page lists them."""
    out = {}
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        with contextlib.suppress(BadRequest):  # no Q-network for this size: no coach there
            out[str(n)] = coach_network(n)[0]
    return out


@cache
def coach_for(n_players: int) -> Coach:
    """The coach of a table size, loaded once per process (the network is read-only, so games share it);
    :class:`BadRequest` when no Q-network plays that size."""
    name, note = coach_network(n_players)
    bot = shipped_bot(name)
    assert isinstance(bot, QBot), f"{name} is listed as a Q-network"
    return Coach(bot, name, note)


def choice(values: dict[int, float]) -> int:
    """The network's choice: the move of highest value (the lowest action id among equals)."""
    return max(values, key=lambda a: (values[a], -a))


@dataclass
class Review:
    """The person's decisions of one hand, as the coach saw them."""

    decisions: list[dict[str, Any]] = field(default_factory=list)
    forced: int = 0
    """Decisions with one legal move: no choice, so no regret; counted, not listed."""

    def add(self, move: int, values: dict[int, float], played: int, cards_of: Any) -> None:
        """Note the person's decision at history index ``move``: ``values`` as the coach gave them, the action
        ``played``; ``cards_of(action)`` the cards an action would play from the person's hand then."""
        if len(values) < 2:
            self.forced += 1
            return
        best = choice(values)
        self.decisions.append(
            {
                "move": move,
                "played": _entry(played, values, cards_of),
                "best": _entry(best, values, cards_of),
                "regret": round(values[best] - values[played], DIGITS),
            }
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "total_regret": round(sum(d["regret"] for d in self.decisions), DIGITS),
            "forced": self.forced,
        }


def _entry(action: int, values: dict[int, float], cards_of: Any) -> dict[str, Any]:
    return {"action": COMBOS[action].name, "cards": cards_of(action), "value": values[action]}


def searcher(coach: Coach, seed: int | None) -> SearchBot:
    """A search over the coach's network, with its own generator (``seed``): the network plays every seat in
    the playouts, the deals are uniform over the cards the seat cannot see."""
    from sam_env.agents.search import SearchBot  # compiled code: loaded on the first "think longer"

    return SearchBot(coach.bot.checkpoint, seed, THINK_DEALS, THINK_CANDIDATES, name=f"{coach.network} search")


def think(search: SearchBot, observation: np.ndarray, view: SeatView, values: dict[int, float]) -> dict[str, Any]:
    """The search's value (X) of the network's :data:`THINK_CANDIDATES` preferred legal moves (``values``: ``{id,
    name, value}`` in the network's order), from the seat's observation and its own view; ``deals``: how many of
    the ``sampled`` deals could be replayed."""
    candidates = sorted(values, key=lambda a: (-values[a], a))[:THINK_CANDIDATES]
    found = search.values(observation, view, candidates)
    searched = [
        {"id": a, "name": COMBOS[a].name, "value": round(float(v), DIGITS)}
        for a, v in zip(candidates, found, strict=True)
        if np.isfinite(v)  # -inf for all when no sampled deal could be replayed
    ]
    return {"values": searched, "deals": search.replayed, "sampled": THINK_DEALS}
