"""Bad input to VectorEnv: a clear error naming what was wrong, and no table changed."""

from __future__ import annotations

import re

import numpy as np
import pytest
from env.env_helpers import CHOP_CHAIN_DEAL

from sam_env import DealError, IllegalMoveError, RuleConfig, VectorEnv, action_index
from sam_env.core import CardError
from sam_env.vector.reference_check import random_actions


@pytest.fixture
def venv() -> VectorEnv:
    venv = VectorEnv(4, RuleConfig(allow_sam=False), seed=0)
    venv.reset(options={"hands": [CHOP_CHAIN_DEAL] * 4, "leader": [0, 0, 0, 0]})
    return venv


def snapshot(venv: VectorEnv) -> tuple[np.ndarray, ...]:
    return venv.state(), venv.observe(0), venv.hands(), np.array([len(venv.ledger(t)) for t in range(4)])


def test_an_illegal_action_names_table_seat_move_and_legal_moves_and_changes_nothing(venv: VectorEnv) -> None:
    before = snapshot(venv)
    actions = np.full(4, action_index("single:3"))
    actions[2] = action_index("pair:5")
    message = (
        "table 2: seat 0 (holding 3S 4S 6S 7S 8S 10S QS KS AS 2H) may not play pair:5 now; legal moves: single:3, "
    )
    with pytest.raises(IllegalMoveError, match=re.escape(message)) as err:
        venv.step(actions)
    assert "straight:6-8" in str(err.value) and "no table was changed" in str(err.value)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(venv), strict=True))
    batch = venv.step(np.full(4, action_index("single:3")))
    assert batch.current_seat.tolist() == [1, 1, 1, 1]


def test_editing_the_returned_mask_does_not_change_what_is_legal(venv: VectorEnv) -> None:
    venv.batch.action_mask[:] = True
    with pytest.raises(IllegalMoveError, match=r"table 0: seat 0 .* may not play pair:5"):
        venv.step(np.full(4, action_index("pair:5")))
    venv.batch.action_mask[:] = False
    assert venv.step(np.full(4, action_index("single:3"))).action_mask.any(axis=1).all()


def test_an_action_out_of_range_is_refused_before_anything(venv: VectorEnv) -> None:
    before = snapshot(venv)
    for bad in (-1, 201):
        actions = np.full(4, action_index("single:3"))
        actions[3] = bad
        with pytest.raises(
            IllegalMoveError, match=rf"table 3: seat 0: action {bad} is not an action index in 0\.\.200"
        ):
            venv.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(venv), strict=True))


@pytest.mark.parametrize(
    ("actions", "error", "match"),
    [
        (np.zeros(3, dtype=np.int64), ValueError, r"shape \(4,\): one per table, got shape \(3,\)"),
        (np.zeros((4, 1), dtype=np.int64), ValueError, r"shape \(4,\): one per table, got shape \(4, 1\)"),
        (np.zeros(4, dtype=np.float32), TypeError, "must be integers .* got dtype float32"),
        (np.zeros(4, dtype=bool), TypeError, "got dtype bool"),
        (["pass"] * 4, TypeError, "must be integers"),
        (5, ValueError, r"got shape \(\)"),
    ],
)
def test_wrong_shape_dtype_or_length(venv: VectorEnv, actions: object, error: type, match: str) -> None:
    before = snapshot(venv)
    with pytest.raises(error, match=match):
        venv.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(venv), strict=True))


def test_a_list_of_ints_is_accepted(venv: VectorEnv) -> None:
    assert venv.step([action_index("single:3")] * 4).current_seat.tolist() == [1, 1, 1, 1]


def test_step_before_reset() -> None:
    with pytest.raises(RuntimeError, match=r"reset\(\) before step\(\)"):
        VectorEnv(2).step([0, 0])


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"deal": []}, ValueError, r"unknown reset option\(s\) \['deal'\]"),
        ({"hands": [CHOP_CHAIN_DEAL]}, ValueError, r"one entry per table \(2\), got 1"),
        ({"hands": "3S"}, ValueError, "one entry per table"),
        ({"hands": [CHOP_CHAIN_DEAL, CHOP_CHAIN_DEAL[:3]]}, DealError, "table 1: a deal for 4 players needs 4 hands"),
        ({"hands": [None, [["ZZ"] * 10] * 4]}, CardError, "table 1: seat 0: malformed card 'ZZ'"),
        ({"leader": [0, 4]}, DealError, r"table 1: leader must be None or a seat in 0\.\.3, got 4"),
        ([1, 2], ValueError, "reset options must be a dict"),
    ],
)
def test_bad_reset_options(options: object, error: type, match: str) -> None:
    venv = VectorEnv(2, seed=0)
    batch = venv.reset()
    before = batch.observation.copy()
    with pytest.raises(error, match=match):
        venv.reset(options=options)
    assert np.array_equal(venv.reset(seed=0).observation, before)


def test_bad_constructor_arguments() -> None:
    with pytest.raises(ValueError, match="num_tables must be a positive int"):
        VectorEnv(0)
    with pytest.raises(TypeError, match=r"rules must be a sam_env\.RuleConfig"):
        VectorEnv(2, rules={"n_players": 3})


def test_bad_seats_to_observe_and_bad_buffers() -> None:
    venv = VectorEnv(2, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match=r"seats must be seat numbers in 0\.\.3"):
        venv.observe(4)
    with pytest.raises(ValueError, match=r"seats must be seat numbers"):
        venv.observe(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match=r"out must be a float32 array of shape \(2, 586\)"):
        venv.observe(0, out=np.zeros((2, 586)))
    with pytest.raises(ValueError, match=r"table must be an int in 0\.\.1"):
        venv.ledger(2)


def test_random_play_never_raises_on_its_own_masks() -> None:
    venv = VectorEnv(16, RuleConfig(n_players=2, bao1="forced"), seed=4)
    rng = np.random.default_rng(0)
    batch = venv.reset()
    for _ in range(200):
        batch = venv.step(random_actions(rng, batch.action_mask))
    assert batch.action_mask.any(axis=1).all()
