"""The heuristic bot compiled for whole batches of VectorEnv tables.

Why: :class:`~agents.heuristic_bot.HeuristicBot` costs about 44 µs a decision in Python given the
environment's view, about 100 µs when a VectorEnv seat's view must first be read back from its
observation, so a trainer whose opponents are mostly heuristic
seats would spend nearly all its time there. :class:`BatchedHeuristic` makes the same decisions
with numba kernels, for every table of a batch in one call: it is a *batched policy*
(:mod:`sam_env.vector.learner`), usable wherever one is taken.

It is a line-by-line port of :mod:`agents.heuristic_bot` and :mod:`agents.hand_analysis`, down to
their tie-breaking (first of equals in the Python iteration order), reading the seat's view from
its observation vector (:func:`sam_env.encoding.observation_layout`; the observer is relative seat 0,
and suits do not matter to the bot). Hands are rank counts packed
3 bits a rank into one int64 ("codes"), so playing a combination is one subtraction, and the best
split of every hand met is memoised in a typed dict, like ``best_split``'s ``lru_cache``.
``tests/agents/test_batched_heuristic.py`` checks that it makes HeuristicBot's move at every
decision of many hands, over random rule configurations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit, types
from numba.typed import Dict

from sam_env.core import COMBOS, N_COMBOS, Kind, RuleConfig
from sam_env.core.cards import N_RANKS, Rank
from sam_env.core.combos import BEATS, LEADS, TWOS_CHOPPED
from sam_env.core.rule_tables import rule_tables
from sam_env.core.rules import CARDS_PER_HAND
from sam_env.encoding import observation_layout
from sam_env.vector.cache import SOURCES as ENGINE_SOURCES
from sam_env.vector.cache import drop_stale_cache

from . import hand_analysis, heuristic_bot
from .hand_analysis import _CONTAINING, COST, ONLY_TWOS_PENALTY
from .heuristic_bot import CONTEST_CARDS, CRITICAL_CARDS, FOLLOW_GAIN, _is_reserve

PASS, DECLARE_SAM, DECLINE_SAM = 0, 1, 2
SINGLE, QUAD, STRAIGHT, DOUBLE_QUAD = int(Kind.SINGLE), int(Kind.QUAD), int(Kind.STRAIGHT), int(Kind.DOUBLE_QUAD)
TWO = int(Rank.TWO)
BITS = 3
"""Bits per rank in a hand code: counts 0..4."""
MEMO_LIMIT = 4_000_000
"""Memoised splits kept before the memo is cleared (a few hundred bytes each)."""


def _combo_tables(rules: RuleConfig) -> tuple:
    """Per-combination arrays the kernels read; the order is the kernels' ``T`` argument."""
    kind = np.array([c.kind for c in COMBOS], dtype=np.int64)
    key = np.array([c.key for c in COMBOS], dtype=np.int64)
    size = np.array([c.size for c in COMBOS], dtype=np.int64)
    only_twos = np.array([c.only_twos for c in COMBOS], dtype=np.bool_)
    reserve = np.array([c.kind >= Kind.SINGLE and _is_reserve(c.id) for c in COMBOS], dtype=np.bool_)
    needs = np.zeros((N_COMBOS, N_RANKS), dtype=np.int64)
    for c in COMBOS:
        for r, k in c.needs:
            needs[c.id, r] = k
    need_code = (needs << (BITS * np.arange(N_RANKS, dtype=np.int64))).sum(axis=1)
    allowed = np.asarray(rule_tables(rules).allowed, dtype=np.bool_)
    playable = (kind >= SINGLE) & (kind <= STRAIGHT)
    sam_candidate = playable & np.asarray(LEADS, dtype=np.bool_) & allowed
    return (
        kind,
        key,
        size,
        only_twos,
        reserve,
        np.asarray(COST, dtype=np.float64),
        needs,
        need_code,
        np.ascontiguousarray(BEATS, dtype=np.bool_),
        allowed,
        sam_candidate,
        np.asarray(TWOS_CHOPPED, dtype=np.int64),
        _containing_table(rules.straights_with_two),
        _containing_table(True),
    )


