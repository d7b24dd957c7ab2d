"""Fixtures of the evaluation tests: protocol v1's quick tier cut to a few deals."""

from __future__ import annotations

import pytest

from sam_env.evaluation.protocol import DEAL_SET_SHA256, TIERS, Tier, deal_set_sha256

TINY = {2: 6, 3: 4, 4: 3, 5: 3}
"""Deals of the cut quick tier, per seat count."""


@pytest.fixture
def tiny_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick tier cut to a few deals, its hashes pinned to match: the whole pipeline in a second."""
    monkeypatch.setitem(TIERS, "quick", Tier("quick", TINY))
    for players, deals in TINY.items():
        monkeypatch.setitem(DEAL_SET_SHA256, (players, "quick"), deal_set_sha256(players, deals))
