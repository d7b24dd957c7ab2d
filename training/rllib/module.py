"""The action-masking actor-critic RLModule: SB3's MaskablePPO network, tensor for tensor, on RLlib.

The module's parameters carry exactly the names and shapes of the sb3-contrib policy that
:class:`agents.ppo.checkpoint.PolicyArch` describes (``mlp_extractor.policy_net.0.weight``,
``action_net.weight``, ``mlp_extractor.value_net.0.weight``, ``value_net.weight`` …), so exporting
the learner to our checkpoint format copies its state dict unchanged (:mod:`training.rllib.export`),
and ``agents.ppo.bot.PPOBot`` plays it with the same numpy forward pass as an SB3-trained policy.

The observation is the environment's dict: ``"observation"`` feeds both heads, ``"action_mask"``
sets the logits of illegal actions to the float minimum, so they are never sampled and carry no
probability in PPO's ratio or entropy (as RLlib's ``ActionMaskingTorchRLModule`` example does,
without its rebuilt default encoder, whose layout is not SB3's).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from agents.ppo.checkpoint import PolicyArch

_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _mlp(in_size: int, sizes: tuple[int, ...], activation: str) -> nn.Sequential:
    """SB3's head layout: Linear, activation, Linear, activation … (``mlp_extractor.<head>.<i>``)."""
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(in_size, size), _ACTIVATIONS[activation]()]
        in_size = size
    return nn.Sequential(*layers)


def _orthogonal(module: nn.Module, gain: float) -> None:
    """SB3's initialisation (orthogonal weights, zero biases), so both backends start alike."""
    for layer in module.modules():
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)


class MaskedActorCriticModule(TorchRLModule, ValueFunctionAPI):
    """Separate policy and value MLPs over the flat observation; illegal actions masked out.

    ``model_config``: ``{"arch": PolicyArch.to_dict()}``.
    """

    def setup(self) -> None:
        arch = PolicyArch.from_dict(self.model_config["arch"])
        obs_size = int(self.observation_space["observation"].shape[0])
        n_actions = int(self.action_space.n)
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = _mlp(obs_size, arch.pi, arch.activation)
        self.mlp_extractor.value_net = _mlp(obs_size, arch.vf, arch.activation)
        self.action_net = nn.Linear(arch.pi[-1], n_actions)
        self.value_net = nn.Linear(arch.vf[-1], 1)
        _orthogonal(self.mlp_extractor, np.sqrt(2))
        _orthogonal(self.action_net, 0.01)
        _orthogonal(self.value_net, 1.0)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.action_net(self.mlp_extractor.policy_net(obs["observation"]))
        legal = obs["action_mask"].bool()
        return {Columns.ACTION_DIST_INPUTS: torch.where(legal, logits, torch.full_like(logits, FLOAT_MIN))}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        hidden = self.mlp_extractor.value_net(batch[Columns.OBS]["observation"])
        return self.value_net(hidden).squeeze(-1)


def module_spec(observation_space: gym.Space, action_space: gym.Space, arch: PolicyArch) -> RLModuleSpec:
    """The spec of one seat's module (learner or snapshot): same network, same spaces."""
    return RLModuleSpec(
        module_class=MaskedActorCriticModule,
        observation_space=observation_space,
        action_space=action_space,
        model_config={"arch": arch.to_dict()},
    )