def _containing_table(with_two: bool) -> np.ndarray:
    """``int64[13, w]``: :data:`agents.hand_analysis._CONTAINING` padded with -1."""
    rows = _CONTAINING[with_two]
    out = np.full((N_RANKS, max(len(r) for r in rows)), -1, dtype=np.int64)
    for r, ids in enumerate(rows):
        out[r, : len(ids)] = ids
    return out


def _layout(n_players: int) -> np.ndarray:
    """Start of each observation block the kernels read, and the seat count (see ``_decide``)."""
    start, at = 0, {}
    for name, size in observation_layout(n_players):
        at[name] = start
        start += size
    names = ("hand", "unseen", "cards_left", "table_play", "passed", "out", "sam_declarer", "phase", "responsible")
    return np.array([at[n] for n in names] + [n_players], dtype=np.int64)


# ---------------------------------------------------------------- hand codes


@njit(cache=True)
def _count(code: int, rank: int) -> int:
    return (code >> (BITS * rank)) & 7


@njit(cache=True)
def _lowest_rank(code: int) -> int:
    for r in range(N_RANKS):
        if _count(code, r):
            return r
    return -1


@njit(cache=True)
def _only_twos(code: int) -> bool:
    return code != 0 and code == _count(code, TWO) << (BITS * TWO)


@njit(cache=True)
def _formable(code: int, cid: int, needs: np.ndarray) -> bool:
    for r in range(N_RANKS):  # noqa: SIM110 - numba compiles no generator expressions
        if _count(code, r) < needs[cid, r]:
            return False
    return True


@njit(cache=True)
def _read_code(obs: np.ndarray, start: int) -> int:
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
def _solve(code, T, memo_cost, memo_first) -> None:
    """Fill the memo with ``best_split`` of ``code`` and of every hand it needs (explicit stack)."""
    cost, needs, need_code, cont = T[5], T[6], T[7], T[12]
    stack = np.empty(8192, dtype=np.int64)
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
        first = _lowest_rank(c)
        ready = True
        for j in range(cont.shape[1]):
            cid = cont[first, j]
            if cid < 0:
                break
            if _formable(c, cid, needs) and (c - need_code[cid]) not in memo_cost:
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
            if _formable(c, cid, needs):
                total = memo_cost[c - need_code[cid]] + cost[cid]
                if best_cid < 0 or total < best - 1e-9:
                    best, best_cid = total, cid
        memo_cost[c] = best
        memo_first[c] = best_cid
        top -= 1


@njit(cache=True)
def _split(code, T, memo_cost, memo_first) -> np.ndarray:
    """The combination ids of ``best_split(code)``, in its order."""
    _solve(code, T, memo_cost, memo_first)
    out = np.empty(CARDS_PER_HAND, dtype=np.int64)
    n = 0
    while code != 0:
        cid = memo_first[code]
        out[n] = cid
        n += 1
        code -= T[7][cid]
    return out[:n]


@njit(cache=True)
def _plan_cost(code, T, memo_cost, memo_first) -> float:
    _solve(code, T, memo_cost, memo_first)
    return memo_cost[code] + (ONLY_TWOS_PENALTY if _only_twos(code) else 0.0)


@njit(cache=True)
def _beaters(unseen: int, max_size: int, T) -> np.ndarray:
    """``hand_analysis.beaters``: the combinations of at most ``max_size`` cards the unseen cards form."""
    size, needs, allowed = T[2], T[6], T[9]
    out = np.zeros(size.size, dtype=np.bool_)
    for cid in range(size.size):
        out[cid] = allowed[cid] and size[cid] <= max_size and _formable(unseen, cid, needs)
    return out


