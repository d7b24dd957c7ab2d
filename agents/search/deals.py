"""What a search samples for one decision: deals that agree with the seat's view, and models of the seats.

Every draw of a decision comes from that decision's own ``numpy.random.Generator``, in a fixed
order (deals or proposals, then models), so the determinizations depend only on the generator and
the decision: the batched search (:mod:`.engine`) and the per-decision one (:mod:`.reference`)
draw the same ones from the same generator, however the decisions are batched. The bot
(:class:`~.bot.SearchBot`) passes its own generator, decision after decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sam_env.core.cards import DECK_SIZE, FULL_DECK

if TYPE_CHECKING:
    from collections.abc import Mapping

    from sam_env.core import RuleConfig, SeatView


@dataclass(frozen=True, eq=False)
class DecisionPoint:
    """One seat's decision as the search sees it: its own cards and the public history, nothing else.

    Made from the environment's view (:meth:`of`) or from a ``VectorEnv`` table
    (:func:`sam_env.training.expert.search_targets.decision_points`).
    """

    rules: RuleConfig
    seat: int
    hand: int
    """The seat's cards now (card mask, bit ``rank * 4 + suit``)."""
    played: tuple[int, ...]
    """The cards each seat has played this hand (card masks)."""
    n_cards: tuple[int, ...]
    """How many cards each seat holds."""
    leader: int
    """The would-be leader of the hand (asked first about Sâm)."""
    history: tuple[tuple[int, int], ...]
    """Every move of the hand so far, ``(seat, action)``."""
    net: int
    """The seat's money so far this hand (chops)."""
    observation: np.ndarray
    """``float32[obs_dim]``: the seat's observation (the environment's, unwrapped)."""
    action_mask: np.ndarray
    """``bool[201]``: its legal moves."""

    @classmethod
    def of(cls, observation: Mapping[str, np.ndarray], view: SeatView) -> DecisionPoint:
        """The decision of the seat ``view`` describes (``observation``: the environment's dict)."""
        return cls(
            rules=view.rules,
            seat=view.seat,
            hand=view.hand,
            played=tuple(view.played),
            n_cards=tuple(view.n_cards),
            leader=view.leader,
            history=tuple(view.history),
            net=view.net[view.seat],
            observation=np.asarray(observation["observation"], dtype=np.float32),
            action_mask=np.asarray(observation["action_mask"], dtype=bool),
        )

    @property
    def unseen(self) -> int:
        """Cards the seat cannot see: in other hands or never dealt."""
        gone = self.hand
        for p in self.played:
            gone |= p
        return FULL_DECK ^ gone

    @property
    def legal(self) -> np.ndarray:
        """``int64[k]``: the legal action indices."""
        return np.flatnonzero(self.action_mask)


def sample_deals(point: DecisionPoint | SeatView, count: int, rng: np.random.Generator) -> np.ndarray:
    """``int64[count, n_players]``: uniform deals (card masks) that agree with what the seat has seen.

    The seat keeps its own dealt cards (its hand and what it played); every other seat gets what it
    has played plus, in seat order, the next cards of one permutation of the unseen cards per deal,
    as many as it still holds. (``Generator.permuted`` on a stack of copies draws what as many calls
    of ``Generator.permutation`` would, in one call.)
    """
    unseen = np.array([c for c in range(DECK_SIZE) if point.unseen >> c & 1], dtype=np.int64)
    drawn = rng.permuted(np.tile(unseen, (count, 1)), axis=1)
    n_players = len(point.played)
    hands = np.tile(np.array(point.played, dtype=np.int64), (count, 1))
    hands[:, point.seat] |= point.hand
    start = 0
    for s in range(n_players):
        if s == point.seat:
            continue
        cards = drawn[:, start : start + point.n_cards[s]]
        hands[:, s] |= np.bitwise_or.reduce(np.left_shift(np.int64(1), cards), axis=1)
        start += point.n_cards[s]
    return hands


def uniform_models(seat: int, count: int, n_players: int, n_models: int, rng: np.random.Generator) -> np.ndarray:
    """``int[count, n_players]``: each other seat's model drawn uniformly from ``n_models``, the network
    (model 0) at ``seat`` (no draw at all with the network as the only model)."""
    if n_models == 1:
        return np.zeros((count, n_players), dtype=np.int64)
    models = rng.integers(n_models, size=(count, n_players))
    models[:, seat] = 0
    return models


def log_weights(loglik: np.ndarray, seat: int | np.ndarray) -> np.ndarray:
    """Each proposal's log-weight: over the other seats, the log of the mean likelihood of the models.

    ``loglik``: ``float[k, n_players, n_models]``; ``seat``: the searching seat, one for all rows or
    one per row. Its column is set to zero rather than deleted (exactly the same sums)."""
    per_seat = np.logaddexp.reduce(loglik, axis=2) - np.log(loglik.shape[2])
    per_seat[np.arange(len(per_seat)), seat] = 0.0
    return per_seat.sum(axis=1)


def resample(
    seat: int, loglik: np.ndarray, determinizations: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``determinizations`` proposals drawn by weight (systematic resampling) and, for each,
    the model of every other seat drawn from its posterior on that deal (uniform prior).

    If no proposal kept a weight, the search is the uniform one: the proposals in turn (the replay
    drops those that could not have been played) and models drawn uniformly."""
    n_proposals, n_players, n_models = loglik.shape
    weights = log_weights(loglik, seat)
    if not np.isfinite(weights).any():
        picks = np.arange(determinizations) % n_proposals
        return picks, uniform_models(seat, determinizations, n_players, n_models, rng)
    weights = np.exp(weights - weights.max())
    draws = (rng.random() + np.arange(determinizations)) / determinizations
    picks = np.searchsorted(np.cumsum(weights / weights.sum()), draws, side="right")
    picks = np.minimum(picks, np.flatnonzero(weights)[-1])  # rounding: never a proposal of no weight
    posterior = np.exp(loglik[picks] - loglik[picks].max(axis=2, keepdims=True))
    cumulative = np.cumsum(posterior / posterior.sum(axis=2, keepdims=True), axis=2)
    models = np.minimum((rng.random((determinizations, n_players, 1)) > cumulative).sum(axis=2), n_models - 1)
    models[:, seat] = 0
    return picks, models


def distinct(deals: np.ndarray, models: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first index of each distinct (deal, models) pair, in order of first appearance, and how
    often each came (rollouts are deterministic: a repeated pair is played once, counted as often)."""
    keys = np.hstack([deals, models])  # card masks fit 52 bits
    _, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    return first[order], counts[order]
