"""``ppo_search``: a trained network that looks ahead at decision time by determinized Monte Carlo.

Why: trained by PPO alone, the 4-seat network reached a plateau against heuristic ×3 that more steps, a
critic that sees the hidden hands and four times the weights did not move (the runs:
docs/results/ppo_training.md#fine-tuning-the-4-seat-bot-further-not-shipped). Card-game programs get their next step
from search at decision time: perfect-information Monte Carlo, as in Bridge and Skat programs (Long et
al., "Understanding the success of perfect information Monte Carlo sampling in game tree search", AAAI
2010). Here the compiled playout tables (:class:`~sam_env.vector.playouts.Playouts`) make it cheap:
hundreds of sampled tables are played to the end of the hand in one batch, with batched policies as the
models of the seats. The bot is a thin client of :class:`~.engine.BatchedSearch`, which searches many
decisions at once (for training targets); the bot gives it one decision at a time, with its own
generator, so both make the same moves.

At each decision with more than one legal move:

1. **Candidates**: the network's ``candidates`` preferred legal moves: a policy's most probable, a
   Q-network's (``dmc``'s kind) highest valued.
2. **Determinizations**: ``determinizations`` deals that agree with what the seat's observation
   shows. The seat keeps its own dealt cards (its hand and what it has played); every other seat
   gets what it has played plus a uniform draw, of the size it still holds, from the cards the
   seat cannot see. Two things a careful player could also infer are not used: which suits a seat
   still holds, from the suits the engine picked for its plays (it takes the lowest it holds;
   suits play no part in the rules, and the observation has none), and, under
   ``first_leader="lowest_card"``, that the leader of a table's first hand held the lowest card
   (a seat's view does not say whether its hand is a table's first).
   With inference (``proposals``; ``ppo_search``'s: :data:`~.models.SHIPPED_SEARCH`),
   ``proposals`` such deals are drawn instead and weighed by how well the models explain the other
   seats' past moves on them: replayed, each past move with a choice is scored, for each model,
   ``1 - mismatch`` if the model's move on those cards is the real one and ``mismatch`` if not. A
   deal's weight is, over the other seats, the mean of the models' likelihoods (a uniform prior over
   models); ``determinizations`` deals are drawn by weight and each seat's model from its posterior
   on that deal.
3. **Replay**: every deal is dealt and the hand's history replayed move by move, which reproduces
   the public state, then the table is copied once per candidate; the search checks that every
   replayed deal gives the seat its own observation and refuses to go on otherwise. A deal that could not
   have been played — an instant win the real deal did not have, a forced báo 1 the sampled cards
   would not allow — is dropped; if every deal is dropped the network's move is played.
4. **Rollout**: each copy plays its candidate, then the hand is played to its end: the seat itself
   by the network's preferred legal move, every other seat by a model drawn for it once per
   sampled deal (the same for every candidate), uniformly (or from its posterior) from the network
   and ``opponent_models`` (batched policies: the compiled heuristic, other networks). A candidate's
   value is the seat's mean money from this decision to the end of the hand, over the deals; every
   candidate is scored on the same deals and opponents (common random numbers), so the comparison is
   sharper than the values.
5. The move with the highest value is played; ties go to the network's order.

Why a mix of opponent models: at 4 seats ``ppo_search`` models the other seats by its own network,
``ppo_v1`` and the heuristic (:data:`~.models.SHIPPED_SEARCH`). A search exploits whatever model it is
given, quirks included, and a mix is one way to share fewer quirks with any one opponent; in paired
duplicate trials against heuristic ×3 the mix gained over the network as the only model where the
heuristic alone and the two networks without it did not (the figures and their commands:
docs/results/ppo_search.md#the-models-of-the-other-seats). At other table sizes the network models every seat
(untested mixes are not shipped). The budget matters less than the model: more deals add little to what
the search gains over the network (``experiments/search_convergence.py`` measures it;
docs/results/ppo_search.md#budget-and-cost).

Why inference: uniform deals ignore what the other seats' play says about their cards, the classic
weakness of perfect-information Monte Carlo; weighing deals by how well the models explain that play is
the usual remedy in Skat and Bridge programs. It is shipped at 4 seats, where a paired trial chose it, at
several times the CPU of the uniform search (docs/results/ppo_search.md#inference-from-the-hands-history; the
bot's strength on fresh deals: docs/results/ppo_search.md#against-the-heuristic-and-ppo_v1).

The bot reads only its own view (``SeatView``: its hand, the public history), never the other
hands; its opponents need not be any of its models. Its decisions depend on its seed (the sampled
deals and the drawn models), so a seeded bot is reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sam_env.bot import Bot
from sam_env.core import N_COMBOS, SeatView
from sam_env.utils.deprecation import warn_deprecated

from ..networks.catalogue import best_for, shipped_checkpoint
from ..networks.policy.bot import PPOBot
from ..networks.qnet.bot import QBot
from ..networks.qnet.checkpoint import QCheckpoint
from .deals import DecisionPoint
from .models import Network, OpponentModel, ShippedSearch, dmc_search_settings, shipped_search

if TYPE_CHECKING:
    from .engine import BatchedSearch, SearchResult

DMC_SEARCH_NAME = "dmc_search"
"""The registry's search over the recommended Q-network of each table size (:meth:`SearchBot.dmc_search`)."""


