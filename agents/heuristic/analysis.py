"""Hand analysis for rule-based bots: splitting a hand into plays, and what the unseen cards can beat.

Everything works on rank counts (13 ints, ``3`` … ``2``), because suits never decide a play.
:mod:`.kernels` is the same analysis compiled, function by function, for :mod:`.compiled`.

* :func:`best_split` partitions a hand into singles, pairs, triples, quads and straights,
  minimising the total *cost*: a play's cost is a static estimate of how likely it is to lose
  its trick (1 for a low single, 0 for a pair of 2s), so the best split has few plays and keeps
  strong ones intact. The search is exhaustive (a memoised recursion that always places the
  lowest remaining rank), so it is exact for that cost.
* :func:`beaters` says which combinations could be formed from cards this seat cannot see, which
  gives exact "can anyone beat this?" answers for Sâm and for the end of a hand.
* :func:`sam_plan` finds an order of plays that no combination of the unseen cards can beat,
  ending on a play that is not only 2s (docs/rules.md §8) — the proof a bot needs before báo Sâm.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sam_env.core import COMBOS, N_COMBOS, Kind, RuleConfig
from sam_env.core.cards import N_RANKS, Rank
from sam_env.core.combos import BEATS, LEADS, MAX_STRAIGHT, SIZE, STRAIGHT_WITH_TWO, formable_combos, unary_mask
from sam_env.core.rule_masks import rule_masks

Counts = tuple[int, ...]

ONLY_TWOS_PENALTY = 3.0
"""Extra cost of a hand left with nothing but 2s: its last play would break docs/rules.md §11."""

PLAYABLE_KINDS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD, Kind.STRAIGHT)


def _control(combo_id: int) -> float:
    """Rough chance that a play holds its trick, from its kind, size and key alone.

    The values encode the usual table wisdom: 2s and quads are control cards, aces and kings
    often hold, low singles and pairs almost never do, and long straights are rarely matched.
    """
    combo = COMBOS[combo_id]
    r = combo.key
    if combo.kind == Kind.SINGLE:
        return {Rank.TWO: 0.9, Rank.ACE: 0.6, Rank.KING: 0.35, Rank.QUEEN: 0.15, Rank.JACK: 0.05}.get(r, 0.0)
    if combo.kind == Kind.PAIR:
        table = {Rank.TWO: 1.0, Rank.ACE: 0.8, Rank.KING: 0.6, Rank.QUEEN: 0.4, Rank.JACK: 0.25, Rank.TEN: 0.1}
        return table.get(r, 0.0)
    if combo.kind == Kind.TRIPLE:
        return 0.3 + 0.7 * r / Rank.TWO
    if combo.kind == Kind.QUAD:
        return 1.0
    if combo.kind == Kind.STRAIGHT:
        length = combo.size
        lowest_top, highest_top = length - 1, 13  # positions on the line A 2 3 … K A
        x = (r - lowest_top) / (highest_top - lowest_top)
        base = x * x
        return base + (1.0 - base) * min(1.0, (length - 3) * 0.25)
    return 0.0


COST: tuple[float, ...] = tuple(
    1.0 - _control(i) if COMBOS[i].kind in PLAYABLE_KINDS else float("inf") for i in range(N_COMBOS)
)
"""Static cost of each combination id: 1 minus its estimated chance to hold the trick."""

_NEEDS = tuple(c.needs for c in COMBOS)


def _containing(rank: int, with_two: bool) -> tuple[int, ...]:
    """Playable combination ids that use ``rank``."""
    ids = [
        c.id
        for c in COMBOS
        if c.kind in PLAYABLE_KINDS and any(r == rank for r, _ in c.needs) and (with_two or not STRAIGHT_WITH_TWO[c.id])
    ]
    return tuple(ids)


CONTAINING = {w: tuple(_containing(r, w) for r in range(N_RANKS)) for w in (True, False)}
"""``CONTAINING[with_two][rank]``: the playable combination ids that use ``rank``, in the order the
splits try them (the compiled kernels read the same table)."""


def counts_after(counts: Counts, combo_id: int) -> Counts:
    """Rank counts left after playing ``combo_id`` (which must be formable)."""
    rest = list(counts)
    for r, k in _NEEDS[combo_id]:
        rest[r] -= k
    return tuple(rest)


def formable(counts: Counts, combo_id: int) -> bool:
    return all(counts[r] >= k for r, k in _NEEDS[combo_id])


def only_twos(counts: Counts) -> bool:
    """Whether a non-empty hand holds nothing but 2s."""
    return counts[Rank.TWO] > 0 and sum(counts) == counts[Rank.TWO]


@lru_cache(maxsize=1 << 17)
def best_split(counts: Counts, with_two: bool = True) -> tuple[float, tuple[int, ...]]:
    """Cheapest partition of a hand into plays: ``(total cost, combination ids)``.

    ``with_two`` says whether straights may contain 2s (``RuleConfig.straights_with_two``).
    """
    first = next((r for r, c in enumerate(counts) if c), None)
    if first is None:
        return 0.0, ()
    best: tuple[float, tuple[int, ...]] | None = None
    for cid in CONTAINING[with_two][first]:
        if not formable(counts, cid):
            continue
        cost, rest = best_split(counts_after(counts, cid), with_two)
        cost += COST[cid]
        if best is None or cost < best[0] - 1e-9:
            best = (cost, (cid, *rest))
    assert best is not None, "a single of the lowest rank is always formable"
    return best


def plan_cost(counts: Counts, with_two: bool = True) -> float:
    """Cost of the best split, plus a penalty when only 2s are left (they cannot be played last)."""
    return best_split(counts, with_two)[0] + (ONLY_TWOS_PENALTY if only_twos(counts) else 0.0)


def beaters(unseen_counts: Counts, rules: RuleConfig, max_size: int = MAX_STRAIGHT) -> np.ndarray:
    """``bool[N_COMBOS]``: combinations of at most ``max_size`` cards formable from the unseen cards."""
    return formable_combos(unary_mask(list(unseen_counts))) & rule_masks(rules).allowed & (max_size >= SIZE)


def beatable(combo_id: int, possible: np.ndarray) -> bool:
    """Whether any combination in ``possible`` (see :func:`beaters`) beats ``combo_id``, chops included."""
    return bool((BEATS[:, combo_id] & possible).any())


def sam_plan(counts: Counts, unseen_counts: Counts, rules: RuleConfig) -> tuple[int, ...] | None:
    """An order of plays for a Sâm that no combination of unseen cards can stop, or None.

    Every play is a lead the declarer makes, so it must be leadable and unbeatable by anything
    the unseen cards could form (pooled, which is conservative: no single opponent holds them
    all). The order puts plays made only of 2s first, so the last play is not only 2s (§8).
    """
    possible = beaters(unseen_counts, rules)
    allowed = rule_masks(rules).allowed
    safe = frozenset(
        c.id
        for c in COMBOS
        if c.kind in PLAYABLE_KINDS and LEADS[c.id] and allowed[c.id] and not beatable(c.id, possible)
    )
    found = safe_partition(counts, safe)
    if found is None:
        return None
    twos = [c for c in found if COMBOS[c].only_twos]
    others = [c for c in found if not COMBOS[c].only_twos]
    return (*twos, *others) if others else None


def safe_partition(counts: Counts, safe: frozenset[int]) -> tuple[int, ...] | None:
    """Any partition of ``counts`` into combinations from ``safe``, or None."""
    first = next((r for r, c in enumerate(counts) if c), None)
    if first is None:
        return ()
    for cid in CONTAINING[True][first]:
        if cid in safe and formable(counts, cid):
            rest = safe_partition(counts_after(counts, cid), safe)
            if rest is not None:
                return (cid, *rest)
    return None
