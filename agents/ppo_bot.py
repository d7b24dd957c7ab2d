"""Deprecated: moved to :mod:`agents.ppo.bot` and :mod:`agents.ppo.sb3` (removed in the next release)."""

from __future__ import annotations

from sam_env.deprecation import deprecated_names, warn_moved

from .ppo.bot import PRETRAINED_DIR, PPOBot, pretrained_checkpoint, pretrained_names  # noqa: F401
from .ppo.sb3 import build_policy, policy_kwargs  # noqa: F401

warn_moved(__name__, "agents.ppo.bot (PPOBot) and agents.ppo.sb3 (build_policy, policy_kwargs)")
__getattr__ = deprecated_names(__name__, {"PPOAgent": (PPOBot, "agents.ppo.bot.PPOBot")})
