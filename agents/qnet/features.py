"""Move features, as the Q-networks read them: :mod:`sam_env.move_features`, in the encoding layer.

They moved there when the policy networks' move-scoring head came to read them too; the names stay
importable from here for the Q-network code (:mod:`.bot`, :mod:`.checkpoint`, the ``dmc`` trainer).
"""

from __future__ import annotations

from sam_env.move_features import (
    FEATURES_VERSION,
    FIXED,
    HAND_AT,
    MAX_KEY,
    N_FEATURES,
    NEEDS,
    OFFSETS,
    SIZE,
    feature_layout,
    fingerprint,
    legal_pairs,
    move_features,
    unary,
)

__all__ = [
    "FEATURES_VERSION",
    "FIXED",
    "HAND_AT",
    "MAX_KEY",
    "NEEDS",
    "N_FEATURES",
    "OFFSETS",
    "SIZE",
    "feature_layout",
    "fingerprint",
    "legal_pairs",
    "move_features",
    "unary",
]
