"""Bad input is refused loudly, with messages that say what was wrong and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import CHOP_CHAIN_DEAL, FOUR_TWOS_DEAL, play_aec

import sam_env
from sam_env import CardError, DealError, IllegalMoveError, action_index
from sam_env.core import RuleConfig

SAM_CHOICES = "legal moves: declare_sam, decline_sam"


@pytest.fixture(params=["wrapped", "raw"])
def env(request: pytest.FixtureRequest):
    env = sam_env.env() if request.param == "wrapped" else sam_env.raw_env()
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    return env


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (action_index("single:3"), "may not play single:3 now"),
        (action_index("pass"), "may not play pass now"),
        (201, "move 201 is not a combination id in 0..200"),
        (-1, "move -1 is not a combination id in 0..200"),
        (None, "None is None, which only an agent whose hand is over steps, not an action"),
        ("decline_sam", "'decline_sam' is a str, not an action; an action is an int id in 0..200"),
        (2.0, "2.0 is a float, not an action"),
        (True, "True is a bool, not an action"),
        (np.bool_(False), "np.False_ is a bool, not an action"),
    ],
)
def test_bad_action_of_a_live_agent_raises(env, action: object, says: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        env.step(action)
    message = str(info.value)
    assert says in message
    assert message.endswith(SAM_CHOICES)
    # nothing happened: the same seat is still to decide, and the move it may make works
    assert env.agent_selection == "player_0"
    env.step(np.int64(action_index("decline_sam")))
    assert env.agent_selection == "player_1"


def test_illegal_play_names_the_hand_and_the_legal_moves(env) -> None:
    for _ in range(4):
        env.step(action_index("decline_sam"))
    env.step(action_index("single:2"))
    with pytest.raises(IllegalMoveError) as info:
        env.step(action_index("single:3"))  # seat 1 holds a 3 but may not play it on a 2
    message = str(info.value)
    assert "seat 1 (holding 3C 4C 5S 5C 5D 5H 6C 7C 8C 10C) may not play single:3 now" in message
    assert message.endswith("legal moves: pass, quad:5")


def test_illegal_move_error_is_a_value_error() -> None:
    assert issubclass(IllegalMoveError, ValueError)


def test_dead_agent_must_step_none() -> None:
    env = sam_env.env()
    env.reset(seed=0, options={"hands": FOUR_TWOS_DEAL})
    env.step(action_index("decline_sam"))  # the instant winner reveals its win: the hand is over
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match="None"):
        env.step(action_index("pass"))


# ----------------------------------------------------------------- reset options

GOOD = [list(h) for h in CHOP_CHAIN_DEAL]


def _with(seat: int, hand: list[str]) -> list[list[str]]:
    deal = [list(h) for h in GOOD]
    deal[seat] = hand
    return deal


@pytest.mark.parametrize(
    ("options", "error", "says"),
    [
        (5, ValueError, "reset options must be a dict"),
        ({"hands": _with(1, ["5S", "5C", "5D", "5X", *GOOD[1][4:]])}, CardError, "seat 1: malformed card '5X'"),
        ({"hands": _with(2, ["1S", *GOOD[2][1:]])}, CardError, "unknown rank '1'"),
        ({"hands": _with(2, ["3S", *GOOD[2][1:]])}, DealError, "3S dealt twice"),
        ({"hands": _with(3, [*GOOD[3][:9], "JS"])}, DealError, "JS dealt twice"),
        ({"hands": _with(0, GOOD[0][:9])}, DealError, "seat 0 has 9 cards .*every hand has 10"),
        ({"hands": _with(0, [*GOOD[0], "2S"])}, DealError, "seat 0 has 11 cards"),
        ({"hands": GOOD[:3]}, DealError, "a deal for 4 players needs 4 hands, got 3"),
        ({"hands": [*GOOD, []]}, DealError, "needs 4 hands, got 5"),
        ({"hands": "3S 4S"}, DealError, "a deal must be a list of 4 hands"),
        ({"hands": ["3S 4S"] * 4}, DealError, "hand of seat 0 must be a list of cards"),
        ({"leader": 4}, DealError, r"leader must be a seat in 0\.\.3, got 4"),
        ({"leader": -1}, DealError, "leader must be a seat"),
        ({"leader": "1"}, DealError, "got '1'"),
        ({"leader": True}, DealError, "got True"),
    ],
)
def test_malformed_options_raise(options: object, error: type[Exception], says: str) -> None:
    env = sam_env.env()
    env.reset(seed=0)
    with pytest.raises(error, match=says):
        env.reset(options=options)
    # a refused reset leaves the environment usable
    env.reset(seed=0, options={"hands": GOOD, "leader": 2})
    assert env.agent_selection == "player_2"


def test_unknown_option_warns_by_default() -> None:
    env = sam_env.env()
    with pytest.warns(UserWarning, match=r"unknown reset option\(s\) \['hand'\].*\(ignored\)"):
        env.reset(seed=0, options={"hand": GOOD, "leader": 1})
    assert env.unwrapped.hand.leader == 1  # the known keys still count


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"hand": GOOD}, r"unknown reset option\(s\) \['hand'\]; expected some of \['hands', 'leader'\]"),
        ({"seed": 3, "leader": 1}, r"unknown reset option\(s\) \['seed'\]"),
        ({7: 1, "x": 2}, r"unknown reset option\(s\) \['x', 7\]"),  # keys of mixed types are named, not a TypeError
    ],
)
def test_unknown_option_raises_in_strict_mode(options: dict[str, object], says: str) -> None:
    env = sam_env.env(strict_options=True)
    env.reset(seed=0)
    before = env.unwrapped.hand
    with pytest.raises(ValueError, match=says):
        env.reset(options=options)
    assert env.unwrapped.hand is before  # refused before a new hand is dealt


def test_known_option_with_a_bad_value_raises_in_either_mode() -> None:
    for strict in (False, True):
        with pytest.raises(DealError, match="leader must be a seat"):
            sam_env.env(strict_options=strict).reset(options={"leader": 9})
    with (
        pytest.raises(DealError, match="leader must be a seat"),
        pytest.warns(UserWarning, match=r"unknown reset option\(s\) \['extra'\]"),
    ):
        sam_env.env().reset(options={"leader": 9, "extra": 1})


def test_strict_options_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="strict_options='yes' must be True or False"):
        sam_env.env(strict_options="yes")


def test_deal_size_follows_the_player_count() -> None:
    env = sam_env.env(rules=RuleConfig(n_players=2))
    with pytest.raises(DealError, match="a deal for 2 players needs 2 hands, got 4"):
        env.reset(options={"hands": GOOD})
    env.reset(options={"hands": GOOD[:2], "leader": 1})
    assert env.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("wrapped", [True, False])
def test_last_after_every_agent_left_the_hand_says_to_reset(wrapped: bool) -> None:
    env = sam_env.env() if wrapped else sam_env.raw_env()
    env.reset(seed=3)
    play_aec(env, np.random.default_rng(0))
    assert not env.agents
    with pytest.raises(RuntimeError, match=r"the hand is over .* call reset\(\) for the next hand"):
        env.last()
    env.reset()
    assert env.last()[0]["action_mask"].any() or env.unwrapped.over


@pytest.mark.parametrize("options", [{"leader": 9}, {"hands": [["ZZ"] * 10] * 4}], ids=["bad_leader", "bad_deal"])
@pytest.mark.parametrize("seed", [None, 5])
def test_a_refused_reset_changes_nothing(options: dict[str, object], seed: int | None) -> None:
    """Neither the table's generator (a bad leader used to draw a random deal first) nor, with a seed,
    the table itself: the next hand is the one it would have been without the refused call."""

    def next_deals(env) -> list[list[int]]:
        deals = []
        for _ in range(2):
            env.reset()
            deals.append(list(env.unwrapped.hand.dealt))
        return deals

    expected = sam_env.env()
    expected.reset(seed=0)
    env = sam_env.env()
    env.reset(seed=0)
    with pytest.raises((DealError, CardError)):
        env.reset(seed=seed, options=options)
    assert next_deals(env) == next_deals(expected)
