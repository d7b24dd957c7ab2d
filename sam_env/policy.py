"""The one interface every player of the environment implements, bots and humans alike.

It lives beside the environment (not in ``agents/``) so that the single-agent view can take
opponents without importing the bots: the dependency stays ``agents → sam_env``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import numpy as np

from .core.view import SeatView


@runtime_checkable
class Policy(Protocol):
    """Chooses an action index for the seat to act.

    ``observation`` is the environment's observation dict (``"observation"`` and
    ``"action_mask"`` arrays); ``view`` is the same decision point as plain domain values, for
    rule-based bots that should not decode tensors. The returned index must be legal.
    """

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int: ...
