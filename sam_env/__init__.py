"""sam-env: Sâm Lốc as a PettingZoo environment.

``sam_env.env(rules=RuleConfig(...))`` is the AEC environment with PettingZoo's standard
wrapper; ``sam_env.raw_env`` the unwrapped class; ``sam_env.core`` the rules engine alone.

The environment layer (``env``, ``raw_env``, ``SingleAgentEnv``, and ``VectorEnv``, the batched
compiled engine) is imported on first use, so
that ``import sam_env.core`` (which runs this file first) loads no pettingzoo, gymnasium, torch
or numba: the dependency direction of STYLE.md. The gymnasium id ``sam_env/Sam-v0`` is registered
as soon as both ``sam_env`` and gymnasium are imported, in either order.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

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
from .policy import Policy

GYMNASIUM_ID = "sam_env/Sam-v0"

_LAZY = {
    "env": "sam_env.aec_env",
    "raw_env": "sam_env.aec_env",
    "SingleAgentEnv": "sam_env.wrappers",
    "VectorEnv": "sam_env.vector",
}


def __getattr__(name: str) -> object:
    """Import the environment layer on first use (PEP 562), then keep it as a plain attribute."""
    if name not in _LAZY:
        raise AttributeError(f"module 'sam_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def _register(gymnasium: types.ModuleType) -> None:
    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(id=GYMNASIUM_ID, entry_point="sam_env.wrappers:SingleAgentEnv")


class _RegisterWhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """Registers the gymnasium id right after gymnasium is first imported, wherever from."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            loader = spec.loader
            exec_module = loader.exec_module

            def exec_and_register(module: types.ModuleType) -> None:
                loader.exec_module = exec_module  # once only, should the loader be shared
                exec_module(module)
                _register(module)

            loader.exec_module = exec_and_register
        return spec


if "gymnasium" in sys.modules:
    _register(sys.modules["gymnasium"])
elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())

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
    "VectorEnv",
    "action_index",
    "action_name",
    "env",
    "raw_env",
]
