"""Replay every golden scenario of ``tests/scenarios`` through the engine (docs/rules.md worked by hand)."""

from __future__ import annotations

import pytest
from scenario_data import load_scenarios, run_scenario

SCENARIOS = load_scenarios()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario(scenario) -> None:
    run_scenario(scenario)