@njit(cache=True)
def _beatable(cid: int, possible: np.ndarray, T) -> bool:
    beats = T[8]
    for c in range(possible.size):  # noqa: SIM110 - numba compiles no generator expressions
        if possible[c] and beats[c, cid]:
            return True
    return False


@njit(cache=True)
def _sam_first(code: int, unseen: int, T) -> int:
    """First play of ``hand_analysis.sam_plan``, or -1 where it returns None (a depth-first search
    over the same candidates in the same order, with an explicit stack)."""
    only_twos, needs, need_code, cont = T[3], T[6], T[7], T[13]
    possible = _beaters(unseen, 10, T)
    safe = T[10].copy()
    for cid in range(safe.size):
        if safe[cid] and _beatable(cid, possible, T):
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
        first = _lowest_rank(c)
        advanced = False
        while index[depth] < cont.shape[1] and cont[first, index[depth]] >= 0:
            cid = cont[first, index[depth]]
            index[depth] += 1
            if safe[cid] and _formable(c, cid, needs):
                chosen[depth] = cid
                codes[depth + 1] = c - need_code[cid]
                index[depth + 1] = 0
                depth += 1
                advanced = True
                break
        if not advanced:
            depth -= 1
    return -1


# ---------------------------------------------------------------- decisions


@njit(cache=True)
def _allowed_plays(mask: np.ndarray, code: int, responsible: bool, T) -> np.ndarray:
    """``heuristic_bot._allowed_plays``: legal plays, singles only the highest when responsible."""
    kind, key = T[0], T[1]
    top = -1
    for r in range(N_RANKS):
        if _count(code, r):
            top = r
    out = np.empty(mask.size, dtype=np.int64)
    n = 0
    for a in range(mask.size):
        if mask[a] and kind[a] >= SINGLE and not (responsible and kind[a] == SINGLE and key[a] != top):
            out[n] = a
            n += 1
    return out[:n]


@njit(cache=True)
def _lead(code, unseen, plays, opponents, T, memo_cost, memo_first) -> int:
    kind, key, size, only_twos, reserve, cost, need_code = T[0], T[1], T[2], T[3], T[4], T[5], T[7]
    split = _split(code, T, memo_cost, memo_first)
    for a in plays:
        if code == need_code[a] and not only_twos[a]:
            return a
    in_plays = np.zeros(kind.size, dtype=np.bool_)
    in_plays[plays] = True
    possible = _beaters(unseen, opponents.max(), T)
    n_safe, n_unsafe, all_in = 0, 0, True
    safe = np.zeros(split.size, dtype=np.bool_)
    for i in range(split.size):
        safe[i] = in_plays[split[i]] and not _beatable(split[i], possible, T)
        n_safe += safe[i]
        n_unsafe += not safe[i]
        all_in = all_in and in_plays[split[i]]
    if n_safe > 0 and n_unsafe <= 1 and all_in:
        best, best_score = -1, -1
        for i in range(split.size):
            a = split[i]
            score = 4 * (not _only_twos(code - need_code[a])) + 2 * only_twos[a] + safe[i]
            if score > best_score:
                best, best_score = a, score
        return best
    candidates = np.empty(split.size, dtype=np.int64)
    n = 0
    for a in split:
        if in_plays[a] and not _only_twos(code - need_code[a]):
            candidates[n] = a
            n += 1
    if n == 0:  # _cheapest_rest
        best, best_cost = -1, np.inf
        for a in plays:
            c = _plan_cost(code - need_code[a], T, memo_cost, memo_first)
            if best < 0 or c < best_cost or (c == best_cost and key[a] < key[best]):
                best, best_cost = a, c
        return best
    candidates = candidates[:n]
    # An opponent holding m cards goes out at once on a lead of m cards that it can beat.
    risky = np.zeros(CRITICAL_CARDS + 1, dtype=np.bool_)
    for m in opponents:
        if m <= CRITICAL_CARDS:
            risky[m] = True
    if risky.any():
        other = np.empty(n, dtype=np.int64)
        k = 0
        for a in candidates:
            if not (size[a] <= CRITICAL_CARDS and risky[size[a]]):
                other[k] = a
                k += 1
        if k == 0:
            top = -1
            for a in plays:
                if kind[a] == SINGLE and (top < 0 or key[a] > key[top]):
                    top = a
            if risky[1] and top >= 0:
                return top
            best = candidates[0]
            for a in candidates:  # min by (COST, -key): the strongest
                if cost[a] < cost[best] or (cost[a] == cost[best] and key[a] > key[best]):
                    best = a
            return best
        candidates = other[:k]
    n_weak = 0
    for a in candidates:
        n_weak += not reserve[a]
    best = -1
    for a in candidates:  # max by (COST, size, -key) among the non-reserve plays, if any
        if n_weak and reserve[a]:
            continue
        if best < 0 or (cost[a], size[a], -key[a]) > (cost[best], size[best], -key[best]):
            best = a
    return best


