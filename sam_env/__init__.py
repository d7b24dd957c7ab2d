"""sam-env: Sâm Lốc as a PettingZoo environment.

``sam_env.env(rules=RuleConfig(...))`` is the AEC environment with PettingZoo's standard
wrapper; ``sam_env.raw_env`` the unwrapped class; ``sam_env.core`` the rules engine alone;
``sam_env.load_bot("heuristic" | "ppo" | "path/to/policy.json", seed=..., rules=...)`` any bot.

One installed namespace: the bots are ``sam_env.agents``, duplicate evaluation ``sam_env.evaluation``,
the trainers ``sam_env.training`` (the ``train`` extra) and the command lines ``sam_env.apps``.

The environment layer (``env``, ``raw_env``, ``SingleAgentEnv``, and ``VectorEnv``, the batched
compiled engine) is imported on first use, so that ``import sam_env.core`` (which runs this file
first) loads no pettingzoo, gymnasium, torch or numba: the dependency direction of docs/architecture.md. The
gymnasium id ``sam_env/Sam-v1`` is registered by :mod:`sam_env.single_agent`, where the single-agent
view lives (see :func:`register_gymnasium_id`).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from .bot import BatchedPolicy, Bot, RandomBot
from .concurrent_bot import ConcurrentBot
from .core import (
    CardError,
    DealError,
    EndReason,
    HandResult,
    IllegalMoveError,
    Reason,
    RuleConfig,
    RuleConfigError,
    SeatView,
    Table,
    Transfer,
)
from .encoding import ENCODING_VERSION, N_ACTIONS, action_index, action_name
from .utils.checkout import serve_checkout_subpackages

# At the top of a source checkout Python imports the checkout's sam_env/, whatever is installed: its sibling
# folders agents/, evaluation/, ... then serve as sam_env.agents, ... (sam_env.utils.checkout).
serve_checkout_subpackages(Path(__file__).parent)

GYMNASIUM_ID = "sam_env/Sam-v1"
DEPRECATED_GYMNASIUM_IDS = ("sam_env/Sam-v0",)
"""Earlier versions of the id: they build today's view, and gymnasium warns that they are out of date."""

_LAZY = {
    "env": "sam_env.aec_env",
    "raw_env": "sam_env.aec_env",
    "SingleAgentEnv": "sam_env.single_agent",
    "VectorEnv": "sam_env.vector",
    # The bots sit a layer above the environment (docs/architecture.md): the loader is imported on
    # first use, so that ``import sam_env`` stays the environment alone.
    "load_bot": "sam_env.agents.registry",
}


def __getattr__(name: str) -> object:
    """Import the environment layer on first use (PEP 562), then keep it as a plain attribute."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    register_gymnasium_id()
    return value


def register_gymnasium_id() -> None:
    """Register the single-agent view as ``sam_env/Sam-v1`` with gymnasium, if gymnasium is loaded.

    :mod:`sam_env.single_agent` calls this when it is imported (gymnasium's intended way: importing the
    package that holds the environment registers it). So do ``import sam_env`` when gymnasium is
    already imported, and the first use of the environment layer (``sam_env.env``,
    ``sam_env.SingleAgentEnv``). ``import sam_env`` alone never imports gymnasium (``sam_env.core``
    runs this file first); after ``import sam_env; import gymnasium``, use
    ``gymnasium.make("sam_env.single_agent:sam_env/Sam-v1")`` (gymnasium imports the module) or
    ``import sam_env.single_agent``.

    The id is registered with ``on_illegal="penalty"``: an unmasked illegal action ends the hand with
    a penalty and ``info["illegal_action"]`` (see :class:`sam_env.SingleAgentEnv`), which is what
    gymnasium's and SB3's checkers, and algorithms without masks, need. ``SingleAgentEnv()`` built
    directly raises instead. ``sam_env/Sam-v0`` still builds the view, with gymnasium's own
    ``DeprecationWarning`` that a newer version exists (v1: see the CHANGELOG).
    """
    gymnasium = sys.modules.get("gymnasium")
    if gymnasium is None:
        return
    for env_id in (GYMNASIUM_ID, *DEPRECATED_GYMNASIUM_IDS):
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id, entry_point="sam_env.single_agent:SingleAgentEnv", kwargs={"on_illegal": "penalty"}
            )


register_gymnasium_id()

__all__ = [
    "ENCODING_VERSION",
    "N_ACTIONS",
    "BatchedPolicy",
    "Bot",
    "CardError",
    "ConcurrentBot",
    "DealError",
    "EndReason",
    "HandResult",
    "IllegalMoveError",
    "RandomBot",
    "Reason",
    "RuleConfig",
    "RuleConfigError",
    "SeatView",
    "SingleAgentEnv",
    "Table",
    "Transfer",
    "VectorEnv",
    "action_index",
    "action_name",
    "env",
    "load_bot",
    "raw_env",
    "register_gymnasium_id",
]
