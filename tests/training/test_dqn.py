"""The DQN trainer (``trainer: dqn``, Tianshou's DQN): a smoke run of ``train.py`` whose checkpoints play legal
moves through ``load_bot``, the export of Tianshou's network against the numpy bot, and bad configs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.data import Batch
from train_script import smoke_fixture

import sam_env
from sam_env import RuleConfig, VectorEnv
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import QArch, QCheckpoint, load_qnet, qnet_metadata
from sam_env.agents.registry import load_bot
from sam_env.evaluation.tournament import play_out
from sam_env.training.config import ConfigError
from sam_env.training.dqn.config import DQNConfig
from sam_env.training.dqn.trainer import q_network, q_tensors
from sam_env.training.trainers import config_from_dict

SMOKE = ("--config", "tests/training/configs/dqn_smoke.yaml")


smoke = smoke_fixture(*SMOKE)


def test_smoke_run_trains_evaluates_and_saves_networks_that_play_legal_moves(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("dqn_smoke__s7__")
    assert "Tianshou DQN; opponents greedy 0.2, heuristic 0.8" in stdout
    assert "random x3" in stdout and "95% CI" in stdout
    state = json.loads((run / "final" / "trainer.json").read_text())
    assert state["trainer"] == "dqn" and state["num_timesteps"] >= 1500 and state["n_updates"] > 50
    assert [row["step"] for row in state["history"]] == [256]  # after the random warm-up
    folders = [*sorted((run / "checkpoints").iterdir()), run / "final"]
    assert len(folders) == 2
    rules = RuleConfig()
    for folder in folders:
        checkpoint = load_qnet(folder / "policy.json")
        assert checkpoint.arch == QArch(kind="dqn", layers=(32,), activation="relu")
        bot = load_bot(str(folder), seed=0, rules=rules)
        assert isinstance(bot, QBot)
        env = sam_env.env(rules=rules)
        for hand in range(3):
            env.reset(seed=hand)
            play_out(env, lambda seat, observation, view, bot=bot: legal(bot.act(observation, view), observation))


def legal(action: int, observation: dict[str, np.ndarray]) -> int:
    assert observation["action_mask"][action], f"illegal action {action}"
    return action


def test_the_exported_network_plays_as_tianshous_masked_policy() -> None:
    """The numpy bot's Q-values are the ``Net``'s, and its moves the masked greedy moves of Tianshou's policy."""
    torch.manual_seed(0)
    rules = RuleConfig(n_players=3)
    arch = QArch(kind="dqn", layers=(32, 16), activation="tanh")
    venv = VectorEnv(64, rules, seed=2)
    batch = venv.reset()
    net = q_network(arch, venv.observation_size)
    bot = QBot(QCheckpoint.in_memory(q_tensors(net, arch), qnet_metadata(rules, arch, "test"), "export"))
    policy = DiscreteQLearningPolicy(model=net, action_space=sam_env.SingleAgentEnv(rules=rules).action_space)
    for _ in range(5):
        obs, masks = batch.observation.copy(), batch.action_mask.copy()
        with torch.no_grad():
            result = policy(Batch(obs=Batch(obs=obs, mask=masks), info=Batch()))
        np.testing.assert_allclose(bot.action_values(obs), result.logits.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(bot.best_actions(obs, masks), result.act)
        batch = venv.step(bot.best_actions(obs, masks))


def test_exploration_schedule_and_bad_configs() -> None:
    config = DQNConfig(total_timesteps=1000, eps_start=0.5, eps_end=0.1, eps_fraction=0.5)
    assert [config.epsilon(s) for s in (0, 250, 500, 900)] == pytest.approx([0.5, 0.3, 0.1, 0.1])
    with pytest.raises(ConfigError, match=r"opponents.self_play .* rule bots"):
        config_from_dict({"trainer": "dqn", "opponents": {"self_play": 0.5, "heuristic": 0.5}})
    with pytest.raises(ConfigError, match="eps_end"):
        DQNConfig(eps_end=1.5)
    with pytest.raises(ConfigError, match="another trainer"):
        config_from_dict({"trainer": "dqn", "epsilon": 0.1})  # the dmc trainer's field
