"""Deprecated: the single-agent view moved to :mod:`sam_env.single_agent` in 0.3.0 (see the CHANGELOG).

Importing this module still works for one release, with a ``DeprecationWarning``, and registers the
gymnasium id as before (``gymnasium.make("sam_env.wrappers:sam_env/Sam-v1")``).
"""

from __future__ import annotations

from .utils.deprecation import warn_deprecated

warn_deprecated("the module sam_env.wrappers", "sam_env.single_agent")

from .single_agent import MAX_REDEALS, LegalDiscrete, MaskInObservation, SingleAgentEnv  # noqa: E402

__all__ = ["MAX_REDEALS", "LegalDiscrete", "MaskInObservation", "SingleAgentEnv"]
