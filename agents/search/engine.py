"""``BatchedSearch``: determinized search over many decisions at once, in one batch of playout tables.

For each decision with more than one legal move (the algorithm is :mod:`.reference`'s, module
docstring of :mod:`sam_env.agents.search`): the network's ``candidates`` preferred legal moves;
``determinizations`` deals drawn from the decision's own generator (with inference: drawn from
``proposals`` weighed by how well the models explain the other seats' past moves) and a model for
every other seat on each deal; every candidate played on every deal to the end of the hand; the
candidate with the most money for the seat, averaged over the deals, is the move.

What makes it fast is the batch, not a different computation:

* all decisions of a batch share one :class:`~sam_env.vector.playouts.Playouts` (up to
  ``max_tables`` tables, in as few chunks as fit), so every step is one compiled call and one
  forward pass per model for the rows of every decision;
* each deal's history is replayed **once** (in the rollout tables of the first candidate, or in the
  inference tables) and the table copied once per other candidate, instead of replayed per candidate;
* forced moves are made inside the compiled step, money is read from the ledgers, and
  observations are written only where a model chooses;
* a network's forward pass (a policy's :class:`~.network.CompiledNetwork`, a ``dmc`` Q-network's
  :class:`~.qnetwork.CompiledQNetwork`) adds up only the non-zero inputs' weights and computes only the legal
  moves' logits or values, and each row's result does not depend on the batch, so a decision searched alone or
  among hundreds gets the same moves and the same values. A ``dqn`` Q-network is played by
  :class:`~sam_env.agents.networks.qnet.bot.QBot` (numpy matrix products): its values can differ in the last bits
  with the batch, so only a near tie between two moves could make the batched and the per-decision search part.

``tests/agents/test_search_engine.py`` checks it against :class:`~.reference.ReferenceSearch`
decision by decision (moves, candidates, values, deals replayed), inference included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sam_env.encoding import observation_layout
from sam_env.vector.playouts import Playouts

from ..networks.policy.checkpoint import PolicyCheckpoint
from ..networks.qnet.checkpoint import QCheckpoint
from .deals import DecisionPoint, distinct, resample, sample_deals, uniform_models
from .inference import HistoryScorer, choose, replay_histories
from .models import Network, OpponentModel, batched_policy, checked_model, move_scores, network_policy

if TYPE_CHECKING:
    from sam_env.bot import BatchedPolicy
    from sam_env.core import RuleConfig, SeatView

MAX_ROLLOUT_STEPS = 2_000
"""Decisions of one rollout before giving up (a hand of Sâm Lốc has far fewer)."""


@dataclass(frozen=True, eq=False)
class SearchResult:
    """What the search found at one decision: the targets a network can be distilled on.

    ``values[i]`` is candidate ``candidates[i]``'s mean money for the seat (X) from this decision to
    the end of the hand, over the deals that could be replayed (``-inf`` for all if none could; ``nan``
    where nothing was searched: one legal move). ``candidates`` are in the network's order, so ties
    go to the network's preference, and ``move`` is the one with the highest value.
    """

    move: int
    candidates: np.ndarray
    values: np.ndarray
    replayed: int
    """How many of the sampled deals could be replayed (repeats counted); 0 where nothing was searched."""


def _int_at_least(label: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{label} must be an int >= {low}, got {value!r}")
    return int(value)


class BatchedSearch:
    """The search of many decisions at once (module docstring).

    Args:
        checkpoint: the network: the candidates' order, the seat's own play in rollouts and one of
            the models of the other seats. A policy (``PolicyCheckpoint``: candidates by its logits) or a
            Q-network (``QCheckpoint``: by its values); either plays its preferred move in rollouts.
        determinizations: deals sampled per decision (64 by default).
        candidates: the network's preferred legal moves scored per decision (8 by default).
        opponent_models: models of the other seats besides the network, each as likely a priori:
            ``"heuristic"``, a shipped network's name or a checkpoint of either kind of the same table size.
        proposals: with inference, the uniform deals weighed by the hand's history, of which the
            ``determinizations`` are drawn (0 by default: no inference).
        mismatch: with inference, the probability that a model's move differs from the real one.
        max_tables: playout tables per chunk of decisions (memory: about 6 KB a table).
    """

    def __init__(
        self,
        checkpoint: Network,
        determinizations: int = 64,
        candidates: int = 8,
        *,
        opponent_models: Sequence[OpponentModel] = (),
        proposals: int = 0,
        mismatch: float = 0.1,
        max_tables: int = 16_384,
    ) -> None:
        self.determinizations = _int_at_least("determinizations", determinizations, 1)
        self.candidates = _int_at_least("candidates", candidates, 1)
        self.proposals = _int_at_least("proposals", proposals, 0)
        if isinstance(mismatch, bool) or not isinstance(mismatch, (int, float, np.number)) or not 0 < mismatch < 1:
            raise ValueError(f"mismatch must be a probability strictly between 0 and 1, got {mismatch!r}")
        self.mismatch = float(mismatch)
        largest = max(self.determinizations * self.candidates, self.proposals)
        self.max_tables = _int_at_least("max_tables", max_tables, largest)
        if not isinstance(checkpoint, (PolicyCheckpoint, QCheckpoint)):
            raise TypeError(f"checkpoint must be a PolicyCheckpoint or a QCheckpoint, got {type(checkpoint).__name__}")
        self.network = network_policy(checkpoint)
        self.encoding_version = checkpoint.encoding_version
        """The observations the playout tables write: the network's encoding (other models read their prefix)."""
        self.n_players = checkpoint.rules.n_players
        """The only table size the network can play."""
        if isinstance(opponent_models, str):
            raise TypeError(f"opponent_models: expected a sequence of models, got the string {opponent_models!r}")
        self.opponent_models = tuple(checked_model(model, self.n_players) for model in opponent_models)
        self._rules: RuleConfig | None = None
        self._policies: tuple[BatchedPolicy, ...] = ()
        self._rollouts: Playouts | None = None
        self._replayer: Playouts | None = None

    def policies(self, rules: RuleConfig) -> tuple[BatchedPolicy, ...]:
        """The batched policy of every model for these rules: 0 is the network, ``m`` is
        ``opponent_models[m - 1]`` (built at first use, and again if the rules change)."""
        if self._rules != rules:
            self._policies = (self.network, *(batched_policy(model, rules) for model in self.opponent_models))
            version = self.encoding_version
            self._rollouts = Playouts(self.max_tables, rules, encoding_version=version)
            self._replayer = Playouts(self.max_tables, rules, encoding_version=version) if self.proposals else None
            self._rules = rules
        return self._policies

    def rank(self, points: Sequence[DecisionPoint]) -> list[np.ndarray]:
        """Each decision's legal moves, the network's preferred first (ties: the lower index)."""
        observations = np.stack([p.observation for p in points])
        masks = np.stack([p.action_mask for p in points])
        scores = move_scores(self.network, observations, masks)
        return [p.legal[np.argsort(-scores[i, p.legal], kind="stable")] for i, p in enumerate(points)]

    def search(
        self,
        points: Sequence[DecisionPoint],
        rngs: Sequence[np.random.Generator],
        candidates: Sequence[np.ndarray] | None = None,
    ) -> list[SearchResult]:
        """Search every decision; ``rngs[i]`` draws decision ``i``'s deals and models.

        ``candidates`` (optional, per decision): the moves to score instead of the network's
        ``candidates`` most probable ones (their values are computed even if there is one).
        """
        if len(rngs) != len(points):
            raise ValueError(f"one generator per decision: {len(points)} decisions, {len(rngs)} generators")
        if not points:
            return []
        rules = points[0].rules
        if any(p.rules != rules for p in points):
            raise ValueError("every decision of a batch must be played under the same rules")
        if rules.n_players != self.n_players:
            raise ValueError(f"a {rules.n_players}-player table, but the network plays {self.n_players} players")
        self.policies(rules)
        if candidates is None:
            chosen = [ranked[: self.candidates] for ranked in self.rank(points)]
            searched = [i for i, c in enumerate(chosen) if len(c) > 1]
        else:
            chosen = [self._checked_candidates(p, c) for p, c in zip(points, candidates, strict=True)]
            searched = list(range(len(points)))
        results = [SearchResult(int(c[0]), c, np.full(len(c), np.nan), 0) for c in chosen]
        per_decision = max(self.determinizations * self.candidates, self.proposals)
        step = max(1, self.max_tables // per_decision)
        for start in range(0, len(searched), step):
            chunk = searched[start : start + step]
            found = self._search_chunk([points[i] for i in chunk], [rngs[i] for i in chunk], [chosen[i] for i in chunk])
            for i, result in zip(chunk, found, strict=True):
                results[i] = result
        return results

    def _checked_candidates(self, point: DecisionPoint, candidates: np.ndarray) -> np.ndarray:
        candidates = np.asarray(candidates, dtype=np.int64)
        if candidates.ndim != 1 or not 1 <= candidates.size <= self.candidates:
            raise ValueError(f"candidates must be 1 to {self.candidates} action indices, got {candidates.tolist()}")
        illegal = sorted(set(candidates.tolist()) - set(point.legal.tolist()))
        if illegal:
            raise ValueError(f"candidates {illegal} are not legal for seat {point.seat}; legal: {point.legal.tolist()}")
        return candidates

    def _draw(
        self, points: list[DecisionPoint], rngs: list[np.random.Generator]
    ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray | None]:
        """Per decision: its deals, the models on each, and (with inference) the replayer table of each
        deal, which already holds it replayed; then which replayer tables reached their decision."""
        n_models = len(self._policies)
        if not self.proposals:
            deals = [sample_deals(p, self.determinizations, r) for p, r in zip(points, rngs, strict=True)]
            models = [
                uniform_models(p.seat, self.determinizations, self.n_players, n_models, r)
                for p, r in zip(points, rngs, strict=True)
            ]
            return deals, models, [], None
        proposals = [sample_deals(p, self.proposals, r) for p, r in zip(points, rngs, strict=True)]
        loglik, reached = self._history_loglik(points, proposals)
        deals, models, sources = [], [], []
        for i, (point, rng) in enumerate(zip(points, rngs, strict=True)):
            picks, drawn = resample(point.seat, loglik[i], self.determinizations, rng)
            deals.append(proposals[i][picks])
            models.append(drawn)
            sources.append(i * self.proposals + picks)
        return deals, models, sources, reached

    def deals_and_models(
        self, point: DecisionPoint | SeatView, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """The deals a search of ``point`` draws from ``rng`` (``int64[determinizations, n_players]``
        card masks) and the model of each seat on each (0: the network, always at the seat itself;
        ``m``: ``opponent_models[m - 1]``). Only the view's fields are read (a ``SeatView`` will do)."""
        self.policies(point.rules)
        deals, models, _, _ = self._draw([point], [rng])
        return deals[0], models[0]

    def history_loglik(
        self, points: Sequence[DecisionPoint | SeatView], proposals: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """Per decision, ``float[len(proposals[i]), n_players, n_models]``: the log-likelihood of each
        other seat's past moves on each proposed deal if model ``m`` played that seat (``-inf``: could
        not have been played, or pruned; see :class:`~.inference.HistoryScorer`)."""
        if not self.proposals:
            raise ValueError("history_loglik: this search has no inference (proposals=0)")
        self.policies(points[0].rules)
        loglik, _ = self._history_loglik(list(points), list(proposals))
        return [loglik[i, : len(p)] for i, p in enumerate(proposals)]

    def _history_loglik(
        self, points: list[DecisionPoint], proposals: list[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        replayer = self._replayer
        assert replayer is not None
        per = self.proposals
        if any(len(p) > per for p in proposals) or len(points) * per > replayer.num_tables:
            raise ValueError(f"at most {per} proposals per decision and {replayer.num_tables // per} decisions")
        tables = np.concatenate([i * per + np.arange(len(p)) for i, p in enumerate(proposals)])
        dec = np.concatenate([np.full(len(p), i) for i, p in enumerate(proposals)])
        scorer = HistoryScorer(self._policies, points, dec, tables, self.mismatch)
        reached = replay_histories(replayer, points, tables, dec, np.concatenate(proposals), scorer)
        loglik = np.full((len(points), per, self.n_players, len(self._policies)), -np.inf)
        loglik[dec, tables % per] = np.where(reached[:, None, None], scorer.loglik, -np.inf)
        flags = np.zeros(len(points) * per, dtype=bool)
        flags[tables] = reached
        return loglik, flags

    def _search_chunk(
        self, points: list[DecisionPoint], rngs: list[np.random.Generator], chosen: list[np.ndarray]
    ) -> list[SearchResult]:
        play = self._rollouts
        assert play is not None
        deals, models, sources, reached_at = self._draw(points, rngs)
        firsts, counts = zip(*(distinct(d, m) for d, m in zip(deals, models, strict=True)), strict=True)
        n = np.array([len(f) for f in firsts])
        k = np.array([len(c) for c in chosen])
        base = np.concatenate([[0], np.cumsum(n * k)])
        dec = np.repeat(np.arange(len(points)), n * k)
        within = np.arange(base[-1]) - base[dec]
        cand, deal = within // n[dec], within % n[dec]
        first_copy = np.flatnonzero(cand == 0)
        if reached_at is None:
            dealt = np.concatenate([deals[i][f] for i, f in enumerate(firsts)])
            reached = replay_histories(play, points, first_copy, dec[first_copy], dealt)
        else:
            source = np.concatenate([sources[i][f] for i, f in enumerate(firsts)])
            reached = reached_at[source]
            play.copy(source[reached], first_copy[reached], origin=self._replayer)
        self._check_replay(play, points, first_copy[reached], dec[first_copy[reached]])
        live = np.zeros(play.num_tables, dtype=bool)
        live[first_copy] = reached
        others = np.flatnonzero(cand > 0)
        origin = base[dec[others]] + deal[others]  # the first candidate's copy of the same deal
        live[others] = live[origin]
        play.copy(origin[live[others]], others[live[others]])
        model_of = np.zeros((play.num_tables, self.n_players), dtype=np.int64)
        table_models = np.concatenate([models[i][f] for i, f in enumerate(firsts)])
        model_of[first_copy] = table_models
        model_of[others] = model_of[origin]
        actions = np.zeros(play.num_tables, dtype=np.int64)
        actions[: base[-1]] = np.concatenate([np.repeat(c, m) for c, m in zip(chosen, n, strict=True)])
        seats = np.array([p.seat for p in points])
        money = self._roll_out(play, actions, live, model_of)[np.arange(base[-1]), seats[dec]]
        money = money.astype(np.float64) - np.array([p.net for p in points])[dec]
        results = []
        for i in range(len(points)):
            rows = slice(base[i], base[i + 1])
            played, value_of, weights = live[rows], money[rows], np.tile(counts[i], k[i])
            values = np.full(k[i], -np.inf)
            for c in range(k[i]):
                block = slice(c * n[i], (c + 1) * n[i])
                if played[block].any():
                    values[c] = np.average(value_of[block][played[block]], weights=weights[block][played[block]])
            replayed = int(counts[i][played[: n[i]]].sum())
            results.append(SearchResult(int(chosen[i][int(np.argmax(values))]), chosen[i], values, replayed))
        return results

    def _roll_out(self, play: Playouts, actions: np.ndarray, live: np.ndarray, model_of: np.ndarray) -> np.ndarray:
        """Play ``actions`` at the ``live`` tables, then every seat by its model until every hand is over;
        each table's money of its whole hand per seat."""
        tables = np.arange(play.num_tables)
        live = live.copy()
        play.advance(actions, live)
        for _ in range(MAX_ROLLOUT_STEPS):
            live &= play.n_legal > 0
            if not live.any():
                return play.net()
            acting = model_of[tables, play.current_seat]
            for m, policy in enumerate(self._policies):
                rows = np.flatnonzero(live & (acting == m))
                if rows.size:
                    actions[rows] = choose(policy, play, rows)
            play.advance(actions, live)
        raise RuntimeError(f"a rollout did not end in {MAX_ROLLOUT_STEPS} decisions")

    def _check_replay(self, play: Playouts, points: list[DecisionPoint], tables: np.ndarray, dec: np.ndarray) -> None:
        """Every replayed deal must give the seat the observation it has: the sampled deals and the
        replay are wrong otherwise, and so would every value be."""
        replayed = play.observe(tables)[tables]
        expected = np.stack([p.observation for p in points])[dec][:, : replayed.shape[1]]  # a later version's: prefix
        differs = np.flatnonzero((replayed != expected).any(axis=0))
        if differs.size:
            sizes = observation_layout(self.n_players)
            block = sizes[int(np.searchsorted(np.cumsum([s for _, s in sizes]), differs[0], side="right"))][0]
            seat = points[int(dec[np.flatnonzero((replayed != expected).any(axis=1))[0]])].seat
            raise RuntimeError(
                f"replaying the hand's history on a sampled deal does not give seat {seat}'s observation "
                f"(block {block!r} differs): the view and the observation disagree, or the observation was "
                "wrapped or normalized"
            )