@njit(cache=True)
def _sure_finish(rest, possible, T, memo_cost, memo_first) -> bool:
    if rest == 0:
        return True
    if _only_twos(rest):
        return False
    beatable = 0
    for a in _split(rest, T, memo_cost, memo_first):
        beatable += _beatable(a, possible, T)
    return beatable <= 1


@njit(cache=True)
def _follow(code, unseen, mask, responsible, table, opponents, answering, T, memo_cost, memo_first) -> int:
    kind, key, only_twos, need_code, twos_chopped = T[0], T[1], T[3], T[7], T[11]
    allowed = _allowed_plays(mask, code, responsible, T)
    plays = np.empty(allowed.size, dtype=np.int64)
    n = 0
    for a in allowed:
        rest = code - need_code[a]
        if not (only_twos[a] and rest == 0) and not _only_twos(rest):
            plays[n] = a
            n += 1
    if n == 0:
        return PASS
    plays = plays[:n]
    for a in plays:
        if code == need_code[a]:
            return a
    chop = -1
    for a in plays:
        is_chop = (kind[a] == QUAD or kind[a] == DOUBLE_QUAD) and (twos_chopped[table] > 0 or kind[table] == QUAD)
        if is_chop and (chop < 0 or key[a] < key[chop]):
            chop = a
    if chop >= 0:
        return chop
    shortest = opponents.min()
    if shortest <= CRITICAL_CARDS and kind[table] == SINGLE:
        best = plays[0]
        for a in plays:
            if key[a] > key[best]:
                best = a
        return best
    possible = _beaters(unseen, opponents.max(), T)
    responders = _beaters(unseen, answering.max(), T) if answering.size else np.zeros(0, dtype=np.bool_)
    now = _plan_cost(code, T, memo_cost, memo_first)
    best, gain = PASS, (-np.inf if shortest <= CONTEST_CARDS else FOLLOW_GAIN)
    for a in plays[np.argsort(key[plays], kind="mergesort")]:
        rest = code - need_code[a]
        takes_trick = answering.size == 0 or not _beatable(a, responders, T)
        if takes_trick and _sure_finish(rest, possible, T, memo_cost, memo_first):
            return a
        drop = now - _plan_cost(rest, T, memo_cost, memo_first)
        if drop >= gain + 1e-9:
            best, gain = a, drop
    return best


