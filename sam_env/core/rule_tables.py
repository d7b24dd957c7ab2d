"""Deprecated: the rule masks moved to :mod:`sam_env.core.rule_masks` in 0.3.0 (see the CHANGELOG):
``RuleTables`` is ``RuleMasks`` and ``rule_tables`` is ``rule_masks``. Both still read from here for one
release, with a ``DeprecationWarning`` naming the new one.
"""

from __future__ import annotations

from ..utils.deprecation import deprecated_names
from .rule_masks import RuleMasks, rule_masks

__getattr__ = deprecated_names(
    __name__,
    {
        "RuleTables": (RuleMasks, "sam_env.core.rule_masks.RuleMasks"),
        "rule_tables": (rule_masks, "sam_env.core.rule_masks.rule_masks"),
    },
)
