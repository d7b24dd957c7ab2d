"""The held-out panel: rule-based bots of other styles than the heuristic's, never seated in training.

A network trained against the heuristic can learn the heuristic's weaknesses instead of the game.
The panel measures that: bots that play competently but differently, that no training config may
seat as an opponent (``sam_env.training.config`` refuses them), met only in evaluation. ``sam-eval --panel``
reports a bot's margin against each of them beside the heuristic's own margin, and the difference,
its *generalization margin* (docs/panel.md).

* ``panel_shedder`` (:mod:`.shedder`): sheds its biggest combinations first, answers whenever it can;
* ``panel_hoarder`` (:mod:`.hoarder`): keeps 2s and quads to the end, chops whenever it can;
* ``panel_chopper`` (:mod:`.chopper`): beats whatever it can, hunts the seat with the fewest cards;
* ``panel_cautious`` (:mod:`.cautious`): passes unless an answer is free, leads low, cashes at the end;
* ``panel_noisy`` (:mod:`.noisy`): the heuristic with one move in seven uniformly random.

All but the noisy one share :mod:`.base`: the rules of the game a competent player never breaks.
"""

from __future__ import annotations

from collections.abc import Callable

from sam_env.bot import Bot

from .cautious import CautiousBot
from .chopper import ChopperBot
from .hoarder import HoarderBot
from .noisy import NoisyHeuristicBot
from .shedder import ShedderBot

PANEL_BOTS: dict[str, Callable[[int | None], Bot]] = {
    bot.name: bot for bot in (ShedderBot, HoarderBot, ChopperBot, CautiousBot, NoisyHeuristicBot)
}
"""Registry factories (``seed -> Bot``) of the panel, by name."""

PANEL: tuple[str, ...] = tuple(PANEL_BOTS)
"""The registry names of the panel bots, the one list every check and report reads."""


def is_panel_bot(name: object) -> bool:
    """Whether ``name`` is the registry name of a panel bot."""
    return isinstance(name, str) and name in PANEL_BOTS


__all__ = [
    "PANEL",
    "PANEL_BOTS",
    "CautiousBot",
    "ChopperBot",
    "HoarderBot",
    "NoisyHeuristicBot",
    "ShedderBot",
    "is_panel_bot",
]
