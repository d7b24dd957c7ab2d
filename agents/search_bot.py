"""``ppo_search``: a trained network that looks ahead at decision time by determinized Monte Carlo.

Why: trained by PPO alone, the 4-seat network sits on a plateau near +2.6 X/hand against
heuristic ×3 (more steps, a critic that sees the hidden hands and four times the weights did not
move it; docs/ppo_bot.md). Card-game programs get their next step from search at decision time:
perfect-information Monte Carlo, as in Bridge and Skat programs (Long et al., "Understanding the
success of perfect information Monte Carlo sampling in game tree search", AAAI 2010). Here the
compiled :class:`~sam_env.vector.VectorEnv` makes it cheap: hundreds of sampled tables are played
to the end of the hand in one batch, with batched policies as the models of the seats.

At each decision with more than one legal move:

1. **Candidates**: the network's ``candidates`` most probable legal moves.
2. **Determinizations**: ``determinizations`` deals that agree with what the seat's observation
   shows. The seat keeps its own dealt cards (its hand and what it has played); every other seat
   gets what it has played plus a uniform draw, of the size it still holds, from the cards the
   seat cannot see. Two things a careful player could also infer are not used: which suits a seat
   still holds, from the suits the engine picked for its plays (it takes the lowest it holds;
   suits play no part in the rules, and the observation has none), and, under
   ``first_leader="lowest_card"``, that the leader of a table's first hand held the lowest card
   (a seat's view does not say whether its hand is a table's first).
   With inference (``proposals``; ``ppo_search``'s: :data:`~agents.search_models.SHIPPED_SEARCH`),
   ``proposals`` such deals are drawn instead and weighed by how well the models explain the other
   seats' past moves on them: replayed, each past move with a choice is scored, for each model,
   ``1 - mismatch`` if the model's move on those cards is the real one and ``mismatch`` if not. A
   deal's weight is, over the other seats, the mean of the models' likelihoods (a uniform prior over
   models); ``determinizations`` deals are drawn by weight and each seat's model from its posterior
   on that deal.
3. **Replay**: every deal is dealt once per candidate in the vector env and the hand's history is
   replayed move by move, which reproduces the public state; the bot checks that every replayed
   deal gives the seat its own observation and refuses to go on otherwise. A deal that could not
   have been played — an instant win the real deal did not have, a forced báo 1 the sampled cards
   would not allow — is dropped; if every deal is dropped the network's move is played.
4. **Rollout**: each copy plays its candidate, then the hand is played to its end: the seat itself
   by the network's most probable legal move, every other seat by a model drawn for it once per
   sampled deal (the same for every candidate), uniformly (or from its posterior) from the network
   and ``opponent_models`` (batched policies: the compiled heuristic, other networks). A candidate's
   value is the seat's mean money from this decision to the end of the hand, over the deals; every
   candidate is scored on the same deals and opponents (common random numbers), so the comparison is
   sharper than the values.
5. The move with the highest value is played; ties go to the network's order.

Why a mix of opponent models: at 4 seats ``ppo_search`` models the other seats by its own network,
``ppo_v1`` and the heuristic (:data:`~agents.search_models.SHIPPED_SEARCH`). In two 400-deal duplicate
trials against
heuristic ×3 that mix gained +0.60 [+0.20, +1.01] and +0.41 [−0.00, +0.83] X/hand over the network as the
only model, where the heuristic alone (−0.21) and the two networks without it (−0.16) did not; against
``ppo_v1`` and ``ppo_v2`` it changed nothing measurable (docs/ppo_bot.md). A search exploits whatever model
it is given, quirks included, and a mix is one way to share fewer quirks with any one opponent. At other
table sizes the network models every seat (untested mixes are not shipped). The budget matters less
than the model: in the model's own terms, 256 deals instead of 64 add about 9 % to what the search gains
over the network (``experiments/search_convergence.py``).

Why inference: uniform deals ignore what the other seats' play says about their cards, the classic
weakness of perfect-information Monte Carlo; weighing deals by how well the models explain that play is
the usual remedy in Skat and Bridge programs. At 4 seats it gained +0.38 [−0.04, +0.80] X/hand in a
400-deal paired trial against heuristic ×3, and ``ppo_search`` then scored +4.45 [+4.21, +4.69] over 2,000
fresh deals (docs/ppo_bot.md), for about three times the CPU of the uniform search.

The bot reads only its own view (``SeatView``: its hand, the public history), never the other
hands; its opponents need not be any of its models. Its decisions depend on its seed (the sampled
deals and the drawn models), so a seeded bot is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sam_env.bot import Bot
from sam_env.core import RuleConfig, SeatView
from sam_env.core.cards import DECK_SIZE
from sam_env.encoding import observation_layout

from .ppo.bot import PPOBot, pretrained_checkpoint
from .ppo.checkpoint import PolicyCheckpoint
from .search_models import OpponentModel, batched_policy, checked_model, shipped_search

if TYPE_CHECKING:
    from sam_env.bot import BatchedPolicy
    from sam_env.vector import Batch, VectorEnv

MAX_ROLLOUT_MOVES = 2_000
"""Moves of one rollout before giving up (a hand of Sâm Lốc ends in far fewer)."""

PRUNE_LOG_WEIGHT = 10.0
"""With inference, a proposed deal whose log-weight falls this far below the best one's so far is
dropped (its weight is then under 1/20,000 of that one's). Approximate: the best may fall later too;
over 27 decisions of 512 proposals the posterior mass lost was at most 0.3 %."""


class SearchBot(Bot):
    """A network's moves chosen by determinized rollouts (see the module docstring).

    Args:
        checkpoint: the network: the candidates' order, the seat's own play in rollouts and one of
            the models of the other seats.
        seed: seeds the sampled deals and the drawn opponent models.
        determinizations: deals sampled per decision (the cost grows with it; 64 by default).
        opponent_models: models of the other seats in rollouts besides the network, each as likely a
            priori as the network: ``"heuristic"``, a shipped network's name or a ``PolicyCheckpoint``
            of the same table size (none by default; ``ppo_search``'s:
            :data:`~agents.search_models.SHIPPED_SEARCH`).
        candidates: the network's most probable legal moves that are scored (8 by default).
        proposals: with inference, the uniform deals weighed by the hand's history, of which the
            ``determinizations`` are drawn (0 by default: no inference, the deals are uniform).
        mismatch: with inference, the probability that a model's move differs from the real one.
        name: the agent's name in reports (default ``"ppo_search"``).
    """

    name = "ppo_search"

    def __init__(
        self,
        checkpoint: PolicyCheckpoint,
        seed: int | None = None,
        determinizations: int = 64,
        candidates: int = 8,
        *,
        opponent_models: Sequence[OpponentModel] = (),
        proposals: int = 0,
        mismatch: float = 0.1,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        for label, value in (("determinizations", determinizations), ("candidates", candidates)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{label} must be an int >= 1, got {value!r}")
        if isinstance(proposals, bool) or not isinstance(proposals, (int, np.integer)) or proposals < 0:
            raise ValueError(f"proposals must be an int >= 0 (0: no inference), got {proposals!r}")
        if isinstance(mismatch, bool) or not isinstance(mismatch, (int, float, np.number)) or not 0 < mismatch < 1:
            raise ValueError(f"mismatch must be a probability strictly between 0 and 1, got {mismatch!r}")
        self.network = PPOBot(checkpoint)
        self.n_players = checkpoint.rules.n_players
        """The only table size the network can play."""
        if isinstance(opponent_models, str):
            raise TypeError(f"opponent_models: expected a sequence of models, got the string {opponent_models!r}")
        self._models = tuple(checked_model(model, self.n_players) for model in opponent_models)
        self._policies: tuple[BatchedPolicy, ...] = ()
        """The batched policies of ``_models`` for the vector env's rules, built with it."""
        self.determinizations = int(determinizations)
        self.candidates = int(candidates)
        self.proposals = int(proposals)
        self.mismatch = float(mismatch)
        self._venv: VectorEnv | None = None
        self.replayed = 0
        """How many of the last search's ``determinizations`` deals could be replayed (repeats counted)."""
        if name is not None:
            self.name = name

    @classmethod
    def pretrained(cls, network: str = "ppo", seed: int | None = None, *, label: str | None = None) -> SearchBot:
        """The registry's ``ppo_search``: search over a shipped network, with the models and inference
        of :func:`~agents.search_models.shipped_search` for its table size (``label``: the name in
        reports, default ``"ppo_search"``)."""
        checkpoint = pretrained_checkpoint(network)
        shipped = shipped_search(checkpoint.rules.n_players)
        return cls(
            checkpoint, seed=seed, opponent_models=shipped.opponent_models, proposals=shipped.proposals, name=label
        )

    @property
    def opponent_models(self) -> tuple[OpponentModel, ...]:
        """The models of the other seats in rollouts besides the network, as given (read-only: the
        batched policies built from them must stay in step)."""
        return self._models

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} was asked to act with an empty action mask")
        if view.rules.n_players != self.n_players:
            raise ValueError(
                f"{self.name}: a {view.rules.n_players}-player table, but the network plays {self.n_players} players"
            )
        logits = self.network.logits(observation["observation"])
        candidates = legal[np.argsort(-logits[legal], kind="stable")][: self.candidates]
        if candidates.size == 1:
            return int(candidates[0])
        values = self.values(observation["observation"], view, candidates)
        return int(candidates[int(np.argmax(values))])

    def values(self, observation: np.ndarray, view: SeatView, candidates: np.ndarray | list[int]) -> np.ndarray:
        """``float[len(candidates)]``: each candidate's mean money for the seat from now to the end of
        the hand, over the sampled deals that could be replayed (``-inf`` for all if none could;
        :attr:`replayed` says how many were)."""
        candidates = np.asarray(candidates, dtype=np.int64)
        if candidates.ndim != 1 or not 1 <= candidates.size <= self.candidates:
            raise ValueError(f"candidates must be 1 to {self.candidates} action indices, got {candidates.tolist()}")
        illegal = sorted(set(candidates.tolist()) - set(view.legal))
        if illegal:
            raise ValueError(f"candidates {illegal} are not legal for seat {view.seat}; legal: {list(view.legal)}")
        venv = self._vector_env(view.rules)
        k = candidates.size
        deals, models, counts = _distinct(*self.deals_and_models(view))
        n = len(deals)  # rollouts are deterministic: a repeated (deal, models) is played once, counted twice
        batch, playing = self._replay(venv, view, [deals[t % n] for t in range(k * n)])
        self._check_replay(batch.observation[playing], observation, view.seat)
        self.replayed = int(counts[playing[:n]].sum())
        actions = candidates[np.minimum(np.arange(venv.num_tables) // n, k - 1)]
        model_of = models[np.arange(venv.num_tables) % n]
        money = self._roll_out(venv, actions, playing, view.seat, model_of) - view.net[view.seat]
        values = np.full(k, -np.inf)
        for i in range(k):
            rows = slice(i * n, (i + 1) * n)
            if playing[rows].any():
                values[i] = np.average(money[rows][playing[rows]], weights=counts[playing[rows]])
        return values

    def _check_replay(self, replayed: np.ndarray, observation: np.ndarray, seat: int) -> None:
        """Every replayed deal must give the seat the observation it has: the sampled deals and the
        replay are wrong otherwise, and so would every value be."""
        differs = np.flatnonzero((replayed != observation).any(axis=0))
        if differs.size:
            sizes = observation_layout(self.n_players)
            ends = np.cumsum([size for _, size in sizes])
            block = sizes[int(np.searchsorted(ends, differs[0], side="right"))][0]
            raise RuntimeError(
                f"{self.name}: replaying the hand's history on a sampled deal does not give seat {seat}'s "
                f"observation (block {block!r} differs): the view and the observation disagree, or the "
                "observation was wrapped or normalized"
            )

    def _roll_out(
        self, venv: VectorEnv, actions: np.ndarray, playing: np.ndarray, seat: int, model_of: np.ndarray
    ) -> np.ndarray:
        """Play ``actions`` at the ``playing`` tables, then each seat's model (``model_of[table, seat]``,
        an index into :meth:`_models_policies`) until each hand ends; per table, ``seat``'s net money of
        the whole hand.

        Read from the finished hand's result, not summed from the step rewards: those also carry the
        instant wins of the next hand the table deals at once, which is no part of this one."""
        policies = self._models_policies()
        tables = np.arange(venv.num_tables)
        money = np.zeros(venv.num_tables)
        live = playing.copy()
        for _ in range(MAX_ROLLOUT_MOVES):
            batch = venv.step(actions, active=live)
            for t, hands in venv.results().items():
                money[t] = hands[0].result.net[seat]
            live &= ~batch.terminated
            if not live.any():
                return money
            masks = batch.action_mask
            actions[live] = np.argmax(masks[live], axis=1)  # the only legal move, where there is one
            choosing = live.copy()  # 56 % of rollout rows had one legal move (10 hands counted): no model needed
            choosing[live] = np.count_nonzero(masks[live], axis=1) > 1
            acting_model = model_of[tables, batch.current_seat]
            for m in np.unique(acting_model[choosing]).tolist():  # every drawn model has its policy
                rows = choosing & (acting_model == m)
                actions[rows] = policies[m](batch.observation[rows], masks[rows])  # venv.step checks legality
        raise RuntimeError(f"{self.name}: a rollout did not end in {MAX_ROLLOUT_MOVES} moves")

    def _models_policies(self) -> tuple[BatchedPolicy, ...]:
        """The batched policy of every model: 0 is the network, ``m`` is ``opponent_models[m - 1]``."""
        return (self.network.best_actions, *self._policies)

    def _replay(
        self,
        venv: VectorEnv,
        view: SeatView,
        deals: list[list[int]],
        on_move: Callable[[Batch, np.ndarray, int, int], np.ndarray] | None = None,
    ) -> tuple[Batch, np.ndarray]:
        """Deal ``deals`` to the first tables of ``venv`` and replay the hand's history on them; the
        batch at the seat's decision and which tables reached it. A deal that could not have been
        played is dropped: an instant win the real deal did not have, or a move its cards cannot make
        (a forced báo 1). ``on_move(batch, playing, seat, move)``, if given, sees each past move of
        another seat before it is played (``playing``: the tables still replaying) and returns the
        tables to go on with."""
        playing = np.arange(venv.num_tables) < len(deals)
        batch = venv.reset(
            options={
                "hands": [deals[t] if playing[t] else None for t in range(venv.num_tables)],
                "leader": [view.leader] * venv.num_tables,
            }
        )
        playing &= ~batch.terminated
        actions = np.zeros(venv.num_tables, dtype=np.int64)
        for seat, move in view.history:
            playing &= (batch.current_seat == seat) & batch.action_mask[:, move]
            if on_move is not None and seat != view.seat:
                playing &= on_move(batch, playing, seat, move)
            actions[:] = move
            batch = venv.step(actions, active=playing)
            playing &= ~batch.terminated
        return batch, playing & (batch.current_seat == view.seat)

    def deals_and_models(self, view: SeatView) -> tuple[list[list[int]], np.ndarray]:
        """The ``determinizations`` deals the rollouts play and ``int[determinizations, n_players]``, the
        model of each seat on each (0: the network, always at the seat itself; ``m``:
        ``opponent_models[m - 1]``). Every candidate meets the same deals and opponents.

        Without inference (``proposals=0``) the deals are uniform and the models drawn uniformly; with
        it, both are drawn from their posterior given the hand's history (:meth:`history_loglik`)."""
        if not self.proposals:
            deals = self._sample_deals(view, self.determinizations)
            return deals, self._uniform_models(view.seat)
        proposals = self._sample_deals(view, self.proposals)
        return self._resample(view.seat, proposals, self.history_loglik(view, proposals))

    def _uniform_models(self, seat: int) -> np.ndarray:
        """``int[determinizations, n_players]``: each other seat's model drawn uniformly, the network at
        ``seat`` (no draw at all without opponent models)."""
        if not self._models:
            return np.zeros((self.determinizations, self.n_players), dtype=np.int64)
        models = self.rng.integers(len(self._models) + 1, size=(self.determinizations, self.n_players))
        models[:, seat] = 0
        return models

    def history_loglik(self, view: SeatView, proposals: list[list[int]]) -> np.ndarray:
        """``float[len(proposals), n_players, n_models]``: the log-likelihood of each other seat's past
        moves on each proposed deal if model ``m`` played that seat.

        Each model plays its most probable move, so a model's move is taken to be the real one with
        probability ``1 - mismatch`` and another with ``mismatch``, whatever the number of other legal
        moves (a model's errors are not spread evenly over them); moves with no choice say nothing.
        A proposal that could not have been played is ``-inf``. So is one whose weight falls
        :data:`PRUNE_LOG_WEIGHT` below the best proposal's so far: it would almost never be drawn, and
        dropping it saves much of the models' work on the history."""
        venv = self._vector_env(view.rules)
        if len(proposals) > venv.num_tables:
            raise ValueError(f"{len(proposals)} proposals, but the search replays at most {venv.num_tables} deals")
        policies = self._models_policies()
        loglik = np.zeros((venv.num_tables, self.n_players, len(policies)))
        agree, differ = np.log1p(-self.mismatch), np.log(self.mismatch)

        def score(batch: Batch, playing: np.ndarray, seat: int, move: int) -> np.ndarray:
            weights = _log_weights(loglik, view.seat)
            keep = weights >= weights[playing].max(initial=-np.inf) - PRUNE_LOG_WEIGHT
            rows = np.flatnonzero(playing & keep)
            rows = rows[np.count_nonzero(batch.action_mask[rows], axis=1) > 1]
            for m, policy in enumerate(policies):
                chosen = policy(batch.observation[rows], batch.action_mask[rows])
                loglik[rows, seat, m] += np.where(chosen == move, agree, differ)
            return keep

        _, reached = self._replay(venv, view, proposals, on_move=score)
        loglik[~reached] = -np.inf
        return loglik[: len(proposals)]

    def _resample(
        self, seat: int, proposals: list[list[int]], loglik: np.ndarray
    ) -> tuple[list[list[int]], np.ndarray]:
        """``determinizations`` of the proposals drawn by their weight (systematic resampling), and for
        each the model of every other seat drawn from its posterior on that deal (uniform prior). If no
        proposal kept a weight, the search is the uniform one: the proposals in turn (the replay drops
        those that could not have been played) and models drawn uniformly."""
        n_det, n_models = self.determinizations, loglik.shape[2]
        weights = _log_weights(loglik, seat)
        if not np.isfinite(weights).any():
            return [proposals[i % len(proposals)] for i in range(n_det)], self._uniform_models(seat)
        weights = np.exp(weights - weights.max())
        draws = (self.rng.random() + np.arange(n_det)) / n_det
        picks = np.searchsorted(np.cumsum(weights / weights.sum()), draws, side="right")
        picks = np.minimum(picks, np.flatnonzero(weights)[-1])  # rounding: never a proposal of no weight
        posterior = np.exp(loglik[picks] - loglik[picks].max(axis=2, keepdims=True))
        cumulative = np.cumsum(posterior / posterior.sum(axis=2, keepdims=True), axis=2)
        models = np.minimum((self.rng.random((n_det, self.n_players, 1)) > cumulative).sum(axis=2), n_models - 1)
        models[:, seat] = 0
        return [proposals[i] for i in picks], models

    def _sample_deals(self, view: SeatView, count: int) -> list[list[int]]:
        """``count`` uniform deals (card masks per seat) that agree with what ``view`` has seen; see the
        module docstring."""
        unseen = np.array([c for c in range(DECK_SIZE) if view.unseen >> c & 1], dtype=np.int64)
        others = [s for s in range(self.n_players) if s != view.seat]
        deals = []
        for _ in range(count):
            drawn = self.rng.permutation(unseen)
            hands = list(view.played)
            hands[view.seat] |= view.hand
            start = 0
            for s in others:
                for card in drawn[start : start + view.n_cards[s]].tolist():
                    hands[s] |= 1 << card
                start += view.n_cards[s]
            deals.append(hands)
        return deals

    def _vector_env(self, rules: RuleConfig) -> VectorEnv:
        """The search's tables for these rules (``candidates × determinizations``, or ``proposals`` if
        more), made at first use
        (and again if the rules change). Imported here: the compiled engine loads numba, which the
        registry's other bots do not need."""
        from sam_env.vector import VectorEnv

        if self._venv is None or self._venv.rules != rules:
            policies = tuple(batched_policy(model, rules) for model in self._models)  # first: it may raise
            tables = max(self.candidates * self.determinizations, self.proposals)
            self._venv = VectorEnv(tables, rules, seed=0)
            self._policies = policies
        return self._venv


def _distinct(deals: list[list[int]], models: np.ndarray) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    """The distinct (deal, models) pairs, in order of first appearance, and how often each came."""
    keys = np.hstack([np.array(deals, dtype=np.int64), models])  # card masks fit 52 bits
    _, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    return [deals[i] for i in first[order]], models[first[order]], counts[order]


def _log_weights(loglik: np.ndarray, seat: int) -> np.ndarray:
    """Each proposal's log-weight: over the other seats, the log of the mean likelihood of the models."""
    per_seat = np.logaddexp.reduce(loglik, axis=2) - np.log(loglik.shape[2])
    return np.delete(per_seat, seat, axis=1).sum(axis=1)
