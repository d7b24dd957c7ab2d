"""The heuristic bot compiled for whole batches of VectorEnv tables.

Why: :class:`~.bot.HeuristicBot` is Python, decision by decision, and slower still when a VectorEnv
seat's view must first be read back from its observation, so a trainer whose opponents are mostly
heuristic seats would spend nearly all its time there (``benchmarks/bench_heuristic.py`` times both bots
on the same decisions: docs/speed.md#heuristic-bot-compiled-vs-python). :class:`BatchedHeuristic`
makes the same decisions with numba kernels, for every table of a batch in one call: it is a
:class:`sam_env.bot.BatchedPolicy`, usable wherever one is taken.

It is a line-by-line port of :mod:`.bot` and :mod:`.analysis`, down to
their tie-breaking (first of equals in the Python iteration order), reading the seat's view from
its observation vector (at the block offsets of :func:`sam_env.vector.layout.observation_offsets`,
the compiled encoder's; the observer is relative seat 0, and suits do not matter to the bot). The
hand analysis it needs is in :mod:`.kernels` (packed rank counts, memoised best splits).
``tests/agents/test_heuristic_compiled.py`` checks that it makes HeuristicBot's move at every
decision of many hands, over random rule configurations.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from sam_env.core import N_COMBOS, Kind, Phase, RuleConfig
from sam_env.core.cards import N_RANKS
from sam_env.core.combos import DECLARE_SAM, DECLINE_SAM, PASS
from sam_env.core.rules import CARDS_PER_HAND
from sam_env.encoding import ENCODING_VERSIONS, observation_size
from sam_env.vector.layout import (
    O_CARDS_LEFT,
    O_HAND,
    O_OUT,
    O_PASSED,
    O_PHASE,
    O_RESPONSIBLE,
    O_SAM_DECLARER,
    O_TABLE_PLAY,
    O_UNSEEN,
    observation_offsets,
)

from .bot import DEFAULT_PARAMS, HeuristicParams
from .kernels import (
    ComboTables,
    beatable,
    beaters,
    combo_tables,
    count,
    is_only_twos,
    plan_cost,
    read_code,
    sam_first,
    split_of,
)

SINGLE, QUAD, DOUBLE_QUAD = int(Kind.SINGLE), int(Kind.QUAD), int(Kind.DOUBLE_QUAD)
N_PHASES, SAM_DECISION = len(Phase), int(Phase.SAM_DECISION)


# ---------------------------------------------------------------- decisions


@njit(cache=True)
def _allowed_plays(mask: np.ndarray, code: int, responsible: bool, T: ComboTables) -> np.ndarray:
    """``bot._allowed_plays``: legal plays, singles only the highest when responsible."""
    kind, key = T.kind, T.key
    top = -1
    for r in range(N_RANKS):
        if count(code, r):
            top = r
    out = np.empty(mask.size, dtype=np.int64)
    n = 0
    for a in range(mask.size):
        if mask[a] and kind[a] >= SINGLE and not (responsible and kind[a] == SINGLE and key[a] != top):
            out[n] = a
            n += 1
    return out[:n]


@njit(cache=True)
def _lead(code, unseen, plays, opponents, T: ComboTables, memo_cost, memo_first, critical) -> int:
    kind, key, size, only_twos, reserve, cost, need_code = (
        T.kind,
        T.key,
        T.size,
        T.only_twos,
        T.reserve,
        T.cost,
        T.need_code,
    )
    parts = split_of(code, T, memo_cost, memo_first)
    for a in plays:
        if code == need_code[a] and not only_twos[a]:
            return a
    in_plays = np.zeros(kind.size, dtype=np.bool_)
    in_plays[plays] = True
    possible = beaters(unseen, opponents.max(), T)
    n_safe, n_unsafe, all_in = 0, 0, True
    safe = np.zeros(parts.size, dtype=np.bool_)
    for i in range(parts.size):
        safe[i] = in_plays[parts[i]] and not beatable(parts[i], possible, T)
        n_safe += safe[i]
        n_unsafe += not safe[i]
        all_in = all_in and in_plays[parts[i]]
    if n_safe > 0 and n_unsafe <= 1 and all_in:
        best, best_score = -1, -1
        for i in range(parts.size):
            a = parts[i]
            score = 4 * (not is_only_twos(code - need_code[a])) + 2 * only_twos[a] + safe[i]
            if score > best_score:
                best, best_score = a, score
        return best
    candidates = np.empty(parts.size, dtype=np.int64)
    n = 0
    for a in parts:
        if in_plays[a] and not is_only_twos(code - need_code[a]):
            candidates[n] = a
            n += 1
    if n == 0:  # _cheapest_rest
        best, best_cost = -1, np.inf
        for a in plays:
            c = plan_cost(code - need_code[a], T, memo_cost, memo_first)
            if best < 0 or c < best_cost or (c == best_cost and key[a] < key[best]):
                best, best_cost = a, c
        return best
    candidates = candidates[:n]
    # An opponent holding m cards goes out at once on a lead of m cards that it can beat.
    risky = np.zeros(critical + 1, dtype=np.bool_)
    for m in opponents:
        if m <= critical:
            risky[m] = True
    if risky.any():
        other = np.empty(n, dtype=np.int64)
        k = 0
        for a in candidates:
            if not (size[a] <= critical and risky[size[a]]):
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
def _sure_finish(rest, possible, T: ComboTables, memo_cost, memo_first) -> bool:
    if rest == 0:
        return True
    if is_only_twos(rest):
        return False
    n_beatable = 0
    for a in split_of(rest, T, memo_cost, memo_first):
        n_beatable += beatable(a, possible, T)
    return n_beatable <= 1


@njit(cache=True)
def _follow(
    code, unseen, mask, responsible, table, opponents, answering, T: ComboTables, memo_cost, memo_first, params
) -> int:
    follow_gain, contest, critical = params[0], int(params[1]), int(params[2])
    kind, key, only_twos, need_code, twos_chopped = T.kind, T.key, T.only_twos, T.need_code, T.twos_chopped
    allowed = _allowed_plays(mask, code, responsible, T)
    plays = np.empty(allowed.size, dtype=np.int64)
    n = 0
    for a in allowed:
        rest = code - need_code[a]
        if not (only_twos[a] and rest == 0) and not is_only_twos(rest):
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
    if shortest <= critical and kind[table] == SINGLE:
        best = plays[0]
        for a in plays:
            if key[a] > key[best]:
                best = a
        return best
    possible = beaters(unseen, opponents.max(), T)
    responders = beaters(unseen, answering.max(), T) if answering.size else np.zeros(0, dtype=np.bool_)
    now = plan_cost(code, T, memo_cost, memo_first)
    best, gain = PASS, (-np.inf if shortest <= contest else follow_gain)
    for a in plays[np.argsort(key[plays], kind="mergesort")]:
        rest = code - need_code[a]
        takes_trick = answering.size == 0 or not beatable(a, responders, T)
        if takes_trick and _sure_finish(rest, possible, T, memo_cost, memo_first):
            return a
        drop = now - plan_cost(rest, T, memo_cost, memo_first)
        if drop >= gain + 1e-9:
            best, gain = a, drop
    return best


@njit(cache=True)
def _decide(
    obs: np.ndarray, mask: np.ndarray, L: np.ndarray, T: ComboTables, memo_cost: Dict, memo_first: Dict, params
) -> int:
    """HeuristicBot.act for the seat whose observation is ``obs`` (it is relative seat 0); ``params``:
    :meth:`~.bot.HeuristicParams.as_array`."""
    n_players = L[O_OUT] - L[O_PASSED]
    code, unseen = read_code(obs, L[O_HAND]), read_code(obs, L[O_UNSEEN])
    phase = np.argmax(obs[L[O_PHASE] : L[O_PHASE] + N_PHASES])
    declarer = -1
    for s in range(n_players):
        if obs[L[O_SAM_DECLARER] + s] > 0.5:
            declarer = s
            break
    if phase == SAM_DECISION:
        if mask[DECLARE_SAM] and sam_first(code, unseen, T) >= 0:
            return DECLARE_SAM
        return DECLINE_SAM
    if declarer > 0:  # block another seat's Sâm with the first play there is
        for a in range(1, mask.size):
            if mask[a]:
                return a
        return PASS
    if declarer == 0:
        first = sam_first(code, unseen, T)
        if first >= 0 and mask[first]:
            return first
    opponents = np.empty(n_players - 1, dtype=np.int64)
    answering = np.empty(n_players - 1, dtype=np.int64)
    n_opp = n_ans = 0
    for s in range(1, n_players):
        if obs[L[O_OUT] + s] < 0.5:
            left = np.argmax(
                obs[L[O_CARDS_LEFT] + s * (CARDS_PER_HAND + 1) : L[O_CARDS_LEFT] + (s + 1) * (CARDS_PER_HAND + 1)]
            )
            opponents[n_opp] = left
            n_opp += 1
            if obs[L[O_PASSED] + s] < 0.5:
                answering[n_ans] = left
                n_ans += 1
    table = -1
    for a in range(mask.size):
        if obs[L[O_TABLE_PLAY] + a] > 0.5:
            table = a
            break
    responsible = obs[L[O_RESPONSIBLE]] > 0.5
    if table < 0:
        plays = _allowed_plays(mask, code, responsible, T)
        return _lead(code, unseen, plays, opponents[:n_opp], T, memo_cost, memo_first, int(params[2]))
    return _follow(
        code, unseen, mask, responsible, table, opponents[:n_opp], answering[:n_ans], T, memo_cost, memo_first, params
    )


@njit(cache=True)
def decide_all(
    observations: np.ndarray,
    masks: np.ndarray,
    out: np.ndarray,
    L: np.ndarray,
    T: ComboTables,
    memo_cost: Dict,
    memo_first: Dict,
    params: np.ndarray,
) -> None:
    """``out[i]``: the move for row ``i`` of a batch (the kernel :class:`BatchedHeuristic` calls)."""
    for i in range(out.size):
        out[i] = _decide(observations[i], masks[i], L, T, memo_cost, memo_first, params)


class BatchedHeuristic:
    """HeuristicBot's decisions for a batch of seats at one table size: a batched policy.

    ``policy(observations, action_masks) -> actions`` takes ``float32[k, obs_dim]`` and
    ``bool[k, N_ACTIONS]`` (each row one seat's own observation, as ``VectorEnv`` gives them) and
    returns ``int64[k]``. Deterministic, like the bot; the instance keeps the memo of hand splits,
    which is bounded: there are 1,032,760 hands of at most 10 cards. ``params``: its thresholds
    (:class:`~.bot.HeuristicParams`; default the shipped heuristic's). Observations of any encoding version
    are read (every version starts with version 1's blocks, which are all it reads).
    """

    def __init__(self, rules: RuleConfig | None = None, params: HeuristicParams = DEFAULT_PARAMS) -> None:
        self.rules = rules or RuleConfig()
        self.params = params
        self._params = params.as_array()
        self._layout = observation_offsets(self.rules.n_players)
        self._sizes = sorted({observation_size(self.rules.n_players, v) for v in ENCODING_VERSIONS})
        self._tables = combo_tables(self.rules)
        self._memo_cost = Dict.empty(key_type=types.int64, value_type=types.float64)
        self._memo_first = Dict.empty(key_type=types.int64, value_type=types.int64)

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.ascontiguousarray(action_masks, dtype=np.bool_)
        if obs.ndim != 2 or obs.shape[1] not in self._sizes or masks.shape != (len(obs), N_COMBOS):
            sizes = " or ".join(map(str, self._sizes))
            raise ValueError(
                f"expected observations float32[k, {sizes}] and action masks bool[k, {N_COMBOS}] "
                f"for {self.rules.n_players} seats, got {obs.shape} and {masks.shape}"
            )
        if not masks.any(axis=1).all():
            raise ValueError("every row of action_masks needs at least one legal action")
        out = np.empty(len(obs), dtype=np.int64)
        decide_all(obs, masks, out, self._layout, self._tables, self._memo_cost, self._memo_first, self._params)
        return out
