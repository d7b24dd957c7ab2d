"""The batched trainer's PPO update (training/batched/ppo.py) against sb3-contrib's MaskablePPO update.

Same starting weights, same batch (observations, masks, actions, old log-probabilities, advantages,
returns), same minibatches in the same order, same hyper-parameters: the two updates must leave the
same weights and the same Adam moments, within float tolerance. The batched trainer claims to be
MaskablePPO's update written out over a flat rollout; this is the claim, checked.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.logger import Logger

from sam_env import N_ACTIONS, VectorEnv
from sam_env.agents.networks.policy.checkpoint import PolicyArch
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.networks.policy.sb3 import policy_kwargs
from sam_env.training.batched.ppo import PPOSettings, advantages, update
from sam_env.training.batched.rollout import RolloutBuffer
from sam_env.training.common.masking import masked
from sam_env.vector.sb3_adapter import Sb3VecEnv

ARCH = PolicyArch(pi=(32, 32), vf=(32,), activation="tanh")
N, BATCH = 256, 64


class Permutations:
    """A generator stand-in that hands out given permutations (SB3 draws its own from ``np.random``)."""

    def __init__(self, permutations: list[np.ndarray]) -> None:
        self.left = list(permutations)

    def permutation(self, n: int) -> np.ndarray:
        return self.left.pop(0)


def a_batch(net: ActorCritic) -> RolloutBuffer:
    """Real decisions of a VectorEnv, sampled legal actions, old log-probabilities near the current
    policy's (so that some ratios are clipped), random values and rewards along short trajectories."""
    rng = np.random.default_rng(0)
    venv = VectorEnv(N, seed=5)
    batch = venv.reset()
    for _ in range(7):  # a few moves in, so the observations differ
        legal = [np.flatnonzero(m) for m in batch.action_mask]
        batch = venv.step(np.array([row[rng.integers(len(row))] for row in legal]))
    buf = RolloutBuffer.allocate(N, venv.observation_size, N_ACTIONS)
    buf.size = N
    buf.obs[:] = batch.observation
    buf.mask[:] = batch.action_mask
    buf.action[:] = [rng.choice(np.flatnonzero(m)) for m in batch.action_mask]
    with torch.no_grad():
        log_probs = torch.log_softmax(masked(net.logits(torch.from_numpy(buf.obs)), torch.from_numpy(buf.mask)), -1)
    current = log_probs.gather(-1, torch.from_numpy(buf.action)[:, None]).squeeze(-1).numpy()
    buf.log_prob[:] = current + rng.normal(0, 0.3, N).astype(np.float32)
    buf.value[:] = rng.normal(0, 1, N)
    buf.reward[:] = rng.normal(0, 2, N)
    buf.done[:] = rng.random(N) < 0.3
    buf.next[:] = np.where(buf.done | (np.arange(N) + 4 >= N), -1, np.arange(N) + 4)
    buf.boot[:] = rng.normal(0, 1, N)
    return buf


@pytest.mark.parametrize("target_kl", [None, 0.05], ids=["all-epochs", "kl-stop"])
def test_the_batched_update_is_maskable_ppos_update(target_kl: float | None) -> None:
    torch.manual_seed(0)
    settings = PPOSettings(
        n_epochs=3,
        batch_size=BATCH,
        clip_range=0.2,
        ent_coef=0.01,
        vf_coef=0.5,
        max_grad_norm=0.5,
        target_kl=target_kl,
        gamma=1.0,
        gae_lambda=0.95,
    )
    ours = ActorCritic.fresh(ARCH, VectorEnv(1).observation_size, N_ACTIONS)
    with torch.no_grad():  # spread the logits, so that a different update could not agree by accident
        ours.action_net.weight.normal_(0, 0.3)
    buf = a_batch(ours)
    adv = advantages(buf, settings.gamma, settings.gae_lambda)

    # sb3-contrib: the same weights, the batch in its rollout buffer, its own train().
    model = MaskablePPO(
        "MlpPolicy",
        Sb3VecEnv(2, seed=0),
        learning_rate=1e-3,
        n_steps=N // 2,
        batch_size=BATCH,
        n_epochs=settings.n_epochs,
        gamma=settings.gamma,
        gae_lambda=settings.gae_lambda,
        clip_range=settings.clip_range,
        ent_coef=settings.ent_coef,
        vf_coef=settings.vf_coef,
        max_grad_norm=settings.max_grad_norm,
        target_kl=target_kl,
        policy_kwargs=policy_kwargs(ARCH),
        device="cpu",
    )
    model.policy.load_state_dict(ours.state_dict())
    model.set_logger(Logger(None, []))
    rollout = MaskableRolloutBuffer(N, model.observation_space, model.action_space, "cpu", 0.95, 1.0, n_envs=1)
    rollout.observations[:, 0] = buf.obs
    rollout.actions[:, 0, 0] = buf.action
    rollout.action_masks[:, 0] = buf.mask
    rollout.log_probs[:, 0] = buf.log_prob
    rollout.values[:, 0] = buf.value
    rollout.advantages[:, 0] = adv
    rollout.returns[:, 0] = adv + buf.value
    rollout.pos, rollout.full = N, True
    model.rollout_buffer = rollout
    np.random.seed(7)  # SB3 draws each epoch's minibatch order from numpy's global generator
    model.train()

    # Ours: the same minibatches in the same order.
    state = np.random.RandomState(7)
    optimizer = torch.optim.Adam(ours.parameters(), lr=1e-3, eps=1e-5)
    order = Permutations([state.permutation(N) for _ in range(settings.n_epochs)])
    logs = update(ours, optimizer, buf, settings, torch.device("cpu"), order)

    theirs = model.policy.state_dict()
    for name, value in ours.state_dict().items():
        torch.testing.assert_close(value, theirs[name], rtol=1e-4, atol=2e-6, msg=f"weights of {name}")
    sb3_parameters = dict(model.policy.named_parameters())
    for name, parameter in ours.named_parameters():
        mine, other = optimizer.state[parameter], model.policy.optimizer.state[sb3_parameters[name]]
        assert int(mine["step"]) == int(other["step"]) > 0, name
        torch.testing.assert_close(
            mine["exp_avg"], other["exp_avg"], rtol=1e-3, atol=1e-7, msg=f"Adam moment of {name}"
        )
    steps = int(next(iter(optimizer.state.values()))["step"])
    if target_kl is None:
        assert steps == settings.n_epochs * N // BATCH
    else:  # the KL stop ends both updates at the same minibatch, some way into the epochs
        assert 1 < steps < settings.n_epochs * N // BATCH
    assert model.logger.name_to_value["train/clip_fraction"] == pytest.approx(logs["clip_fraction"], abs=1e-6)
    assert 0 < logs["clip_fraction"] < 1  # the clipped branch was exercised
