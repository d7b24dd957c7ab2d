"""Kernels over a whole batch of tables: reset, checking actions, stepping, outputs.

The serial and ``prange`` variants of the step differ only in their outer loop: tables share no
state, and each has its own random stream (:mod:`.deal`).
"""

from __future__ import annotations

from numba import njit, prange

from .deal import deal_next_hand, random_deal, start_dealt_hand
from .encode import hidden_hands_into, observation_into, state_into
from .layout import (
    DEALT,
    N_FINISHED,
    NEXT_LEADER,
    NO_SEAT,
    PHASE,
    PHASE_OVER,
    RP_N,
    TO_ACT,
)
from .play import legal_mask_into, step_table


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
        if fresh:
            b.tab[t, NEXT_LEADER] = NO_SEAT
        if has_explicit[t]:
            b.seats[t, :, DEALT] = explicit[t]
        else:
            random_deal(b, t, n)
        start_dealt_hand(b, t, rp, leaders[t])


@njit(cache=True)
def first_illegal(mask, actions, active):
    """Index of the first active table whose action is no action index or is one its mask forbids,
    or -1: the whole batch is checked in one pass before any table moves. ``mask`` is the engine's
    own copy of the masks it last wrote."""
    n_actions = mask.shape[1]
    for t in range(actions.shape[0]):
        if active[t] and (actions[t] < 0 or actions[t] >= n_actions or not mask[t, actions[t]]):
            return t
    return -1


@njit(cache=True, inline="always")
def step_one(b, t, rp, actions, active):
    """Make table ``t``'s action; deal its next hand if this one ended. An inactive table only
    forgets the last call's rewards and results."""
    b.tab[t, N_FINISHED] = 0
    for s in range(rp[RP_N]):
        b.rewards[t, s] = 0.0
    if not active[t]:
        return
    step_table(b, t, rp, actions[t])
    if b.tab[t, PHASE] == PHASE_OVER:
        deal_next_hand(b, t, rp)


@njit(cache=True)
def step_serial(b, rp, answers, off, actions, active, obs, mask, seat_out):
    """Apply checked actions at the active tables, deal where a hand ended, write their new outputs.

    One pass per job (step, masks, observations) rather than one pass per table: measured faster,
    since each loop keeps a small working set. The per-table functions on this path are
    ``inline="always"``: a compiled call that takes the state tuple increfs and decrefs each of
    its arrays, a cost that adds up over every table of every step (docs/speed.md).
    """
    n_tables = actions.shape[0]
    for t in range(n_tables):
        step_one(b, t, rp, actions, active)
    for t in range(n_tables):
        if active[t]:
            seat_out[t] = b.tab[t, TO_ACT]
            legal_mask_into(b.tab, b.seats, t, rp, answers, mask[t])
    for t in range(n_tables):
        if active[t]:
            observation_into(b.tab, b.seats, t, seat_out[t], rp, off, obs[t])


@njit(cache=True)
def step_and_output(b, t, rp, answers, off, actions, active, obs, mask, seat_out):
    """Table ``t``'s whole step as one call, the body of :func:`step_parallel`'s loop.

    A ``prange`` body with the inlined step and observation wrote rows that differed from
    :func:`step_serial`'s (``test_the_parallel_variant_plays_exactly_as_the_serial_one``), so the
    parallel loop calls this function instead of inlining the table's work.
    """
    step_one(b, t, rp, actions, active)
    if active[t]:
        seat_out[t] = b.tab[t, TO_ACT]
        legal_mask_into(b.tab, b.seats, t, rp, answers, mask[t])
        observation_into(b.tab, b.seats, t, seat_out[t], rp, off, obs[t])


@njit(cache=True, parallel=True)
def step_parallel(b, rp, answers, off, actions, active, obs, mask, seat_out):
    """:func:`step_serial` with tables spread over numba's threads (tables share no state)."""
    for t in prange(actions.shape[0]):
        step_and_output(b, t, rp, answers, off, actions, active, obs, mask, seat_out)


@njit(cache=True)
def outputs(b, rp, answers, off, obs, mask, seat_out):
    """The acting seats, their masks and observations (after a reset)."""
    for t in range(b.tab.shape[0]):
        seat_out[t] = b.tab[t, TO_ACT]
        legal_mask_into(b.tab, b.seats, t, rp, answers, mask[t])
        observation_into(b.tab, b.seats, t, seat_out[t], rp, off, obs[t])


@njit(cache=True)
def observe_seats(b, rp, off, seats, out):
    for t in range(seats.shape[0]):
        observation_into(b.tab, b.seats, t, seats[t], rp, off, out[t])


@njit(cache=True)
def hidden_hands(b, rp, seats, out):
    for t in range(seats.shape[0]):
        hidden_hands_into(b.seats, t, seats[t], rp[RP_N], out[t])


@njit(cache=True)
def states(b, rp, off, out):
    for t in range(out.shape[0]):
        state_into(b.tab, b.seats, t, rp, off, out[t])


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
