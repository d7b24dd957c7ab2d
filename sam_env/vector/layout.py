"""Flat numpy arrays for the compiled engine, derived once from the reference engine's own tables.

Nothing here is a second source of truth: the combination table comes from
:mod:`sam_env.core.combos`, the "what may be played on what" rows from
:func:`sam_env.core.rule_masks.rule_masks`, the observation offsets from
:func:`sam_env.encoding.observation_layout`. They are reshaped into arrays of ``int64`` (and one
``bool`` matrix) that numba kernels read without touching a Python object.

The state of ``N`` tables is a few arrays indexed ``[table, …]``; the field names below are the
column indices, so that a kernel reads ``tab[t, TO_ACT]`` or ``seats[t, s, HAND]`` like the
reference reads ``hand.to_act`` or ``hand.cards[s]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.cards import DECK_SIZE, N_RANKS, RED_SUITS, Rank, card_id
from ..core.combos import COMBOS, IS_QUAD, MAX_STRAIGHT, N_COMBOS, REQ, SINGLE_RANK, SIZE, TWOS_CHOPPED, Kind
from ..core.game import DECLINE_BITS, Phase
from ..core.ledger import EndReason, Reason
from ..core.rule_masks import rule_masks
from ..core.rules import FIRST_LEADER_CHOICES, INSTANT_WIN_TYPES, RuleConfig
from ..encoding import ENCODING_VERSION, observation_layout, state_layout

# ---------------------------------------------------------------- per-table fields: tab[t, FIELD]
PHASE, TO_ACT, LEADER, TABLE_COMBO, TABLE_OWNER, SAM_DECLARER, SAM_ASKED = range(7)
UNDERSIZED_BY, FOT_COUNT, ALL_PLAYED, LEDGER_LEN, NEXT_LEADER, N_FINISHED, INSTANT_WINNER, INSTANT_KIND = range(7, 15)
N_TAB_FIELDS = 15
"""``NEXT_LEADER`` (-1 before a table's first finished hand) outlives hands; ``N_FINISHED`` counts
the hands finished since the last ``reset``/``step`` call (0 or 1); ``INSTANT_WINNER`` is the seat dealt
an instant win, waiting for its one move (``NO_SEAT``: none), and ``INSTANT_KIND`` its index in
``INSTANT_WIN_TYPES``."""

# ---------------------------------------------------------------- per-seat fields: seats[t, s, FIELD]
HAND, UNARY, N_CARDS, PLAYED, PLAYED_UNARY, N_PLAYED, OUT, PASSED, CHAIN, FOT_ORDER, FINAL_TWOS = range(11)
DECLINED, DEALT = 11, 12
N_SEAT_FIELDS = 13
"""``FOT_ORDER``: 1 + the order in which the seat finished on 2s (0: it did not), for the ledger order.
``DECLINED``: the reference's ``Hand.declined`` bits. Every field before ``DEALT`` is cleared at a deal."""

# ---------------------------------------------------------------- finished hands: fin[t, slot, FIELD]
F_REASON, F_WINNER, F_NEXT_LEADER, F_INSTANT_WIN, F_SAM_DECLARER, F_SAM_BLOCKER, F_RESPONSIBLE = range(7)
F_LEDGER_LEN, F_FOT_COUNT, F_LEADER = 7, 8, 9
N_FIN_FIELDS = 10
FINISHED_CAPACITY = 1
"""Finished hands one table records per kernel call: a step ends at most one hand, and a deal never
ends one (an instant win waits for the winner's move, like the reference's)."""
LEDGER_CAPACITY = 32
"""Transfers in one hand, at most: ≤ 12 chops (each needs one of ≤ 12 quads dealt), ≤ 8 settlement
rows, ≤ 4 finish-on-2 rows; Sâm and instant wins end a hand with ≤ 4 rows."""

NO_SEAT = -1
NO_PLAY = -1
PHASE_SAM, PHASE_PLAY, PHASE_OVER = int(Phase.SAM_DECISION), int(Phase.PLAY), int(Phase.OVER)
REASONS: tuple[Reason, ...] = tuple(Reason)
"""Ledger reason codes: ``REASONS[code]``."""
END_REASONS: tuple[EndReason, ...] = tuple(EndReason)
R_CHOP, R_CARDS, R_THOI_2, R_CONG, R_RESPONSIBILITY = (
    REASONS.index(r) for r in (Reason.CHOP, Reason.CARDS, Reason.THOI_2, Reason.CONG, Reason.RESPONSIBILITY)
)
R_SAM_WON, R_SAM_BLOCKED, R_SAM_FAILED, R_INSTANT_WIN, R_FINISH_ON_TWO = (
    REASONS.index(r)
    for r in (Reason.SAM_WON, Reason.SAM_BLOCKED, Reason.SAM_FAILED, Reason.INSTANT_WIN, Reason.FINISH_ON_TWO)
)
E_NORMAL, E_SAM_WON, E_SAM_BLOCKED, E_SAM_FAILED, E_INSTANT_WIN, E_FINISH_ON_TWO = (
    END_REASONS.index(e)
    for e in (
        EndReason.NORMAL,
        EndReason.SAM_WON,
        EndReason.SAM_BLOCKED,
        EndReason.SAM_FAILED,
        EndReason.INSTANT_WIN,
        EndReason.FINISH_ON_TWO,
    )
)

# ---------------------------------------------------------------- rule parameters: rp[FIELD]
RP_N, RP_STRAIGHTS_WITH_TWO, RP_FIRST_LEADER, RP_BAO1_FORCED, RP_ALLOW_SAM, RP_PAY_PLAYED = range(6)
RP_CONG, RP_CARD_VALUE, RP_THOI, RP_CHOP_TWO, RP_CHOP_QUAD, RP_SAM_UNIT, RP_INSTANT_UNIT = range(6, 13)
RP_INSTANT = 13
"""``rp[RP_INSTANT + k]``: instant-win type ``INSTANT_WIN_TYPES[k]`` is enabled (strongest first)."""
N_RULE_PARAMS = RP_INSTANT + len(INSTANT_WIN_TYPES)
FIRST_LOWEST_CARD, FIRST_HOST, FIRST_RANDOM = (FIRST_LEADER_CHOICES.index(c) for c in ("lowest_card", "host", "random"))


def rule_params(rules: RuleConfig) -> np.ndarray:
    """Every option and stake of ``rules`` as ``int64[N_RULE_PARAMS]`` for the kernels."""
    rp = np.zeros(N_RULE_PARAMS, dtype=np.int64)
    rp[RP_N] = rules.n_players
    rp[RP_STRAIGHTS_WITH_TWO] = rules.straights_with_two
    rp[RP_FIRST_LEADER] = FIRST_LEADER_CHOICES.index(rules.first_leader)
    rp[RP_BAO1_FORCED] = rules.bao1 == "forced"
    rp[RP_ALLOW_SAM] = rules.allow_sam
    rp[RP_PAY_PLAYED] = rules.finish_on_two == "pay_played"
    rp[RP_CONG] = rules.cong_cards
    rp[RP_CARD_VALUE] = rules.card_value
    rp[RP_THOI] = rules.thoi_per_two
    rp[RP_CHOP_TWO] = rules.chop_per_two
    rp[RP_CHOP_QUAD] = rules.chop_per_quad
    rp[RP_SAM_UNIT] = rules.sam_unit
    rp[RP_INSTANT_UNIT] = rules.instant_win_unit
    for k, kind in enumerate(INSTANT_WIN_TYPES):
        rp[RP_INSTANT + k] = kind in rules.instant_wins
    return rp


def answers_of(rules: RuleConfig) -> np.ndarray:
    """``bool[N_COMBOS + 1, N_COMBOS]``: row ``table + 1`` lists what may be played on ``table`` (row 0: a lead)."""
    return np.ascontiguousarray(rule_masks(rules).answers)


# ---------------------------------------------------------------- the combination table as arrays
COMBO_REQ = REQ.astype(np.int64)
"""Unary rank mask each combination needs (52 bits, so ``int64`` holds it exactly)."""
COMBO_SINGLE_RANK = SINGLE_RANK.astype(np.int64)
COMBO_SIZE = SIZE.astype(np.int64)
COMBO_TWOS_CHOPPED = TWOS_CHOPPED.astype(np.int64)
COMBO_IS_QUAD = IS_QUAD.astype(np.int64)
COMBO_TWOS = np.array([c.twos for c in COMBOS], dtype=np.int64)
COMBO_ONLY_TWOS = np.array([c.only_twos for c in COMBOS], dtype=np.int64)
COMBO_DECLINE_BITS = np.array(DECLINE_BITS, dtype=np.int64)
"""What passing on each combination adds to the seat's ``DECLINED`` bits (``sam_env.core.game.DECLINE_BITS``)."""
NIBBLE_COUNT = np.array([bin(b).count("1") for b in range(16)], dtype=np.int64)
UNARY_OF_COUNT = np.array([(1 << c) - 1 for c in range(5)], dtype=np.int64)
LOWEST_BITS = np.zeros((16, 5), dtype=np.int64)
"""``LOWEST_BITS[nibble, k]``: the ``k`` lowest suits of a rank — the cards that leave when ``k`` are played."""
for _nib in range(16):
    _bits = [b for b in range(4) if _nib >> b & 1]
    for _k in range(len(_bits) + 1):
        LOWEST_BITS[_nib, _k] = sum(1 << b for b in _bits[:_k])

RED_CARDS = sum(1 << card_id(r, s) for r in Rank for s in RED_SUITS)
BLACK_CARDS = ((1 << DECK_SIZE) - 1) ^ RED_CARDS
AT_LEAST_2, AT_LEAST_3, AT_LEAST_4 = (sum(1 << (4 * r + level) for r in range(N_RANKS)) for level in (1, 2, 3))
DRAGON_REQ = np.array(
    [int(REQ[c.id]) for c in COMBOS if c.kind == Kind.STRAIGHT and c.size == MAX_STRAIGHT], dtype=np.int64
)
DRAGON_HAS_TWO = np.array(
    [c.twos > 0 for c in COMBOS if c.kind == Kind.STRAIGHT and c.size == MAX_STRAIGHT], dtype=np.int64
)
TWO_SHIFT = 4 * int(Rank.TWO)
N_ACTIONS = N_COMBOS
for _arr in (
    COMBO_REQ,
    COMBO_SINGLE_RANK,
    COMBO_SIZE,
    COMBO_TWOS_CHOPPED,
    COMBO_IS_QUAD,
    COMBO_TWOS,
    COMBO_ONLY_TWOS,
    COMBO_DECLINE_BITS,
):
    _arr.flags.writeable = False

# ---------------------------------------------------------------- observation and state offsets
O_HAND, O_UNSEEN, O_PLAYED, O_CARDS_LEFT, O_ONE_CARD, O_TABLE_PLAY, O_TABLE_OWNER = range(7)
O_PASSED, O_OUT, O_SAM_DECLARER, O_LEADER, O_PHASE, O_RESPONSIBLE, O_CHAIN_VALUE, O_TO_ACT = range(7, 15)
O_DECLINED, O_SIZE = 15, 16
_OFFSET_NAMES = (
    "hand",
    "unseen",
    "played",
    "cards_left",
    "one_card",
    "table_play",
    "table_owner",
    "passed",
    "out",
    "sam_declarer",
    "leader",
    "phase",
    "responsible",
    "chain_value",
    "to_act",
    "declined",
)


def _offsets(layout: list[tuple[str, int]]) -> np.ndarray:
    """``int64[O_SIZE + 1]``: where each named block starts (-1 when the layout has none), then the size.

    A block the compiled encoder does not know is refused here, so that a change of the encoding
    cannot silently leave the vector engine writing the old layout.
    """
    unknown = [name for name, _ in layout if name not in _OFFSET_NAMES]
    if unknown:
        raise AssertionError(f"observation blocks unknown to the compiled encoder (sam_env.vector.encode): {unknown}")
    at, pos = {}, 0
    for name, size in layout:
        at[name] = pos
        pos += size
    return np.array([at.get(name, -1) for name in _OFFSET_NAMES] + [pos], dtype=np.int64)


def observation_offsets(n_players: int, version: int = ENCODING_VERSION) -> np.ndarray:
    """Block offsets of :func:`sam_env.encoding.observation_layout` (the AEC env's observation) of encoding
    ``version``; the blocks of version 1 are at the same offsets in every version."""
    return _offsets(observation_layout(n_players, version))


def state_offsets(n_players: int) -> np.ndarray:
    """Block offsets of :func:`sam_env.encoding.state_layout` (its ``hands`` block, all seats, at ``O_HAND``)."""
    return _offsets([("hand" if name == "hands" else name, size) for name, size in state_layout(n_players)])


class BatchState(NamedTuple):
    """Every array of ``N`` tables' state (one numba argument; fields read like the reference's attributes)."""

    tab: np.ndarray
    """``int64[N, N_TAB_FIELDS]``: whose turn, the play to beat, Sâm, counters."""
    seats: np.ndarray
    """``int64[N, n, N_SEAT_FIELDS]``: card masks, unary rank counts, played cards, passes, chop chain."""
    ledger: np.ndarray
    """``int64[N, LEDGER_CAPACITY, 4]``: the current hand's transfers (payer, payee, amount, reason code)."""
    rewards: np.ndarray
    """``float32[N, n]``: money credited since the call began, per absolute seat."""
    fin: np.ndarray
    """``int64[N, slots, N_FIN_FIELDS]``: hands finished during the call (``slots``: ``FINISHED_CAPACITY``)."""
    fin_ledger: np.ndarray
    """``int64[N, slots, LEDGER_CAPACITY, 4]``: their ledgers."""
    fin_fot: np.ndarray
    """``int64[N, slots, n]``: their seats that finished on 2s, in order."""
    fin_dealt: np.ndarray
    """``int64[N, slots, n]``: their deals (card masks), to replay or log them."""
    rng: np.ndarray
    """``uint64[N]``: each table's splitmix64 state (deals and random first leaders)."""


def allocate(num_tables: int, n_players: int, result_slots: int = FINISHED_CAPACITY) -> BatchState:
    """Zeroed state for ``num_tables`` tables of ``n_players`` seats, ``result_slots`` finished hands each."""
    n, f = num_tables, result_slots
    return BatchState(
        tab=np.zeros((n, N_TAB_FIELDS), dtype=np.int64),
        seats=np.zeros((n, n_players, N_SEAT_FIELDS), dtype=np.int64),
        ledger=np.zeros((n, LEDGER_CAPACITY, 4), dtype=np.int64),
        rewards=np.zeros((n, n_players), dtype=np.float32),
        fin=np.zeros((n, f, N_FIN_FIELDS), dtype=np.int64),
        fin_ledger=np.zeros((n, f, LEDGER_CAPACITY, 4), dtype=np.int64),
        fin_fot=np.zeros((n, f, n_players), dtype=np.int64),
        fin_dealt=np.zeros((n, f, n_players), dtype=np.int64),
        rng=np.zeros(n, dtype=np.uint64),
    )
