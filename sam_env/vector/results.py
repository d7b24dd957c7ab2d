"""Turning the compiled engine's integer buffers back into the reference's domain values.

Finished hands become :class:`FinishedHand` records holding the reference's
:class:`~sam_env.core.ledger.HandResult`, and ledgers lists of
:class:`~sam_env.core.ledger.Transfer` — the very classes the AEC env reports, so a result from
either engine compares with ``==``. This runs only when a caller asks for results, never in the
stepping loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.ledger import HandResult, Transfer, net_of
from ..core.rules import INSTANT_WIN_TYPES
from .layout import (
    END_REASONS,
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
    N_FINISHED,
    NO_SEAT,
    REASONS,
    BatchState,
)


@dataclass(frozen=True)
class FinishedHand:
    """A hand a table finished: its result (the reference's ``HandResult``), its deal and its leader.

    ``deal`` holds one card mask per seat (bit ``rank * 4 + suit``), so the hand can be replayed
    through ``sam_env.env()`` with ``reset(options={"hands": list(deal), "leader": leader})``.
    """

    result: HandResult
    deal: tuple[int, ...]
    leader: int


def transfers(rows: np.ndarray) -> tuple[Transfer, ...]:
    """``int64[k, 4]`` ledger rows (payer, payee, amount, reason code) as transfers."""
    return tuple(Transfer(int(p), int(q), int(a), REASONS[int(r)]) for p, q, a, r in rows.tolist())


def _seat_or_none(value: int) -> int | None:
    return None if value == NO_SEAT else int(value)


def finished_hand(b: BatchState, t: int, slot: int, n_players: int) -> FinishedHand:
    """The hand recorded in finished-hand ``slot`` of table ``t``."""
    f = b.fin[t, slot].tolist()
    ledger = transfers(b.fin_ledger[t, slot, : f[F_LEDGER_LEN]])
    result = HandResult(
        reason=END_REASONS[f[F_REASON]],
        winner=_seat_or_none(f[F_WINNER]),
        next_leader=int(f[F_NEXT_LEADER]),
        ledger=ledger,
        net=tuple(net_of(ledger, n_players)),
        instant_win=INSTANT_WIN_TYPES[f[F_INSTANT_WIN]] if f[F_INSTANT_WIN] >= 0 else None,
        sam_declarer=_seat_or_none(f[F_SAM_DECLARER]),
        sam_blocker=_seat_or_none(f[F_SAM_BLOCKER]),
        responsible=_seat_or_none(f[F_RESPONSIBLE]),
        finished_on_two=tuple(int(s) for s in b.fin_fot[t, slot, : f[F_FOT_COUNT]]),
    )
    return FinishedHand(result, tuple(b.fin_dealt[t, slot].tolist()), int(f[F_LEADER]))


def finished_hands(b: BatchState, t: int, n_players: int) -> list[FinishedHand]:
    """Every hand table ``t`` finished during the last call, in the order they ended."""
    return [finished_hand(b, t, k, n_players) for k in range(int(b.tab[t, N_FINISHED]))]
