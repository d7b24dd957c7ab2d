"""``RuleConfig``: defaults from docs/rules.md, validation of every field, dict round trip."""

from __future__ import annotations

import dataclasses

import pytest

from sam_env.core import RuleConfig, RuleConfigError
from sam_env.core.rules import INSTANT_WIN_TYPES

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
    BAD_VALUES += [
        (_stake, -1, "non-negative int"),
        (_stake, 1.5, "non-negative int"),
        (_stake, "4", "non-negative int"),
        (_stake, None, "non-negative int"),
        (_stake, False, "non-negative int"),
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
