"""Deprecated: ``sam_env.policy.Policy`` is :class:`sam_env.bot.Bot` (removed in the next release)."""

from __future__ import annotations

from .bot import Bot
from .deprecation import deprecated_names

__getattr__ = deprecated_names(__name__, {"Policy": (Bot, "sam_env.Bot")})
