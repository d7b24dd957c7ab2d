"""Distilling the search into the network: its targets, the replay buffer, the loss and the update.

The policy learns the search's choice by cross-entropy of the masked softmax to a target
distribution over the legal moves: the search's move (a one-hot, ``temperature`` 0; with a
``margin``, only where the search values it that much above the network's own move — a near-tie
on a few dozen deals is noise, and imitating noise moves the network off what it plays well) or
``softmax(values / temperature)`` over the candidates the search scored (their mean money in X; the
moves it did not score get nothing). The critic learns the search's value of its move, the money
from the decision to the end of the hand × ``reward_scale``: what the PPO trainers' critic
estimates at a decision (its return with γ = 1), so a PPO fine-tune can start from the result.

The actor and the critic share no layer, so their losses are simply added; their gradients are
clipped apart, so that a large value error does not shrink the policy's step (joint clipping
couples two independent regressions).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import torch

from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.training.expert.search_targets import SearchTargets

from ..common.masking import masked


@dataclass(frozen=True, eq=False)
class Samples:
    """Search targets to train on, one row per searched decision (``K`` the search's candidates).

    Attributes:
        obs: ``float32[k, obs_dim]``: the seat's own observation (what the network sees).
        mask: ``bool[k, 201]``: its legal moves.
        move: ``int64[k]``: the search's move.
        candidates: ``int64[k, K]``: the moves it scored, the network's most probable first (``-1``
            past the last).
        values: ``float32[k, K]``: each candidate's mean money in X from the decision to the end of
            the hand (``nan`` past the last candidate).
    """

    obs: np.ndarray
    mask: np.ndarray
    move: np.ndarray
    candidates: np.ndarray
    values: np.ndarray

    @property
    def size(self) -> int:
        return int(self.move.shape[0])

    @property
    def value(self) -> np.ndarray:
        """``float32[k]``: the value of the search's move (the best candidate's)."""
        return np.nanmax(self.values, axis=1)

    @classmethod
    def of(cls, targets: SearchTargets) -> Samples:
        """The searched decisions of a batch whose values are known (a decision none of whose
        sampled deals could be replayed has no value, ``-inf``, and is left out)."""
        best = targets.value
        keep = targets.searched & np.isfinite(best)
        return cls(
            obs=np.ascontiguousarray(targets.observations[keep], dtype=np.float32),
            mask=np.ascontiguousarray(targets.action_masks[keep], dtype=bool),
            move=targets.moves[keep].astype(np.int64),
            candidates=targets.candidates[keep].astype(np.int64),
            values=np.where(np.isfinite(targets.values[keep]), targets.values[keep], np.nan).astype(np.float32),
        )

    @classmethod
    def concat(cls, parts: list[Samples]) -> Samples:
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})

    def arrays(self) -> dict[str, np.ndarray]:
        """The fields by name (how a checkpoint saves the buffer)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def policy_targets(samples: Samples, temperature: float, margin: float = 0.0) -> np.ndarray:
    """``float32[k, 201]``: the distribution the policy is trained toward at each decision.

    With ``temperature`` 0 it is one move: the search's where its value beats the value of the
    network's own most probable move (the first candidate) by at least ``margin`` X, else that move.
    """
    target = np.zeros(samples.mask.shape, dtype=np.float32)
    rows = np.arange(samples.size)
    if temperature == 0:
        sure = samples.value - samples.values[:, 0] >= margin
        target[rows, np.where(sure, samples.move, samples.candidates[:, 0])] = 1.0
        return target
    values = np.where(np.isnan(samples.values), -np.inf, samples.values.astype(np.float64))
    logits = (values - values.max(axis=1, keepdims=True)) / temperature
    weights = np.exp(logits)
    weights /= weights.sum(axis=1, keepdims=True)
    scored = samples.candidates >= 0
    np.add.at(target, (np.repeat(rows, scored.sum(axis=1)), samples.candidates[scored]), weights[scored])
    return target


def losses(
    net: ActorCritic, obs: torch.Tensor, mask: torch.Tensor, target: torch.Tensor, value: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Policy cross-entropy to ``target``, critic MSE to ``value`` (already scaled), the policy's
    entropy, and whether its most probable move is the target's."""
    log_probs = torch.log_softmax(masked(net.logits(obs), mask), dim=-1)
    policy_loss = -(target * log_probs).sum(-1).mean()
    value_loss = torch.nn.functional.mse_loss(net.value(obs), value)
    with torch.no_grad():
        entropy = -(log_probs.exp() * log_probs).sum(-1).mean()
        agree = (log_probs.argmax(-1) == target.argmax(-1)).float().mean()
    return policy_loss, value_loss, entropy, agree


@dataclass(frozen=True)
class DistillSettings:
    n_epochs: int
    batch_size: int
    max_grad_norm: float
    temperature: float
    reward_scale: float
    margin: float = 0.0


def distill(
    net: ActorCritic,
    optimizer: torch.optim.Optimizer,
    samples: Samples,
    settings: DistillSettings,
    generator: np.random.Generator,
) -> dict[str, float]:
    """``n_epochs`` passes of minibatches (order from ``generator``) over ``samples``; the logged
    statistics (``train/…``): the losses and entropy averaged over the passes, and the policy's
    agreement with its targets over the last pass."""
    device = next(net.parameters()).device
    obs = torch.from_numpy(samples.obs).to(device)
    mask = torch.from_numpy(samples.mask).to(device)
    target = torch.from_numpy(policy_targets(samples, settings.temperature, settings.margin)).to(device)
    value = torch.from_numpy(samples.value * np.float32(settings.reward_scale)).to(device)
    actor = [*net.mlp_extractor.policy_net.parameters(), *net.action_net.parameters()]
    critic = [*net.mlp_extractor.value_net.parameters(), *net.value_net.parameters()]
    logs: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy_loss": []}
    agreement: list[float] = []
    n = samples.size
    for epoch in range(settings.n_epochs):
        order = torch.from_numpy(generator.permutation(n)).to(device)
        for start in range(0, n, settings.batch_size):
            idx = order[start : start + settings.batch_size]
            policy_loss, value_loss, entropy, agree = losses(net, obs[idx], mask[idx], target[idx], value[idx])
            optimizer.zero_grad(set_to_none=True)
            (policy_loss + value_loss).backward()
            torch.nn.utils.clip_grad_norm_(actor, settings.max_grad_norm)
            torch.nn.utils.clip_grad_norm_(critic, settings.max_grad_norm)
            optimizer.step()
            logs["policy_loss"].append(policy_loss.item())
            logs["value_loss"].append(value_loss.item())
            logs["entropy_loss"].append(-entropy.item())
            if epoch == settings.n_epochs - 1:
                agreement.append(agree.item() * idx.numel())
    out = {k: float(np.mean(v)) if v else float("nan") for k, v in logs.items()}
    out["target_agreement"] = float(np.sum(agreement) / n) if n else float("nan")
    out["samples"] = float(n)
    return out
