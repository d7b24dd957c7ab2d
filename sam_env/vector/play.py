"""One table's hand in compiled form: the reference's :class:`sam_env.core.game.Hand`, rule by rule.

Each function mirrors the method of the same name in :mod:`sam_env.core.game` and works on table
``t`` of a :class:`~.layout.BatchState` ``b`` — or of just its ``tab`` and ``seats`` arrays where
that is all a function needs: the per-decision functions are inlined, and every inlined binding of
``b`` increfs and decrefs each of its nine arrays (measured, a third of a step's time) — with the
rules as ``rp`` (``int64`` parameters, see :func:`.layout.rule_params`) and ``answers`` (the
"what may be played on what" rows). The differential test (``tests/vector``) holds the two to
the same behaviour at every step; when they disagree, the reference and docs/rules.md decide.
"""

from __future__ import annotations

from numba import njit

from .layout import (
    ALL_PLAYED,
    CHAIN,
    COMBO_DECLINE_BITS,
    COMBO_IS_QUAD,
    COMBO_ONLY_TWOS,
    COMBO_REQ,
    COMBO_SINGLE_RANK,
    COMBO_SIZE,
    COMBO_TWOS,
    COMBO_TWOS_CHOPPED,
    DEALT,
    DECLINED,
    E_FINISH_ON_TWO,
    E_INSTANT_WIN,
    E_NORMAL,
    E_SAM_BLOCKED,
    E_SAM_FAILED,
    E_SAM_WON,
    F_FOT_COUNT,
    F_INSTANT_WIN,
    F_LEADER,
    F_LEDGER_LEN,
    F_NEXT_LEADER,
    F_REASON,
    F_RESPONSIBLE,
    F_SAM_BLOCKER,
    F_SAM_DECLARER,
    F_WINNER,
    FINAL_TWOS,
    FOT_COUNT,
    FOT_ORDER,
    HAND,
    INSTANT_KIND,
    INSTANT_WINNER,
    LEADER,
    LEDGER_LEN,
    LOWEST_BITS,
    N_CARDS,
    N_FINISHED,
    N_PLAYED,
    NEXT_LEADER,
    NIBBLE_COUNT,
    NO_PLAY,
    NO_SEAT,
    OUT,
    PASSED,
    PHASE,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_SAM,
    PLAYED,
    PLAYED_UNARY,
    R_CARDS,
    R_CHOP,
    R_CONG,
    R_FINISH_ON_TWO,
    R_INSTANT_WIN,
    R_RESPONSIBILITY,
    R_SAM_BLOCKED,
    R_SAM_FAILED,
    R_SAM_WON,
    R_THOI_2,
    RP_BAO1_FORCED,
    RP_CARD_VALUE,
    RP_CHOP_QUAD,
    RP_CHOP_TWO,
    RP_CONG,
    RP_INSTANT_UNIT,
    RP_N,
    RP_PAY_PLAYED,
    RP_SAM_UNIT,
    RP_THOI,
    SAM_ASKED,
    SAM_DECLARER,
    TABLE_COMBO,
    TABLE_OWNER,
    TO_ACT,
    TWO_SHIFT,
    UNARY,
    UNARY_OF_COUNT,
    UNDERSIZED_BY,
)

PASS, DECLARE_SAM, DECLINE_SAM = 0, 1, 2


# ------------------------------------------------------------------ cards


