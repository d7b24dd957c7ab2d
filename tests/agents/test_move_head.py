"""Policy networks that see the hand's history (encoding version 2) and score moves (the move head).

The tests that build the torch network are the ``train`` tier's; the rest need the base install only.

The torch network (training), the numpy player and the search's compiled network must agree on every
legal move's logit; checkpoints record the head and the version; networks of version 1 play at a
version-2 table exactly as at a version-1 one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig, VectorEnv
from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch, load_policy, policy_metadata, save_policy
from sam_env.agents.registry import load_bot
from sam_env.agents.search import SearchBot
from sam_env.agents.search.network import CompiledNetwork
from sam_env.evaluation.matches import Match
from sam_env.evaluation.tournament import play_out, run_matches
from sam_env.move_features import legal_pairs, move_features
from sam_env.vector.reference_check import random_actions

ARCH = PolicyArch(pi=(32, 16), vf=(8,), activation="tanh", move_head=12)


def move_head_checkpoint(folder: Path, rules: RuleConfig | None = None, seed: int = 0) -> Path:
    """A random network of encoding version 2 with a move head, saved (its scores large enough to matter)."""
    meta = policy_metadata(rules or RuleConfig(), ARCH, {"name": "test"}, encoding_version=2)
    rng = np.random.default_rng(seed)
    shapes = ARCH.tensor_shapes(meta["observation_shape"][0], meta["n_actions"])
    tensors = {k: rng.normal(0, 0.5, size=s).astype(np.float32) for k, s in shapes.items()}
    return save_policy(folder / "policy", tensors, meta)


def _batch(n_players: int = 4, steps: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Observations (version 2) and masks of a VectorEnv after some random moves: a spread of decisions."""
    venv = VectorEnv(64, RuleConfig(n_players=n_players), seed=5, encoding_version=2)
    batch = venv.reset()
    rng = np.random.default_rng(5)
    for _ in range(steps):
        batch = venv.step(random_actions(rng, batch.action_mask))
    return batch.observation.copy(), batch.action_mask.copy()


@pytest.mark.train
def test_torch_move_features_are_the_numpy_ones() -> None:
    import torch

    from sam_env.agents.networks.policy.network import MoveFeatures

    obs, masks = _batch()
    rows, actions = legal_pairs(masks)
    got = MoveFeatures()(torch.from_numpy(obs), torch.from_numpy(rows), torch.from_numpy(actions))
    assert np.array_equal(got.numpy(), move_features(obs[rows], actions))


@pytest.mark.train
def test_torch_numpy_and_compiled_networks_agree_on_every_legal_move(tmp_path: Path) -> None:
    import torch

    from sam_env.agents.networks.policy.network import ActorCritic

    checkpoint = load_policy(move_head_checkpoint(tmp_path))
    assert checkpoint.arch == ARCH and checkpoint.encoding_version == 2
    obs, masks = _batch()
    net = ActorCritic.of(checkpoint)
    with torch.no_grad():
        expected = net.logits(torch.from_numpy(obs), torch.from_numpy(masks)).numpy()
        without_head = net.action_net(net.mlp_extractor.policy_net(torch.from_numpy(obs))).numpy()
    assert np.abs(expected - without_head)[masks].max() > 0.1  # the head changes the legal logits
    assert np.array_equal(expected[~masks], without_head[~masks])  # and only those
    bot = PPOBot(checkpoint)
    assert np.allclose(bot.batch_logits(obs, masks)[masks], expected[masks], atol=1e-5)
    assert np.allclose(bot.logits(obs[3], masks[3])[masks[3]], expected[3][masks[3]], atol=1e-5)
    compiled = CompiledNetwork(checkpoint).logits(obs, masks)
    assert np.allclose(compiled[masks], expected[masks], atol=1e-4)
    assert np.array_equal(bot.best_actions(obs, masks), np.argmax(np.where(masks, expected, -np.inf), axis=1))
    with pytest.raises(ValueError, match="needs the action mask"):
        net.logits(torch.from_numpy(obs))


