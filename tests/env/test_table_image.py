"""``render_mode="rgb_array"``: a picture of the table from one seat, other hands face down unless revealed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from env_helpers import CHOP_CHAIN_DEAL, actions

import sam_env
from sam_env import SingleAgentEnv, table_image
from sam_env.core import Table

BACK = np.array(table_image.BACK, dtype=np.uint8)


def backs(picture: np.ndarray) -> int:
    """Pixels of the colour of a card's back."""
    return int(np.all(picture == BACK, axis=-1).sum())


def test_the_observers_cards_are_face_up_and_the_others_face_down_unless_revealed() -> None:
    env = sam_env.env(render_mode="rgb_array", render_seat=1)
    env.reset(seed=0)
    picture = env.render()
    assert picture.shape == (table_image.HEIGHT, table_image.WIDTH, 3) and picture.dtype == np.uint8
    assert backs(picture) > 0
    assert backs(env.unwrapped.render_image(1, reveal=True)) == 0
    assert not np.array_equal(picture, env.unwrapped.render_image(2)), "another seat's side"
    assert env.metadata["render_fps"] > 0


def test_the_picture_follows_the_hand() -> None:
    """The chặt đè example: seat 0 leads a 2, seats 1-3 chop; the pictures change at every move."""
    env = sam_env.env(render_mode="rgb_array")
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    pictures = [env.render()]
    for action in actions(["decline_sam"] * 4 + ["single:2", "quad:5", "quad:9"]):
        env.step(action)
        pictures.append(env.render())
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(pictures))


def test_every_table_size_and_the_end_of_a_hand() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 3, 5):
        hand = Table(sam_env.RuleConfig(n_players=n), rng=n).new_hand()
        while not hand.over:
            hand.step(int(rng.choice(hand.legal_moves())))
        for seat in range(n):
            assert table_image.table_image(hand, seat).shape == (table_image.HEIGHT, table_image.WIDTH, 3)
    with pytest.raises(ValueError, match=r"seat must be a seat in 0\.\.4"):
        table_image.table_image(hand, 5)


def test_without_matplotlibs_font_pillows_own_font_writes_without_accents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_image, "_dejavu", lambda: None)
    table_image._fonts.cache_clear()
    try:
        assert table_image._fonts().fold("báo Sâm ▶ Lốc") == "bao Sam > Loc"
        hand = Table(sam_env.RuleConfig(), rng=0).new_hand()
        assert table_image.table_image(hand, 0).shape == (table_image.HEIGHT, table_image.WIDTH, 3)
    finally:
        table_image._fonts.cache_clear()


def test_the_single_agent_view_draws_the_learners_side() -> None:
    env = SingleAgentEnv(render_mode="rgb_array", learner_seat=3, reveal_hands=True)
    env.reset(seed=1)
    np.testing.assert_array_equal(env.render(), env.aec.render_image(3, reveal=True))
    with pytest.raises(ValueError, match=r"render_seat=4 must be a seat in 0\.\.3"):
        sam_env.env(render_seat=4)
