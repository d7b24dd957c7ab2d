"""Deprecated: ``sam-play`` moved to :mod:`apps.play` (``python -m apps.play``; removed in the next release)."""

from __future__ import annotations

import sys

from apps.play import build_parser, main  # noqa: F401
from sam_env.deprecation import warn_moved

warn_moved(__name__, "apps.play")

if __name__ == "__main__":
    sys.exit(main())
