"""Deprecated: moved to :mod:`agents.ppo.checkpoint` (removed in the next release)."""

from __future__ import annotations

from sam_env.deprecation import warn_moved

from .ppo.checkpoint import (  # noqa: F401  (re-exported under the old path)
    ACTIVATIONS,
    FORMAT,
    FORMAT_VERSION,
    CheckpointError,
    PolicyArch,
    PolicyCheckpoint,
    add_fingerprint,
    checkpoint_files,
    copy_policy,
    load_policy,
    policy_metadata,
    read_metadata,
    save_policy,
)

warn_moved(__name__, "agents.ppo.checkpoint")
