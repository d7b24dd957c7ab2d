"""The heuristic bot: plays Sâm the way a decent human does.

It splits its hand into few strong plays (:func:`~.analysis.best_split`) and then:

* **leads** its weakest play, keeping 2s, quads and other control plays for later; near the end
  it cashes plays nobody can beat and keeps one that is not only 2s for last (docs/rules.md §11); it
  never leads the number of cards with which an opponent holding one or two cards could go out;
* **follows** when a play fits its split (shedding a weak combination on someone else's lead is
  free progress) and otherwise passes rather than break its hand — until an opponent is down to
  a few cards: a seat that passes is out of the trick, which lets that opponent run through it, so
  from then on it answers every play it can, with its highest single against one or two cards;
* **chops** 2s and quads whenever it can: the chop money is paid at once and the quad was a play
  of its own anyway;
* never plays into a hand of only 2s, which could only finish on 2s (§11);
* respects **báo 1** (§7): when the next seat holds one card it plays a combination of two or more
  cards or its highest single, whatever the ``bao1`` option makes legal;
* **declares Sâm** only with a proof — an order of plays no combination of the unseen cards can
  beat, the last one not only 2s (:func:`~.analysis.sam_plan`) — and **blocks** any
  other seat's Sâm with the first play it can make.

The thresholds below were tuned in duplicate matches against the greedy bot (``sam-eval``);
:mod:`.compiled` makes the same moves for whole batches of VectorEnv seats.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass
from typing import ClassVar

import numpy as np

from sam_env.bot import Bot
from sam_env.core import COMBOS, NO_PLAY, Kind, Phase, SeatView
from sam_env.core.cards import N_RANKS, rank_counts
from sam_env.core.combos import DECLARE_SAM, DECLINE_SAM, PASS, TWOS_CHOPPED

from .analysis import (
    COST,
    Counts,
    beatable,
    beaters,
    best_split,
    counts_after,
    only_twos,
    plan_cost,
    sam_plan,
)

FOLLOW_GAIN = 0.5
"""Least drop in plan cost for which the bot answers a play when no opponent is close to out."""
CONTEST_CARDS = 7
"""When an opponent holds this many cards or fewer, answer every play that can be answered."""
CRITICAL_CARDS = 2
"""When an opponent holds this many cards or fewer, answer a single with the highest single."""


@dataclass(frozen=True)
class HeuristicParams:
    """The heuristic's three thresholds (the module's constants are the defaults, the shipped bot's).

    Varied, they make heuristics of other temperaments — one that follows on any gain or keeps its hand
    together, contests a trick early or late, fears a short opponent sooner or later — opponents a
    trainer can learn from (:meth:`random`).
    """

    follow_gain: float = FOLLOW_GAIN
    contest_cards: int = CONTEST_CARDS
    critical_cards: int = CRITICAL_CARDS

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "follow_gain": (0.0, 1.5),
        "contest_cards": (3, 9),
        "critical_cards": (1, 3),
    }
    """What :meth:`random` draws from, uniformly (the ints inclusive): set around the defaults by what each
    threshold means, not tuned against any opponent (the held-out panel, docs/panel.md, is never consulted)."""

    def __post_init__(self) -> None:
        for name, (low, high) in self.RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"heuristic parameter {name} = {value!r} must be in [{low}, {high}]")
        for name in ("contest_cards", "critical_cards"):
            if not float(getattr(self, name)).is_integer():
                raise ValueError(f"heuristic parameter {name} = {getattr(self, name)!r} must be an int")

    @classmethod
    def random(cls, rng: np.random.Generator) -> HeuristicParams:
        (g0, g1), (c0, c1), (k0, k1) = cls.RANGES.values()
        return cls(float(rng.uniform(g0, g1)), int(rng.integers(c0, c1 + 1)), int(rng.integers(k0, k1 + 1)))

    def as_array(self) -> np.ndarray:
        """``float64[3]``: the values in field order, as the compiled bot reads them."""
        return np.array(astuple(self), dtype=np.float64)


DEFAULT_PARAMS = HeuristicParams()


class HeuristicBot(Bot):
    """Rule-based bot built on hand decomposition; deterministic.

    ``params``: its thresholds (default: the shipped heuristic's).
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None, params: HeuristicParams = DEFAULT_PARAMS) -> None:
        super().__init__(seed)
        self.params = params

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        if view.phase is Phase.SAM_DECISION:
            return self._sam_decision(view)
        if view.sam_declarer is not None and view.sam_declarer != view.seat:
            return self._block(view)
        counts = tuple(view.counts)
        if view.sam_declarer == view.seat:
            plan = sam_plan(counts, _unseen_counts(view), view.rules)
            if plan is not None and plan[0] in view.legal:
                return plan[0]
        if view.table_combo == NO_PLAY:
            return self._lead(view, counts)
        return self._follow(view, counts)

    # ------------------------------------------------------------------ Sâm

    def _sam_decision(self, view: SeatView) -> int:
        if DECLARE_SAM in view.legal and sam_plan(tuple(view.counts), _unseen_counts(view), view.rules):
            return DECLARE_SAM
        return DECLINE_SAM

    def _block(self, view: SeatView) -> int:
        """Any play on a declarer's play ends its Sâm and earns the blocker the Sâm stake."""
        plays = [a for a in view.legal if a != PASS]
        return plays[0] if plays else PASS

    # ------------------------------------------------------------------ leading

    def _lead(self, view: SeatView, counts: Counts) -> int:
        with_two = view.rules.straights_with_two
        plays = _allowed_plays(view, counts)
        _, split = best_split(counts, with_two)
        finishing = [a for a in plays if sum(counts_after(counts, a)) == 0 and not COMBOS[a].only_twos]
        if finishing:
            return finishing[0]
        possible = beaters(_unseen_counts(view), view.rules, max(_opponent_cards(view)))
        safe = [a for a in split if a in plays and not beatable(a, possible)]
        unsafe = [a for a in split if a not in safe]
        if safe and len(unsafe) <= 1 and all(a in plays for a in split):
            # Cash plays nobody can beat first and keep the beatable one for last, unless that would
            # leave only 2s: the last play must not be only 2s (§11).
            return max(split, key=lambda a: (not _leaves_only_twos(counts, a), COMBOS[a].only_twos, a in safe))
        candidates = [a for a in split if a in plays and not _leaves_only_twos(counts, a)]
        if not candidates:
            return _cheapest_rest(counts, plays, with_two)
        # An opponent holding c cards goes out at once on a lead of c cards that it can beat.
        risky = {n for n in _opponent_cards(view) if n <= self.params.critical_cards}
        if risky:
            other = [a for a in candidates if COMBOS[a].size not in risky]
            if not other:
                top = _highest_single(plays)
                return top if 1 in risky and top is not None else min(candidates, key=_strength)
            candidates = other
        weak = [a for a in candidates if not is_reserve(a)] or candidates
        return max(weak, key=lambda a: (COST[a], COMBOS[a].size, -COMBOS[a].key))

    # ------------------------------------------------------------------ following

    def _follow(self, view: SeatView, counts: Counts) -> int:
        with_two = view.rules.straights_with_two
        # A hand left with only 2s can only ever finish on 2s (§11): never play into one.
        plays = [
            a
            for a in _allowed_plays(view, counts)
            if not _finishes_on_twos(counts, a) and not _leaves_only_twos(counts, a)
        ]
        if not plays:
            return PASS
        for a in plays:
            if sum(counts_after(counts, a)) == 0:
                return a
        chops = [a for a in plays if _is_chop(a, view.table_combo)]
        if chops:
            return min(chops, key=lambda a: COMBOS[a].key)
        shortest = min(_opponent_cards(view))
        p = self.params
        if shortest <= p.critical_cards and COMBOS[view.table_combo].kind == Kind.SINGLE:
            return max(plays, key=lambda a: COMBOS[a].key)
        unseen = _unseen_counts(view)
        possible = beaters(unseen, view.rules, max(_opponent_cards(view)))
        answering = _answering_cards(view)
        responders = beaters(unseen, view.rules, max(answering)) if answering else None
        now = plan_cost(counts, with_two)
        # Once an opponent is getting short, passing lets it run through the trick: stay in.
        best, gain = PASS, (-math.inf if shortest <= p.contest_cards else p.follow_gain)
        for a in sorted(plays, key=lambda a: COMBOS[a].key):
            rest = counts_after(counts, a)
            takes_trick = responders is None or not beatable(a, responders)
            if takes_trick and _sure_finish(rest, possible, with_two):
                return a
            drop = now - plan_cost(rest, with_two)
            if drop >= gain + 1e-9:
                best, gain = a, drop
        return best


