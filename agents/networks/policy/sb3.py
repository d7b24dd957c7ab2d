"""The SB3 side of the network: what training builds, and the same policy rebuilt from a checkpoint.

torch and sb3-contrib are imported inside the functions, so that playing and evaluating bots (numpy
only, :mod:`.bot`) does not pay for importing them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from sam_env import N_ACTIONS

from .checkpoint import PolicyArch, PolicyCheckpoint

if TYPE_CHECKING:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy


def policy_kwargs(arch: PolicyArch) -> dict[str, Any]:
    """SB3's ``policy_kwargs`` for ``arch``: what training builds and what :func:`build_policy` rebuilds."""
    from torch import nn

    activation = getattr(nn, arch.activation_fn.torch)  # the architecture record's table
    return {"net_arch": {"pi": list(arch.pi), "vf": list(arch.vf)}, "activation_fn": activation}


def build_policy(checkpoint: PolicyCheckpoint) -> MaskableActorCriticPolicy:
    """The sb3-contrib ``MaskableActorCriticPolicy`` of a checkpoint, weights loaded, in eval mode.

    torch and sb3-contrib are imported here rather than at the top so that playing and evaluating
    bots (numpy only) does not pay for importing them.
    """
    if checkpoint.arch.move_head:
        raise ValueError(
            f"{checkpoint.source}: SB3's MaskableActorCriticPolicy has no move-scoring head (move_head = "
            f"{checkpoint.arch.move_head}); play it with PPOBot, train it with "
            "sam_env.agents.networks.policy.network.ActorCritic"
        )
    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = MaskableActorCriticPolicy(
        gym.spaces.Box(0.0, 1.0, (checkpoint.obs_size,), dtype=np.float32),
        gym.spaces.Discrete(N_ACTIONS),
        lr_schedule=lambda _: 0.0,
        **policy_kwargs(checkpoint.arch),
    )
    policy.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in checkpoint.tensors.items()})
    policy.set_training_mode(False)
    return policy
