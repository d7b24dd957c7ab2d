"""What a tournament reports when a bot raises, answers an illegal move, or kills its worker process.

A failure stops its match only: the tournament plays the other matches to the end and then raises
:class:`EvaluationError`, which carries the failures (each with its deal, seating, seat, bot and
error) and the results of every match that finished, so nothing already played is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HandFailure:
    """Where and why a match stopped.

    ``match``: its index in the tournament; ``label``: the match as reports name it; ``deal``,
    ``seating`` and ``seat``: the hand and the seat that was deciding (None where unknown: a worker
    that died between hands); ``last_deal``: set when the failure happened in one batched call that
    decided for every hand of deals ``deal … last_deal``; ``bot``: the deciding bot's name;
    ``error``: the error's type and message (or how the worker process died); ``details``: the
    traceback, when there is one.
    """

    match: int
    label: str
    deal: int | None
    seating: int | None
    seat: int | None
    bot: str | None
    error: str
    details: str = ""
    last_deal: int | None = None

    def where(self) -> str:
        """``deal 17, seating 2, seat 1 (bot)``, as much of it as is known."""
        parts = []
        if self.deal is not None:
            span = f"deals {self.deal}-{self.last_deal} (one batched call)" if self.last_deal is not None else ""
            parts.append(span or f"deal {self.deal}")
        if self.seating is not None and self.last_deal is None:
            parts.append(f"seating {self.seating}")
        if self.seat is not None:
            parts.append(f"seat {self.seat}" + (f" ({self.bot})" if self.bot else ""))
        elif self.bot:
            parts.append(f"bot {self.bot}")
        return ", ".join(parts) or "before its first hand"

    def describe(self) -> str:
        """One line: the match, where in it, and the error."""
        return f"{self.label}: {self.where()}: {self.error}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "match": self.match,
            "label": self.label,
            "deal": self.deal,
            "last_deal": self.last_deal,
            "seating": self.seating,
            "seat": self.seat,
            "bot": self.bot,
            "error": self.error,
        }


class HandError(Exception):
    """Raised where a hand fails (in a worker or in this process), carrying its :class:`HandFailure`."""

    def __init__(self, failure: HandFailure) -> None:
        super().__init__(failure.describe())
        self.failure = failure

    def __reduce__(self) -> tuple[type, tuple[HandFailure]]:
        return type(self), (self.failure,)


class EvaluationError(RuntimeError):
    """Some matches failed. ``failures``: one per failed match, in match order; ``results``: the
    :class:`~.tournament.MatchResult` of every match that finished, in match order."""

    def __init__(self, failures: Sequence[HandFailure], results: Sequence[Any]) -> None:
        self.failures = list(failures)
        self.results = list(results)
        lines = "\n".join(f"  {f.describe()}" for f in self.failures)
        super().__init__(
            f"{len(self.failures)} match(es) failed ({len(self.results)} finished, their results are kept):\n{lines}"
        )
