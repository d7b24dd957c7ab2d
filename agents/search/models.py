"""The models of the other seats in ``ppo_search``'s rollouts, and which ones it ships with.

Why a module of their own: what stands in for an opponent (the compiled heuristic, a shipped network,
any checkpoint) and how each is checked and made batched is a question apart from how the search uses
them (:mod:`sam_env.agents.search.engine`), and the shipped choice per table size is a measured setting
(docs/results/ppo_search.md) that readers look up on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sam_env.core import RuleConfig

from ..networks.catalogue import shipped_checkpoint, shipped_names
from ..networks.policy.checkpoint import PolicyCheckpoint
from ..networks.qnet.bot import QBot
from ..networks.qnet.checkpoint import QCheckpoint

if TYPE_CHECKING:
    from sam_env.bot import BatchedPolicy

    from .network import CompiledNetwork
    from .qnetwork import CompiledQNetwork

Network = PolicyCheckpoint | QCheckpoint
"""A network a search can rank its candidates by and roll out with: a policy (its logits) or a Q-network
(its values); either plays its preferred legal move."""
OpponentModel = str | Network
"""A model of the other seats in rollouts: ``"heuristic"`` (the heuristic bot, compiled), the name of a
shipped network, or a network's checkpoint (its preferred legal move: a policy's most probable, a
Q-network's highest valued)."""


@dataclass(frozen=True)
class ShippedSearch:
    """How a shipped search (``ppo_search``, ``dmc_search``) models the other seats at one table size: the models
    besides its own network
    (``opponent_models``) and how many proposed deals its inference weighs (``proposals``; 0: none)."""

    opponent_models: tuple[str, ...] = ()
    proposals: int = 0


SHIPPED_SEARCH: dict[int, ShippedSearch] = {4: ShippedSearch(("ppo_v1", "heuristic"), proposals=512)}
"""``ppo_search``'s model of the other seats, per table size (the network alone, without inference,
where none is given: no other was measured there)."""


def shipped_search(n_players: int) -> ShippedSearch:
    """The model of the other seats ``ppo_search`` uses at ``n_players`` seats (:data:`SHIPPED_SEARCH`)."""
    return SHIPPED_SEARCH.get(n_players, ShippedSearch())


DMC_SEARCH: dict[int, ShippedSearch] = {4: ShippedSearch(("heuristic",), proposals=512)}
"""``dmc_search``'s model of the other seats, per table size, beside the recommended Q-network it searches over
(chosen in a paired trial at 4 seats: docs/results/dmc_search.md#choosing-the-models; the network alone, without
inference, where none is given: no other was measured there)."""


def dmc_search_settings(n_players: int) -> ShippedSearch:
    """The model of the other seats ``dmc_search`` uses at ``n_players`` seats (:data:`DMC_SEARCH`)."""
    return DMC_SEARCH.get(n_players, ShippedSearch())


def _label(model: OpponentModel) -> str:
    return model if isinstance(model, str) else model.source


def checked_model(model: OpponentModel, n_players: int) -> OpponentModel:
    """``model``, as given, if it is a model that can play ``n_players`` seats; a clear error otherwise."""
    if model == "heuristic":
        return model
    if isinstance(model, str):
        if model not in shipped_names():
            fitting = [p for p in shipped_names() if shipped_checkpoint(p).rules.n_players == n_players]
            raise ValueError(
                f"opponent model {model!r}: expected 'heuristic', a shipped network of {n_players} seats "
                f"({', '.join(fitting)}), a PolicyCheckpoint or a QCheckpoint"
            )
        seats = shipped_checkpoint(model).rules.n_players
    elif isinstance(model, Network):
        seats = model.rules.n_players
    else:
        raise TypeError(
            "opponent model: expected 'heuristic', a shipped network's name, a PolicyCheckpoint or a QCheckpoint, "
            f"got {model!r}"
        )
    if seats != n_players:
        raise ValueError(
            f"opponent model {_label(model)!r} plays {seats} seats; the searched network plays {n_players}"
        )
    return model


def network_policy(network: Network) -> CompiledNetwork | CompiledQNetwork | QBot:
    """A network as a batched policy, compiled where it can be: a policy (:class:`~.network.CompiledNetwork`), a
    ``dmc`` Q-network (:class:`~.qnetwork.CompiledQNetwork`); a ``dqn`` Q-network as
    :class:`~sam_env.agents.networks.qnet.bot.QBot` (numpy)."""
    from .network import CompiledNetwork
    from .qnetwork import CompiledQNetwork

    if isinstance(network, QCheckpoint):
        return CompiledQNetwork(network) if network.arch.kind == "dmc" else QBot(network)
    return CompiledNetwork(network)


def move_scores(
    policy: CompiledNetwork | CompiledQNetwork | QBot, observations: np.ndarray, masks: np.ndarray
) -> np.ndarray:
    """``float32[k, 201]``: what a network prefers its legal moves by (a policy's logits, a Q-network's
    values; ``-inf`` at the illegal moves), the order in which a search takes its candidates."""
    from .network import CompiledNetwork

    if isinstance(policy, CompiledNetwork):
        return policy.logits(observations, masks)
    return policy.legal_values(observations, masks)


def batched_policy(model: OpponentModel, rules: RuleConfig) -> BatchedPolicy:
    """The batched policy of a checked model for these rules: a network (:func:`network_policy`), or the
    compiled heuristic, whose tables depend on the rules. Imported here: both load numba, which the
    registry's other bots do not need."""
    if model != "heuristic":
        return network_policy(model if isinstance(model, Network) else shipped_checkpoint(model))
    from ..heuristic.compiled import BatchedHeuristic

    return BatchedHeuristic(rules)
