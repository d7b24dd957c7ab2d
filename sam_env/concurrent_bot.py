"""``ConcurrentBot``: a bot that answers many decisions at once, each from its own view.

A bot that waits on a server — a language model behind an HTTP endpoint (:mod:`sam_env.agents.llm`) — spends
its time waiting, not computing, so it should have many requests in flight. An evaluation plays a group of hands
in lockstep (as it does for a :class:`~sam_env.bot.BatchedPolicy`, :mod:`sam_env.evaluation.lockstep`) and hands
such a bot every decision waiting for it in one :meth:`ConcurrentBot.act_many` call, which may answer them
concurrently. Each answer must depend on its own decision alone, so that the results are those of one hand at a
time, whatever the grouping.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence

import numpy as np

from .bot import Bot
from .core.view import SeatView


class ConcurrentBot(Bot):
    """Answers many decisions at once (see the module docstring); :meth:`act` is a batch of one."""

    @abstractmethod
    def act_many(self, observations: Sequence[Mapping[str, np.ndarray]], views: Sequence[SeatView]) -> list[int]:
        """A legal action index for each decision, in order."""

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        return self.act_many([observation], [view])[0]
