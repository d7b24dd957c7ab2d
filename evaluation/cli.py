"""Deprecated: ``sam-eval`` moved to :mod:`apps.evaluate` (removed in the next release)."""

from __future__ import annotations

from apps.evaluate import build_parser, main, plan_matches  # noqa: F401
from sam_env.deprecation import warn_moved

warn_moved(__name__, "apps.evaluate")