def _opponent_cards(view: SeatView) -> list[int]:
    """Card counts of the other seats still in the hand."""
    return [n for s, n in enumerate(view.n_cards) if s != view.seat and not view.out[s]]


def _answering_cards(view: SeatView) -> list[int]:
    """Card counts of the opponents who could still answer a play of ours in this trick."""
    return [n for s, n in enumerate(view.n_cards) if s != view.seat and not view.out[s] and not view.passed[s]]


def _unseen_counts(view: SeatView) -> Counts:
    """Rank counts of the cards this seat cannot see (the pool every opponent's hand is drawn from)."""
    return tuple(rank_counts(view.unseen))


def _allowed_plays(view: SeatView, counts: Counts) -> list[int]:
    """Legal plays, minus the undersized singles that báo 1 makes costly (§7)."""
    plays = [a for a in view.legal if COMBOS[a].kind >= Kind.SINGLE]
    if view.responsible:
        top = max(r for r in range(N_RANKS) if counts[r])
        plays = [a for a in plays if COMBOS[a].kind != Kind.SINGLE or COMBOS[a].key == top]
    return plays


def _strength(action: int) -> tuple[float, int]:
    """Sort key, strongest play first: least likely to lose its trick, then highest."""
    return COST[action], -COMBOS[action].key


