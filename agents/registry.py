"""Agents by name, so that evaluation workers and command lines can build them from strings.

A registry entry is a factory ``seed -> Agent``. Adding a bot — for instance a pretrained network
loaded by name — is one more entry in ``FACTORIES``.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Agent
from .greedy_bot import GreedyAgent
from .heuristic_bot import HeuristicAgent
from .random_bot import RandomAgent

AgentFactory = Callable[[int | None], Agent]

FACTORIES: dict[str, AgentFactory] = {
    RandomAgent.name: RandomAgent,
    GreedyAgent.name: GreedyAgent,
    HeuristicAgent.name: HeuristicAgent,
}


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