@njit(cache=True)
def popcount(mask):
    """Set bits of a non-negative int64 (SWAR; numba's int64 arithmetic wraps like C's)."""
    x = mask - ((mask >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True, inline="always")
def unary_of_cards(mask):
    """Rank counts in unary form (bits ``4r … 4r+c-1``), as :func:`sam_env.core.cards.unary_of_cards`."""
    out = 0
    for r in range(13):
        out |= UNARY_OF_COUNT[NIBBLE_COUNT[(mask >> (4 * r)) & 0xF]] << (4 * r)
    return out


@njit(cache=True, inline="always")
def highest_rank(unary):
    for r in range(12, -1, -1):
        if (unary >> (4 * r)) & 0xF:
            return r
    return -1


# ------------------------------------------------------------------ queries


@njit(cache=True, inline="always")
def next_in_hand(seats, t, seat, n):
    """The next seat in turn order still in the hand."""
    s = seat
    for _ in range(n):
        s = s + 1 if s + 1 < n else 0
        if not seats[t, s, OUT]:
            return s
    return seat


@njit(cache=True, inline="always")
def responsible(tab, seats, t, seat, n):
    """``seat`` is the upper seat of a one-card seat (báo 1, §7) outside a Sâm hand."""
    if tab[t, SAM_DECLARER] != NO_SEAT:
        return False
    nxt = next_in_hand(seats, t, seat, n)
    return nxt != seat and seats[t, nxt, N_CARDS] == 1


@njit(cache=True, inline="always")
def chop_value(rp, combo):
    return rp[RP_CHOP_TWO] * COMBO_TWOS_CHOPPED[combo] + rp[RP_CHOP_QUAD] * COMBO_IS_QUAD[combo]


@njit(cache=True, inline="always")
def chain_value(tab, seats, t, rp):
    """What the owner of the play on the table would pay if it were chopped now."""
    combo = tab[t, TABLE_COMBO]
    if combo == NO_PLAY or not (COMBO_TWOS_CHOPPED[combo] or COMBO_IS_QUAD[combo]):
        return 0
    return chop_value(rp, combo) + seats[t, tab[t, TABLE_OWNER], CHAIN]


@njit(cache=True, inline="always")
def legal_mask_into(tab, seats, t, rp, answers, out):
    """Write the legal moves of the seat to act into ``out`` (``bool[N_COMBOS]``)."""
    out[:] = False
    phase = tab[t, PHASE]
    if phase == PHASE_SAM:
        if tab[t, INSTANT_WINNER] == NO_SEAT:
            out[DECLARE_SAM] = True
        out[DECLINE_SAM] = True  # an instant winner's one move (REVEAL_INSTANT_WIN)
        return
    if phase != PHASE_PLAY:
        return
    seat = tab[t, TO_ACT]
    unary = seats[t, seat, UNARY]
    row = tab[t, TABLE_COMBO] + 1
    for c in range(out.shape[0]):
        req = COMBO_REQ[c]
        out[c] = answers[row, c] & ((req & unary) == req)
    if rp[RP_BAO1_FORCED] and responsible(tab, seats, t, seat, rp[RP_N]):
        top = highest_rank(unary)
        for c in range(out.shape[0]):
            if 0 <= COMBO_SINGLE_RANK[c] < top:
                out[c] = False


# ------------------------------------------------------------------ money and the end of a hand


@njit(cache=True)
def transfer(b, t, payer, payee, amount, reason):
    if amount == 0:
        return
    k = b.tab[t, LEDGER_LEN]
    b.ledger[t, k, 0] = payer
    b.ledger[t, k, 1] = payee
    b.ledger[t, k, 2] = amount
    b.ledger[t, k, 3] = reason
    b.tab[t, LEDGER_LEN] = k + 1
    b.rewards[t, payer] -= amount
    b.rewards[t, payee] += amount


@njit(cache=True)
def end_hand(b, t, n, reason, winner, next_leader, sam_blocker, responsible_seat, instant_win):
    """Close the hand and record its result in the table's next finished-hand slot."""
    b.tab[t, PHASE] = PHASE_OVER
    b.tab[t, NEXT_LEADER] = next_leader
    k = b.tab[t, N_FINISHED]
    b.tab[t, N_FINISHED] = k + 1
    f = b.fin[t, k]
    f[F_REASON] = reason
    f[F_WINNER] = winner
    f[F_NEXT_LEADER] = next_leader
    f[F_INSTANT_WIN] = instant_win
    f[F_SAM_DECLARER] = b.tab[t, SAM_DECLARER]
    f[F_SAM_BLOCKER] = sam_blocker
    f[F_RESPONSIBLE] = responsible_seat
    f[F_LEADER] = b.tab[t, LEADER]
    rows = b.tab[t, LEDGER_LEN]
    f[F_LEDGER_LEN] = rows
    b.fin_ledger[t, k, :rows] = b.ledger[t, :rows]
    f[F_FOT_COUNT] = b.tab[t, FOT_COUNT]
    for s in range(n):
        b.fin_dealt[t, k, s] = b.seats[t, s, DEALT]
        order = b.seats[t, s, FOT_ORDER]
        if order:
            b.fin_fot[t, k, order - 1] = s


@njit(cache=True)
def settle(b, t, rp, winner, responsible_seat):
    """Normal settlement (§10), the responsibility rule (§7) and the offenders of §11."""
    n = rp[RP_N]
    total = 0
    if responsible_seat == NO_SEAT:
        for s in range(n):
            if s == winner or b.seats[t, s, OUT]:
                continue
            if b.seats[t, s, N_PLAYED] == 0:
                transfer(b, t, s, winner, rp[RP_CONG] * rp[RP_CARD_VALUE], R_CONG)
            else:
                twos = NIBBLE_COUNT[(b.seats[t, s, HAND] >> TWO_SHIFT) & 0xF]
                transfer(b, t, s, winner, b.seats[t, s, N_CARDS] * rp[RP_CARD_VALUE], R_CARDS)
                transfer(b, t, s, winner, twos * rp[RP_THOI], R_THOI_2)
    else:
        for s in range(n):
            if s == winner or b.seats[t, s, OUT]:
                continue
            if b.seats[t, s, N_PLAYED] == 0:
                total += rp[RP_CONG] * rp[RP_CARD_VALUE]
            else:
                twos = NIBBLE_COUNT[(b.seats[t, s, HAND] >> TWO_SHIFT) & 0xF]
                total += b.seats[t, s, N_CARDS] * rp[RP_CARD_VALUE] + twos * rp[RP_THOI]
        transfer(b, t, responsible_seat, winner, total, R_RESPONSIBILITY)
    for order in range(1, b.tab[t, FOT_COUNT] + 1):
        for s in range(n):
            if b.seats[t, s, FOT_ORDER] == order:
                transfer(b, t, s, winner, b.seats[t, s, FINAL_TWOS] * rp[RP_THOI], R_FINISH_ON_TWO)
    end_hand(b, t, n, E_NORMAL, winner, winner, NO_SEAT, responsible_seat, -1)


@njit(cache=True)
def finish(b, t, rp, seat, move, responsible_seat):
    """``seat`` played its last card with ``move``: Sâm won or failed, finish on 2s, or a normal win."""
    n = rp[RP_N]
    if seat == b.tab[t, SAM_DECLARER]:
        if COMBO_ONLY_TWOS[move]:
            for o in range(n):
                if o != seat:
                    transfer(b, t, seat, o, rp[RP_SAM_UNIT], R_SAM_FAILED)
            end_hand(b, t, n, E_SAM_FAILED, NO_SEAT, seat, NO_SEAT, NO_SEAT, -1)
        else:
            for o in range(n):
                if o != seat:
                    transfer(b, t, o, seat, rp[RP_SAM_UNIT], R_SAM_WON)
            end_hand(b, t, n, E_SAM_WON, seat, seat, NO_SEAT, NO_SEAT, -1)
        return
    if COMBO_ONLY_TWOS[move]:
        b.tab[t, FOT_COUNT] += 1
        b.seats[t, seat, FOT_ORDER] = b.tab[t, FOT_COUNT]
        if rp[RP_PAY_PLAYED]:
            for o in range(n):
                if o != seat:
                    transfer(b, t, seat, o, rp[RP_CARD_VALUE] * b.seats[t, o, N_PLAYED], R_FINISH_ON_TWO)
            end_hand(b, t, n, E_FINISH_ON_TWO, NO_SEAT, seat, NO_SEAT, NO_SEAT, -1)
            return
        b.seats[t, seat, OUT] = 1
        b.seats[t, seat, FINAL_TWOS] = COMBO_TWOS[move]
        remaining, last = 0, NO_SEAT
        for s in range(n):
            if not b.seats[t, s, OUT]:
                remaining += 1
                last = s
        if remaining == 1:
            settle(b, t, rp, last, NO_SEAT)
        else:
            advance(b.tab, b.seats, t, n, seat)
        return
    settle(b, t, rp, seat, responsible_seat)


# ------------------------------------------------------------------ moves


@njit(cache=True, inline="always")
def advance(tab, seats, t, n, seat):
    """Pass the turn on; close the trick when the turn comes back round to its owner."""
    owner = tab[t, TABLE_OWNER]
    s = seat
    for _ in range(n):
        s = s + 1 if s + 1 < n else 0
        if s == owner:
            leader = owner if not seats[t, owner, OUT] else next_in_hand(seats, t, owner, n)
            tab[t, TABLE_COMBO] = NO_PLAY
            tab[t, TABLE_OWNER] = leader
            for o in range(n):
                seats[t, o, PASSED] = 0
                seats[t, o, CHAIN] = 0
            tab[t, TO_ACT] = leader
            return
        if not seats[t, s, OUT] and not seats[t, s, PASSED]:
            tab[t, TO_ACT] = s
            return


@njit(cache=True, inline="always")
def remove_cards(tab, seats, t, seat, move):
    """Take the combination's cards (the lowest suits of each rank) from the seat's hand."""
    req = COMBO_REQ[move]
    hand, unary = seats[t, seat, HAND], seats[t, seat, UNARY]
    played, played_unary = seats[t, seat, PLAYED], seats[t, seat, PLAYED_UNARY]
    for r in range(13):
        shift = 4 * r
        k = NIBBLE_COUNT[(req >> shift) & 0xF]
        if k == 0:
            continue
        nib = (hand >> shift) & 0xF
        taken = LOWEST_BITS[nib, k] << shift
        hand ^= taken
        c = NIBBLE_COUNT[nib]
        unary = (unary & ~(0xF << shift)) | (UNARY_OF_COUNT[c - k] << shift)
        p = NIBBLE_COUNT[(played >> shift) & 0xF]
        played_unary = (played_unary & ~(0xF << shift)) | (UNARY_OF_COUNT[p + k] << shift)
        played |= taken
    seats[t, seat, HAND], seats[t, seat, UNARY] = hand, unary
    seats[t, seat, PLAYED], seats[t, seat, PLAYED_UNARY] = played, played_unary
    tab[t, ALL_PLAYED] |= played
    size = COMBO_SIZE[move]
    seats[t, seat, N_CARDS] -= size
    seats[t, seat, N_PLAYED] += size


@njit(cache=True, inline="always")
def play(b, t, rp, seat, move):
    n = rp[RP_N]
    pending_undersized = b.tab[t, UNDERSIZED_BY]
    b.tab[t, UNDERSIZED_BY] = NO_SEAT
    rank = COMBO_SINGLE_RANK[move]
    if (
        rank >= 0
        and not rp[RP_BAO1_FORCED]
        and rank < highest_rank(b.seats[t, seat, UNARY])
        and responsible(b.tab, b.seats, t, seat, n)
    ):
        b.tab[t, UNDERSIZED_BY] = seat
    remove_cards(b.tab, b.seats, t, seat, move)
    table, owner, declarer = b.tab[t, TABLE_COMBO], b.tab[t, TABLE_OWNER], b.tab[t, SAM_DECLARER]
    if declarer != NO_SEAT and seat != declarer:
        transfer(b, t, declarer, seat, rp[RP_SAM_UNIT] * (n - 1), R_SAM_BLOCKED)
        end_hand(b, t, n, E_SAM_BLOCKED, seat, seat, seat, NO_SEAT, -1)
        return
    if table != NO_PLAY and (COMBO_TWOS_CHOPPED[table] or COMBO_IS_QUAD[table]):
        value = chop_value(rp, table) + b.seats[t, owner, CHAIN]
        transfer(b, t, owner, seat, value, R_CHOP)
        b.seats[t, seat, CHAIN] += value
    b.tab[t, TABLE_COMBO] = move
    b.tab[t, TABLE_OWNER] = seat
    if b.seats[t, seat, N_CARDS] == 0:
        resp = NO_SEAT
        if pending_undersized != NO_SEAT and seat == next_in_hand(b.seats, t, pending_undersized, n):
            resp = pending_undersized
        finish(b, t, rp, seat, move, resp)
    else:
        advance(b.tab, b.seats, t, n, seat)


@njit(cache=True, inline="always")
def step_table(b, t, rp, move):
    """Make ``move`` (already checked legal) for the seat to act at table ``t``."""
    seat = b.tab[t, TO_ACT]
    n = rp[RP_N]
    if b.tab[t, INSTANT_WINNER] != NO_SEAT:
        reveal_instant_win(b, t, rp, seat)
    elif b.tab[t, PHASE] == PHASE_SAM:
        if move == DECLARE_SAM:
            b.tab[t, SAM_DECLARER] = seat
            start_play(b.tab, t, seat)
            return
        b.tab[t, SAM_ASKED] += 1
        if b.tab[t, SAM_ASKED] == n:
            start_play(b.tab, t, b.tab[t, LEADER])
        else:
            b.tab[t, TO_ACT] = seat + 1 if seat + 1 < n else 0
    elif move == PASS:
        b.tab[t, UNDERSIZED_BY] = NO_SEAT
        b.seats[t, seat, PASSED] = 1
        if b.tab[t, TABLE_COMBO] != NO_PLAY:
            b.seats[t, seat, DECLINED] |= COMBO_DECLINE_BITS[b.tab[t, TABLE_COMBO]]
        advance(b.tab, b.seats, t, n, seat)
    else:
        play(b, t, rp, seat, move)


@njit(cache=True)
def reveal_instant_win(b, t, rp, seat):
    """The instant winner's one move: every other seat pays it (§9) and the hand ends."""
    n = rp[RP_N]
    for o in range(n):
        if o != seat:
            transfer(b, t, o, seat, rp[RP_INSTANT_UNIT], R_INSTANT_WIN)
    end_hand(b, t, n, E_INSTANT_WIN, seat, seat, NO_SEAT, NO_SEAT, b.tab[t, INSTANT_KIND])


@njit(cache=True, inline="always")
def start_play(tab, t, leader):
    tab[t, PHASE] = PHASE_PLAY
    tab[t, TABLE_OWNER] = leader
    tab[t, TO_ACT] = leader