class SearchBot(Bot):
    """A network's moves chosen by determinized rollouts (see the module docstring).

    Args:
        checkpoint: the network: the candidates' order, the seat's own play in rollouts and one of
            the models of the other seats; a policy (``PolicyCheckpoint``) or a Q-network (``QCheckpoint``).
        seed: seeds the sampled deals and the drawn opponent models (the bot's generator, used by one
            decision after another).
        determinizations: deals sampled per decision (the cost grows with it; 64 by default).
        opponent_models: models of the other seats in rollouts besides the network, each as likely a
            priori as the network: ``"heuristic"``, a shipped network's name or a checkpoint
            of the same table size (none by default; ``ppo_search``'s: :data:`~.models.SHIPPED_SEARCH`).
        candidates: the network's preferred legal moves that are scored (8 by default).
        proposals: with inference, the uniform deals weighed by the hand's history, of which the
            ``determinizations`` are drawn (0 by default: no inference, the deals are uniform).
        mismatch: with inference, the probability that a model's move differs from the real one.
        name: the agent's name in reports (default ``"ppo_search"``).
    """

    name = "ppo_search"

    def __init__(
        self,
        checkpoint: Network,
        seed: int | None = None,
        determinizations: int = 64,
        candidates: int = 8,
        *,
        opponent_models: Sequence[OpponentModel] = (),
        proposals: int = 0,
        mismatch: float = 0.1,
        name: str | None = None,
    ) -> None:
        from .engine import BatchedSearch  # compiled code: loaded when a search bot is made, not with the registry

        super().__init__(seed)
        for label, value in (("determinizations", determinizations), ("candidates", candidates)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{label} must be an int >= 1, got {value!r}")
        if isinstance(proposals, bool) or not isinstance(proposals, (int, np.integer)) or proposals < 0:
            raise ValueError(f"proposals must be an int >= 0 (0: no inference), got {proposals!r}")
        self.search: BatchedSearch = BatchedSearch(
            checkpoint,
            determinizations,
            candidates,
            opponent_models=opponent_models,
            proposals=proposals,
            mismatch=mismatch,
            max_tables=max(int(determinizations) * int(candidates), int(proposals)),
        )
        self.network: PPOBot | QBot = QBot(checkpoint) if isinstance(checkpoint, QCheckpoint) else PPOBot(checkpoint)
        """The network as a bot of its own (``network.checkpoint``: its weights)."""
        self.encoding_version = checkpoint.encoding_version
        self.n_players = checkpoint.rules.n_players
        """The only table size the network can play."""
        self.last: SearchResult | None = None
        """The last decision's search: candidates, their values, the move."""
        if name is not None:
            self.name = name

    @classmethod
    def pretrained(cls, network: str = "ppo", seed: int | None = None, *, label: str | None = None) -> SearchBot:
        """Deprecated since 0.4.0, removed in the next release: :meth:`over_shipped`."""
        warn_deprecated("SearchBot.pretrained", "SearchBot.over_shipped (the networks are 'shipped' everywhere)")
        return cls.over_shipped(network, seed, label=label)

    @classmethod
    def over_shipped(
        cls,
        network: str = "ppo",
        seed: int | None = None,
        *,
        label: str | None = None,
        settings: ShippedSearch | None = None,
    ) -> SearchBot:
        """The registry's ``ppo_search``: search over a shipped network (a policy, or a Q-network such as
        ``dmc_v2``), with the models and inference of ``settings`` (default: ``ppo_search``'s,
        :func:`~.models.shipped_search`, for its table size; ``label``: the name in reports, default
        ``"ppo_search"``)."""
        checkpoint = shipped_checkpoint(network)
        shipped = settings if settings is not None else shipped_search(checkpoint.rules.n_players)
        return cls(
            checkpoint, seed=seed, opponent_models=shipped.opponent_models, proposals=shipped.proposals, name=label
        )

    @classmethod
    def dmc_search(cls, n_players: int = 4, seed: int | None = None) -> SearchBot:
        """The registry's ``dmc_search``: search over the recommended network of the table (``best``, a Q-network
        at every size), with the models and inference of :func:`~.models.dmc_search_settings` for it."""
        return cls.over_shipped(
            best_for(n_players).name, seed, label=DMC_SEARCH_NAME, settings=dmc_search_settings(n_players)
        )

    @property
    def opponent_models(self) -> tuple[OpponentModel, ...]:
        """The models of the other seats in rollouts besides the network, as given."""
        return self.search.opponent_models

    @property
    def determinizations(self) -> int:
        return self.search.determinizations

    @property
    def candidates(self) -> int:
        return self.search.candidates

    @property
    def proposals(self) -> int:
        return self.search.proposals

    @property
    def mismatch(self) -> float:
        return self.search.mismatch

    @property
    def replayed(self) -> int:
        """How many of the last search's ``determinizations`` deals could be replayed (repeats counted)."""
        return 0 if self.last is None else self.last.replayed

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        if not np.any(observation["action_mask"]):
            raise ValueError(f"seat {view.seat} was asked to act with an empty action mask")
        self.last = self.search.search([self._point(observation, view)], [self.rng])[0]
        return self.last.move

    def values(self, observation: np.ndarray, view: SeatView, candidates: np.ndarray | list[int]) -> np.ndarray:
        """``float[len(candidates)]``: each candidate's mean money for the seat from now to the end of
        the hand, over the sampled deals that could be replayed (``-inf`` for all if none could;
        :attr:`replayed` says how many were)."""
        mask = np.zeros(N_COMBOS, dtype=bool)
        mask[list(view.legal)] = True
        point = self._point({"observation": observation, "action_mask": mask}, view)
        self.last = self.search.search([point], [self.rng], candidates=[np.asarray(candidates)])[0]
        return self.last.values

    def deals_and_models(self, view: SeatView) -> tuple[np.ndarray, np.ndarray]:
        """The deals the next search of ``view`` would play (``int64[determinizations, n_players]``
        card masks) and the model of each seat on each (0: the network, always at the seat itself;
        ``m``: ``opponent_models[m - 1]``), drawn from the bot's generator as a search draws them."""
        self._point_rules(view)
        return self.search.deals_and_models(view, self.rng)

    def history_loglik(self, view: SeatView, proposals: np.ndarray) -> np.ndarray:
        """``float[len(proposals), n_players, n_models]``: :meth:`~.engine.BatchedSearch.history_loglik`
        for one decision."""
        self._point_rules(view)
        return self.search.history_loglik([view], [np.asarray(proposals, dtype=np.int64)])[0]

    def _point(self, observation: Mapping[str, np.ndarray], view: SeatView) -> DecisionPoint:
        self._point_rules(view)
        size = np.shape(observation["observation"])[-1]
        if not self.network.reads(size):
            raise ValueError(
                f"{self.name}: an observation of {size} numbers, but the network reads observation encoding "
                f"version {self.network.encoding_version} ({self.network.obs_size} numbers) or a later version"
            )
        return DecisionPoint.of(observation, view)

    def _point_rules(self, view: SeatView) -> None:
        if view.rules.n_players != self.n_players:
            raise ValueError(
                f"{self.name}: a {view.rules.n_players}-player table, but the network plays {self.n_players} players"
            )
