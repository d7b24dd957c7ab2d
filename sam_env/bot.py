"""``Bot``: the one name and the one calling convention for anything that picks an action.

``bot.act(observation, view) -> action index``: ``observation`` is the environment's observation
dict (``"observation"`` and ``"action_mask"`` arrays) for networks, ``view`` the same decision
point as plain domain values (:class:`~sam_env.core.SeatView`) for rule-based bots, so neither has
to decode the other's format. The returned index must be legal.

It lives beside the environment (not in ``agents/``) so that the single-agent view can seat bots
as opponents without importing them: the dependency stays ``agents → sam_env``. Deriving from it
gives a bot a name and its own random generator (:meth:`Bot.reseed` lets an evaluation seed every
hand, so results do not depend on how hands are split across processes); any object with a
suitable ``act`` method also counts as a ``Bot`` for ``isinstance`` (like ``collections.abc``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np

from .core.view import SeatView


class Bot(ABC):
    """Picks an action for the seat to act; subclasses set ``name`` and implement :meth:`act`."""

    name: str = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        """Restart the bot's random generator, e.g. at the start of each evaluated hand."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        """Return a legal action index for the seat described by ``view``."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if cls is Bot:
            return any(callable(vars(base).get("act")) for base in other.__mro__) or NotImplemented
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
