"""The networks the batched trainer runs: the actor-critic it optimizes, frozen opponents, an oracle critic.

The actor-critic is :class:`sam_env.agents.networks.policy.network.ActorCritic`, the one builder of the network,
laid out exactly as SB3's ``MaskableActorCriticPolicy``: a network trained here is saved with
:func:`sam_env.agents.networks.policy.checkpoint.save_policy` and played by
:class:`sam_env.agents.networks.policy.bot.PPOBot`, ``sam-eval``, ``sam-play`` and
:func:`sam_env.agents.networks.policy.sb3.build_policy` without any conversion. Frozen opponents (the
self-play pool, or the bot a best response is trained against) are the same network, actor only,
evaluated once per step on every table where they act.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.networks.policy.network import ActorCritic, mlp, numpy_state
from sam_env.utils.deprecation import deprecated_names

from ..common import masking
from ..common.masking import masked


class OracleCritic(nn.Module):
    """A value head that sees the seat's observation and the hands hidden from it (``config.critic: oracle``).

    Training only: advantages need the value of a state, not of what one seat knows of it, and in a
    card game most of a hand's money is the deal's luck, which this critic can see and take out.
    The policy it trains never sees the hidden hands. It starts as a copy of the network's
    observation critic whose first layer gives the hidden hands zero weight, so it predicts what
    that critic predicts until it learns better (a bot fine-tuned with ``init_from`` keeps a
    trained critic from its first update).
    """

    def __init__(self, net: ActorCritic, hidden_size: int) -> None:
        super().__init__()
        arch = net.arch
        obs_size = net.mlp_extractor.value_net[0].in_features
        self.body = mlp(arch.vf, obs_size + hidden_size, arch.activation)
        self.head = nn.Linear(arch.vf[-1], 1)
        self.copy_observation_critic(net)

    @torch.no_grad()
    def copy_observation_critic(self, net: ActorCritic) -> None:
        """Become ``net``'s observation critic, the hidden hands weighted zero."""
        source = net.mlp_extractor.value_net
        for mine, theirs in zip(self.body, source, strict=True):
            if isinstance(mine, nn.Linear):
                mine.weight.zero_()
                mine.weight[:, : theirs.in_features].copy_(theirs.weight)
                mine.bias.copy_(theirs.bias)
        self.head.load_state_dict(net.value_net.state_dict())

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(torch.cat([obs, hidden], dim=-1))).squeeze(-1)

    def tensors(self) -> dict[str, np.ndarray]:
        return numpy_state(self)


def frozen_actor(checkpoint: PolicyCheckpoint, device: torch.device) -> ActorCritic:
    """The actor of a checkpoint, for opponents: logits only, no gradients, on the trainer's device."""
    actor = ActorCritic.of(checkpoint, critic=False).to(device)
    actor.requires_grad_(False)
    return actor


def sample(logits: torch.Tensor, mask: torch.Tensor, deterministic: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from the masked softmax (Gumbel-max: one pass, no normalizing) and their log-probabilities.

    ``deterministic``: the most probable legal action instead.
    """
    z = masked(logits, mask)
    if deterministic:
        actions = z.argmax(dim=-1)
    else:
        gumbel = -torch.log(-torch.log(torch.rand_like(z).clamp_(1e-20, 1.0)))
        actions = (z + gumbel).argmax(dim=-1)
    log_prob = torch.log_softmax(z, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    return actions, log_prob


__getattr__ = deprecated_names(
    __name__, {"MASKED_LOGIT": (masking.MASKED_LOGIT, "sam_env.training.common.masking.MASKED_LOGIT")}
)
"""0.3's name of the masked logit, kept for a release (it moved to :mod:`..common.masking`)."""
