"""The models of the other seats in ``ppo_search``'s rollouts, and which ones it ships with.

Why a module of their own: what stands in for an opponent (the compiled heuristic, a shipped network,
any checkpoint) and how each is checked and made batched is a question apart from how the search uses
them (:mod:`sam_env.agents.search.engine`), and the shipped choice per table size is a measured setting
(docs/results/ppo_search.md) that readers look up on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sam_env.core import RuleConfig

from ..ppo.bot import pretrained_checkpoint, pretrained_names
from ..ppo.checkpoint import PolicyCheckpoint

if TYPE_CHECKING:
    from sam_env.bot import BatchedPolicy

OpponentModel = str | PolicyCheckpoint
"""A model of the other seats in rollouts: ``"heuristic"`` (the heuristic bot, compiled), the name of a
shipped network, or a network's checkpoint (its most probable legal move)."""


@dataclass(frozen=True)
class ShippedSearch:
    """How ``ppo_search`` models the other seats at one table size: the models besides its own network
    (``opponent_models``) and how many proposed deals its inference weighs (``proposals``; 0: none)."""

    opponent_models: tuple[str, ...] = ()
    proposals: int = 0


SHIPPED_SEARCH: dict[int, ShippedSearch] = {4: ShippedSearch(("ppo_v1", "heuristic"), proposals=512)}
"""``ppo_search``'s model of the other seats, per table size (the network alone, without inference,
where none is given: no other was measured there)."""


def shipped_search(n_players: int) -> ShippedSearch:
    """The model of the other seats ``ppo_search`` uses at ``n_players`` seats (:data:`SHIPPED_SEARCH`)."""
    return SHIPPED_SEARCH.get(n_players, ShippedSearch())


def _label(model: OpponentModel) -> str:
    return model if isinstance(model, str) else model.source


def checked_model(model: OpponentModel, n_players: int) -> OpponentModel:
    """``model``, as given, if it is a model that can play ``n_players`` seats; a clear error otherwise."""
    if isinstance(model, str) and model != "heuristic":
        if model not in pretrained_names():
            fitting = [p for p in pretrained_names() if pretrained_checkpoint(p).rules.n_players == n_players]
            raise ValueError(
                f"opponent model {model!r}: expected 'heuristic', a shipped policy network of {n_players} seats "
                f"({', '.join(fitting)}) or a PolicyCheckpoint"
            )
        seats = pretrained_checkpoint(model).rules.n_players
    elif isinstance(model, PolicyCheckpoint):
        seats = model.rules.n_players
    elif model == "heuristic":
        return model
    else:
        raise TypeError(
            f"opponent model: expected 'heuristic', a shipped network's name or a PolicyCheckpoint, got {model!r}"
        )
    if seats != n_players:
        raise ValueError(
            f"opponent model {_label(model)!r} plays {seats} seats; the searched network plays {n_players}"
        )
    return model


def batched_policy(model: OpponentModel, rules: RuleConfig) -> BatchedPolicy:
    """The batched policy of a checked model for these rules: a network compiled
    (:class:`~.network.CompiledNetwork`), or the compiled heuristic, whose tables depend on the rules.
    Imported here: both load numba, which the registry's other bots do not need."""
    from .network import CompiledNetwork

    if isinstance(model, PolicyCheckpoint):
        return CompiledNetwork(model)
    if model != "heuristic":
        return CompiledNetwork(pretrained_checkpoint(model))
    from ..heuristic.compiled import BatchedHeuristic

    return BatchedHeuristic(rules)
