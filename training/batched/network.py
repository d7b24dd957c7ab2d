"""The actor-critic the batched trainer optimizes, laid out exactly as SB3's ``MaskableActorCriticPolicy``.

The module's ``state_dict`` has SB3's tensor names (``mlp_extractor.policy_net.*``, ``action_net.*``,
``mlp_extractor.value_net.*``, ``value_net.*``), so a network trained here is saved with
:func:`agents.ppo.checkpoint.save_policy` and played by :class:`agents.ppo.bot.PPOBot`, ``sam-eval``,
``sam-play`` and :func:`agents.ppo.sb3.build_policy` without any conversion. Frozen opponents (the
self-play pool, or the bot a best response is trained against) are the same network, actor only,
evaluated once per step on every table where they act.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch
from torch import nn

from agents.ppo.checkpoint import PolicyArch, PolicyCheckpoint

MASKED_LOGIT = -1e8
"""The logit of an illegal action (SB3's ``MaskableCategorical`` uses the same value)."""

_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp_head(sizes: tuple[int, ...], inputs: int, activation: str) -> nn.Sequential:
    """SB3's MLP head: ``Linear, activation`` per hidden layer (the indices its state dict names use)."""
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(inputs, size), _ACTIVATIONS[activation]()]
        inputs = size
    return nn.Sequential(*layers)


class _Extractor(nn.Module):
    def __init__(self, arch: PolicyArch, obs_size: int) -> None:
        super().__init__()
        self.policy_net = mlp_head(arch.pi, obs_size, arch.activation)
        self.value_net = mlp_head(arch.vf, obs_size, arch.activation)


def numpy_state(module: nn.Module) -> dict[str, np.ndarray]:
    """A module's state dict as float32 numpy copies (checkpoints are written from numpy)."""
    return {k: v.detach().cpu().numpy().astype(np.float32, copy=True) for k, v in module.state_dict().items()}


class ActorCritic(nn.Module):
    """Separate policy and value MLPs over the flat observation (no shared layers), as SB3 builds them.

    Initialized as SB3 does (orthogonal, gain √2 in the hidden layers, 0.01 for the action logits,
    1 for the value), so the untrained policy is near uniform over the legal moves.
    """

    def __init__(self, arch: PolicyArch, obs_size: int, n_actions: int) -> None:
        super().__init__()
        self.arch = arch
        self.mlp_extractor = _Extractor(arch, obs_size)
        self.action_net = nn.Linear(arch.pi[-1], n_actions)
        self.value_net = nn.Linear(arch.vf[-1], 1)
        for module, gain in (
            (self.mlp_extractor, math.sqrt(2)),
            (self.action_net, 0.01),
            (self.value_net, 1.0),
        ):
            for layer in module.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    nn.init.zeros_(layer.bias)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.mlp_extractor.policy_net(obs))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(self.mlp_extractor.value_net(obs)).squeeze(-1)

    def tensors(self) -> dict[str, np.ndarray]:
        """The state dict as float32 numpy copies: what :func:`~agents.ppo.checkpoint.save_policy` writes."""
        return numpy_state(self)

    def load_tensors(self, tensors: Mapping[str, np.ndarray]) -> None:
        device = next(self.parameters()).device
        self.load_state_dict({k: torch.from_numpy(np.array(v)).to(device) for k, v in tensors.items()})


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
        self.body = mlp_head(arch.vf, obs_size + hidden_size, arch.activation)
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


class FrozenActor(nn.Module):
    """The actor of a checkpoint, for opponents: logits only, no gradients, on the trainer's device."""

    def __init__(self, checkpoint: PolicyCheckpoint, device: torch.device) -> None:
        super().__init__()
        arch = checkpoint.arch
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = mlp_head(arch.pi, checkpoint.obs_size, arch.activation)
        self.action_net = nn.Linear(arch.pi[-1], checkpoint.tensors["action_net.bias"].shape[0])
        actor = {
            k: v for k, v in checkpoint.tensors.items() if k.startswith(("mlp_extractor.policy_net.", "action_net."))
        }
        self.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in actor.items()})
        self.to(device)
        self.requires_grad_(False)
        self.source = checkpoint.source

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.mlp_extractor.policy_net(obs))


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with every illegal action pushed to :data:`MASKED_LOGIT`."""
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))


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
