"""Learning from rollout labels: an advantage head regressed on the labels' differences, the policy improved
towards them with a KL penalty to the network that played the rollouts, and the critic fitted to their mean.

A decision's labels share the deal's luck (every copy held the same cards), so only their differences
are learnt from. With ``Q(a)`` the label of move ``a`` and ``L`` the moves rolled out:

* the **advantage head** ``h(s, ·)`` (training only; it is saved with the trainer's state, not with the
  policy) is fitted to the centred labels: ``h(a) − mean_L h`` to ``Q(a) − mean_L Q`` for ``a`` in ``L``,
  which is blind to a shift common to all moves;
* every legal move gets an estimate: its label where it was rolled out; elsewhere (more legal moves than
  ``max_moves``) the head's centred estimate on the labels' level; the **advantage** of a move is that
  estimate minus its mean under the playing policy ``π_old``;
* the **policy** moves towards ``π*(a) ∝ π_old(a) · exp(A(a) / temperature)`` (``improvement: softmax``,
  a cross-entropy to that target), or ascends ``Σ_a π(a) A(a)`` (``improvement: all_actions``, the
  all-actions policy gradient); both with ``kl_coef · KL(π_old ‖ π)`` added, so one iteration's
  estimates move the policy a bounded step;
* the **critic** (the saved actor-critic's value head, which the other trainers and ``init_from`` reuse)
  is fitted to ``Σ_a π_old(a) Q̂(a)``, the seat's expected money from the decision under the playing
  policy on this deal.

Money enters the losses multiplied by ``reward_scale``, as in the other trainers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from sam_env.agents.networks.policy.network import ActorCritic, mlp, numpy_state

from ..common.masking import masked
from .collect import Labels

IMPROVEMENTS = ("softmax", "all_actions")


class AdvantageHead(nn.Module):
    """An MLP from the observation to one advantage per action (only differences between legal moves mean anything)."""

    def __init__(self, layers: tuple[int, ...], obs_size: int, n_actions: int, activation: str) -> None:
        super().__init__()
        self.body = mlp(layers, obs_size, activation)
        self.out = nn.Linear(layers[-1], n_actions)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.out(self.body(obs))

    def tensors(self) -> dict[str, np.ndarray]:
        return numpy_state(self)


@dataclass(frozen=True)
class UpdateSettings:
    """The update's fields of the config (:class:`~.config.RolloutAdvantageConfig` documents each)."""

    n_epochs: int
    batch_size: int
    improvement: str
    temperature: float
    kl_coef: float
    ent_coef: float
    vf_coef: float
    adv_coef: float
    max_grad_norm: float
    reward_scale: float


def centred(values: torch.Tensor, rolled: torch.Tensor) -> torch.Tensor:
    """``values`` minus their mean over the ``rolled`` moves of each row (0 where not rolled)."""
    count = rolled.sum(dim=-1, keepdim=True).clamp(min=1)
    mean = torch.where(rolled, values, torch.zeros_like(values)).sum(dim=-1, keepdim=True) / count
    return torch.where(rolled, values - mean, torch.zeros_like(values))


def move_estimates(money: torch.Tensor, head: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Every legal move's money: its label if rolled out, else the head's centred estimate on the labels' level."""
    rolled = ~torch.isnan(money)
    labels = torch.nan_to_num(money)
    count = rolled.sum(dim=-1, keepdim=True).clamp(min=1)
    level = (labels * rolled).sum(dim=-1, keepdim=True) / count
    head_level = (head * rolled).sum(dim=-1, keepdim=True) / count
    filled = torch.where(rolled, labels, head - head_level + level)
    return torch.where(mask, filled, torch.zeros_like(filled))


def update(
    net: ActorCritic,
    head: AdvantageHead,
    optimizer: torch.optim.Optimizer,
    labels: Labels,
    settings: UpdateSettings,
    device: torch.device,
    generator: np.random.Generator,
) -> dict[str, float]:
    """``n_epochs`` passes of minibatches over ``labels``; the logged means of the last epoch."""
    s = settings
    obs = torch.from_numpy(labels.obs).to(device)
    mask = torch.from_numpy(labels.mask).to(device)
    money = torch.from_numpy(labels.money).to(device) * s.reward_scale
    with torch.no_grad():
        old_log_prob = torch.log_softmax(masked(net.logits(obs), mask), dim=-1)
        old_prob = old_log_prob.exp()
        estimates = move_estimates(money, head(obs), mask)
        baseline = (old_prob * estimates).sum(dim=-1)
        advantage = torch.where(mask, estimates - baseline.unsqueeze(-1), torch.zeros_like(estimates))
        target = torch.softmax(masked(old_log_prob + advantage / (s.temperature * s.reward_scale), mask), dim=-1)
    rolled = ~torch.isnan(money)
    several = rolled.sum(dim=-1) >= 2  # one label alone has no difference to learn from
    logs: dict[str, list[float]] = {}
    n = len(labels)
    for _ in range(s.n_epochs):
        logs = {}
        order = torch.from_numpy(generator.permutation(n)).to(device)
        for start in range(0, n, s.batch_size):
            rows = order[start : start + s.batch_size]
            log_prob = torch.log_softmax(masked(net.logits(obs[rows]), mask[rows]), dim=-1)
            prob = log_prob.exp()
            legal = mask[rows]
            zero = torch.zeros_like(log_prob)
            if s.improvement == "softmax":
                policy_loss = -torch.where(legal, target[rows] * log_prob, zero).sum(dim=-1).mean()
            else:
                policy_loss = -torch.where(legal, prob * advantage[rows], zero).sum(dim=-1).mean()
            kl = torch.where(legal, old_prob[rows] * (old_log_prob[rows] - log_prob), zero).sum(dim=-1).mean()
            entropy = -torch.where(legal, prob * log_prob, zero).sum(dim=-1).mean()
            value_loss = ((net.value(obs[rows]) - baseline[rows]) ** 2).mean()
            on = rolled[rows] & several[rows].unsqueeze(-1)
            error = centred(head(obs[rows]), on) - centred(torch.nan_to_num(money[rows]), on)
            advantage_loss = (error**2).sum() / on.sum().clamp(min=1)
            loss = (
                policy_loss
                + s.kl_coef * kl
                - s.ent_coef * entropy
                + s.vf_coef * value_loss
                + s.adv_coef * advantage_loss
            )
            optimizer.zero_grad()
            loss.backward()
            parameters = [p for group in optimizer.param_groups for p in group["params"]]
            nn.utils.clip_grad_norm_(parameters, s.max_grad_norm)
            optimizer.step()
            for key, value in (
                ("policy_loss", policy_loss),
                ("kl", kl),
                ("entropy", entropy),
                ("value_loss", value_loss),
                ("advantage_loss", advantage_loss),
            ):
                logs.setdefault(key, []).append(value.item())
    out = {key: float(np.mean(values)) for key, values in logs.items()}
    with torch.no_grad():
        spread = centred(torch.nan_to_num(money), rolled & several.unsqueeze(-1))
        fitted = centred(head(obs), rolled & several.unsqueeze(-1))
        variance = float((spread**2).sum())
        out["advantage_explained_variance"] = 1.0 - float(((spread - fitted) ** 2).sum()) / max(variance, 1e-12)
        spread_x = spread.abs().sum() / (rolled & several.unsqueeze(-1)).sum().clamp(min=1) / s.reward_scale
        out["label_spread_x"] = float(spread_x)
    return out
