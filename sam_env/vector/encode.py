"""Observations and the perfect-information state, written straight into float32 rows.

The layouts are :mod:`sam_env.encoding`'s, block for block (the offsets come from
:func:`.layout.observation_offsets`, of the table's encoding version: a block the version does not
have is at offset -1 and not written): a row is zeroed, its unary and ``declined`` blocks written four
floats (a nibble, from a look-up table) at a time, the other ones set one by one; the chop-chain value
is the only fraction. Array views and ``%`` cost more than the writes here, hence direct ``[t, s, FIELD]``
indexing and :func:`relative`. The AEC env's :class:`~sam_env.encoding.Encoder` assembles the
same vector from one Python integer; the differential test checks they are equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.cards import FULL_DECK
from ..core.rules import CARDS_PER_HAND
from ..encoding import CHAIN_SCALE, DECLINED_BITS
from .layout import (
    ALL_PLAYED,
    DECLINED,
    HAND,
    LEADER,
    N_CARDS,
    NO_PLAY,
    NO_SEAT,
    O_CARDS_LEFT,
    O_CHAIN_VALUE,
    O_DECLINED,
    O_HAND,
    O_LEADER,
    O_ONE_CARD,
    O_OUT,
    O_PASSED,
    O_PHASE,
    O_PLAYED,
    O_RESPONSIBLE,
    O_SAM_DECLARER,
    O_TABLE_OWNER,
    O_TABLE_PLAY,
    O_TO_ACT,
    O_UNSEEN,
    OUT,
    PASSED,
    PHASE,
    PHASE_OVER,
    PHASE_PLAY,
    PLAYED_UNARY,
    RP_N,
    SAM_DECLARER,
    TABLE_COMBO,
    TABLE_OWNER,
    TO_ACT,
    UNARY,
)
from .play import chain_value, responsible, unary_of_cards

UNARY_BITS = 52
LEFT_SLOTS = CARDS_PER_HAND + 1
NIBBLE_BITS = np.array([[(nibble >> j) & 1 for j in range(4)] for nibble in range(16)], dtype=np.float32)
"""``float32[16, 4]``: the 4 bits of a nibble as floats (a look-up beats a variable shift per element)."""


@njit(cache=True, inline="always")
def set_unary(out, at, unary):
    """Write a unary rank-count mask (13 ranks × 4 bits) as 52 zeros and ones from ``out[at]`` on."""
    for r in range(13):
        nibble = (unary >> (4 * r)) & 0xF
        for j in range(4):
            out[at + 4 * r + j] = NIBBLE_BITS[nibble, j]


@njit(cache=True, inline="always")
def set_bits(out, at, bits, n_bits):
    """Write the lowest ``n_bits`` bits of ``bits`` (a multiple of 4) as zeros and ones from ``out[at]`` on."""
    for q in range(n_bits // 4):
        nibble = (bits >> (4 * q)) & 0xF
        for j in range(4):
            out[at + 4 * q + j] = NIBBLE_BITS[nibble, j]


@njit(cache=True, inline="always")
def relative(seat, first, n):
    """``(seat - first) % n`` without a division (the row of ``seat`` when rows start at ``first``)."""
    d = seat - first
    return d + n if d < 0 else d


@njit(cache=True, inline="always")
def seat_blocks(seats, t, rp, off, first, out):
    """Per-seat blocks (played, cards left, báo 1, passed, out), rows in turn order from seat ``first``."""
    n = rp[RP_N]
    for k in range(n):
        s = first + k - n if first + k >= n else first + k
        set_unary(out, off[O_PLAYED] + UNARY_BITS * k, seats[t, s, PLAYED_UNARY])
        left = seats[t, s, N_CARDS]
        out[off[O_CARDS_LEFT] + LEFT_SLOTS * k + left] = 1.0
        if left == 1 and off[O_ONE_CARD] >= 0:
            out[off[O_ONE_CARD] + k] = 1.0
        if seats[t, s, PASSED]:
            out[off[O_PASSED] + k] = 1.0
        if seats[t, s, OUT]:
            out[off[O_OUT] + k] = 1.0


@njit(cache=True, inline="always")
def shared_blocks(tab, seats, t, rp, off, first, out):
    """Blocks observation and state share (seats relative to ``first``): table play, Sâm, leader, phase, chain."""
    n = rp[RP_N]
    combo = tab[t, TABLE_COMBO]
    if combo != NO_PLAY:
        out[off[O_TABLE_PLAY] + combo] = 1.0
        out[off[O_TABLE_OWNER] + relative(tab[t, TABLE_OWNER], first, n)] = 1.0
        value = chain_value(tab, seats, t, rp)
        out[off[O_CHAIN_VALUE]] = value / (value + CHAIN_SCALE)
    if tab[t, SAM_DECLARER] != NO_SEAT:
        out[off[O_SAM_DECLARER] + relative(tab[t, SAM_DECLARER], first, n)] = 1.0
    out[off[O_LEADER] + relative(tab[t, LEADER], first, n)] = 1.0
    out[off[O_PHASE] + tab[t, PHASE]] = 1.0


@njit(cache=True, inline="always")
def observation_into(tab, seats, t, seat, rp, off, out):
    """The observation of ``seat`` at table ``t`` (:meth:`sam_env.encoding.Encoder.observe`)."""
    out[:] = 0.0
    set_unary(out, off[O_HAND], seats[t, seat, UNARY])
    set_unary(out, off[O_UNSEEN], unary_of_cards(FULL_DECK ^ (seats[t, seat, HAND] | tab[t, ALL_PLAYED])))
    seat_blocks(seats, t, rp, off, seat, out)
    shared_blocks(tab, seats, t, rp, off, seat, out)
    if tab[t, PHASE] == PHASE_PLAY and responsible(tab, seats, t, seat, rp[RP_N]):
        out[off[O_RESPONSIBLE]] = 1.0
    if off[O_DECLINED] >= 0:  # encoding version 2: each opponent's declines, rows in turn order after the seat
        n = rp[RP_N]
        for k in range(1, n):
            s = seat + k - n if seat + k >= n else seat + k
            set_bits(out, off[O_DECLINED] + DECLINED_BITS * (k - 1), seats[t, s, DECLINED], DECLINED_BITS)


@njit(cache=True, inline="always")
def hidden_hands_into(seats, t, seat, n, out):
    """The hands ``seat`` cannot see (unary), rows in turn order after it: what an oracle critic adds."""
    out[:] = 0.0
    for k in range(1, n):
        s = seat + k - n if seat + k >= n else seat + k
        set_unary(out, UNARY_BITS * (k - 1), seats[t, s, UNARY])


@njit(cache=True)
def state_into(tab, seats, t, rp, off, out):
    """The perfect-information state of table ``t`` (:meth:`sam_env.encoding.Encoder.state`)."""
    out[:] = 0.0
    for s in range(rp[RP_N]):
        set_unary(out, off[O_HAND] + UNARY_BITS * s, seats[t, s, UNARY])
    seat_blocks(seats, t, rp, off, 0, out)
    shared_blocks(tab, seats, t, rp, off, 0, out)
    if tab[t, PHASE] != PHASE_OVER:
        out[off[O_TO_ACT] + tab[t, TO_ACT]] = 1.0
