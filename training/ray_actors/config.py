"""Deprecated since 0.4.0, removed in the next release: ``RayConfig`` is
:class:`~sam_env.training.batched.config.BatchedConfig` with ``tables: ray`` (:mod:`sam_env.training.tables`)."""

from __future__ import annotations

from sam_env.utils.deprecation import deprecated_names

from ..batched.config import BatchedConfig

__getattr__ = deprecated_names(
    __name__, {"RayConfig": (BatchedConfig, "sam_env.training.batched.config.BatchedConfig")}
)
