"""Q-network bots (``sam_env.agents.networks.qnet``): move features worked out by hand, the numpy bot against the torch
network, the checkpoint's refusals, and ``load_bot`` reading the format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import sam_env
from sam_env import N_ACTIONS, RuleConfig, VectorEnv, action_index
from sam_env import move_features as features
from sam_env.agents.networks.catalogue import load_network
from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import QArch, QCheckpoint, load_qnet, qnet_metadata, save_qnet
from sam_env.agents.networks.qnet.network import QNetwork
from sam_env.agents.registry import load_bot
from sam_env.core.cards import mask_of, unary_of_cards
from sam_env.encoding import observation_size


def _network(kind: str, rules: RuleConfig, seed: int = 0) -> tuple[QNetwork, QCheckpoint]:
    torch.manual_seed(seed)
    arch = QArch(kind=kind, layers=(24, 16), activation="relu")
    net = QNetwork(arch, observation_size(rules.n_players))
    meta = qnet_metadata(rules, arch, "test")
    return net, QCheckpoint.in_memory(net.tensors(), meta, f"{kind} test network")


def test_move_features_by_hand() -> None:
    """A pair of 5s from 5 5 5 7 K: the move plays two 5s, leaves 5 7 K (3 cards), kind pair, key 5, size 2."""
    rules = RuleConfig(n_players=2)
    obs = np.zeros((1, observation_size(2)), dtype=np.float32)
    hand = unary_of_cards(mask_of(["5S", "5C", "5D", "7H", "KS"]))
    obs[0, :52] = [(hand >> bit) & 1 for bit in range(52)]
    row = features.move_features(obs, np.array([action_index("pair:5")]))[0]
    blocks, at = {}, 0
    for name, size in features.feature_layout():
        blocks[name] = row[at : at + size]
        at += size
    five, seven, king = 2, 4, 10  # rank indices of 5, 7, K
    assert np.flatnonzero(blocks["move"]).tolist() == [4 * five, 4 * five + 1]
    assert np.flatnonzero(blocks["hand_after"]).tolist() == [4 * five, 4 * seven, 4 * king]
    assert np.flatnonzero(blocks["kind"]).tolist() == [4]  # Kind.PAIR
    assert np.flatnonzero(blocks["key"]).tolist() == [five]
    assert np.flatnonzero(blocks["size"]).tolist() == [2]
    assert np.flatnonzero(blocks["cards_left"]).tolist() == [3]
    assert rules.n_players == 2
    with pytest.raises(ValueError, match="does not hold"):
        features.move_features(obs, np.array([action_index("triple:7")]))


@pytest.mark.parametrize("kind", ["dqn", "dmc"])
def test_numpy_bot_plays_the_torch_networks_greedy_move(kind: str) -> None:
    rules = RuleConfig()
    net, checkpoint = _network(kind, rules)
    bot = QBot(checkpoint)
    venv = VectorEnv(64, rules, seed=1)
    batch = venv.reset()
    obs, masks = batch.observation.copy(), batch.action_mask.copy()
    for _ in range(6):  # a few steps in, for tables with many legal moves
        batch = venv.step(bot.best_actions(batch.observation, batch.action_mask))
        obs, masks = np.concatenate([obs, batch.observation]), np.concatenate([masks, batch.action_mask])
    rows, actions = features.legal_pairs(masks)
    with torch.no_grad():
        if kind == "dqn":
            expected = net(torch.from_numpy(obs)).numpy()[rows, actions]
        else:
            moves = torch.from_numpy(features.move_features(obs[rows], actions))
            expected = net.move_values(torch.from_numpy(obs), torch.from_numpy(rows), moves).numpy()
            h = torch.cat([torch.from_numpy(obs[rows]), moves], dim=1)  # the first layer unsplit, as a reference
            for layer in net.hidden:
                h = torch.relu(layer(h))
            np.testing.assert_allclose(net.out(h).squeeze(-1).numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bot.move_values(obs, rows, actions), expected, rtol=1e-4, atol=1e-5)
    best = bot.best_actions(obs, masks)
    assert masks[np.arange(len(best)), best].all()
    table = np.full(masks.shape, -np.inf, dtype=np.float32)
    table[rows, actions] = expected
    np.testing.assert_array_equal(best, np.argmax(table, axis=1))


def test_checkpoint_round_trip_and_refusals(tmp_path: Path) -> None:
    rules = RuleConfig(n_players=3)
    _, checkpoint = _network("dmc", rules)
    path = save_qnet(tmp_path / "net" / "policy", checkpoint.tensors, checkpoint.metadata)
    loaded = load_qnet(tmp_path / "net")
    assert loaded.arch == checkpoint.arch and loaded.metadata["move_features"]["fingerprint"] == features.fingerprint()
    assert isinstance(load_network(tmp_path / "net"), QCheckpoint)
    bot = load_bot(str(tmp_path / "net"), rules=rules)
    assert isinstance(bot, QBot) and bot.name == str(tmp_path / "net")
    assert isinstance(load_bot(checkpoint), QBot)
    with pytest.raises(CheckpointError, match="trained for 3 players, but this table has 4"):
        load_bot(str(tmp_path / "net"), rules=RuleConfig())
    meta = json.loads(path.read_text())
    meta["move_features"]["fingerprint"] = "0" * 64
    path.write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="the Q-network reads move features with fingerprint"):
        load_qnet(path)
    weights = path.with_suffix(".safetensors")
    save_qnet(path, checkpoint.tensors, checkpoint.metadata)
    weights.write_bytes(weights.read_bytes()[:-4] + b"\0\0\0\0")
    with pytest.raises(CheckpointError, match="damaged or was replaced"):
        load_qnet(path)
    bad = dict(checkpoint.tensors, **{"out.bias": np.zeros(N_ACTIONS, np.float32)})
    with pytest.raises(CheckpointError, match="wrong shape"):
        QCheckpoint.in_memory(bad, checkpoint.metadata, "bad")
    with pytest.raises(ValueError, match="kind"):
        QArch(kind="ppo", layers=(8,), activation="relu")


def test_a_q_network_plays_a_later_encodings_table_as_it_plays_its_own() -> None:
    """A later encoding's observation starts with this one's: the network reads that prefix, move for move."""
    bot = load_bot("dmc")
    assert bot.checkpoint.metadata["encoding_version"] == 1
    own, later = sam_env.env(), sam_env.env(encoding_version=2)
    own.reset(seed=5)
    later.reset(seed=5)
    for _ in range(30):
        if own.terminations[own.agent_selection]:
            break
        first, _, _, _, _ = own.last()
        second, _, _, _, _ = later.last()
        assert second["observation"].shape[0] > first["observation"].shape[0]
        view = own.unwrapped.seat_view(own.agent_selection)
        action = bot.act(first, view)
        assert bot.act(second, view) == action
        rows = np.stack([second["observation"]] * 2)
        masks = np.stack([second["action_mask"]] * 2)
        assert bot.best_actions(rows, masks).tolist() == [action, action]
        own.step(action)
        later.step(action)


def test_a_q_network_refuses_rows_of_another_table_one_at_a_time_or_batched() -> None:
    bot = load_bot("dmc")
    five = sam_env.env(rules=RuleConfig(n_players=5))
    five.reset(seed=1)
    observation, _, _, _, _ = five.last()
    with pytest.raises(ValueError, match=r"reads \(586,\): encoding version 1 \(or a later version\) of a 4-player"):
        bot.act(observation, five.unwrapped.seat_view(five.agent_selection))
    rows, masks = observation["observation"][None, :], observation["action_mask"][None, :].astype(bool)
    with pytest.raises(ValueError, match=r"dmc: observations of shape \(1, \d+\), but it reads rows of 586, \d+"):
        bot.best_actions(rows, masks)
