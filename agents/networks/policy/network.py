"""The network in torch: the one builder of the actor-critic every trainer trains, laid out as SB3's.

:class:`ActorCritic` is sb3-contrib's ``MaskableActorCriticPolicy`` without SB3: the same modules
under the same names (:class:`~.checkpoint.PolicyArch` holds them: ``mlp_extractor.policy_net.<2i>``,
``action_net``, ``mlp_extractor.value_net.<2i>``, ``value_net``), the same activation (the record's
table) and SB3's initialisation, so its state dict is a checkpoint's tensors as they are. The
batched trainer (:mod:`sam_env.training.batched.network`) and the RLlib module (:mod:`sam_env.training.rllib.module`)
are built with it; the numpy player (:mod:`.bot`) and SB3's policy (:mod:`.sb3`) read the same names,
and ``tests/agents/test_network.py`` holds all of them to the same outputs.

A network with a move-scoring head (``PolicyArch.move_head``) is SB3's layout plus ``move_net`` and
``move_out``: its logits need the action mask (the head scores the legal moves), which every caller has.

torch is imported here; playing and evaluating bots (numpy only) never import this module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch
from torch import nn

from sam_env import move_features as features

from ..layers import ACTIVATIONS
from .checkpoint import PolicyArch, PolicyCheckpoint

INIT_GAINS = {"mlp_extractor": math.sqrt(2), "action_net": 0.01, "value_net": 1.0, "move_net": math.sqrt(2)}
INIT_GAINS["move_out"] = 0.01
"""SB3's orthogonal initialisation: √2 in the hidden layers, 0.01 for the action logits (so the
untrained policy is near uniform over the legal moves), 1 for the value; the move-scoring head as a
hidden layer and a logit."""


class MoveFeatures(nn.Module):
    """:func:`sam_env.move_features.move_features` in torch, for (row, action) pairs of a batch: the same numbers."""

    def __init__(self) -> None:
        super().__init__()
        # buffers, not parameters, and not in the state dict: the tables are the combination table's
        self.register_buffer("fixed", torch.from_numpy(features.FIXED.copy()), persistent=False)
        self.register_buffer("needs", torch.from_numpy(features.NEEDS.astype("float32")), persistent=False)
        self.register_buffer("levels", torch.arange(4, dtype=torch.float32), persistent=False)
        self.hand_after = features.OFFSETS["hand_after"]
        self.cards_left = features.OFFSETS["cards_left"]

    def forward(self, obs: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        hand = obs[:, features.HAND_AT : features.HAND_AT + features.UNARY].reshape(len(obs), -1, 4).sum(dim=-1)
        after = hand[rows] - self.needs[actions]
        out = self.fixed[actions].clone()
        unary = (after[:, :, None] > self.levels).flatten(1).float()
        out[:, self.hand_after : self.hand_after + features.UNARY] = unary
        left = after.sum(dim=-1).long()
        out[torch.arange(len(actions), device=obs.device), self.cards_left + left] = 1.0
        return out


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
        self.obs_size = obs_size
        if arch.move_head:
            self.move_features = MoveFeatures()
            self.move_net = nn.Linear(arch.pi[-1] + features.N_FEATURES, arch.move_head)
            self.move_out = nn.Linear(arch.move_head, 1)
            self.move_activation = getattr(nn, ACTIVATIONS[arch.activation].torch)()

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
            if not hasattr(self, name):  # no critic, no move head
                continue
            for layer in getattr(self, name).modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    nn.init.zeros_(layer.bias)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Unmasked action logits; with a move-scoring head, the legal moves' (``mask``) include their scores.

        ``obs`` may be a later encoding version's observation: the network reads the prefix it was trained on.
        """
        h = self.mlp_extractor.policy_net(obs[:, : self.obs_size])
        z = self.action_net(h)
        if not self.arch.move_head:
            return z
        if mask is None:
            raise ValueError("a network with a move-scoring head needs the action mask: it scores the legal moves")
        rows, actions = mask.nonzero(as_tuple=True)
        moves = self.move_features(obs, rows, actions)
        hidden = self.move_activation(self.move_net(torch.cat([h[rows], moves], dim=-1)))
        return z.index_put((rows, actions), self.move_out(hidden).squeeze(-1), accumulate=True)

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
