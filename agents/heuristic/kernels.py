"""Hand analysis for the compiled heuristic bot (:mod:`.compiled`), in numba.

Why a second copy of :mod:`.analysis`: the heuristic's decisions need best splits, beaters and Sâm
plans for every seat of thousands of tables a step, which Python cannot give fast enough. These
kernels follow :mod:`.analysis` function by function, with its iteration orders and tie-breaking.

Hands are rank counts packed 3 bits a rank into one int64 (a *code*), so playing a combination is
one subtraction of its code. The best split of every hand met is memoised in two typed dicts (cost,
first combination), like ``best_split``'s ``lru_cache``; a split is read back by following the first
combinations. ``T`` is the :class:`ComboTables` of the table's rules, built by :func:`combo_tables`.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.typed import Dict

from sam_env.core import COMBOS, N_COMBOS, Kind, RuleConfig
from sam_env.core.cards import N_RANKS, Rank
from sam_env.core.combos import BEATS, LEADS, MAX_STRAIGHT, TWOS_CHOPPED
from sam_env.core.rule_masks import rule_masks
from sam_env.core.rules import CARDS_PER_HAND
from sam_env.vector.cache import SOURCES as ENGINE_SOURCES
from sam_env.vector.cache import drop_stale_cache

from . import analysis, bot
from .analysis import CONTAINING, COST, ONLY_TWOS_PENALTY
from .bot import is_reserve

SINGLE, STRAIGHT = int(Kind.SINGLE), int(Kind.STRAIGHT)
TWO = int(Rank.TWO)
BITS = 3
"""Bits per rank in a hand code: counts 0..4."""


class ComboTables(NamedTuple):
    """Per-combination arrays the kernels read (index: combination id), for one table's rules."""

    kind: np.ndarray
    """``int64``: the :class:`~sam_env.core.Kind`."""
    key: np.ndarray
    """``int64``: the rank that orders combinations of a kind."""
    size: np.ndarray
    """``int64``: cards played."""
    only_twos: np.ndarray
    """``bool``: made of 2s alone."""
    reserve: np.ndarray
    """``bool``: a play the bot keeps back (:func:`.bot.is_reserve`)."""
    cost: np.ndarray
    """``float64``: :data:`.analysis.COST`."""
    needs: np.ndarray
    """``int64[N_COMBOS, 13]``: cards of each rank it takes."""
    need_code: np.ndarray
    """``int64``: ``needs`` as a hand code (playing it subtracts this)."""
    beats: np.ndarray
    """``bool[N_COMBOS, N_COMBOS]``: ``beats[a, b]``, a may be played on b (chops included)."""
    allowed: np.ndarray
    """``bool``: what the rules allow."""
    sam_candidate: np.ndarray
    """``bool``: playable, leadable and allowed (a play of a Sâm plan)."""
    twos_chopped: np.ndarray
    """``int64``: 2s a quad played on it would chop."""
    containing: np.ndarray
    """``int64[13, w]``: :data:`.analysis.CONTAINING` under these rules' ``straights_with_two``, padded with -1."""
    containing_any: np.ndarray
    """The same with straights through 2 included (what Sâm plans try)."""


def combo_tables(rules: RuleConfig) -> ComboTables:
    """The :class:`ComboTables` of ``rules``: the kernels' ``T`` argument."""
    kind = np.array([c.kind for c in COMBOS], dtype=np.int64)
    needs = np.zeros((N_COMBOS, N_RANKS), dtype=np.int64)
    for c in COMBOS:
        for r, k in c.needs:
            needs[c.id, r] = k
    allowed = np.asarray(rule_masks(rules).allowed, dtype=np.bool_)
    playable = (kind >= SINGLE) & (kind <= STRAIGHT)
    return ComboTables(
        kind=kind,
        key=np.array([c.key for c in COMBOS], dtype=np.int64),
        size=np.array([c.size for c in COMBOS], dtype=np.int64),
        only_twos=np.array([c.only_twos for c in COMBOS], dtype=np.bool_),
        reserve=np.array([c.kind >= Kind.SINGLE and is_reserve(c.id) for c in COMBOS], dtype=np.bool_),
        cost=np.asarray(COST, dtype=np.float64),
        needs=needs,
        need_code=(needs << (BITS * np.arange(N_RANKS, dtype=np.int64))).sum(axis=1),
        beats=np.ascontiguousarray(BEATS, dtype=np.bool_),
        allowed=allowed,
        sam_candidate=playable & np.asarray(LEADS, dtype=np.bool_) & allowed,
        twos_chopped=np.asarray(TWOS_CHOPPED, dtype=np.int64),
        containing=containing_table(rules.straights_with_two),
        containing_any=containing_table(True),
    )


def containing_table(with_two: bool) -> np.ndarray:
    """``int64[13, w]``: :data:`.analysis.CONTAINING` padded with -1."""
    rows = CONTAINING[with_two]
    out = np.full((N_RANKS, max(len(r) for r in rows)), -1, dtype=np.int64)
    for r, ids in enumerate(rows):
        out[r, : len(ids)] = ids
    return out


# ---------------------------------------------------------------- hand codes


@njit(cache=True)
def count(code: int, rank: int) -> int:
    return (code >> (BITS * rank)) & 7


@njit(cache=True)
def lowest_rank(code: int) -> int:
    for r in range(N_RANKS):
        if count(code, r):
            return r
    return -1


@njit(cache=True)
def is_only_twos(code: int) -> bool:
    return code != 0 and code == count(code, TWO) << (BITS * TWO)


@njit(cache=True)
def formable(code: int, cid: int, needs: np.ndarray) -> bool:
    for r in range(N_RANKS):  # noqa: SIM110 - numba compiles no generator expressions
        if count(code, r) < needs[cid, r]:
            return False
    return True


