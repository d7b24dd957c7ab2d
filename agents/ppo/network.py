"""The network in torch: the one builder of the actor-critic every trainer trains, laid out as SB3's.

:class:`ActorCritic` is sb3-contrib's ``MaskableActorCriticPolicy`` without SB3: the same modules
under the same names (:class:`~.checkpoint.PolicyArch` holds them: ``mlp_extractor.policy_net.<2i>``,
``action_net``, ``mlp_extractor.value_net.<2i>``, ``value_net``), the same activation (the record's
table) and SB3's initialisation, so its state dict is a checkpoint's tensors as they are. The
batched trainer (:mod:`sam_env.training.batched.network`) and the RLlib module (:mod:`sam_env.training.rllib.module`)
are built with it; the numpy player (:mod:`.bot`) and SB3's policy (:mod:`.sb3`) read the same names,
and ``tests/agents/test_network.py`` holds all of them to the same outputs.

torch is imported here; playing and evaluating bots (numpy only) never import this module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch
from torch import nn

from .checkpoint import ACTIVATIONS, PolicyArch, PolicyCheckpoint

INIT_GAINS = {"mlp_extractor": math.sqrt(2), "action_net": 0.01, "value_net": 1.0}
"""SB3's orthogonal initialisation: √2 in the hidden layers, 0.01 for the action logits (so the
untrained policy is near uniform over the legal moves), 1 for the value."""


def mlp(sizes: tuple[int, ...], inputs: int, activation: str) -> nn.Sequential:
    """A head's hidden layers as SB3 builds them: ``Linear, activation`` per layer (the indices its names use)."""
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(inputs, size), getattr(nn, ACTIVATIONS[activation].torch)()]
        inputs = size
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Separate policy and value MLPs over the flat observation (no shared layers), as SB3 builds them.

    A fresh network has torch's default initialisation; :meth:`init_like_sb3` gives it SB3's (what
    training starts from), and :meth:`load_tensors` a checkpoint's weights. ``critic=False`` builds
    the actor alone (a frozen opponent needs only logits).
    """

    def __init__(self, arch: PolicyArch, obs_size: int, n_actions: int, *, critic: bool = True) -> None:
        super().__init__()
        self.arch = arch
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = mlp(arch.pi, obs_size, arch.activation)
        if critic:
            self.mlp_extractor.value_net = mlp(arch.vf, obs_size, arch.activation)
        self.action_net = nn.Linear(arch.pi[-1], n_actions)
        if critic:
            self.value_net = nn.Linear(arch.vf[-1], 1)

    @classmethod
    def fresh(cls, arch: PolicyArch, obs_size: int, n_actions: int) -> ActorCritic:
        """A network to train from scratch, initialised as SB3 does."""
        net = cls(arch, obs_size, n_actions)
        net.init_like_sb3()
        return net

    @classmethod
    def of(cls, checkpoint: PolicyCheckpoint, *, critic: bool = True) -> ActorCritic:
        """The network of a checkpoint, its weights loaded (the actor alone without ``critic``)."""
        n_actions = checkpoint.tensors[f"{PolicyArch.POLICY.out}.bias"].shape[0]
        net = cls(checkpoint.arch, checkpoint.obs_size, n_actions, critic=critic)
        own = net.state_dict().keys()
        net.load_tensors({k: v for k, v in checkpoint.tensors.items() if k in own})
        return net

    @torch.no_grad()
    def init_like_sb3(self) -> None:
        """Orthogonal weights with SB3's gains (:data:`INIT_GAINS`), zero biases, module by module."""
        for name, gain in INIT_GAINS.items():
            for layer in getattr(self, name).modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    nn.init.zeros_(layer.bias)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked action logits."""
        return self.action_net(self.mlp_extractor.policy_net(obs))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(self.mlp_extractor.value_net(obs)).squeeze(-1)

    def tensors(self) -> dict[str, np.ndarray]:
        """The state dict as float32 numpy copies: what :func:`~.checkpoint.save_policy` writes."""
        return numpy_state(self)

    def load_tensors(self, tensors: Mapping[str, np.ndarray]) -> None:
        """Load a state dict of numpy arrays, every tensor by name (strict, as ``load_state_dict``)."""
        device = next(self.parameters()).device
        self.load_state_dict({k: torch.from_numpy(np.array(v)).to(device) for k, v in tensors.items()})


def numpy_state(module: nn.Module) -> dict[str, np.ndarray]:
    """A module's state dict as float32 numpy copies (checkpoints are written from numpy)."""
    return {k: v.detach().cpu().numpy().astype(np.float32, copy=True) for k, v in module.state_dict().items()}