def test_the_checkpoint_records_the_head_the_version_and_the_features(tmp_path: Path) -> None:
    path = move_head_checkpoint(tmp_path)
    meta = load_policy(path).metadata
    assert meta["encoding_version"] == 2 and meta["policy"]["move_head"] == 12
    assert meta["fingerprint"] == sam_env.encoding.fingerprint(4, 2)
    assert "move_head" not in policy_metadata(RuleConfig(), PolicyArch((8,), (8,), "tanh"))["policy"]
    text = path.read_text(encoding="utf-8").replace(meta["move_features"]["fingerprint"], "0" * 64)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CheckpointError, match="the policy reads move features with fingerprint '0000"):
        load_policy(path)


def test_a_version_2_network_plays_at_a_version_2_table_and_says_what_it_needs(tmp_path: Path) -> None:
    spec = str(move_head_checkpoint(tmp_path))
    bot = load_bot(spec, seed=0)
    assert bot.encoding_version == 2
    env = sam_env.env(encoding_version=2)
    env.reset(seed=1)
    result = play_out(env, lambda seat, observation, view: bot.act(observation, view))
    assert sum(result.net) == 0
    env = sam_env.env()
    env.reset(seed=1)
    with pytest.raises(ValueError, match="observation encoding version 2"):
        play_out(env, lambda seat, observation, view: bot.act(observation, view))


def test_a_version_1_network_plays_a_version_2_table_exactly_as_a_version_1_one() -> None:
    moves = []
    for version in (1, 2):
        env = sam_env.env(encoding_version=version)
        bots = [load_bot(name, seed=seat) for seat, name in enumerate(("ppo_v1", "heuristic", "ppo", "random"))]
        played: list[int] = []

        def choose(seat: int, observation: dict, view: object, bots: list = bots, played: list = played) -> int:
            action = bots[seat].act(observation, view)
            played.append(action)
            return action

        env.reset(seed=7)
        for hand in range(6):
            if hand:
                env.reset()
            play_out(env, choose)
        moves.append(played)
    assert moves[0] == moves[1] and len(moves[0]) > 100


def test_a_tournament_gives_each_network_the_encoding_it_reads(tmp_path: Path) -> None:
    """A version-2 network beside version-1 networks and a rule bot: the table encodes version 2."""
    spec = move_head_checkpoint(tmp_path)
    [result] = run_matches([Match(spec, ("ppo_v1", "heuristic", "ppo"))], RuleConfig(), 2, seed=0, workers=1)
    assert result.metrics.shape[:2] == (2, 24) and result.summary().hands == 48


def test_the_bot_check_and_the_web_table_give_a_version_2_network_its_observations(tmp_path: Path) -> None:
    from sam_env.agents.bot_objects import probe_bot
    from sam_env.apps.web.games import Game

    bot = load_bot(str(move_head_checkpoint(tmp_path)), seed=0)
    probe_bot(bot, RuleConfig(), "a version-2 network")
    game = Game(RuleConfig(), 0, ["you", "a", "b", "c"], [None, bot, load_bot("ppo_v1"), load_bot("heuristic")])
    assert game.env.encoding_version == 2


def test_search_over_a_version_2_move_head_network(tmp_path: Path) -> None:
    checkpoint = load_policy(move_head_checkpoint(tmp_path, RuleConfig(n_players=3)))
    bot = SearchBot(checkpoint, seed=0, determinizations=4, candidates=3)
    env = sam_env.env(rules=RuleConfig(n_players=3), encoding_version=2)
    env.reset(seed=2)
    searched = 0

    def choose(seat: int, observation: dict, view: object) -> int:
        nonlocal searched
        action = bot.act(observation, view)
        searched += bot.last is not None and bot.last.replayed > 0
        return action

    play_out(env, choose)
    assert searched > 0
