"""One learner seat per table, the other seats played by batched policies: what single-agent
trainers see. The gymnasium and SB3 adapters (:mod:`.gym_adapter`, :mod:`.sb3_adapter`) wrap it.

The opponents are a :class:`sam_env.bot.BatchedPolicy`: ``policy(observations, action_masks) ->
actions`` for the ``k`` tables where an opponent is to act, called once per inner step for all those
tables at once — one network forward pass for thousands of tables, instead of one per table.

The learner's reward for a step is the money its *own* seat received from its action until its
next decision: chop money paid to or by it on the opponents' turns, the settlement of a hand, and
the money of hands that ended before it could act (an instant-win deal, a Sâm blocked before its
turn) — every transfer is credited to the seat it belongs to (cf. PettingZoo issue 1147).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..bot import BatchedPolicy, RandomBot
from ..core.rules import RuleConfig
from .vector_env import VectorEnv

MAX_OPPONENT_ROUNDS = 10_000
"""Inner steps in one learner step before giving up (a policy that never reaches the learner)."""


class LearnerTables:
    """``num_tables`` tables, each with one learner seat; the other seats play ``opponent``.

    Args:
        num_tables: as for :class:`~.vector_env.VectorEnv`.
        rules: as for :class:`~.vector_env.VectorEnv`.
        seed: as for :class:`~.vector_env.VectorEnv`.
        parallel: as for :class:`~.vector_env.VectorEnv`.
        opponent: a batched policy for every other seat (default: :class:`~sam_env.bot.RandomBot`).
        learner_seats: the learner's seat at each table (an int for all, or one per table); by
            default table ``t`` seats the learner at ``t % n_players``, so a batch covers every seat.

    ``reset()`` and ``step(actions)`` return the learner's observations and masks at every table
    (every table waits for its learner); ``step`` also returns its rewards and which tables
    finished a hand (the table is already playing its next hand). Arrays are fresh copies.
    """

    def __init__(
        self,
        num_tables: int,
        rules: RuleConfig | None = None,
        opponent: BatchedPolicy | None = None,
        learner_seats: int | Sequence[int] | np.ndarray | None = None,
        seed: int | None = None,
        parallel: bool = False,
    ) -> None:
        self.venv = VectorEnv(num_tables, rules, seed=seed, parallel=parallel)
        self.num_tables = self.venv.num_tables
        self.rules = self.venv.rules
        n = self.venv.n_players
        if opponent is not None and not callable(opponent):
            raise TypeError(
                f"opponent must be a batched policy (observations, action_masks) -> actions, got {opponent!r}"
            )
        self.opponent = opponent if opponent is not None else RandomBot(seed)
        self.learner_seats = self._check_seats(learner_seats, n)
        self.reset_rewards = np.zeros(self.num_tables, dtype=np.float32)
        self.last_hands: dict[int, list] = {}
        """The hands that ended during the last ``reset``/``step``, per table (as :meth:`VectorEnv.results`)."""

    def _check_seats(self, learner_seats: int | Sequence[int] | np.ndarray | None, n: int) -> np.ndarray:
        if learner_seats is None:
            return np.arange(self.num_tables, dtype=np.int64) % n
        seats = np.asarray(learner_seats)
        if (
            seats.dtype.kind not in "iu"
            or seats.shape not in ((), (self.num_tables,))
            or np.any((seats < 0) | (seats >= n))
        ):
            raise ValueError(
                f"learner_seats must be a seat in 0..{n - 1} or one per table ({self.num_tables}), "
                f"got {learner_seats!r}"
            )
        return np.broadcast_to(seats, (self.num_tables,)).astype(np.int64)

    @property
    def observation_size(self) -> int:
        return self.venv.observation_size

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New tables (or the next hands, without a seed); the learner's observations and masks.

        Money the learner's seat received before its first decision (opponents' chops, instant
        wins) is no step's reward; it is kept in :attr:`reset_rewards` for evaluations.
        """
        batch = self.venv.reset(seed=seed)
        self.last_hands = {}
        self._collect()
        self.reset_rewards = batch.rewards[np.arange(self.num_tables), self.learner_seats].copy()
        self._play_opponents(self.reset_rewards, batch.terminated.copy())
        return batch.observation.copy(), batch.action_mask.copy()

    def step(self, actions: np.ndarray | Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The learner's actions at every table, then the opponents until every learner must act again.

        Returns observations, masks, rewards (``float32[N]``, the learner seat's money) and
        ``terminated`` (``bool[N]``: a hand ended at that table during this step).
        """
        batch = self.venv.step(actions)
        self.last_hands = {}
        self._collect()
        rewards = batch.rewards[np.arange(self.num_tables), self.learner_seats].copy()
        terminated = batch.terminated.copy()
        self._play_opponents(rewards, terminated)
        return batch.observation.copy(), batch.action_mask.copy(), rewards, terminated

    def _play_opponents(self, rewards: np.ndarray, terminated: np.ndarray) -> None:
        """Step the opponents, batched over the tables where one is to act, adding up the learner's money."""
        venv, rows = self.venv, np.arange(self.num_tables)
        actions = np.zeros(self.num_tables, dtype=np.int64)
        batch = venv.batch
        for _ in range(MAX_OPPONENT_ROUNDS):
            waiting = batch.current_seat != self.learner_seats
            if not waiting.any():
                return
            actions[waiting] = self.opponent(batch.observation[waiting], batch.action_mask[waiting])
            batch = venv.step(actions, active=waiting)
            rewards += batch.rewards[rows, self.learner_seats]
            terminated |= batch.terminated
            self._collect()
        raise RuntimeError(f"the opponents did not hand the turn back to the learner in {MAX_OPPONENT_ROUNDS} moves")

    def _collect(self) -> None:
        for t, hands in self.venv.results().items():
            self.last_hands.setdefault(t, []).extend(hands)

    def action_masks(self) -> np.ndarray:
        """``bool[N, 201]``: the learner's legal actions at every table now."""
        return self.venv.batch.action_mask.copy()
