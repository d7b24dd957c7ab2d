"""The catalogue of shipped networks (sam_env.agents.shipped): both kinds load by name, fit their table, and are
fingerprinted by their weights file."""

from __future__ import annotations

import json

import pytest
from policy_files import ROOT
from sam_env.agents.ppo.bot import PRETRAINED_DIR, PPOBot, pretrained_names
from sam_env.agents.ppo.checkpoint import CheckpointError, PolicyCheckpoint
from sam_env.agents.qnet.bot import QBot
from sam_env.agents.qnet.checkpoint import QCheckpoint
from sam_env.agents.registry import load_bot
from sam_env.agents.shipped import (
    copy_network,
    shipped_bot,
    shipped_checkpoint,
    shipped_names,
    shipped_network_for,
)
from sam_env.evaluation.fingerprints import fingerprint

from sam_env import RuleConfig
from sam_env.utils.files import file_sha256

Q_NETWORKS = [name for name in shipped_names() if name not in pretrained_names()]


def test_every_file_in_pretrained_is_a_network_of_one_kind() -> None:
    assert set(shipped_names()) == {p.stem for p in PRETRAINED_DIR.glob("*.safetensors")}
    assert "dmc" in Q_NETWORKS, "agents/pretrained/dmc.{json,safetensors}: the Deep Monte-Carlo network is shipped"
    for name in shipped_names():
        checkpoint = shipped_checkpoint(name)
        expected = QCheckpoint if name in Q_NETWORKS else PolicyCheckpoint
        assert isinstance(checkpoint, expected), name
        assert isinstance(shipped_bot(name), QBot if name in Q_NETWORKS else PPOBot)


@pytest.mark.parametrize("name", ["ppo", "dmc"])
def test_load_bot_picks_the_family_member_for_the_table_and_refuses_other_sizes(name: str) -> None:
    rules = RuleConfig()
    assert shipped_network_for(name, rules) == name
    bot = load_bot(name, rules=rules)
    assert bot.name == name
    sizes = {shipped_checkpoint(p).rules.n_players for p in shipped_names() if p == name or p.startswith(f"{name}_")}
    missing = sorted(set(range(2, 6)) - sizes)
    for players in missing:
        with pytest.raises(CheckpointError, match=f"no shipped '{name}' network plays a {players}-player table"):
            load_bot(name, rules=RuleConfig(n_players=players))


def test_an_unknown_shipped_name_is_refused_with_the_list() -> None:
    with pytest.raises(CheckpointError, match=r"no pretrained bot 'dmc_9p'.*shipped: .*dmc"):
        shipped_checkpoint("dmc_9p")


def test_a_shipped_q_network_is_fingerprinted_by_its_weights_file() -> None:
    for name in Q_NETWORKS:
        rules = shipped_checkpoint(name).rules
        stamp = fingerprint(name, rules)
        weights = PRETRAINED_DIR / f"{name}.safetensors"
        assert stamp["kind"] == "network"
        assert stamp["sha256"] == file_sha256(weights)
        metadata = json.loads((PRETRAINED_DIR / f"{name}.json").read_text(encoding="utf-8"))
        assert metadata["weights"]["sha256"] == file_sha256(weights), "the metadata records the weights it ships"


def test_copy_network_ships_either_kind_under_a_new_stem(tmp_path) -> None:
    for name in ("ppo_v1", "dmc"):
        copied = copy_network(PRETRAINED_DIR / f"{name}.json", tmp_path / f"copy_of_{name}")
        metadata = json.loads(copied.read_text(encoding="utf-8"))
        assert metadata["weights"]["file"] == f"copy_of_{name}.safetensors"
        bot = load_bot(str(copied))
        assert type(bot) is type(shipped_bot(name))
        original = shipped_checkpoint(name).tensors
        assert all((bot.checkpoint.tensors[k] == v).all() for k, v in original.items())


DMC_RECORDS = {
    "dmc": "dmc_long.yaml",
    "dmc_2p": "dmc_2p.yaml",
    "dmc_3p": "dmc_3p.yaml",
    "dmc_5p": "dmc_5p.yaml",
    "dmc_v2": "dmc_more.yaml",
    "dmc_v2_2p": "dmc_2p_more.yaml",
    "dmc_v2_5p": "dmc_5p_more.yaml",
}
"""Each shipped Deep Monte-Carlo network and the record (configs/records/) of the run that made it."""
ADDED_SINCE = {"init_from": None, "overlap_update": False}
"""Config fields added after some shipped runs, at the value every run before them had (their metadata lacks them)."""


@pytest.mark.parametrize("name", sorted(DMC_RECORDS))
def test_each_shipped_dmc_network_was_made_by_its_record(name: str) -> None:
    """The record is the run that made agents/pretrained/<name>: every field its metadata records
    (where the run wrote and whether it drew a progress bar aside; a field the config gained after the run
    must hold the value that every run had before it)."""
    from sam_env.training.trainers import load_config

    record = load_config(ROOT / "configs" / "records" / DMC_RECORDS[name]).to_dict()
    made = json.loads((PRETRAINED_DIR / f"{name}.json").read_text(encoding="utf-8"))["training"]
    made = {**ADDED_SINCE, **made}
    aside = {"run_dir", "progress_bar"}
    assert {k: v for k, v in record.items() if k not in aside} == {k: v for k, v in made.items() if k not in aside}


def test_every_shipped_q_network_has_the_record_of_its_run() -> None:
    assert set(Q_NETWORKS) == set(DMC_RECORDS)
