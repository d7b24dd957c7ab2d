"""Widening a network for ``init_from``: it plays exactly as before, and training then uses the new units."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from policy_files import ROOT, TINY_ARCH, write_checkpoint

from sam_env import VectorEnv
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch, load_policy
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.config import ConfigError
from sam_env.training.trainers import load_config
from sam_env.training.widen import can_widen, widen


def wider(arch: PolicyArch, extra: int) -> PolicyArch:
    return PolicyArch(
        pi=tuple(s + extra for s in arch.pi), vf=tuple(s + extra for s in arch.vf), activation=arch.activation
    )


def test_a_widened_network_gives_the_same_logits_and_values(tmp_path: Path) -> None:
    checkpoint = load_policy(write_checkpoint(tmp_path))
    arch = wider(TINY_ARCH, 24)
    widened = widen(checkpoint, arch)
    assert widened.arch == arch and widened.metadata["widened_from"]["source"] == checkpoint.source
    obs = VectorEnv(32, seed=2).reset().observation
    before, after = ActorCritic(TINY_ARCH, checkpoint.obs_size, 201), ActorCritic(arch, widened.obs_size, 201)
    before.load_tensors(checkpoint.tensors)
    after.load_tensors(widened.tensors)
    x = torch.from_numpy(obs)
    with torch.no_grad():
        np.testing.assert_allclose(after.logits(x).numpy(), before.logits(x).numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(after.value(x).numpy(), before.value(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(PPOBot(widened).logits(obs[0]), PPOBot(checkpoint).logits(obs[0]), rtol=1e-5, atol=1e-6)


def test_init_from_a_narrower_network_widens_it_and_trains_the_new_units(tmp_path: Path) -> None:
    narrow = write_checkpoint(tmp_path)
    size = TINY_ARCH.pi[0] + 16
    overrides = [f"init_from={narrow}", f"pi_layers=[{size}]", f"vf_layers=[{size}]", "eval_every=0"]
    trainer = BatchedTrainer(load_config(ROOT / "tests/training/configs/batched_smoke.yaml", overrides))
    obs = trainer.venv.observe(0)
    np.testing.assert_allclose(
        PPOBot(trainer.snapshot()).logits(obs[0]), PPOBot(load_policy(narrow)).logits(obs[0]), rtol=1e-5, atol=1e-6
    )
    trainer.learn(500)
    new_units = trainer.net.action_net.weight[:, TINY_ARCH.pi[0] :]
    assert new_units.abs().sum() > 0, "the new units' outgoing weights moved off zero"


@pytest.mark.parametrize(
    ("pi", "vf", "activation"),
    [((8,), (64,), "tanh"), ((64, 64), (64,), "tanh"), ((64,), (64,), "relu")],
    ids=["narrower", "deeper", "other activation"],
)
def test_what_is_not_a_widening_is_refused(tmp_path: Path, pi: tuple, vf: tuple, activation: str) -> None:
    checkpoint = load_policy(write_checkpoint(tmp_path))
    target = PolicyArch(pi=pi, vf=vf, activation=activation)
    assert not can_widen(TINY_ARCH, target)
    with pytest.raises(ConfigError, match="cannot be widened to"):
        widen(checkpoint, target)
    overrides = [f"init_from={tmp_path / 'policy.json'}", f"pi_layers={list(pi)}", f"vf_layers={list(vf)}"]
    overrides.append(f"activation={activation}")
    with pytest.raises(ConfigError, match=r"^init_from: .* has layers .*no layer wider than the config's\)$"):
        BatchedTrainer(load_config(ROOT / "tests/training/configs/batched_smoke.yaml", overrides))


def test_a_two_layer_network_widens_exactly(tmp_path: Path) -> None:
    """The second layer's inputs from new units of the first are zero: the default 256x256 case."""
    from sam_env import RuleConfig
    from sam_env.agents.networks.policy.checkpoint import policy_metadata, save_policy

    arch = PolicyArch(pi=(16, 12), vf=(8, 8), activation="tanh")
    meta = policy_metadata(RuleConfig(), arch, {"name": "test"})
    rng = np.random.default_rng(1)
    shapes = arch.tensor_shapes(meta["observation_shape"][0], meta["n_actions"])
    tensors = {k: rng.normal(0, 0.3, size=s).astype(np.float32) for k, s in shapes.items()}
    checkpoint = load_policy(save_policy(tmp_path / "policy", tensors, meta))
    target = PolicyArch(pi=(40, 40), vf=(20, 30), activation="tanh")
    widened = widen(checkpoint, target)
    before, after = ActorCritic(arch, checkpoint.obs_size, 201), ActorCritic(target, widened.obs_size, 201)
    before.load_tensors(checkpoint.tensors)
    after.load_tensors(widened.tensors)
    x = torch.from_numpy(VectorEnv(32, seed=4).reset().observation)
    with torch.no_grad():
        np.testing.assert_allclose(after.logits(x).numpy(), before.logits(x).numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(after.value(x).numpy(), before.value(x).numpy(), rtol=1e-5, atol=1e-6)
