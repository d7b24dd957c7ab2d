"""The greedy bot: always plays its lowest legal combination, never passes when it can play.

"Lowest" means fewest cards first, then the lowest key of the combination table (the rank for
singles, pairs, triples and quads; the highest position for straights), then the lower action id.
So it sheds a small single before a pair, a pair before a straight, and chops a 2 with its lowest
quad. It declines Sâm. :class:`BatchedGreedy` makes the same moves for a batch of ``VectorEnv`` rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sam_env.bot import Bot
from sam_env.core import COMBOS, Kind, SeatView
from sam_env.core.combos import DECLINE_SAM, PASS


def lowness(action: int) -> tuple[int, int, int]:
    """Sort key of a combination: fewest cards, then lowest key, then lowest id."""
    combo = COMBOS[action]
    return combo.size, combo.key, combo.id


class GreedyBot(Bot):
    """Sheds its lowest legal combination at every turn; deterministic."""

    name = "greedy"

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        if DECLINE_SAM in view.legal:
            return DECLINE_SAM
        plays = [a for a in view.legal if COMBOS[a].kind >= Kind.SINGLE]
        if plays:
            return min(plays, key=lowness)
        if PASS in view.legal:
            return PASS
        raise ValueError(f"seat {view.seat} was asked to act with no legal action")


_PLAYS = [c.id for c in COMBOS if c.kind >= Kind.SINGLE]
GREEDY_ORDER = np.full(len(COMBOS), len(COMBOS), dtype=np.int64)
"""Each combination's place in the greedy bot's order of preference (:func:`lowness`); not a play: last."""
GREEDY_ORDER[sorted(_PLAYS, key=lowness)] = np.arange(len(_PLAYS))
GREEDY_ORDER.flags.writeable = False


class BatchedGreedy:
    """:class:`GreedyBot`'s moves for ``k`` seats at once, from their masks alone: a batched policy
    (``policy(observations, action_masks) -> actions``), for trainers that seat it on ``VectorEnv`` tables."""

    name = "greedy"

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        ranked = np.where(masks, GREEDY_ORDER, len(COMBOS))
        actions = np.argmin(ranked, axis=1)
        actions[ranked[np.arange(len(masks)), actions] == len(COMBOS)] = PASS
        actions[masks[:, DECLINE_SAM]] = DECLINE_SAM
        return actions