@njit(cache=True)
def read_code(obs: np.ndarray, start: int) -> int:
    """Rank counts of a unary block (4 bits a rank) as a hand code."""
    code = 0
    for r in range(N_RANKS):
        c = 0
        for i in range(4):
            if obs[start + 4 * r + i] > 0.5:
                c += 1
        code |= c << (BITS * r)
    return code


# ---------------------------------------------------------------- hand analysis


@njit(cache=True)
def solve(code: int, T: ComboTables, memo_cost: Dict, memo_first: Dict) -> None:
    """Fill the memo with ``best_split`` of ``code`` and of every hand it needs (explicit stack)."""
    cost, needs, need_code, cont = T.cost, T.needs, T.need_code, T.containing
    # Each level pushes at most one row of CONTAINING (47 ids) and a hand has at most 10 levels, so
    # the stack never holds more than about 471 codes.
    stack = np.empty(1024, dtype=np.int64)
    top = 0
    stack[0] = code
    while top >= 0:
        c = stack[top]
        if c in memo_cost:
            top -= 1
            continue
        if c == 0:
            memo_cost[c] = 0.0
            memo_first[c] = -1
            top -= 1
            continue
        first = lowest_rank(c)
        ready = True
        for j in range(cont.shape[1]):
            cid = cont[first, j]
            if cid < 0:
                break
            if formable(c, cid, needs) and (c - need_code[cid]) not in memo_cost:
                top += 1
                stack[top] = c - need_code[cid]
                ready = False
        if not ready:
            continue
        best, best_cid = np.inf, -1
        for j in range(cont.shape[1]):
            cid = cont[first, j]
            if cid < 0:
                break
            if formable(c, cid, needs):
                total = memo_cost[c - need_code[cid]] + cost[cid]
                if best_cid < 0 or total < best - 1e-9:
                    best, best_cid = total, cid
        memo_cost[c] = best
        memo_first[c] = best_cid
        top -= 1


@njit(cache=True)
def split_of(code: int, T: ComboTables, memo_cost: Dict, memo_first: Dict) -> np.ndarray:
    """The combination ids of ``best_split(code)``, in its order."""
    solve(code, T, memo_cost, memo_first)
    out = np.empty(CARDS_PER_HAND, dtype=np.int64)
    n = 0
    while code != 0:
        cid = memo_first[code]
        out[n] = cid
        n += 1
        code -= T.need_code[cid]
    return out[:n]


@njit(cache=True)
def plan_cost(code: int, T: ComboTables, memo_cost: Dict, memo_first: Dict) -> float:
    solve(code, T, memo_cost, memo_first)
    return memo_cost[code] + (ONLY_TWOS_PENALTY if is_only_twos(code) else 0.0)


@njit(cache=True)
def beaters(unseen: int, max_size: int, T: ComboTables) -> np.ndarray:
    """``analysis.beaters``: the combinations of at most ``max_size`` cards the unseen cards form."""
    size, needs, allowed = T.size, T.needs, T.allowed
    out = np.zeros(size.size, dtype=np.bool_)
    for cid in range(size.size):
        out[cid] = allowed[cid] and size[cid] <= max_size and formable(unseen, cid, needs)
    return out


@njit(cache=True)
def beatable(cid: int, possible: np.ndarray, T: ComboTables) -> bool:
    beats = T.beats
    for c in range(possible.size):  # noqa: SIM110 - numba compiles no generator expressions
        if possible[c] and beats[c, cid]:
            return True
    return False


@njit(cache=True)
def sam_first(code: int, unseen: int, T: ComboTables) -> int:
    """First play of ``analysis.sam_plan``, or -1 where it returns None (a depth-first search
    over the same candidates in the same order, with an explicit stack)."""
    only_twos, needs, need_code, cont = T.only_twos, T.needs, T.need_code, T.containing_any
    possible = beaters(unseen, MAX_STRAIGHT, T)
    safe = T.sam_candidate.copy()
    for cid in range(safe.size):
        if safe[cid] and beatable(cid, possible, T):
            safe[cid] = False
    codes = np.zeros(CARDS_PER_HAND + 2, dtype=np.int64)
    index = np.zeros(CARDS_PER_HAND + 2, dtype=np.int64)
    chosen = np.zeros(CARDS_PER_HAND + 1, dtype=np.int64)
    codes[0] = code
    depth = 0
    while depth >= 0:
        c = codes[depth]
        if c == 0:
            for i in range(depth):  # the plan plays 2s-only combinations first
                if only_twos[chosen[i]]:
                    for j in range(depth):
                        if not only_twos[chosen[j]]:
                            return chosen[i]
                    return -1
            return chosen[0] if depth > 0 else -1
        first = lowest_rank(c)
        advanced = False
        while index[depth] < cont.shape[1] and cont[first, index[depth]] >= 0:
            cid = cont[first, index[depth]]
            index[depth] += 1
            if safe[cid] and formable(c, cid, needs):
                chosen[depth] = cid
                codes[depth + 1] = c - need_code[cid]
                index[depth + 1] = 0
                depth += 1
                advanced = True
                break
        if not advanced:
            depth -= 1
    return -1


# The kernels of this module and of .compiled freeze the bot's thresholds and the rules' constants
# when they compile: a change to any of these files must recompile them, not load them from numba's
# cache. Checked here, which both modules import before any kernel runs.
drop_stale_cache(
    solve,
    sources=(
        Path(__file__),
        Path(__file__).with_name("compiled.py"),
        Path(bot.__file__),
        Path(analysis.__file__),
        *ENGINE_SOURCES,
    ),
    modules={Path(__file__).stem, "compiled"},
    stamp_name="agents_heuristic_sources.sha256",
)
