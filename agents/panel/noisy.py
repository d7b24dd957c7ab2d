"""The noisy heuristic: the heuristic bot, but one move in ``EPSILON`` is uniformly random.

The heuristic is deterministic, so a network trained against it can learn *its* habits — where it
passes, what it keeps — instead of the game. The noisy heuristic plays the same plans with
mistakes in them: at a play-phase decision with a choice, with probability ``EPSILON`` it picks
uniformly among the legal actions (passes included). Sâm stays the heuristic's — the decision to
declare, the declarer's plays and the blocks: a random declaration is blocked almost every time,
and a random pass lets a Sâm through; either would make this bot a Sâm donor, not a player.
The draws come from the bot's own generator (:meth:`~sam_env.bot.Bot.reseed`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sam_env.bot import Bot
from sam_env.core import Phase, SeatView

from .analysis import HeuristicBot

EPSILON = 0.15
"""Chance that a decision with a choice, outside Sâm, is a uniformly random legal action."""


class NoisyHeuristicBot(Bot):
    """The heuristic with ε-random moves (ε = ``EPSILON``)."""

    name = "panel_noisy"

    def __init__(self, seed: int | None = None, epsilon: float = EPSILON) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be a probability in [0, 1], got {epsilon!r}")
        super().__init__(seed)
        self.epsilon = epsilon
        self.heuristic = HeuristicBot()

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        noisy = view.phase is Phase.PLAY and view.sam_declarer is None and len(view.legal) > 1
        if noisy and self.rng.random() < self.epsilon:
            return int(view.legal[self.rng.integers(len(view.legal))])
        return self.heuristic.act(observation, view)