def _highest_single(plays: Sequence[int]) -> int | None:
    singles = [a for a in plays if COMBOS[a].kind == Kind.SINGLE]
    return max(singles, key=lambda a: COMBOS[a].key) if singles else None


def _leaves_only_twos(counts: Counts, action: int) -> bool:
    return only_twos(counts_after(counts, action))


def _finishes_on_twos(counts: Counts, action: int) -> bool:
    return COMBOS[action].only_twos and sum(counts_after(counts, action)) == 0


def is_reserve(action: int) -> bool:
    """Plays a good player keeps back: anything with 2s, quads, and other likely trick winners."""
    combo = COMBOS[action]
    return (combo.twos > 0 and combo.kind != Kind.STRAIGHT) or combo.kind == Kind.QUAD or COST[action] < 0.5


def _is_chop(action: int, table: int) -> bool:
    """A quad (or double quad) played on 2s or on a lower quad: money paid at once (§4)."""
    return COMBOS[action].kind in (Kind.QUAD, Kind.DOUBLE_QUAD) and (
        TWOS_CHOPPED[table] > 0 or COMBOS[table].kind == Kind.QUAD
    )


def _cheapest_rest(counts: Counts, plays: Sequence[int], with_two: bool) -> int:
    """The play that leaves the best hand behind, lower plays first on ties."""
    return min(plays, key=lambda a: (plan_cost(counts_after(counts, a), with_two), COMBOS[a].key))


def _sure_finish(rest: Counts, possible: np.ndarray, with_two: bool) -> bool:
    """Whether, holding the lead, ``rest`` can be played out with at most its last play beatable."""
    if sum(rest) == 0:
        return True
    if only_twos(rest):
        return False
    _, split = best_split(rest, with_two)
    return sum(beatable(a, possible) for a in split) <= 1
