"""One network: the torch builder, the numpy player and SB3's policy share the architecture record's tensor
names and activation, and give the same outputs for the same weights (the RLlib module is held to them in
tests/training/test_rllib_env.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from sam_env import N_ACTIONS, RuleConfig, VectorEnv
from sam_env.agents.networks.layers import ACTIVATIONS
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch, PolicyCheckpoint, policy_metadata
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.networks.policy.sb3 import build_policy, policy_kwargs

ARCHS = [
    PolicyArch(pi=(16,), vf=(8,), activation="tanh"),
    PolicyArch(pi=(24, 16), vf=(8, 8, 4), activation="relu"),
]
IDS = ["tanh-1-layer", "relu-deep"]


def random_checkpoint(arch: PolicyArch, seed: int = 0) -> PolicyCheckpoint:
    """Weights spread wide enough that a wrong layer, name or activation changes every output."""
    meta = policy_metadata(RuleConfig(), arch)
    rng = np.random.default_rng(seed)
    shapes = arch.tensor_shapes(meta["observation_shape"][0], N_ACTIONS)
    tensors = {k: rng.normal(0, 0.4, size=s).astype(np.float32) for k, s in shapes.items()}
    return PolicyCheckpoint.in_memory(tensors, meta, "random weights")


@pytest.mark.parametrize("arch", ARCHS, ids=IDS)
def test_the_torch_builder_has_the_records_tensor_names_and_shapes(arch: PolicyArch) -> None:
    obs_size = VectorEnv(1).observation_size
    net = ActorCritic(arch, obs_size, N_ACTIONS)
    shapes = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    assert shapes == arch.tensor_shapes(obs_size, N_ACTIONS)
    actor = ActorCritic(arch, obs_size, N_ACTIONS, critic=False)
    policy_side = {k for k in shapes if k.startswith((PolicyArch.POLICY.hidden, PolicyArch.POLICY.out))}
    assert set(actor.state_dict()) == policy_side
    activations = {type(m).__name__ for m in net.modules() if not isinstance(m, (nn.Linear, nn.Sequential))}
    assert activations - {"Module", "ActorCritic"} == {ACTIVATIONS[arch.activation].torch}


@pytest.mark.parametrize("arch", ARCHS, ids=IDS)
def test_sb3s_policy_has_the_same_tensors(arch: PolicyArch) -> None:
    """SB3 builds its own network from ``policy_kwargs``: the same names and shapes as the record's."""
    checkpoint = random_checkpoint(arch)
    policy = build_policy(checkpoint)  # a strict load_state_dict
    assert {k: tuple(v.shape) for k, v in policy.state_dict().items()} == {
        k: v.shape for k, v in checkpoint.tensors.items()
    }
    assert policy_kwargs(arch)["activation_fn"] is getattr(nn, ACTIVATIONS[arch.activation].torch)


@pytest.mark.parametrize("arch", ARCHS, ids=IDS)
def test_numpy_torch_and_sb3_give_the_same_logits_and_values(arch: PolicyArch) -> None:
    checkpoint = random_checkpoint(arch)
    obs = VectorEnv(16, seed=3).reset().observation
    x = torch.from_numpy(obs)
    net, sb3, bot = ActorCritic.of(checkpoint), build_policy(checkpoint), PPOBot(checkpoint)
    actor = ActorCritic.of(checkpoint, critic=False)
    with torch.no_grad():
        logits = net.logits(x).numpy()
        values = net.value(x).numpy()
        np.testing.assert_array_equal(actor.logits(x).numpy(), logits)
        sb3_logits = sb3.action_net(sb3.mlp_extractor.forward_actor(x)).numpy()
        sb3_values = sb3.predict_values(x).squeeze(-1).numpy()
    assert logits.std() > 0.1  # the outputs are spread, so a wrong layer could not pass
    np.testing.assert_allclose(sb3_logits, logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sb3_values, values, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bot.batch_logits(obs), logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bot.logits(obs[0]), logits[0], rtol=1e-4, atol=1e-4)
    assert net.tensors().keys() == checkpoint.tensors.keys()
    for key, value in net.tensors().items():
        np.testing.assert_array_equal(value, checkpoint.tensors[key])


def test_a_fresh_network_is_initialised_as_sb3_does() -> None:
    """Orthogonal weights with gain √2 in the hidden layers, 0.01 for the logits, 1 for the value; zero biases."""
    torch.manual_seed(0)
    net = ActorCritic.fresh(ARCHS[1], 40, 30)
    gains = {PolicyArch.POLICY.out: 0.01, PolicyArch.VALUE.out: 1.0}
    for name, layer in net.named_modules():
        if isinstance(layer, nn.Linear):
            gain = gains.get(name, math.sqrt(2))
            w = layer.weight.detach().double()
            small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
            torch.testing.assert_close(
                small, gain**2 * torch.eye(small.shape[0], dtype=torch.float64), atol=1e-5, rtol=0
            )
            assert not layer.bias.any(), name
