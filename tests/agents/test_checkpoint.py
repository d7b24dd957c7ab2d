"""Checkpoints load only when they fit this sam-env, and damaged files fail with a message naming them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from policy_files import write_checkpoint

from sam_env import ENCODING_VERSION, N_ACTIONS, RuleConfig
from sam_env.agents.networks.catalogue import copy_network
from sam_env.agents.networks.format import CheckpointError, checkpoint_files
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import load_policy


def _edit_metadata(path: Path, **changes: object) -> None:
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta.update(changes)
    path.write_text(json.dumps(meta), encoding="utf-8")


def test_round_trip_keeps_tensors_and_metadata(checkpoint: Path) -> None:
    loaded = load_policy(checkpoint)
    assert loaded.metadata["encoding_version"] == ENCODING_VERSION
    assert loaded.metadata["n_actions"] == N_ACTIONS
    assert loaded.rules == RuleConfig()
    assert loaded.metadata["policy"]["net_arch"] == {"pi": [16], "vf": [8]}
    assert all(v.dtype == np.float32 for v in loaded.tensors.values())
    assert load_policy(checkpoint.with_suffix(".safetensors")).metadata == loaded.metadata
    assert load_policy(checkpoint.with_suffix("")).metadata == loaded.metadata


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"encoding_version": ENCODING_VERSION + 1}, "trained on observation encoding version"),
        ({"n_actions": N_ACTIONS - 1}, f"the policy has {N_ACTIONS - 1} actions, but this sam-env's action table has"),
        ({"observation_shape": [100]}, "observation shape [100], but a 4-player table observes"),
        ({"format": "pickle"}, "format 'pickle' version 1; expected 'sam-env-policy'"),
        ({"rules": {"n_players": 4, "colour": "red"}}, "bad rules or policy architecture"),
        ({"rules": {"n_players": 4, "card_value": 10**309}}, "card_value = 1000"),
        (
            {"rules": {"n_players": 4, "sam_unit": 1001}},
            "sam_unit = 1001 is not allowed; expected an int from 0 to 1000",
        ),
        ({"policy": {"net_arch": {"pi": [16], "vf": [8]}, "activation": "gelu"}}, "activation = 'gelu'"),
    ],
)
def test_a_mismatched_checkpoint_is_refused(checkpoint: Path, changes: dict[str, object], message: str) -> None:
    _edit_metadata(checkpoint, **changes)
    with pytest.raises(CheckpointError) as err:
        load_policy(checkpoint)
    assert message in str(err.value)
    assert str(checkpoint) in str(err.value)


def test_a_checkpoint_for_another_table_size_is_refused(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path, RuleConfig(n_players=3))
    with pytest.raises(CheckpointError, match="trained for 3 players, but this table has 4"):
        load_policy(path, n_players=4)
    bot = PPOBot.from_checkpoint(path)
    with pytest.raises(ValueError, match=r"trained on \(517,\) — a 3-player table"):
        bot.act({"observation": np.zeros(586, np.float32), "action_mask": np.ones(N_ACTIONS, np.int8)}, None)


def test_a_tampered_weights_file_is_refused(checkpoint: Path) -> None:
    _, weights = checkpoint_files(checkpoint)
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="damaged or was replaced — its SHA-256 is") as err:
        load_policy(checkpoint)
    assert str(weights) in str(err.value)


def test_a_truncated_weights_file_is_refused_even_with_a_matching_hash(checkpoint: Path) -> None:
    """Past the hash check, safetensors' own parse error is turned into a CheckpointError too."""
    _, weights = checkpoint_files(checkpoint)
    weights.write_bytes(weights.read_bytes()[:100])
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    _edit_metadata(checkpoint, weights={"file": weights.name, "sha256": digest})
    with pytest.raises(CheckpointError, match="not a readable safetensors file") as err:
        load_policy(checkpoint)
    assert "expected the policy's tensors described by policy.json" in str(err.value)


def test_tensors_that_do_not_fit_the_architecture_are_refused(checkpoint: Path) -> None:
    meta = json.loads(checkpoint.read_text(encoding="utf-8"))
    meta["policy"]["net_arch"]["pi"] = [32]
    checkpoint.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(CheckpointError, match="tensors do not match the architecture"):
        load_policy(checkpoint)


def test_copy_policy_renames_the_weights_file_in_the_metadata(checkpoint: Path, tmp_path: Path) -> None:
    copied = copy_network(checkpoint, tmp_path / "shipped" / "ppo")
    assert copied == tmp_path / "shipped" / "ppo.json"
    loaded = load_policy(copied)
    assert loaded.metadata["weights"]["file"] == "ppo.safetensors"
    assert loaded.metadata["weights"]["sha256"] == load_policy(checkpoint).metadata["weights"]["sha256"]


def test_missing_or_broken_metadata(tmp_path: Path, checkpoint: Path) -> None:
    with pytest.raises(CheckpointError, match="no such checkpoint metadata file"):
        load_policy(tmp_path / "nothing.json")
    checkpoint.write_text('{"format": ', encoding="utf-8")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_policy(checkpoint)
    checkpoint.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(CheckpointError, match="expected a JSON object"):
        load_policy(checkpoint)


@pytest.mark.train
def test_numpy_player_and_rebuilt_sb3_policy_agree(checkpoint: Path) -> None:
    import torch

    from sam_env.agents.networks.policy.sb3 import build_policy

    loaded = load_policy(checkpoint)
    policy = build_policy(loaded)
    bot = PPOBot(loaded)
    obs = np.random.default_rng(1).integers(0, 2, size=(5, loaded.obs_size)).astype(np.float32)
    with torch.no_grad():
        features = policy.extract_features(torch.from_numpy(obs), policy.pi_features_extractor)
        expected = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
    np.testing.assert_allclose(np.stack([bot.logits(o) for o in obs]), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("weights", [None, "ppo.safetensors", [1], {"file": "policy.safetensors"}])
def test_metadata_without_the_weights_hash_is_refused(checkpoint: Path, weights: object) -> None:
    """It used to crash with AttributeError, or blame the weights file for a hash that was never recorded."""
    _edit_metadata(checkpoint, weights=weights)
    with pytest.raises(CheckpointError, match="no SHA-256 of the weights in the metadata"):
        load_policy(checkpoint)


def test_ppo_agent_wants_a_loaded_checkpoint_not_a_path(checkpoint: Path) -> None:
    with pytest.raises(TypeError, match=r"PolicyCheckpoint.*PPOBot\.from_checkpoint"):
        PPOBot(str(checkpoint))


def test_weights_are_readable_like_any_new_file(checkpoint: Path) -> None:
    # safetensors writes through a 0600 temporary file; a checkpoint gets the mode open() gives (0644 under umask 022)
    probe = checkpoint.parent / "probe.txt"
    probe.write_text("x", encoding="utf-8")
    for path in checkpoint_files(checkpoint):
        assert path.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777
