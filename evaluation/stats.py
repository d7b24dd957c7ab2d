"""Per-hand metrics and their summaries: win rate, money per hand with a duplicate confidence interval.

The interval is computed over *deals*, not hands: the rotations of one deal (the candidate in every
seat of the same cards) are averaged first, and the spread of those per-deal means gives the
standard error. The luck of the cards then cancels within a deal — the variance reduction that
duplicate play is for — and the hands of one deal, which are not independent, are not counted as
independent samples. The interval is the normal one, ``mean ± 1.96 · sd / sqrt(deals)``
(``sd`` with ``ddof=1``); with the thousands of deals an evaluation uses, it equals Student's t.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from sam_env.core import EndReason, HandResult, Reason

Z_95 = 1.959963984540054
"""Two-sided 95 % quantile of the standard normal distribution."""

METRICS: tuple[str, ...] = (
    "net",  # money won (+) or lost (-) in the hand, in X
    "win",  # the seat took the hand
    "sam_declared",
    "sam_won",
    "sam_blocks",  # blocked another seat's Sâm (chặn Sâm)
    "chops_made",  # chặt: chopped someone's 2s or quad
    "chops_suffered",
    "responsibility",  # paid for every loser under the báo-1 rule (docs/rules.md §7)
    "finish_on_two",  # last play only 2s (§11)
    "cong",  # never played a card (cóng)
)
NET, WIN = METRICS.index("net"), METRICS.index("win")
EVENT_METRICS: tuple[str, ...] = tuple(m for i, m in enumerate(METRICS) if i not in (NET, WIN))
"""The metrics that count events (Sâm, chops, penalties): summed over a match rather than averaged."""


def hand_metrics(result: HandResult, seat: int) -> tuple[int, ...]:
    """The values of :data:`METRICS` for ``seat`` in a finished hand."""
    ledger = result.ledger
    return (
        result.net[seat],
        int(result.winner == seat),
        int(result.sam_declarer == seat),
        int(result.sam_declarer == seat and result.reason is EndReason.SAM_WON),
        int(result.sam_blocker == seat),
        sum(t.payee == seat and t.reason is Reason.CHOP for t in ledger),
        sum(t.payer == seat and t.reason is Reason.CHOP for t in ledger),
        int(result.responsible == seat),
        int(seat in result.finished_on_two),
        int(any(t.payer == seat and t.reason is Reason.CONG for t in ledger)),
    )


def mean_ci(per_deal: np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of per-deal values and its 95 % normal interval (NaN bounds for < 2 deals)."""
    x = np.asarray(per_deal, dtype=float)
    mean = float(x.mean()) if x.size else math.nan
    if x.size < 2:
        return mean, math.nan, math.nan
    half = Z_95 * float(x.std(ddof=1)) / math.sqrt(x.size)
    return mean, mean - half, mean + half


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``a - b`` deal by deal: two bots' per-deal values on the same deals.

    Pairing takes out what the two share — the cards of each deal — so the interval of the
    difference is narrower than the two intervals side by side; it needs the same deals in the
    same order (and, for a duplicate match, the same seatings behind each per-deal value).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired values need one value per deal from each, same deals; got {a.shape}, {b.shape}")
    return mean_ci(a - b)


@dataclass(frozen=True)
class Summary:
    """One agent's results in one match (every rotation of every deal)."""

    agent: str
    opponents: str
    deals: int
    hands: int
    win_rate: float
    x_per_hand: float
    ci_low: float
    ci_high: float
    by_position: tuple[float, ...]
    """X per hand by seat position relative to the would-be leader (0 = the leader, 1 = next in turn …)."""
    by_position_half_width: tuple[float, ...]
    """Half-width of the 95 % interval of each ``by_position`` entry (one hand per deal at each position)."""
    counts: dict[str, int]
    """Totals of the event metrics (Sâm, chops, penalties) over all hands."""

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["by_position"] = list(self.by_position)
        out["by_position_half_width"] = list(self.by_position_half_width)
        return out


def summarize(
    agent: str, opponents: str, metrics: np.ndarray, leaders: np.ndarray, candidate_seats: np.ndarray | None = None
) -> Summary:
    """Summarize the candidate's results of a match.

    ``metrics[d, s, :]`` holds the candidate's :data:`METRICS` in deal ``d`` and seating ``s``, in
    which the candidate sat in seat ``candidate_seats[s]`` (default: seat ``s``, one seating per
    rotation); ``leaders[d]`` is the would-be leader of deal ``d``. Every average is taken per deal
    first, over its seatings.
    """
    n_deals, n_seatings, _ = metrics.shape
    seats = np.arange(n_seatings) if candidate_seats is None else np.asarray(candidate_seats)
    n_players = int(seats.max()) + 1
    net = metrics[:, :, NET].astype(float)
    mean, low, high = mean_ci(net.mean(axis=1))
    position = (seats[None, :] - leaders[:, None]) % n_players
    per_position = []
    for p in range(n_players):
        at_p = position == p
        per_position.append(mean_ci((net * at_p).sum(axis=1) / at_p.sum(axis=1)))
    counts = {m: int(metrics[:, :, METRICS.index(m)].sum()) for m in EVENT_METRICS}
    return Summary(
        agent=agent,
        opponents=opponents,
        deals=n_deals,
        hands=n_deals * n_seatings,
        win_rate=float(metrics[:, :, WIN].mean()),
        x_per_hand=mean,
        ci_low=low,
        ci_high=high,
        by_position=tuple(m for m, _, _ in per_position),
        by_position_half_width=tuple((hi - lo) / 2 for _, lo, hi in per_position),
        counts=counts,
    )
