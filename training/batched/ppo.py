"""Masked PPO on the learner's decisions: advantages along each seat's trajectory, then clipped updates.

The update is SB3's MaskablePPO update (clipped surrogate, unclipped value loss, entropy of the
masked distribution, advantages normalized per minibatch, gradient-norm clipping, optional KL stop),
written out over one flat rollout so that every seat's decisions, from every table, share one network.
With an oracle critic (:class:`.network.OracleCritic`) the advantages come from it and the value loss
is the sum of its loss and the observation critic's, both fitted to the same returns; ``value_loss`` and
``explained_variance`` are then the oracle's (the critic behind the advantages), and
``observation_value_loss`` the observation critic's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from numba import njit

from sam_env.agents.networks.policy.network import ActorCritic

from ..common.masking import masked
from .network import OracleCritic
from .rollout import RolloutBuffer


@njit(cache=True)
def _advantages(value, reward, done, nxt, boot, gamma, lam, adv):  # pragma: no cover - compiled
    for i in range(value.shape[0] - 1, -1, -1):
        if done[i]:
            next_value, next_adv, go_on = 0.0, 0.0, 0.0
        elif nxt[i] >= 0:
            next_value, next_adv, go_on = value[nxt[i]], adv[nxt[i]], 1.0
        else:
            next_value, next_adv, go_on = boot[i], 0.0, 0.0
        adv[i] = reward[i] + gamma * next_value - value[i] + gamma * lam * go_on * next_adv


def advantages(buf: RolloutBuffer, gamma: float, lam: float) -> np.ndarray:
    """GAE(λ) along each (table, seat) trajectory: a decision's successor is its seat's next decision.

    A trajectory ends with its hand (``done``: nothing follows) or with the rollout (``boot``: the
    critic's estimate of what follows). Positions are in time order, so one backward pass suffices.
    """
    n = buf.size
    adv = np.zeros(n, dtype=np.float32)
    _advantages(buf.value[:n], buf.reward[:n], buf.done[:n], buf.next[:n], buf.boot[:n], gamma, lam, adv)
    return adv


@dataclass(frozen=True)
class PPOSettings:
    n_epochs: int
    batch_size: int
    clip_range: float
    ent_coef: float
    vf_coef: float
    max_grad_norm: float
    target_kl: float | None
    gamma: float
    gae_lambda: float


def update(
    net: ActorCritic,
    optimizer: torch.optim.Optimizer,
    buf: RolloutBuffer,
    settings: PPOSettings,
    device: torch.device,
    generator: np.random.Generator,
    oracle: OracleCritic | None = None,
) -> dict[str, float]:
    """Run the PPO epochs on the rollout; return the logged statistics (SB3's ``train/…`` names).

    ``optimizer`` holds the parameters of ``net`` and of ``oracle`` when there is one.
    """
    n = buf.size
    adv_np = advantages(buf, settings.gamma, settings.gae_lambda)
    returns_np = adv_np + buf.value[:n]
    obs = torch.from_numpy(buf.obs[:n]).to(device)
    hidden = torch.from_numpy(buf.hidden[:n]).to(device)
    mask = torch.from_numpy(buf.mask[:n]).to(device)
    actions = torch.from_numpy(buf.action[:n]).to(device)
    old_log_prob = torch.from_numpy(buf.log_prob[:n]).to(device)
    adv_all = torch.from_numpy(adv_np).to(device)
    returns = torch.from_numpy(returns_np).to(device)
    logs: dict[str, list[float]] = {k: [] for k in ("policy_gradient_loss", "value_loss", "entropy_loss")}
    logs.update(approx_kl=[], clip_fraction=[])
    if oracle is not None:
        logs["observation_value_loss"] = []
    stopped = False
    for _ in range(settings.n_epochs):
        order = torch.from_numpy(generator.permutation(n)).to(device)
        for start in range(0, n, settings.batch_size):
            idx = order[start : start + settings.batch_size]
            if idx.numel() < 2:
                continue
            log_probs = torch.log_softmax(masked(net.logits(obs[idx], mask[idx]), mask[idx]), dim=-1)
            log_prob = log_probs.gather(-1, actions[idx].unsqueeze(-1)).squeeze(-1)
            entropy = -(log_probs.exp() * log_probs).sum(-1)
            adv = adv_all[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            ratio = torch.exp(log_prob - old_log_prob[idx])
            surrogate = torch.min(adv * ratio, adv * ratio.clamp(1 - settings.clip_range, 1 + settings.clip_range))
            policy_loss = -surrogate.mean()
            value_loss = critic_loss = torch.nn.functional.mse_loss(net.value(obs[idx]), returns[idx])
            if oracle is not None:
                logs["observation_value_loss"].append(value_loss.item())
                critic_loss = torch.nn.functional.mse_loss(oracle(obs[idx], hidden[idx]), returns[idx])
                value_loss = value_loss + critic_loss
            entropy_loss = -entropy.mean()
            loss = policy_loss + settings.ent_coef * entropy_loss + settings.vf_coef * value_loss
            with torch.no_grad():
                log_ratio = log_prob - old_log_prob[idx]
                approx_kl = float(((ratio - 1) - log_ratio).mean())
                logs["clip_fraction"].append(float(((ratio - 1).abs() > settings.clip_range).float().mean()))
            logs["policy_gradient_loss"].append(policy_loss.item())
            logs["value_loss"].append(critic_loss.item())
            logs["entropy_loss"].append(entropy_loss.item())
            logs["approx_kl"].append(approx_kl)
            if settings.target_kl is not None and approx_kl > 1.5 * settings.target_kl:
                stopped = True
                break
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            # Clipped apart, so the oracle's gradients do not shrink the policy's steps.
            torch.nn.utils.clip_grad_norm_(net.parameters(), settings.max_grad_norm)
            if oracle is not None:
                torch.nn.utils.clip_grad_norm_(oracle.parameters(), settings.max_grad_norm)
            optimizer.step()
        if stopped:
            break
    values = buf.value[:n]
    variance = float(np.var(returns_np))
    out = {k: float(np.mean(v)) if v else float("nan") for k, v in logs.items()}
    out["explained_variance"] = float("nan") if variance == 0 else 1.0 - float(np.var(returns_np - values)) / variance
    out["samples"] = float(n)
    return out
