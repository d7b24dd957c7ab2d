"""Agents by name, so that evaluation workers and command lines can build them from strings.

A registry entry is a factory ``seed -> Agent``. Adding a bot — for instance a pretrained network
loaded by name — is one more entry in ``FACTORIES``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from sam_env.core import RuleConfig

from .base import Agent
from .greedy_bot import GreedyAgent
from .heuristic_bot import HeuristicAgent
from .ppo_bot import PPOAgent, pretrained_names
from .random_bot import RandomAgent

AgentFactory = Callable[[int | None], Agent]

FACTORIES: dict[str, AgentFactory] = {
    RandomAgent.name: RandomAgent,
    GreedyAgent.name: GreedyAgent,
    HeuristicAgent.name: HeuristicAgent,
}
# The pretrained networks shipped in agents/pretrained, by file stem ("ppo").
FACTORIES.update({name: partial(PPOAgent.pretrained, name) for name in pretrained_names()})


class UnknownAgentError(ValueError):
    """An agent name that the registry does not know."""


def available() -> list[str]:
    """Names :func:`make_agent` accepts, sorted."""
    return sorted(FACTORIES)


def check_names(names: list[str] | tuple[str, ...]) -> None:
    """Raise :class:`UnknownAgentError` naming every unknown agent and listing the known ones."""
    unknown = [n for n in names if n not in FACTORIES]
    if unknown:
        raise UnknownAgentError(
            f"unknown agent name(s) {', '.join(map(repr, unknown))}; known agents: {', '.join(available())}"
        )


def make_agent(name: str, seed: int | None = None) -> Agent:
    """Build the agent registered as ``name``, with its own generator seeded by ``seed``."""
    check_names([name])
    return FACTORIES[name](seed)


def register(name: str, factory: AgentFactory, replace: bool = False) -> None:
    """Add an agent under ``name`` (e.g. a policy being trained, so that an evaluation can seat it).

    Evaluation workers see it only when they are forked from this process after the call.
    """
    if name in FACTORIES and not replace:
        raise ValueError(f"an agent named {name!r} is already registered")
    FACTORIES[name] = factory


def load_bot(name: str | os.PathLike[str], seed: int | None = None) -> Agent:
    """A bot ready to play: a registered name (``"ppo"``, ``"heuristic"`` …) or a checkpoint's path.

    A path names a policy checkpoint written by ``train.py`` (``.../policy.json``, its
    ``.safetensors`` or their common stem); its metadata is checked against this sam-env before use.
    """
    if isinstance(name, os.PathLike):
        return PPOAgent.from_checkpoint(name, seed=seed, name=os.fspath(name))
    if not isinstance(name, str):
        raise TypeError(
            f"load_bot takes an agent name ({', '.join(available())}) or a checkpoint path, "
            f"got {type(name).__name__} {name!r}"
        )
    if name not in FACTORIES and (name.endswith((".json", ".safetensors")) or Path(name + ".json").is_file()):
        return PPOAgent.from_checkpoint(name, seed=seed, name=name)
    return make_agent(name, seed)


def can_play(name: str, rules: RuleConfig) -> bool:
    """Whether the agent can sit at a table with these rules.

    Rule-based bots play every table; a network only fits the seat count it was trained for (its
    observation layout depends on it), and refuses other tables with an error when asked to act.
    """
    n_players = getattr(load_bot(name), "n_players", None)
    return n_players is None or n_players == rules.n_players
