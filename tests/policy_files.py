"""A small random policy checkpoint written on the spot, for the tests of checkpoints, bots and training."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sam_env import RuleConfig
from sam_env.agents.networks.policy.checkpoint import PolicyArch, policy_metadata, save_policy

ROOT = Path(__file__).resolve().parents[1]
TINY_ARCH = PolicyArch(pi=(16,), vf=(8,), activation="tanh")


def write_checkpoint(folder: Path, rules: RuleConfig | None = None, seed: int = 0) -> Path:
    """A random tiny policy saved as ``folder/policy.{json,safetensors}``; returns the JSON path."""
    rules = rules or RuleConfig()
    meta = policy_metadata(rules, TINY_ARCH, {"name": "test"})
    rng = np.random.default_rng(seed)
    shapes = TINY_ARCH.tensor_shapes(meta["observation_shape"][0], meta["n_actions"])
    tensors = {k: rng.normal(0, 0.3, size=s).astype(np.float32) for k, s in shapes.items()}
    return save_policy(folder / "policy", tensors, meta)
