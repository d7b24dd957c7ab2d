"""A seat as text and JSON (sam_env.text_views): no card the seat may not see, over thousands of random hands of
every table size; every legal move's name read back to its action; replies read forgivingly, never as an illegal
move."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from sam_env.core import RuleConfig, SeatView, Table, combo_name
from sam_env.core.cards import cards_of, format_card
from sam_env.text_views import MoveParseError, parse_move, seat_json, seat_json_text, seat_text

CARD = re.compile(r"(?<![0-9A-Za-z_-])(?:10|[2-9JQKA])[SCDH](?![0-9A-Za-z_-])")
"""A card in the engine's notation, not inside a longer word (the web views' test reads cards the same way)."""


def random_views(hands: int, seed: int):
    """Every seat's view at every decision of ``hands`` random hands, over 2 to 5 seats, with the cards played so far:
    ``(view, visible card strings)``."""
    rng = np.random.default_rng(seed)
    for h in range(hands):
        rules = RuleConfig(n_players=2 + h % 4)
        hand = Table(rules, rng=int(rng.integers(2**31))).new_hand()
        while not hand.over:
            for seat in range(rules.n_players):
                view = SeatView.of(hand, seat)
                seen = view.hand
                for played in view.played:
                    seen |= played
                yield view, {format_card(c) for c in cards_of(seen)}
            legal = hand.legal_moves()
            hand.step(int(rng.choice(legal)))


def test_no_view_shows_a_card_its_seat_may_not_see() -> None:
    """Thousands of hands, every seat at every decision: the only cards either view names are the seat's own and the
    ones already played."""
    views = 0
    for view, visible in random_views(2000, seed=1):
        for text in (seat_text(view), seat_json_text(view), seat_text(view, legal_moves=False)):
            shown = set(CARD.findall(text))
            assert shown <= visible, (shown - visible, view.seat)
        views += 1
    assert views > 50_000


def test_every_legal_move_s_name_reads_back_to_its_action_and_the_views_are_deterministic() -> None:
    for view, _ in random_views(200, seed=2):
        data = seat_json(view)
        assert data["legal_moves"] == [combo_name(a) for a in view.legal]
        for action in view.legal:
            assert parse_move(combo_name(action), view.legal) == action
        assert seat_text(view) == seat_text(view) and json.loads(seat_json_text(view)) == data
        assert "legal_moves" not in seat_json(view, legal_moves=False)
        assert "Legal moves:" not in seat_text(view, legal_moves=False)


@pytest.mark.parametrize(
    ("reply", "name"),
    [
        ("pair:K", "pair:K"),
        ("  PAIR : k ", "pair:K"),
        ("`pair:k`.", "pair:K"),
        ("I play pair:K now", "pair:K"),
        ("straight:10-q", "straight:10-Q"),
        ("straight: T - Q", "straight:10-Q"),
        ("Pass", "pass"),
    ],
)
def test_replies_are_read_forgivingly(reply: str, name: str) -> None:
    from sam_env.core import combo_index

    legal = [combo_index(n) for n in ("pass", "pair:K", "straight:10-Q", "single:3")]
    assert combo_name(parse_move(reply, legal)) == name


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("pair:A", "pair:A is not a legal move now"),
        ("a pair of kings", "the reply names no move"),
        ("pass or pair:K", "the reply names several moves; name exactly one"),
        ("single:7 (not legal?) otherwise pair:K", "the reply names several moves; name exactly one"),
        ("", "the reply names no move"),
        ("straight:Q-10", "the reply names no move"),
    ],
)
def test_a_reply_never_becomes_an_illegal_move(reply: str, why: str) -> None:
    from sam_env.core import combo_index

    legal = [combo_index(n) for n in ("pass", "pair:K", "straight:10-Q")]
    with pytest.raises(MoveParseError, match=re.escape(why)) as refused:
        parse_move(reply, legal)
    assert "the legal moves are: pass, pair:K, straight:10-Q" in str(refused.value)


def test_the_rules_summary_follows_the_table_s_options_and_stakes() -> None:
    from sam_env.text_views import rules_summary

    default = rules_summary(RuleConfig())
    assert "A-2-3 up to Q-K-A" in default and "20 X from each seat" in default and "1 X per card" in default
    other = RuleConfig(
        n_players=3, straights_with_two=False, allow_sam=False, bao1="forced", sam_unit=30, cong_cards=15
    )
    text = rules_summary(other)
    assert "3 seats" in text and "3 up to A, no 2s" in text and "for 15 cards" in text and "Sâm:" not in text
    assert "must be your highest" in text
    view = next(v for v, _ in random_views(1, seed=3))
    assert seat_json(view)["rules_summary"] in seat_text(view)


def test_the_json_view_reads_back_to_the_seat_view_it_was_written_from() -> None:
    """seat_view_from_json(seat_json(v)) == v at every decision of hundreds of random hands of every table size, so a
    harness holding only the JSON can ask sam-env's bots for their move (the chat-server tests do)."""
    from sam_env.text_views import seat_view_from_json

    for view, _ in random_views(400, seed=11):
        assert seat_view_from_json(json.loads(seat_json_text(view))) == view


def test_a_document_that_is_not_a_seat_view_is_refused_by_the_key_it_lacks() -> None:
    from sam_env.text_views import seat_view_from_json

    view, _ = next(random_views(1, seed=3))
    data = seat_json(view, legal_moves=False)
    with pytest.raises(ValueError, match="legal_moves"):
        seat_view_from_json(data)
    for key, value in (("phase", "foo"), ("to_beat", "x"), ("history", [{"seat": 0, "move": "pair:Z"}])):
        with pytest.raises(ValueError, match="not a seat's JSON view"):
            seat_view_from_json({**seat_json(view), key: value})
    with pytest.raises(ValueError, match="is a JSON object"):
        seat_view_from_json([1, 2])  # type: ignore[arg-type]
