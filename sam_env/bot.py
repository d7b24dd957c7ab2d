"""``Bot`` and ``BatchedPolicy``: the two shapes of anything that picks actions, one decision or a batch.

``bot.act(observation, view) -> action index``: ``observation`` is the environment's observation
dict (``"observation"`` and ``"action_mask"`` arrays) for networks, ``view`` the same decision
point as plain domain values (:class:`~sam_env.core.SeatView`) for rule-based bots, so neither has
to decode the other's format. The returned index must be legal.

``policy(observations, action_masks) -> actions``: a :class:`BatchedPolicy` decides for many seats
at once, from their observation rows alone (what :class:`sam_env.VectorEnv` gives), in one forward
pass or one compiled call. A bot may be both: :class:`RandomBot`, the one random player, is.

It lives beside the environment (not in ``agents/``) so that the single-agent view can seat bots
as opponents without importing them: the dependency stays ``agents → sam_env``. Deriving from it
gives a bot a name and its own random generator (:meth:`Bot.reseed` lets an evaluation seed every
hand, so results do not depend on how hands are split across processes); any object with a
suitable ``act`` method also counts as a ``Bot`` for ``isinstance`` (like ``collections.abc``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

import numpy as np

from .core.view import SeatView
from .encoding import ENCODING_VERSION


class Bot(ABC):
    """Picks an action for the seat to act; subclasses set ``name`` and implement :meth:`act`.

    ``encoding_version``: the observation encoding the bot reads (:data:`sam_env.encoding.ENCODING_VERSIONS`);
    a network sets its checkpoint's, and a table seating it is built with at least that version
    (:func:`table_encoding_version`). Rule-based bots read the view and leave it at 1.
    """

    name: str = "bot"
    encoding_version: int = ENCODING_VERSION

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


def table_encoding_version(bots: Iterable[object]) -> int:
    """The observation encoding a table seating ``bots`` gives them: the latest any of them reads.

    Every version extends the one before it, so the others read the prefix they were made for.
    """
    return max((int(getattr(bot, "encoding_version", ENCODING_VERSION)) for bot in bots), default=ENCODING_VERSION)


@runtime_checkable
class BatchedPolicy(Protocol):
    """Picks a legal action for each of ``k`` seats at once (the VectorEnv adapters' opponents, the
    batched trainer's and the search's models of the other seats).

    ``observations``: ``float32[k, obs_dim]``, each row a seat's own observation; ``action_masks``:
    ``bool[k, N_ACTIONS]``; returns ``int[k]`` legal actions.
    """

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray: ...


class RandomBot(Bot):
    """Uniform over the legal actions, passes and Sâm decisions included: the floor every bot must beat.

    One random player for every use: a :class:`Bot` (:meth:`act`, one decision) and a
    :class:`BatchedPolicy` (called on a batch: each row's ``⌊u·k⌋``-th of its ``k`` legal actions for a
    uniform ``u``, in compiled code), both drawing from the bot's own generator.
    """

    name = "random"

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} was asked to act with an empty action mask")
        return int(self.rng.choice(legal))

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        from .vector.batch import pick_legal  # compiled (numba): loaded when a batch first needs it

        masks = np.ascontiguousarray(action_masks)
        actions = np.empty(len(masks), dtype=np.int64)
        pick_legal(masks, self.rng.random(len(masks)), actions)
        return actions
