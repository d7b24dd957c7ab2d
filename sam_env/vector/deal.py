"""Dealing in compiled form: each table's random stream, the deal, who leads, a new hand
(docs/rules.md §1, §6, §9).

Each table has its own random stream (splitmix64, one ``uint64`` of state), so a table's deals
depend only on the seed and on how many hands that table has dealt — not on the batch size, the
order tables are processed in, or the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.cards import DECK_SIZE
from ..core.rules import CARDS_PER_HAND
from .layout import (
    ALL_PLAYED,
    AT_LEAST_2,
    AT_LEAST_3,
    AT_LEAST_4,
    BLACK_CARDS,
    DEALT,
    DRAGON_HAS_TWO,
    DRAGON_REQ,
    FIRST_HOST,
    FIRST_RANDOM,
    FOT_COUNT,
    HAND,
    INSTANT_KIND,
    INSTANT_WINNER,
    LEADER,
    LEDGER_LEN,
    N_CARDS,
    NEXT_LEADER,
    NO_PLAY,
    NO_SEAT,
    PHASE,
    PHASE_PLAY,
    PHASE_SAM,
    RED_CARDS,
    RP_ALLOW_SAM,
    RP_FIRST_LEADER,
    RP_INSTANT,
    RP_N,
    RP_STRAIGHTS_WITH_TWO,
    SAM_ASKED,
    SAM_DECLARER,
    TABLE_COMBO,
    TABLE_OWNER,
    TO_ACT,
    TWO_SHIFT,
    UNARY,
    UNDERSIZED_BY,
)
from .play import popcount, unary_of_cards

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def draw_below(b, t, bound):
    """A random int in ``0 … bound-1`` from table ``t``'s splitmix64 stream (bias below 2⁻⁵⁸)."""
    x = b.rng[t] + _GOLDEN
    b.rng[t] = x
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x = x ^ (x >> np.uint64(31))
    return np.int64(x % np.uint64(bound))


@njit(cache=True)
def random_deal(b, t, n):
    """Shuffle the deck (partial Fisher-Yates) and deal ``CARDS_PER_HAND`` cards to each seat."""
    deck = np.arange(DECK_SIZE)
    for i in range(n * CARDS_PER_HAND):
        j = i + draw_below(b, t, DECK_SIZE - i)
        deck[i], deck[j] = deck[j], deck[i]
    for s in range(n):
        mask = 0
        for i in range(s * CARDS_PER_HAND, (s + 1) * CARDS_PER_HAND):
            mask |= 1 << deck[i]
        b.seats[t, s, DEALT] = mask


@njit(cache=True)
def first_leader(b, t, rp):
    """Who leads the first hand of a table (§6): lowest card, the host, or a random seat."""
    n = rp[RP_N]
    if rp[RP_FIRST_LEADER] == FIRST_HOST:
        return 0
    if rp[RP_FIRST_LEADER] == FIRST_RANDOM:
        return draw_below(b, t, n)
    best, lowest = 0, 1 << DECK_SIZE
    for s in range(n):
        dealt = b.seats[t, s, DEALT]
        low = dealt & -dealt
        if low < lowest:
            best, lowest = s, low
    return best


@njit(cache=True)
def start_dealt_hand(b, t, rp, leader):
    """Start the hand in ``DEALT``: the given leader, else the previous hand's, else the first-hand rule."""
    if leader == NO_SEAT:
        leader = b.tab[t, NEXT_LEADER]
    if leader == NO_SEAT:
        leader = first_leader(b, t, rp)
    new_hand(b, t, rp, leader)


@njit(cache=True)
def deal_next_hand(b, t, rp):
    """After a hand ended: a random deal, led by the previous hand's next leader (§6)."""
    random_deal(b, t, rp[RP_N])
    start_dealt_hand(b, t, rp, NO_SEAT)


@njit(cache=True)
def instant_win_type(rp, hand, unary):
    """Index in ``INSTANT_WIN_TYPES`` of the strongest enabled instant win of a dealt hand, or -1."""
    if rp[RP_INSTANT + 0]:
        for k in range(DRAGON_REQ.shape[0]):
            req = DRAGON_REQ[k]
            if (req & unary) == req and (rp[RP_STRAIGHTS_WITH_TWO] or not DRAGON_HAS_TWO[k]):
                return 0
    if rp[RP_INSTANT + 1] and (hand >> TWO_SHIFT) == 0xF:
        return 1
    if rp[RP_INSTANT + 2] and ((hand & RED_CARDS) == hand or (hand & BLACK_CARDS) == hand):
        return 2
    if rp[RP_INSTANT + 3] and popcount(unary & AT_LEAST_3) >= 3:
        return 3
    if rp[RP_INSTANT + 4] and popcount(unary & AT_LEAST_2) + popcount(unary & AT_LEAST_4) >= 5:
        return 4
    return -1


@njit(cache=True)
def new_hand(b, t, rp, leader):
    """Start the hand dealt in ``seats[t, :, DEALT]`` with this would-be leader.

    A seat dealt an instant win (§9) is to act, in the Sâm-decision phase, with one legal move that
    reveals it (:data:`sam_env.core.game.REVEAL_INSTANT_WIN`; settled by :func:`.play.step_table`).
    """
    n = rp[RP_N]
    tab, seats = b.tab[t], b.seats[t]
    tab[PHASE] = PHASE_SAM if rp[RP_ALLOW_SAM] else PHASE_PLAY
    tab[TO_ACT] = leader
    tab[LEADER] = leader
    tab[TABLE_COMBO] = NO_PLAY
    tab[TABLE_OWNER] = leader
    tab[SAM_DECLARER] = NO_SEAT
    tab[SAM_ASKED] = 0
    tab[UNDERSIZED_BY] = NO_SEAT
    tab[FOT_COUNT] = 0
    tab[ALL_PLAYED] = 0
    tab[LEDGER_LEN] = 0
    tab[INSTANT_WINNER] = NO_SEAT
    tab[INSTANT_KIND] = -1
    for s in range(n):
        dealt = seats[s, DEALT]
        seats[s, :DEALT] = 0
        seats[s, HAND] = dealt
        seats[s, UNARY] = unary_of_cards(dealt)
        seats[s, N_CARDS] = popcount(dealt)
    if not (rp[RP_INSTANT] or rp[RP_INSTANT + 1] or rp[RP_INSTANT + 2] or rp[RP_INSTANT + 3] or rp[RP_INSTANT + 4]):
        return
    best, best_seat = 99, NO_SEAT
    for k in range(n):
        s = (leader + k) % n
        kind = instant_win_type(rp, seats[s, HAND], seats[s, UNARY])
        if kind >= 0 and kind < best:
            best, best_seat = kind, s
    if best_seat == NO_SEAT:
        return
    tab[INSTANT_WINNER] = best_seat
    tab[INSTANT_KIND] = best
    tab[PHASE] = PHASE_SAM
    tab[TO_ACT] = best_seat
