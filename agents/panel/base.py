"""What every panel bot does alike: the rules of docs/rules.md a competent player never breaks.

A panel bot is meant to be a *different* good player, not a weaker one, so each of them:

* declares **Sâm** only with a proof that no combination of the unseen cards can stop it
  (:func:`~sam_env.agents.heuristic.analysis.sam_plan`), then plays that proof; **blocks** another seat's Sâm with
  the first play it can make (the blocker collects the stake);
* goes out as soon as one legal play empties its hand, unless that play is only 2s;
* never plays into a hand of only 2s, which could only finish on 2s (finishing on 2s costs money);
* honours **báo 1**: as the upper seat of a one-card seat it plays, if a single, its highest one.

The rest — what to lead, when to answer, what to keep — is each bot's style:
:meth:`PanelBot.lead` and :meth:`PanelBot.follow`, given only the plays that pass these checks.
Bots read the :class:`~sam_env.core.SeatView` (their own cards and public facts), never the tensors.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from sam_env.bot import Bot
from sam_env.core import COMBOS, NO_PLAY, Kind, Phase, SeatView
from sam_env.core.cards import N_RANKS, Rank, rank_counts
from sam_env.core.combos import DECLARE_SAM, DECLINE_SAM, PASS, TWOS_CHOPPED

from .analysis import Counts, beatable, beaters, best_split, counts_after, only_twos, plan_cost, sam_plan

SHORT_CARDS = 2
"""An opponent holding this many cards or fewer goes out on a lead of its size: don't lead that size."""


