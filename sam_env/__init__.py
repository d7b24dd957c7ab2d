"""sam-env: Sâm Lốc as a PettingZoo environment.

``sam_env.env(rules=RuleConfig(...))`` is the AEC environment with PettingZoo's standard
wrapper; ``sam_env.raw_env`` the unwrapped class; ``sam_env.core`` the rules engine alone.
"""

import gymnasium

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
from .env import env, raw_env
from .policy import Policy
from .wrappers import SingleAgentEnv

gymnasium.register(id="sam_env/Sam-v0", entry_point="sam_env.wrappers:SingleAgentEnv")

__all__ = [
    "ENCODING_VERSION",
    "N_ACTIONS",
    "CardError",
    "DealError",
    "EndReason",
    "HandResult",
    "IllegalMoveError",
    "Policy",
    "Reason",
    "RuleConfig",
    "RuleConfigError",
    "SeatView",
    "SingleAgentEnv",
    "Table",
    "Transfer",
    "action_index",
    "action_name",
    "env",
    "raw_env",
]
