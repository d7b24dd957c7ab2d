"""``RuleConfig``: defaults from docs/rules.md, validation of every field, dict round trip."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sam_env.core import RuleConfig, RuleConfigError
from sam_env.core.rules import INSTANT_WIN_TYPES, INT_RANGES

STAKES = ("card_value", "thoi_per_two", "chop_per_two", "chop_per_quad", "sam_unit", "instant_win_unit", "cong_cards")


def test_defaults_are_the_rules_md_defaults() -> None:
    r = RuleConfig()
    assert r.n_players == 4  # §1
    assert r.straights_with_two is True  # §3
    assert r.first_leader == "lowest_card"  # §6
    assert r.bao1 == "penalty"  # §7
    assert r.allow_sam is True  # §8
    assert r.instant_wins == frozenset({"four_twos"})  # §9
    assert r.finish_on_two == "pay_played"  # §11
    # §12 stakes: card 1, thối 4, chop per 2: 4, chop per quad 4, Sâm 20, instant win 20, cóng 10.
    assert (r.card_value, r.thoi_per_two, r.chop_per_two, r.chop_per_quad) == (1, 4, 4, 4)
    assert (r.sam_unit, r.instant_win_unit, r.cong_cards) == (20, 20, 10)


def test_instant_win_priority_order() -> None:
    # §9: dragon > four_twos > same_colour > three_triples > five_pairs.
    assert INSTANT_WIN_TYPES == ("dragon", "four_twos", "same_colour", "three_triples", "five_pairs")


BAD_VALUES = [
    ("n_players", 1, "2 to 5"),
    ("n_players", 6, "2 to 5"),
    ("n_players", 0, "2 to 5"),
    ("n_players", -4, "2 to 5"),
    ("n_players", 4.0, "2 to 5"),
    ("n_players", "4", "2 to 5"),
    ("n_players", True, "2 to 5"),
    ("n_players", None, "2 to 5"),
    ("straights_with_two", 1, "True or False"),
    ("straights_with_two", "yes", "True or False"),
    ("straights_with_two", None, "True or False"),
    ("allow_sam", 0, "True or False"),
    ("allow_sam", "false", "True or False"),
    ("first_leader", "lowest", "'lowest_card', 'host', 'random'"),
    ("first_leader", "winner", "'lowest_card', 'host', 'random'"),
    ("first_leader", None, "'lowest_card', 'host', 'random'"),
    ("first_leader", 0, "'lowest_card', 'host', 'random'"),
    ("bao1", "off", "'penalty', 'forced'"),
    ("bao1", "Penalty", "'penalty', 'forced'"),
    ("bao1", True, "'penalty', 'forced'"),
    ("finish_on_two", "lose", "'pay_played', 'lose_and_continue'"),
    ("finish_on_two", None, "'pay_played', 'lose_and_continue'"),
    ("instant_wins", "four_twos", "a set drawn from"),
    ("instant_wins", 3, "a set drawn from"),
    ("instant_wins", None, "a set drawn from"),
    ("instant_wins", ["four_twos", "royal_flush"], "royal_flush"),
    ("instant_wins", {"dragons"}, "dragons"),
    ("instant_wins", [1, "dragon"], "a set drawn from"),
    ("instant_wins", [["dragon"]], "a set drawn from"),
    ("instant_wins", {"four_twos": False}, "a set drawn from"),
]
for _stake in STAKES:
    _range = "an int from 0 to 100 (cards)" if _stake == "cong_cards" else "an int from 0 to 1000 (units of the bet X)"
    BAD_VALUES += [
        (_stake, -1, _range),
        (_stake, 1.5, _range),
        (_stake, "4", _range),
        (_stake, None, _range),
        (_stake, False, _range),
        (_stake, 10**309, _range),
        (_stake, float("inf"), _range),
        (_stake, float("nan"), _range),
        (_stake, 1001 if _stake != "cong_cards" else 101, _range),
    ]


@pytest.mark.parametrize(("field", "value", "allowed"), BAD_VALUES)
def test_bad_value_names_field_value_and_allowed(field: str, value: object, allowed: str) -> None:
    with pytest.raises(RuleConfigError) as err:
        RuleConfig(**{field: value})
    message = str(err.value)
    assert field in message
    assert repr(value) in message or (field == "instant_wins" and not isinstance(value, str))
    assert "expected" in message
    assert allowed in message


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("n_players", 2),
        ("n_players", 3),
        ("n_players", 5),
        ("straights_with_two", False),
        ("allow_sam", False),
        ("first_leader", "host"),
        ("first_leader", "random"),
        ("bao1", "forced"),
        ("finish_on_two", "lose_and_continue"),
        ("instant_wins", frozenset()),
        ("instant_wins", ["dragon", "five_pairs"]),
        ("instant_wins", set(INSTANT_WIN_TYPES)),
        ("instant_wins", ("same_colour",)),
        ("cong_cards", 15),
        ("cong_cards", 20),
        ("card_value", 0),
        ("sam_unit", 100),
        ("sam_unit", 1000),
        ("card_value", 1000),
        ("cong_cards", 100),
    ],
)
def test_good_values(field: str, value: object) -> None:
    r = RuleConfig(**{field: value})
    got = getattr(r, field)
    if field == "instant_wins":
        assert got == frozenset(value)  # type: ignore[arg-type]
        assert isinstance(got, frozenset)
    else:
        assert got == value


def test_rule_config_error_is_a_value_error() -> None:
    assert issubclass(RuleConfigError, ValueError)


def test_frozen_and_hashable() -> None:
    r = RuleConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.n_players = 3  # type: ignore[misc]
    assert hash(r) == hash(RuleConfig(instant_wins=["four_twos"]))
    assert r == RuleConfig(instant_wins=("four_twos",))


ROUND_TRIP = [
    RuleConfig(),
    RuleConfig(n_players=2, first_leader="host", bao1="forced"),
    RuleConfig(
        n_players=5,
        straights_with_two=False,
        first_leader="random",
        allow_sam=False,
        instant_wins=frozenset(INSTANT_WIN_TYPES),
        finish_on_two="lose_and_continue",
        cong_cards=15,
        card_value=2,
        thoi_per_two=5,
        chop_per_two=6,
        chop_per_quad=7,
        sam_unit=30,
        instant_win_unit=40,
    ),
    RuleConfig(instant_wins=frozenset()),
]


@pytest.mark.parametrize("rules", ROUND_TRIP)
def test_dict_round_trip(rules: RuleConfig) -> None:
    data = rules.to_dict()
    assert RuleConfig.from_dict(data) == rules
    assert isinstance(data["instant_wins"], list)
    assert data["instant_wins"] == sorted(rules.instant_wins)
    assert set(data) == {f.name for f in dataclasses.fields(RuleConfig)}


def test_from_dict_partial_uses_defaults() -> None:
    assert RuleConfig.from_dict({}) == RuleConfig()
    assert RuleConfig.from_dict({"n_players": 3}) == RuleConfig(n_players=3)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"players": 4}, "players"),
        ({"n_players": 4, "alow_sam": False}, "alow_sam"),
        ({"n_players": 4, "jokers": 2, "bao_1": "forced"}, "bao_1"),
        ({1: 2, "x": 3}, "unknown rule option"),
    ],
)
def test_from_dict_rejects_unknown_keys(data: dict, fragment: str) -> None:
    with pytest.raises(RuleConfigError) as err:
        RuleConfig.from_dict(data)
    assert fragment in str(err.value)
    assert "unknown rule option" in str(err.value)


@pytest.mark.parametrize("data", [None, [("n_players", 4)], "n_players=4", 4])
def test_from_dict_rejects_non_mappings(data: object) -> None:
    with pytest.raises(RuleConfigError, match="mapping"):
        RuleConfig.from_dict(data)  # type: ignore[arg-type]


def test_from_dict_validates_values() -> None:
    with pytest.raises(RuleConfigError, match="n_players"):
        RuleConfig.from_dict({"n_players": 7})


def test_every_numeric_option_has_a_range_and_its_ends_are_allowed() -> None:
    numeric = {f.name for f in dataclasses.fields(RuleConfig) if f.type == "int"}
    assert numeric == set(INT_RANGES) == {"n_players", *STAKES}
    for name, (low, high) in INT_RANGES.items():
        assert getattr(RuleConfig(**{name: low}), name) == low
        assert getattr(RuleConfig(**{name: high}), name) == high
        for outside in (low - 1, high + 1):
            with pytest.raises(RuleConfigError, match=rf"RuleConfig\.{name} = {outside} .* from {low} to {high}"):
                RuleConfig(**{name: outside})


def test_huge_stakes_are_refused_from_a_mapping_as_yaml_and_json_give_them() -> None:
    with pytest.raises(
        RuleConfigError, match=r"card_value = 1000000\d+ is not allowed; expected an int from 0 to 1000"
    ):
        RuleConfig.from_dict({"card_value": 10**309})


def test_the_top_stakes_settle_every_hand_without_overflow() -> None:
    """At every stake's maximum, hands still settle zero-sum in the engine and the compiled one alike."""
    import sam_env
    from sam_env.vector import VectorEnv

    top = RuleConfig(n_players=5, **{name: INT_RANGES[name][1] for name in STAKES}, instant_wins=INSTANT_WIN_TYPES)
    env = sam_env.raw_env(rules=top)
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        while not env.over:
            env.step(int(rng.choice(env.legal_moves())))
        assert sum(env.result.net) == 0
    vec = VectorEnv(num_tables=8, rules=top, seed=1)
    batch = vec.reset()
    finished = 0
    for _ in range(400):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in batch.action_mask]
        batch = vec.step(actions)
        assert np.isfinite(batch.rewards).all() and np.abs(batch.rewards.sum(axis=1)).max() < 1e-3
        finished += int(batch.terminated.sum())
    assert finished > 0
