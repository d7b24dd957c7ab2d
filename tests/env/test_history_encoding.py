"""Observation encoding version 2: each opponent's declined plays, and the version-1 observation as its prefix."""

from __future__ import annotations

import numpy as np
import pytest
from env.env_helpers import CONFIGS, random_legal

import sam_env
from sam_env.core import COMBOS, Kind
from sam_env.core.combos import PASS
from sam_env.encoding import DECLINED_BITS, observation_layout, observation_size

KINDS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.STRAIGHT)
KEYS = 14


def _thermometer(lowest: dict[Kind, int]) -> np.ndarray:
    """The row the encoding promises for one opponent: per kind, ones from the lowest declined key upwards."""
    row = np.zeros(len(KINDS) * KEYS, dtype=np.float32)
    for k, kind in enumerate(KINDS):
        if kind in lowest:
            row[k * KEYS + lowest[kind] : (k + 1) * KEYS] = 1.0
    return row


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_each_opponents_row_shows_the_lowest_play_of_each_kind_it_passed_on(name: str) -> None:
    rules = CONFIGS[name]
    n = rules.n_players
    env = sam_env.env(rules=rules, encoding_version=2)
    old = sam_env.env(rules=rules)
    at = dict(observation_layout(n, 2))
    start = observation_size(n, 2) - at["declined"]
    rng = np.random.default_rng(len(name))
    passes = 0
    for hand in range(12):
        env.reset(seed=hand)
        old.reset(seed=hand)
        lowest: list[dict[Kind, int]] = [{} for _ in range(n)]
        while not env.unwrapped.over:
            raw = env.unwrapped
            seat, table = raw.seat_to_act, raw.hand.table_combo
            action = random_legal(rng, raw.legal_mask())
            if action == PASS and COMBOS[table].kind in KINDS:
                kind = COMBOS[table].kind
                lowest[seat][kind] = min(lowest[seat].get(kind, KEYS), COMBOS[table].key)
                passes += 1
            env.step(action)
            old.step(action)
            for observer in range(n):
                vector = raw.observation_of(observer)
                assert np.array_equal(vector[:start], old.unwrapped.observation_of(observer))
                for k in range(1, n):
                    row = vector[start + (k - 1) * DECLINED_BITS : start + k * DECLINED_BITS]
                    assert np.array_equal(row, _thermometer(lowest[(observer + k) % n])), (observer, k)
    assert passes > 20


def test_version_1_stays_the_default_and_an_unknown_version_is_refused() -> None:
    env = sam_env.env()
    assert env.unwrapped.encoding_version == 1
    assert env.observation_space("player_0")["observation"].shape == (observation_size(4),)
    with pytest.raises(ValueError, match=r"encoding_version=3 is not .*expected one of \[1, 2\]"):
        sam_env.env(encoding_version=3)
