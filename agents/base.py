"""Deprecated: ``agents.base.Agent`` is :class:`sam_env.Bot` (removed in the next release)."""

from __future__ import annotations

from sam_env.bot import Bot
from sam_env.deprecation import deprecated_names

__getattr__ = deprecated_names(__name__, {"Agent": (Bot, "sam_env.Bot")})
