"""The real tables: hands played by the learner and its opponents, and the decisions picked to be labelled.

``num_tables`` tables of :class:`~sam_env.vector.playouts.Playouts` each play one hand after another:
a random deal, a random would-be leader, the seats drawn afresh for the hand by the batched trainer's
:class:`~sam_env.training.common.seating.Seating` (the learner at a share of the seats, frozen
networks, the compiled heuristic or the random player at the others). At every step, each decision
of a learner seat with a choice is labelled with probability ``label_share``
(:class:`~.labels.RolloutLabeller`: the candidate moves are the legal moves, or the learner's
``max_moves`` most probable of them); then every seat to act makes its move (the learner samples its
policy), and the tables go on. The decisions are thus drawn from the states the learner's own play
reaches against its opponents, as an on-policy learner's would be.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from sam_env import N_ACTIONS, RuleConfig
from sam_env.core.cards import DECK_SIZE
from sam_env.core.rules import CARDS_PER_HAND
from sam_env.vector.playouts import Playouts

from ..common.seating import LEARNER, Seating
from .labels import RolloutLabeller, common_uniforms
from .players import SeatPlayers


@dataclass
class Labels:
    """Labelled decisions: each one's observation and mask, and ``money[i, a]``, the seat's money (X) from
    the decision to the end of the hand after move ``a`` (``nan`` for the moves not rolled out)."""

    obs: np.ndarray
    mask: np.ndarray
    money: np.ndarray

    @classmethod
    def empty(cls, obs_size: int) -> Labels:
        return cls(
            np.zeros((0, obs_size), dtype=np.float32),
            np.zeros((0, N_ACTIONS), dtype=bool),
            np.zeros((0, N_ACTIONS), dtype=np.float32),
        )

    def __len__(self) -> int:
        return len(self.obs)

    @classmethod
    def concatenate(cls, parts: list[Labels]) -> Labels:
        return cls(*(np.concatenate([getattr(p, k) for p in parts]) for k in ("obs", "mask", "money")))


@dataclass
class CollectStats:
    """What one collection measured."""

    seconds: dict[str, float] = field(default_factory=lambda: {"tables": 0.0, "rollouts": 0.0})
    learner_moves: int = 0
    """Moves of learner seats at the real tables, forced ones included."""
    learner_choices: int = 0
    """Moves of learner seats at the real tables with a choice (labelled or not)."""
    hands: list[float] = field(default_factory=list)
    """The money (X) of every learner seat in every hand that ended."""


def random_deals(rng: np.random.Generator, count: int, n_players: int) -> np.ndarray:
    """``int64[count, n_players]``: uniformly shuffled decks, ``CARDS_PER_HAND`` cards a seat, as card masks."""
    decks = rng.permuted(np.tile(np.arange(DECK_SIZE, dtype=np.int64), (count, 1)), axis=1)
    cards = decks[:, : n_players * CARDS_PER_HAND].reshape(count, n_players, CARDS_PER_HAND)
    return np.bitwise_or.reduce(np.left_shift(1, cards), axis=2)


class LabelCollector:
    """The real tables and their labelled decisions (module docstring).

    Args:
        rules: the tables' rules.
        num_tables: real tables, stepped together.
        seating: who sits where (its pool's networks are the ``players``' pool).
        players: the occupants' moves.
        labeller: plays the copies.
        label_share: the chance that a learner decision with a choice is labelled.
        max_moves: candidate moves per labelled decision: every legal move if there are at most this many,
            else the learner's most probable ones.
        rng: the deals, leaders, labelled decisions, the learner's moves at the real tables and the
            rollouts' common random numbers.
    """

    def __init__(
        self,
        rules: RuleConfig,
        num_tables: int,
        seating: Seating,
        players: SeatPlayers,
        labeller: RolloutLabeller,
        label_share: float,
        max_moves: int,
        rng: np.random.Generator,
    ) -> None:
        self.rules, self.n_players = rules, rules.n_players
        self.tables = Playouts(num_tables, rules)
        self.seating, self.players, self.labeller = seating, players, labeller
        self.label_share, self.max_moves, self.rng = label_share, max_moves, rng
        self.dealt = np.zeros(num_tables, dtype=bool)
        self.obs_size = self.tables.observation.shape[1]

    def collect(self, wanted: int) -> tuple[Labels, CollectStats]:
        """Play the real tables until at least ``wanted`` decisions are labelled."""
        stats = CollectStats()
        parts: list[Labels] = []
        count = 0
        while count < wanted:
            part = self.step(stats)
            if part is not None:
                parts.append(part)
                count += len(part)
        return (Labels.concatenate(parts) if parts else Labels.empty(self.obs_size)), stats

    def step(self, stats: CollectStats, label: bool = True) -> Labels | None:
        """One move at every real table (hands that ended are dealt anew first); before it, the labels of the
        learner decisions picked (none without ``label``: the play alone, as the benchmark's reference)."""
        play = self.tables
        clock = time.perf_counter()
        self._deal_where_over(stats)
        seat = play.current_seat
        occupant = self.seating.occupant[np.arange(play.num_tables), seat]
        learner = occupant == LEARNER
        choice = play.n_legal > 1
        stats.learner_moves += int(learner.sum())
        stats.learner_choices += int((learner & choice).sum())
        part = None
        if label:
            picked = np.flatnonzero(learner & choice & (self.rng.random(play.num_tables) < self.label_share))
            now = time.perf_counter()
            stats.seconds["tables"] += now - clock
            clock = now
            part = self._label(picked) if picked.size else None
            now = time.perf_counter()
            stats.seconds["rollouts"] += now - clock
            clock = now
        actions = np.zeros(play.num_tables, dtype=np.int64)
        forced = np.flatnonzero(play.n_legal == 1)
        actions[forced] = np.argmax(play.action_mask[forced], axis=1)
        rows = np.flatnonzero(choice)
        actions[rows] = self.players.act(play, rows, occupant[rows], self.rng.random(rows.size))
        play.advance(actions, play.n_legal > 0, observe=True)
        stats.seconds["tables"] += time.perf_counter() - clock
        return part

    def _deal_where_over(self, stats: CollectStats) -> None:
        """Close the hands that ended (the learner seats' money) and deal the next at those tables."""
        play = self.tables
        over = np.flatnonzero(play.n_legal == 0)
        if not over.size:
            return
        ended = over[self.dealt[over]]
        if ended.size:
            money = play.net()[ended]
            stats.hands.extend(money[self.seating.occupant[ended] == LEARNER].tolist())
        self.seating.draw(over)
        leaders = self.rng.integers(self.n_players, size=over.size)
        play.deal(over, random_deals(self.rng, over.size, self.n_players), leaders, observe=True)
        self.dealt[over] = True

    def _label(self, picked: np.ndarray) -> Labels:
        """Roll out the candidate moves of the decisions at tables ``picked``."""
        play = self.tables
        logits = self.players.learner.logits(play.observation, play.action_mask, picked)
        candidates = []
        for i, t in enumerate(picked.tolist()):
            legal = np.flatnonzero(play.action_mask[t])
            if legal.size > self.max_moves:
                legal = np.sort(legal[np.argsort(-logits[i, legal], kind="stable")[: self.max_moves]])
            candidates.append(legal)
        uniforms = common_uniforms(self.rng, picked.size, self.n_players)
        money = self.labeller.label(play, picked, candidates, self.seating.occupant[picked], uniforms)
        table = np.full((picked.size, N_ACTIONS), np.nan, dtype=np.float32)
        for i, (moves, values) in enumerate(zip(candidates, money, strict=True)):
            table[i, moves] = values
        return Labels(play.observation[picked].copy(), play.action_mask[picked].copy(), table)
