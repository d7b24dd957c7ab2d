"""Every registered bot, the shipped networks included, loads in one line and plays through the environment."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from policy_files import write_checkpoint

import sam_env
from sam_env import RuleConfig, SingleAgentEnv
from sam_env.agents.networks.catalogue import shipped_checkpoint, shipped_names
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.registry import available, can_play, load_bot
from sam_env.core import SeatView
from sam_env.evaluation.tournament import play_out


def test_the_registry_lists_the_shipped_networks() -> None:
    assert {"random", "greedy", "heuristic"} <= set(available())
    assert set(shipped_names()) <= set(available())
    assert {"best", "ppo", "dmc", "ppo_v3", "dmc_v2"} <= set(available()), "names, aliases, families and best"
    assert isinstance(load_bot("ppo"), PPOBot), "agents/networks/shipped/ppo_v3.{json,safetensors} ships as ppo"


def _table_of(name: str) -> RuleConfig:
    """The rules a registered bot is made for: a shipped network's own, the defaults for rule bots."""
    return shipped_checkpoint(name).rules if name in shipped_names() else RuleConfig()


@pytest.mark.parametrize("name", available())
def test_every_registered_bot_plays_hands_through_the_aec_env(name: str) -> None:
    bot = load_bot(name, seed=3)
    env = sam_env.env(rules=_table_of(name))

    def legal_only(seat: int, observation: dict, view: SeatView) -> int:
        action = bot.act(observation, view)
        assert observation["action_mask"][action], f"{name} chose illegal action {action}"
        return action

    for hand in range(3):
        env.reset(seed=hand) if hand == 0 else env.reset()
        assert sum(play_out(env, legal_only).net) == 0


def test_batch_logits_and_best_actions_agree_with_one_row_at_a_time() -> None:
    bot = load_bot("ppo")
    env = SingleAgentEnv(opponents=load_bot("heuristic"))
    observations, masks = [], []
    observation, _ = env.reset(seed=4)
    for _ in range(40):
        observations.append(observation)
        masks.append(env.action_masks())
        observation, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        if terminated:
            observation, _ = env.reset()
    rows, masks = np.array(observations), np.array(masks)
    batched = bot.batch_logits(rows)
    np.testing.assert_allclose(batched, [bot.logits(row) for row in rows], rtol=1e-5, atol=1e-5)
    expected = [int(np.flatnonzero(m)[np.argmax(bot.logits(r)[m])]) for r, m in zip(rows, masks, strict=True)]
    assert bot.best_actions(rows, masks).tolist() == expected


@pytest.mark.parametrize("name", shipped_names())
def test_a_shipped_network_is_an_opponent_of_the_single_agent_view(name: str) -> None:
    rules = _table_of(name)
    env = SingleAgentEnv(opponents=load_bot(name), rules=rules)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated:
            env.reset()
    assert rules == RuleConfig(n_players=rules.n_players), "shipped networks are trained on the default rules"


def test_load_bot_takes_a_checkpoint_path(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path)
    for spelling in (path, path.with_suffix(".safetensors"), path.with_suffix("")):
        assert isinstance(load_bot(str(spelling)), PPOBot)
        assert isinstance(load_bot(spelling), PPOBot)  # a pathlib.Path as well as a string


@pytest.mark.parametrize("bad", [None, 3, ["ppo"]])
def test_load_bot_refuses_what_is_neither_a_name_nor_a_path(bad: object) -> None:
    """Since bots may be objects of one's own, anything else is refused naming what a bot may be."""
    from sam_env.agents.code_specs import BotSpecError

    with pytest.raises(BotSpecError, match=r"is not a bot; expected a sam_env\.Bot subclass or instance"):
        load_bot(bad)


def test_sampling_mode_draws_only_legal_moves_and_follows_the_seed(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path)
    mask = np.zeros(sam_env.N_ACTIONS, dtype=np.int8)
    mask[[0, 7, 30, 31]] = 1
    obs = {"observation": np.zeros(586, np.float32), "action_mask": mask}
    draws = [PPOBot.from_checkpoint(path, seed=5, deterministic=False).act(obs, None) for _ in range(2)]
    assert draws[0] == draws[1]
    bot = PPOBot.from_checkpoint(path, seed=5, deterministic=False)
    assert {bot.act(obs, None) for _ in range(200)} <= {0, 7, 30, 31}


def test_networks_sit_only_at_the_table_size_they_were_trained_for() -> None:
    for n_players in (2, 3, 4, 5):
        rules = RuleConfig(n_players=n_players)
        assert can_play("heuristic", rules) and can_play("random", rules)
        assert can_play("ppo", rules), "a shipped ppo network for every table size"
        assert can_play("ppo_v1", rules) == (n_players == 4)
