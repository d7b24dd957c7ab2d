"""The base class every bot derives from: a name, its own random generator, one ``act`` method.

Bots implement :class:`sam_env.policy.Policy`. Each owns a ``numpy.random.Generator`` seeded in the
constructor, so a bot's choices never depend on another bot's draws; :meth:`Agent.reseed` lets the
evaluation give every hand its own seed, which makes results independent of how hands are split
across worker processes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np

from sam_env.core import SeatView


class Agent(ABC):
    """A player of the environment, bot or human; subclasses set ``name`` and implement :meth:`act`."""

    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's random generator, e.g. at the start of each evaluated hand."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        """Return a legal action index for the seat described by ``view``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
