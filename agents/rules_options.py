"""Deprecated: moved to :mod:`apps.options` (removed in the next release)."""

from __future__ import annotations

from apps.options import add_rules_arguments, check_bots, load_rules_file, opponent_lineup, rules_from_args  # noqa: F401
from sam_env.deprecation import warn_moved

warn_moved(__name__, "apps.options")
