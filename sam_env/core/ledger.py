"""Money: transfers between seats, the reasons for them, and how a hand ended."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Reason(str, Enum):
    """Why money moved (docs/rules.md §12)."""

    CHOP = "chop"  # chặt, including chặt đè
    CARDS = "cards"  # cards left in a loser's hand
    THOI_2 = "thoi_2"  # thối 2: 2s left in a loser's hand
    CONG = "cong"  # cóng / treo: a loser that never played
    RESPONSIBILITY = "responsibility"  # trách nhiệm: the upper seat pays for every loser
    SAM_WON = "sam_won"
    SAM_BLOCKED = "sam_blocked"  # chặn Sâm
    SAM_FAILED = "sam_failed"  # the declarer finished on 2s
    INSTANT_WIN = "instant_win"  # thắng trắng
    FINISH_ON_TWO = "finish_on_two"  # đánh 2 cuối


class EndReason(str, Enum):
    """How a hand ended."""

    NORMAL = "normal"
    SAM_WON = "sam_won"
    SAM_BLOCKED = "sam_blocked"
    SAM_FAILED = "sam_failed"
    INSTANT_WIN = "instant_win"
    FINISH_ON_TWO = "finish_on_two"


@dataclass(frozen=True)
class Transfer:
    """``amount`` X paid by seat ``payer`` to seat ``payee``."""

    payer: int
    payee: int
    amount: int
    reason: Reason

    def to_dict(self) -> dict[str, int | str]:
        return {"payer": self.payer, "payee": self.payee, "amount": self.amount, "reason": self.reason.value}


def net_of(ledger: list[Transfer] | tuple[Transfer, ...], n_players: int) -> list[int]:
    """Each seat's net money from a ledger; sums to zero by construction."""
    net = [0] * n_players
    for t in ledger:
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
    return net


@dataclass(frozen=True)
class HandResult:
    """The outcome of a finished hand.

    ``winner`` is the seat that took the hand (None when a finish on 2s under ``pay_played`` or a
    failed Sâm left no winner); ``next_leader`` leads the next hand of the table (§6).
    """

    reason: EndReason
    winner: int | None
    next_leader: int
    ledger: tuple[Transfer, ...]
    net: tuple[int, ...]
    instant_win: str | None = None
    sam_declarer: int | None = None
    sam_blocker: int | None = None
    responsible: int | None = None
    finished_on_two: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "reason": self.reason.value,
            "winner": self.winner,
            "next_leader": self.next_leader,
            "ledger": [t.to_dict() for t in self.ledger],
            "net": list(self.net),
            "instant_win": self.instant_win,
            "sam_declarer": self.sam_declarer,
            "sam_blocker": self.sam_blocker,
            "responsible": self.responsible,
            "finished_on_two": list(self.finished_on_two),
        }
