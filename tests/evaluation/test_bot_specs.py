"""Evaluation takes any bot spec — a name, a checkpoint path, a checkpoint in memory — on any number of workers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sam_env import RuleConfig
from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import (
    PolicyArch,
    PolicyCheckpoint,
    load_policy,
    policy_metadata,
    save_policy,
)
from sam_env.agents.registry import can_play, label_of, load_bot
from sam_env.evaluation.tournament import Match, run_matches

ARCH = PolicyArch(pi=(16,), vf=(8,), activation="tanh")


def in_memory_policy(rules: RuleConfig, seed: int = 0) -> PolicyCheckpoint:
    meta = policy_metadata(rules, ARCH, {"name": "test"})
    shapes = ARCH.tensor_shapes(meta["observation_shape"][0], meta["n_actions"])
    rng = np.random.default_rng(seed)
    tensors = {k: rng.normal(0, 0.3, size=s).astype(np.float32) for k, s in shapes.items()}
    return PolicyCheckpoint.in_memory(tensors, meta, "policy in memory")


def test_an_in_memory_policy_is_evaluated_on_two_workers_as_on_one() -> None:
    """No registry: the checkpoint is the spec, and every worker process builds the bot from it."""
    rules = RuleConfig()
    policy = in_memory_policy(rules)
    matches = [Match(policy, ("heuristic",) * 3, label="candidate"), Match("greedy", (policy,) * 3)]
    one = run_matches(matches, rules, deals=6, seed=3, workers=1, progress=False)
    two = run_matches(matches, rules, deals=6, seed=3, workers=2, progress=False)
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a.metrics, b.metrics)
    assert [r.summary().agent for r in two] == ["candidate", "greedy"]
    assert two[1].summary().opponents == "policy in memory x3"


def test_a_bot_that_cannot_sit_at_the_table_is_refused_before_the_first_hand() -> None:
    rules = RuleConfig(n_players=3)
    with pytest.raises(
        ValueError, match=r"ppo_v1 cannot play this 3-player table: the shipped family 'ppo_v1' has no network"
    ):
        run_matches([Match("heuristic", ("ppo_v1", "random"))], rules, deals=2, workers=2, progress=False)
    with pytest.raises(ValueError, match=r"policy in memory cannot play this 3-player table: .* trained for 4"):
        run_matches([Match(in_memory_policy(RuleConfig()), ("greedy",) * 2)], rules, deals=2, progress=False)


def test_load_bot_picks_the_shipped_network_for_the_rules() -> None:
    bot = load_bot("ppo", rules=RuleConfig(bao1="forced"))
    assert isinstance(bot, PPOBot) and bot.name == "ppo" and bot.n_players == 4
    assert load_bot("ppo").n_players == 4
    for n_players in (2, 3, 5):
        bot = load_bot("ppo", rules=RuleConfig(n_players=n_players))
        assert isinstance(bot, PPOBot) and bot.name == "ppo" and bot.n_players == n_players
        refusal = rf"the shipped family 'ppo_v1' has no network for a {n_players}-player table"
        with pytest.raises(CheckpointError, match=refusal):
            load_bot("ppo_v1", rules=RuleConfig(n_players=n_players))
        assert load_bot("heuristic", rules=RuleConfig(n_players=n_players)).name == "heuristic"
        assert not can_play("ppo_v1", RuleConfig(n_players=n_players))


def test_a_checkpoint_folder_is_a_checkpoint_path(tmp_path: Path) -> None:
    """``runs/<run>/final`` names the policy in it, as ``--resume`` takes the same folder."""
    policy = in_memory_policy(RuleConfig())
    save_policy(tmp_path / "final" / "policy", policy.tensors, policy.metadata)
    for spec in (tmp_path / "final", str(tmp_path / "final")):
        assert isinstance(load_bot(spec), PPOBot)
    assert load_policy(tmp_path / "final").metadata["fingerprint"] == policy.metadata["fingerprint"]
    with pytest.raises(CheckpointError, match="trained for 4 players, but this table has 5"):
        load_bot(tmp_path / "final", rules=RuleConfig(n_players=5))


def test_labels_name_every_kind_of_spec(tmp_path: Path) -> None:
    assert label_of("heuristic") == "heuristic"
    assert label_of(tmp_path / "final") == str(tmp_path / "final")
    assert label_of(in_memory_policy(RuleConfig())) == "policy in memory"
