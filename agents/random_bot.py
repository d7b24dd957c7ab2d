"""The random bot: uniform over the legal actions, passes and Sâm decisions included."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sam_env.bot import Bot
from sam_env.core import SeatView
from sam_env.deprecation import deprecated_names


class RandomBot(Bot):
    """Picks uniformly among the actions the mask allows: the floor every bot must beat."""

    name = "random"

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} was asked to act with an empty action mask")
        return int(self.rng.choice(legal))


__getattr__ = deprecated_names(__name__, {"RandomAgent": (RandomBot, "agents.random_bot.RandomBot")})
