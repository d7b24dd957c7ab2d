"""Deprecated: :class:`LearnerTables` moved to :mod:`sam_env.vector.learner_tables` in 0.3.0 (see the CHANGELOG)."""

from __future__ import annotations

from ..utils.deprecation import warn_deprecated

warn_deprecated("the module sam_env.vector.learner", "sam_env.vector.learner_tables")

from .learner_tables import MAX_OPPONENT_ROUNDS, LearnerTables  # noqa: E402

__all__ = ["MAX_OPPONENT_ROUNDS", "LearnerTables"]
