"""The learner's weights in our checkpoint format, for ``load_bot``, ``sam-eval`` and ``sam-play``.

The RLModule (:mod:`sam_env.training.rllib.module`) names its parameters as sb3-contrib's
``MaskableActorCriticPolicy`` does, so the export is the state dict itself; ``save_policy`` then
checks every name and shape against
:meth:`sam_env.agents.networks.policy.checkpoint.PolicyArch.tensor_shapes` and refuses
anything else, so a drift between the two networks fails at export, not when a bot plays.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from sam_env import RuleConfig
from sam_env.agents.networks.policy.checkpoint import PolicyArch, policy_metadata, save_policy

from ..checkpoints import written_whole


@written_whole
def export_policy(
    folder: Path,
    state: Mapping[str, Any],
    rules: RuleConfig,
    arch: PolicyArch,
    training: Mapping[str, Any],
    **extra: Any,
) -> Path:
    """Write ``folder/policy.safetensors`` + ``policy.json`` from a learner state dict; return the JSON path."""
    tensors = {name: np.asarray(value, dtype=np.float32) for name, value in state.items()}
    return save_policy(folder / "policy", tensors, policy_metadata(rules, arch, training, **extra))