class PanelBot(Bot):
    """A rule-based panel bot: the shared rules above, then the style of :meth:`lead` and :meth:`follow`."""

    name = "panel"

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        if view.phase is Phase.SAM_DECISION:
            proof = DECLARE_SAM in view.legal and sam_plan(tuple(view.counts), unseen_counts(view), view.rules)
            return DECLARE_SAM if proof else DECLINE_SAM
        if view.sam_declarer is not None and view.sam_declarer != view.seat:
            plays = [a for a in view.legal if a != PASS]
            return plays[0] if plays else PASS
        counts = tuple(view.counts)
        if view.sam_declarer == view.seat:
            plan = sam_plan(counts, unseen_counts(view), view.rules)
            if plan is not None and plan[0] in view.legal:
                return plan[0]
        plays = sound_plays(view, counts)
        for a in plays:
            if sum(counts_after(counts, a)) == 0:
                return a
        if view.table_combo == NO_PLAY:
            return self.lead(view, counts, plays) if plays else least_harm(view, counts)
        return self.follow(view, counts, plays) if plays else PASS

    @abstractmethod
    def lead(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        """The play to lead a trick with, from ``plays`` (non-empty; none of them empties the hand)."""

    @abstractmethod
    def follow(self, view: SeatView, counts: Counts, plays: list[int]) -> int:
        """A play from ``plays`` (non-empty) on the table's play, or ``PASS``."""


# ---------------------------------------------------------------------- the shared checks


def sound_plays(view: SeatView, counts: Counts) -> list[int]:
    """Legal plays that break none of the shared rules: no hand left with only 2s, no last play of
    only 2s, and under báo 1 no single but the highest."""
    plays = [a for a in view.legal if COMBOS[a].kind >= Kind.SINGLE]
    if view.responsible:
        top = max(r for r in range(N_RANKS) if counts[r])
        plays = [a for a in plays if COMBOS[a].kind != Kind.SINGLE or COMBOS[a].key == top]
    return [a for a in plays if not only_twos(counts_after(counts, a)) and not finishes_on_twos(counts, a)]


def least_harm(view: SeatView, counts: Counts) -> int:
    """A lead when no sound play exists (a hand of 2s and little else): the one leaving the best hand."""
    plays = [a for a in view.legal if COMBOS[a].kind >= Kind.SINGLE]
    with_two = view.rules.straights_with_two
    return min(plays, key=lambda a: (plan_cost(counts_after(counts, a), with_two), COMBOS[a].key))


def finishes_on_twos(counts: Counts, action: int) -> bool:
    return COMBOS[action].only_twos and sum(counts_after(counts, action)) == 0


# ---------------------------------------------------------------------- what a seat may know


def unseen_counts(view: SeatView) -> Counts:
    """Rank counts of the cards this seat cannot see (the pool every opponent's hand is drawn from)."""
    return tuple(rank_counts(view.unseen))


def opponent_cards(view: SeatView) -> list[int]:
    """Card counts of the other seats still in the hand."""
    return [n for s, n in enumerate(view.n_cards) if s != view.seat and not view.out[s]]


def fewest_cards_seat(view: SeatView) -> int:
    """The opponent closest to going out (the first in turn order after this seat on ties)."""
    n = len(view.n_cards)
    seats = [(view.seat + k) % n for k in range(1, n)]
    return min((s for s in seats if not view.out[s]), key=lambda s: view.n_cards[s])


def short_sizes(view: SeatView) -> set[int]:
    """Lead sizes with which an opponent holding that few cards could answer and go out at once."""
    return {n for n in opponent_cards(view) if n <= SHORT_CARDS}


def around_short_seats(view: SeatView, candidates: list[int], plays: list[int]) -> list[int]:
    """The leads among ``candidates`` that no opponent short of cards can answer with its last ones;
    failing that, against a one-card opponent the highest single of ``plays``, else ``candidates``."""
    risky = short_sizes(view)
    safe = [a for a in candidates if size(a) not in risky]
    if safe:
        return safe
    singles = [a for a in plays if COMBOS[a].kind == Kind.SINGLE]
    return [max(singles, key=key)] if 1 in risky and singles else candidates


def possible_beaters(view: SeatView) -> np.ndarray:
    """Combinations the unseen cards could form, no bigger than the largest opponent hand."""
    return beaters(unseen_counts(view), view.rules, max(opponent_cards(view)))


# ---------------------------------------------------------------------- kinds of plays


def is_power(action: int) -> bool:
    """2s (outside a straight) and quads: the control cards that win tricks and chop."""
    combo = COMBOS[action]
    return (combo.twos > 0 and combo.kind != Kind.STRAIGHT) or combo.kind == Kind.QUAD


def is_chop(action: int, table: int) -> bool:
    """A quad (or double quad) on 2s or on a lower quad: money paid at once (docs/rules.md, chop money)."""
    return COMBOS[action].kind in (Kind.QUAD, Kind.DOUBLE_QUAD) and (
        TWOS_CHOPPED[table] > 0 or COMBOS[table].kind == Kind.QUAD
    )


def key(action: int) -> int:
    return COMBOS[action].key


def size(action: int) -> int:
    return COMBOS[action].size


def bottom(action: int) -> int:
    """The rank of a play's lowest card, for "low cards first" orders (an ace-low straight is lowest)."""
    combo = COMBOS[action]
    return combo.key - combo.size - 1 if combo.kind == Kind.STRAIGHT else combo.key


def split_of(view: SeatView, counts: Counts) -> tuple[int, ...]:
    """The cheapest partition of the hand into plays (:func:`~sam_env.agents.heuristic.analysis.best_split`)."""
    return best_split(counts, view.rules.straights_with_two)[1]


def cost_after(view: SeatView, counts: Counts, action: int) -> float:
    """Cost of the hand left after ``action`` (:func:`~sam_env.agents.heuristic.analysis.plan_cost`)."""
    return plan_cost(counts_after(counts, action), view.rules.straights_with_two)


def power_ranks(counts: Counts) -> set[int]:
    """Ranks held as power: the 2s and every rank held four times."""
    ranks = {r for r in range(N_RANKS) if counts[r] == 4}
    if counts[Rank.TWO]:
        ranks.add(Rank.TWO)
    return ranks


def without(counts: Counts, ranks: Iterable[int]) -> Counts:
    """``counts`` with every card of ``ranks`` taken out."""
    drop = set(ranks)
    return tuple(0 if r in drop else c for r, c in enumerate(counts))


def unbeatable(plays: Sequence[int], possible: np.ndarray) -> list[int]:
    """The plays no combination in ``possible`` can beat."""
    return [a for a in plays if not beatable(a, possible)]
