"""Checkpoints are pinned to the encoding they were trained on by a fingerprint, checked on load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sam_env import RuleConfig, encoding
from sam_env.agents.networks.catalogue import SHIPPED_DIR
from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.policy.checkpoint import (
    PolicyArch,
    add_fingerprint,
    load_policy,
    policy_metadata,
    save_policy,
)

GOLDEN = {
    2: "5824793238fe323897aa79c980fb9428710eaaf40d079ef2fb96941b167c5d6d",
    3: "8fda0c5d4db72180bd4bdf10e8ee434610c19ac49af71c7fb1c14817377aa711",
    4: "e60b1643119801908d5bfb63416dce6be3904bacac594a1cd4e294a5e0d5b498",
    5: "f1a0895ef45bbb44b5174eb4b49909c7028352e9b780c0fa5d6ac5e66c30654a",
}


GOLDEN_V2 = {
    2: "1801dfedad056cd7fd56f3f764f2a163fda3a9d9f077dd3907789e3736f46d41",
    3: "27e0c609452367168622755e082ae54292f8dc2bcd5c9976c4dfeae6eb2e8c4c",
    4: "85efb38325bf75298beff063a5f968687cf107a26c4b7b1d7834c15e7ef5d2bf",
    5: "a788e2afa470cbb463a6df9495e1cdb0451e05230fb6356caaa59b40b7ad1507",
}
"""Encoding version 2 (the hand's history per opponent): a version of its own, pinned the same way."""


@pytest.mark.parametrize("n_players", sorted(GOLDEN_V2))
def test_version_2_fingerprint_is_todays_and_differs_from_version_1(n_players: int) -> None:
    assert encoding.fingerprint(n_players, 2) == GOLDEN_V2[n_players]
    assert encoding.fingerprint(n_players, 1) == GOLDEN[n_players] != GOLDEN_V2[n_players]


@pytest.mark.parametrize("n_players", sorted(GOLDEN))
def test_fingerprint_is_todays(n_players: int) -> None:
    assert encoding.fingerprint(n_players) == GOLDEN[n_players], (
        "the observation layout, the action table or a scaling constant changed: every trained network "
        "(agents/networks/shipped included) now reads its inputs wrongly. Retrain or migrate the checkpoints, "
        "bump ENCODING_VERSION, and then update GOLDEN here."
    )


def test_the_shipped_bot_records_the_fingerprint() -> None:
    metadata = json.loads((SHIPPED_DIR / "ppo_v1.json").read_text(encoding="utf-8"))
    assert metadata["fingerprint"] == encoding.fingerprint(metadata["rules"]["n_players"])


def test_swapping_two_blocks_of_the_same_size_refuses_the_shipped_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same sizes, same total, same version number: only the fingerprint can tell."""
    layout = encoding.observation_layout

    def swapped(n_players: int, version: int = 1) -> list[tuple[str, int]]:
        blocks = layout(n_players, version)
        i, j = [k for k, (name, _) in enumerate(blocks) if name in ("hand", "unseen")]
        assert blocks[i][1] == blocks[j][1]
        blocks[i], blocks[j] = blocks[j], blocks[i]
        return blocks

    load_policy(SHIPPED_DIR / "ppo_v1.json")
    monkeypatch.setattr(encoding, "observation_layout", swapped)
    with pytest.raises(CheckpointError, match=r"(?s)fingerprint .* \(retrain"):
        load_policy(SHIPPED_DIR / "ppo_v1.json")


def test_reordering_the_action_table_refuses_the_shipped_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    name = encoding.action_name
    monkeypatch.setattr(encoding, "action_name", lambda i: name({1: 2, 2: 1}.get(i, i)))
    with pytest.raises(CheckpointError, match="fingerprint"):
        load_policy(SHIPPED_DIR / "ppo_v1.json")


def test_a_checkpoint_without_fingerprint_is_refused_then_migrated(tmp_path: Path) -> None:
    arch = PolicyArch(pi=(8,), vf=(4,), activation="relu")
    metadata = policy_metadata(RuleConfig(), arch)
    shapes = arch.tensor_shapes(metadata["observation_shape"][0], metadata["n_actions"])
    checkpoint = save_policy(tmp_path / "policy", {k: np.zeros(s, np.float32) for k, s in shapes.items()}, metadata)
    metadata = json.loads(checkpoint.read_text(encoding="utf-8"))
    del metadata["fingerprint"]
    checkpoint.write_text(json.dumps(metadata), encoding="utf-8")
    with pytest.raises(CheckpointError, match=r"before fingerprints existed: .*add_fingerprint"):
        load_policy(checkpoint)
    add_fingerprint(checkpoint)
    assert load_policy(checkpoint).metadata["fingerprint"] == GOLDEN[4]
    with pytest.raises(CheckpointError, match="already has a fingerprint"):
        add_fingerprint(checkpoint)