@njit(cache=True)
def _decide(obs, mask, L, T, memo_cost, memo_first) -> int:
    """HeuristicBot.act for the seat whose observation is ``obs`` (it is relative seat 0)."""
    n_players = L[9]
    code, unseen = _read_code(obs, L[0]), _read_code(obs, L[1])
    phase = np.argmax(obs[L[7] : L[7] + 3])
    declarer = -1
    for s in range(n_players):
        if obs[L[6] + s] > 0.5:
            declarer = s
            break
    if phase == 0:
        if mask[DECLARE_SAM] and _sam_first(code, unseen, T) >= 0:
            return DECLARE_SAM
        return DECLINE_SAM
    if declarer > 0:  # block another seat's Sâm with the first play there is
        for a in range(1, mask.size):
            if mask[a]:
                return a
        return PASS
    if declarer == 0:
        first = _sam_first(code, unseen, T)
        if first >= 0 and mask[first]:
            return first
    opponents = np.empty(n_players - 1, dtype=np.int64)
    answering = np.empty(n_players - 1, dtype=np.int64)
    n_opp = n_ans = 0
    for s in range(1, n_players):
        if obs[L[5] + s] < 0.5:
            left = np.argmax(obs[L[2] + s * (CARDS_PER_HAND + 1) : L[2] + (s + 1) * (CARDS_PER_HAND + 1)])
            opponents[n_opp] = left
            n_opp += 1
            if obs[L[4] + s] < 0.5:
                answering[n_ans] = left
                n_ans += 1
    table = -1
    for a in range(mask.size):
        if obs[L[3] + a] > 0.5:
            table = a
            break
    responsible = obs[L[8]] > 0.5
    if table < 0:
        plays = _allowed_plays(mask, code, responsible, T)
        return _lead(code, unseen, plays, opponents[:n_opp], T, memo_cost, memo_first)
    return _follow(
        code, unseen, mask, responsible, table, opponents[:n_opp], answering[:n_ans], T, memo_cost, memo_first
    )


@njit(cache=True)
def _decide_all(observations, masks, out, L, T, memo_cost, memo_first) -> None:
    for i in range(out.size):
        out[i] = _decide(observations[i], masks[i], L, T, memo_cost, memo_first)


# The kernels freeze the bot's thresholds and the rules' constants when they compile: a change to any
# of these files must recompile them, not load them from numba's cache.
drop_stale_cache(
    _decide_all,
    sources=(Path(__file__), Path(heuristic_bot.__file__), Path(hand_analysis.__file__), *ENGINE_SOURCES),
    modules={Path(__file__).stem},
    stamp_name="agents_batched_heuristic_sources.sha256",
)


class BatchedHeuristic:
    """HeuristicBot's decisions for a batch of seats at one table size: a batched policy.

    ``policy(observations, action_masks) -> actions`` takes ``float32[k, obs_dim]`` and
    ``bool[k, N_ACTIONS]`` (each row one seat's own observation, as ``VectorEnv`` gives them) and
    returns ``int64[k]``. Deterministic, like the bot; the instance keeps the memo of hand splits.
    """

    def __init__(self, rules: RuleConfig | None = None) -> None:
        self.rules = rules or RuleConfig()
        self._layout = _layout(self.rules.n_players)
        self._obs_size = sum(size for _, size in observation_layout(self.rules.n_players))
        self._tables = _combo_tables(self.rules)
        self._new_memo()

    def _new_memo(self) -> None:
        self._memo_cost = Dict.empty(key_type=types.int64, value_type=types.float64)
        self._memo_first = Dict.empty(key_type=types.int64, value_type=types.int64)

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.ascontiguousarray(action_masks, dtype=np.bool_)
        if obs.ndim != 2 or obs.shape[1] != self._obs_size or masks.shape != (len(obs), N_COMBOS):
            raise ValueError(
                f"expected observations float32[k, {self._obs_size}] and action masks bool[k, {N_COMBOS}] "
                f"for {self.rules.n_players} seats, got {obs.shape} and {masks.shape}"
            )
        if not masks.any(axis=1).all():
            raise ValueError("every row of action_masks needs at least one legal action")
        if len(self._memo_cost) > MEMO_LIMIT:
            self._new_memo()
        out = np.empty(len(obs), dtype=np.int64)
        _decide_all(obs, masks, out, self._layout, self._tables, self._memo_cost, self._memo_first)
        return out
