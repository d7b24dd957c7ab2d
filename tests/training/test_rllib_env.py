"""The RLlib pieces without a Ray cluster: the multi-agent adapter, the seat mapping, the masking module
and its export to our checkpoint format."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from env.env_helpers import FOUR_TWOS_DEAL
from ray.rllib.core.columns import Columns  # the rllib extra, which CI installs: missing, these tests fail

from sam_env import N_ACTIONS, RuleConfig
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch, load_policy
from sam_env.agents.networks.policy.network import ActorCritic
from sam_env.agents.networks.policy.sb3 import build_policy
from sam_env.core import REVEAL_INSTANT_WIN
from sam_env.core.rules import INSTANT_WIN_TYPES
from sam_env.training.rllib.env import SamMultiAgentEnv
from sam_env.training.rllib.export import export_policy
from sam_env.training.rllib.module import module_spec
from sam_env.training.rllib.selfplay import LEARNER, SeatMapping, SnapshotPool, snapshot_ids

RULES = [{}, {"n_players": 2}, {"n_players": 5, "instant_wins": sorted(INSTANT_WIN_TYPES)}]


@pytest.mark.parametrize("rules", RULES, ids=["default", "2p", "5p-instant-wins"])
def test_adapter_plays_hands_one_seat_at_a_time_and_credits_every_seat_its_money(rules: dict) -> None:
    env = SamMultiAgentEnv({"rules": rules, "reward_scale": 0.1})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    for _ in range(60):  # hands
        received = Counter()
        while True:
            [agent] = obs  # exactly one seat is asked to act
            legal = np.flatnonzero(obs[agent]["action_mask"])
            assert legal.size > 0
            obs, rewards, terminated, truncated, infos = env.step({agent: int(rng.choice(legal))})
            received.update(rewards)
            assert truncated == {"__all__": False}
            if terminated["__all__"]:
                break
            assert terminated == {next(iter(obs)): False, "__all__": False}
        assert set(obs) == set(env.possible_agents) and all(terminated[a] for a in env.possible_agents)
        for agent in env.possible_agents:  # all money, chop money included, reaches the seat it belongs to
            assert received[agent] == pytest.approx(0.1 * infos[agent]["net"])
        assert sum(received.values()) == pytest.approx(0.0)
        obs, _ = env.reset()


def test_an_instant_win_deal_is_an_episode_of_the_winners_one_move() -> None:
    env = SamMultiAgentEnv({"reward_scale": 0.1})
    obs, _ = env.reset(seed=0, options={"hands": FOUR_TWOS_DEAL})
    assert list(obs) == ["player_2"]
    assert np.flatnonzero(obs["player_2"]["action_mask"]).tolist() == [REVEAL_INSTANT_WIN]
    obs, rewards, terminated, _, infos = env.step({"player_2": REVEAL_INSTANT_WIN})
    assert terminated["__all__"] and infos["player_2"] == {"net": 60}
    assert rewards == pytest.approx({"player_0": -2.0, "player_1": -2.0, "player_2": 6.0, "player_3": -2.0})


def test_every_seat_gets_a_module_and_the_learner_exactly_one_seat_of_every_hand() -> None:
    mapping = SeatMapping(n_players=4, pool_size=3)
    seats, opponents = Counter(), Counter()
    for i in range(4000):
        episode = SimpleNamespace(id_=f"episode-{i}")
        modules = [mapping(f"player_{s}", episode) for s in range(4)]
        assert modules == [mapping(f"player_{s}", episode) for s in range(4)]  # stable within a hand
        assert modules.count(LEARNER) == 1
        seats[modules.index(LEARNER)] += 1
        opponents.update(m for m in modules if m != LEARNER)
    assert set(opponents) == set(snapshot_ids(3))
    assert min(seats.values()) > 900 and min(opponents.values()) > 3600  # about 1000 and 4000 each


def test_the_pool_overwrites_its_oldest_snapshot() -> None:
    pool = SnapshotPool(2)
    assert [pool.take(step) for step in (100, 200, 300)] == ["snapshot_0", "snapshot_1", "snapshot_0"]
    assert pool.steps == [300, 200]


def test_the_module_exports_to_exactly_the_network_ppo_agent_and_sb3_play(tmp_path: Path) -> None:
    env = SamMultiAgentEnv({})
    arch = PolicyArch(pi=(24, 16), vf=(8,), activation="relu")
    module = module_spec(env.observation_spaces["player_0"], env.action_spaces["player_0"], arch).build()
    obs_size = env.observation_spaces["player_0"]["observation"].shape[0]
    assert {k: tuple(v.shape) for k, v in module.state_dict().items()} == arch.tensor_shapes(obs_size, N_ACTIONS)
    torch.manual_seed(0)
    with torch.no_grad():  # SB3's initialisation makes tiny action logits; spread them so the test can fail
        for parameter in module.parameters():
            parameter.normal_(0.0, 0.3)
    rules = RuleConfig()
    path = export_policy(tmp_path, module.get_state(), rules, arch, {"trainer": "rllib"}, num_timesteps=5)
    checkpoint = load_policy(path)
    agent, sb3, net = PPOBot(checkpoint), build_policy(checkpoint), ActorCritic.of(checkpoint)

    rng = np.random.default_rng(1)
    obs = (rng.random((6, checkpoint.obs_size)) < 0.3).astype(np.float32)
    mask = (rng.random((6, N_ACTIONS)) < 0.1).astype(np.int8)
    mask[:, 0] = 1
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(mask)}}
    out = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    values = module.compute_values(batch).detach().numpy()
    for row in range(6):
        legal = mask[row].astype(bool)
        np.testing.assert_allclose(out[row][legal], agent.logits(obs[row])[legal], rtol=1e-5, atol=1e-5)
        assert (out[row][~legal] < -1e30).all()  # illegal actions are masked out
    np.testing.assert_allclose(values, sb3.predict_values(torch.from_numpy(obs)).detach().numpy()[:, 0], atol=1e-5)
    with torch.no_grad():  # the one torch builder: the same network as the module's
        np.testing.assert_allclose(net.value(torch.from_numpy(obs)).numpy(), values, atol=1e-5)
        builder = net.logits(torch.from_numpy(obs)).numpy()
    np.testing.assert_allclose(np.where(mask.astype(bool), builder, 0), np.where(mask.astype(bool), out, 0), atol=1e-5)
