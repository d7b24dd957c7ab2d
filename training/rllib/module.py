"""The action-masking actor-critic RLModule: SB3's MaskablePPO network, tensor for tensor, on RLlib.

The module's layers are :class:`sam_env.agents.networks.policy.network.ActorCritic`'s, the one builder of the
network, so its parameters carry exactly the names and shapes that
:class:`sam_env.agents.networks.policy.checkpoint.PolicyArch` describes (``mlp_extractor.policy_net.0.weight``,
``action_net.weight``, …) and SB3's initialisation; exporting the learner to our checkpoint format copies its
state dict unchanged (:mod:`sam_env.training.rllib.export`), and ``sam_env.agents.networks.policy.bot.PPOBot``
plays it with the same numpy forward pass as every other trained policy.

The observation is the environment's dict: ``"observation"`` feeds both heads, ``"action_mask"``
sets the logits of illegal actions to the float minimum, so they are never sampled and carry no
probability in PPO's ratio or entropy (as RLlib's ``ActionMaskingTorchRLModule`` example does,
without its rebuilt default encoder, whose layout is not SB3's).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from sam_env.agents.networks.policy.checkpoint import PolicyArch
from sam_env.agents.networks.policy.network import ActorCritic


class MaskedActorCriticModule(TorchRLModule, ValueFunctionAPI):
    """Separate policy and value MLPs over the flat observation; illegal actions masked out.

    ``model_config``: ``{"arch": PolicyArch.to_dict()}``.
    """

    def setup(self) -> None:
        arch = PolicyArch.from_dict(self.model_config["arch"])
        obs_size = int(self.observation_space["observation"].shape[0])
        net = ActorCritic.fresh(arch, obs_size, int(self.action_space.n))
        # The builder's modules become this module's own, under the names a checkpoint uses.
        self.mlp_extractor, self.action_net, self.value_net = net.mlp_extractor, net.action_net, net.value_net

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
