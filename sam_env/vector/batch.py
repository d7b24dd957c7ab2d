"""Kernels over a whole batch of tables: reset, checking actions, stepping, outputs.

The serial and ``prange`` variants of the step differ only in their outer loop: tables share no
state, and each has its own random stream (:mod:`.deal`).
"""

from __future__ import annotations

from numba import njit, prange

from .deal import deal_until_playable, random_deal, start_dealt_hand
from .encode import observation_into, state_into
from .play import is_legal, legal_mask_into, step_table
from .tables import (
    DEALT,
    N_FINISHED,
    NEEDS_DEAL,
    NEXT_LEADER,
    NO_SEAT,
    PHASE,
    PHASE_OVER,
    RP_N,
    TO_ACT,
)


@njit(cache=True)
def reset_tables(b, rp, fresh, explicit, has_explicit, leaders):
    """Deal a new hand at every table: ``explicit[t]`` where ``has_explicit[t]``, else at random.

    ``fresh``: a new table (the first hand follows ``first_leader``); ``leaders[t]`` forces the
    would-be leader (``NO_SEAT``: the previous winner, as after a finished hand).
    """
    n = rp[RP_N]
    b.rewards[:] = 0.0
    for t in range(b.tab.shape[0]):
        b.tab[t, N_FINISHED] = 0
        b.tab[t, NEEDS_DEAL] = 0
        if fresh:
            b.tab[t, NEXT_LEADER] = NO_SEAT
        if has_explicit[t]:
            b.seats[t, :, DEALT] = explicit[t]
        else:
            random_deal(b, t, n)
        start_dealt_hand(b, t, rp, leaders[t])
        deal_until_playable(b, t, rp)


@njit(cache=True)
def first_illegal(b, rp, answers, actions):
    """Index of the first table whose action is illegal, or -1: the whole batch is checked first."""
    for t in range(actions.shape[0]):
        if not is_legal(b, t, actions[t], rp, answers):
            return t
    return -1


@njit(cache=True)
def step_one(b, t, rp, answers, off, actions, obs, mask, seat_out):
    b.tab[t, N_FINISHED] = 0
    b.rewards[t] = 0.0
    step_table(b, t, rp, actions[t])
    if b.tab[t, PHASE] == PHASE_OVER:
        deal_until_playable(b, t, rp)
    outputs_one(b, t, rp, answers, off, obs, mask, seat_out)


@njit(cache=True)
def outputs_one(b, t, rp, answers, off, obs, mask, seat_out):
    seat = b.tab[t, TO_ACT]
    seat_out[t] = seat
    legal_mask_into(b, t, rp, answers, mask[t])
    observation_into(b, t, seat, rp, off, obs[t])


@njit(cache=True)
def step_serial(b, rp, answers, off, actions, obs, mask, seat_out):
    """Apply checked actions at every table, deal where a hand ended, write the acting seats' outputs."""
    for t in range(actions.shape[0]):
        step_one(b, t, rp, answers, off, actions, obs, mask, seat_out)


@njit(cache=True, parallel=True)
def step_parallel(b, rp, answers, off, actions, obs, mask, seat_out):
    """:func:`step_serial` with tables spread over numba's threads (tables share no state)."""
    for t in prange(actions.shape[0]):
        step_one(b, t, rp, answers, off, actions, obs, mask, seat_out)


@njit(cache=True)
def outputs(b, rp, answers, off, obs, mask, seat_out):
    for t in range(b.tab.shape[0]):
        outputs_one(b, t, rp, answers, off, obs, mask, seat_out)


@njit(cache=True)
def observe_seats(b, rp, off, seats, out):
    for t in range(seats.shape[0]):
        observation_into(b, t, seats[t], rp, off, out[t])


@njit(cache=True)
def states(b, rp, off, out):
    for t in range(out.shape[0]):
        state_into(b, t, rp, off, out[t])


@njit(cache=True)
def masks(b, rp, answers, out):
    for t in range(out.shape[0]):
        legal_mask_into(b, t, rp, answers, out[t])


@njit(cache=True)
def pick_legal(mask, uniform, out):
    """The random-legal policy, compiled: for each row the ``⌊u·k⌋``-th of its ``k`` legal actions."""
    for i in range(mask.shape[0]):
        k = 0
        for a in range(mask.shape[1]):
            k += mask[i, a]
        target = min(int(uniform[i] * k), k - 1)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if target == 0:
                    out[i] = a
                    break
                target -= 1
