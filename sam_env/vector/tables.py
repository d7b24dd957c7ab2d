"""Deprecated: the compiled engine's arrays and column indices moved to :mod:`sam_env.vector.layout` in 0.3.0
(see the CHANGELOG): a "table" is a game at which seats play, and these are the layout of its state.

Importing this module still works for one release, with a ``DeprecationWarning``.
"""

from __future__ import annotations

from ..utils.deprecation import warn_deprecated

warn_deprecated("the module sam_env.vector.tables", "sam_env.vector.layout")

from .layout import *  # noqa: E402, F403
