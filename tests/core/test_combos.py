"""The combination table (docs/rules.md §3) and what beats what (§4), as golden tables."""

from __future__ import annotations

import numpy as np
import pytest

from sam_env.core import COMBOS, N_COMBOS, Kind, combo_index, combo_name
from sam_env.core.combos import BEATS, LEADS, SIZE, STRAIGHT_WITH_TWO

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
LINE = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
"""docs/rules.md §3: straights run along this line, never wrapping."""


def _c(name: str) -> int:
    return combo_index(name)


def beats(play: str, table: str) -> bool:
    return bool(BEATS[_c(play), _c(table)])


# ----------------------------------------------------------------- the table itself


def test_table_has_201_combinations() -> None:
    # 3 non-plays + 13 ranks x 4 same-rank kinds + straights of length 3..10 along a 14-position
    # line (15 - L starts for each L) + one double quad per pair of ranks.
    straights = sum(15 - length for length in range(3, 11))
    expected = 3 + 13 * 4 + straights + 13 * 12 // 2
    assert expected == 201
    assert N_COMBOS == len(COMBOS) == 201


def test_ids_are_positions_and_names_unique() -> None:
    assert [c.id for c in COMBOS] == list(range(N_COMBOS))
    assert len({c.name for c in COMBOS}) == N_COMBOS


@pytest.mark.parametrize("index", range(201))
def test_names_round_trip(index: int) -> None:
    assert combo_index(combo_name(index)) == index


def test_fixed_leading_ids() -> None:
    assert [combo_name(i) for i in range(3)] == ["pass", "declare_sam", "decline_sam"]


def test_counts_per_kind() -> None:
    kinds = [c.kind for c in COMBOS]
    assert kinds.count(Kind.SINGLE) == 13
    assert kinds.count(Kind.PAIR) == 13
    assert kinds.count(Kind.TRIPLE) == 13
    assert kinds.count(Kind.QUAD) == 13
    assert kinds.count(Kind.STRAIGHT) == 68
    assert kinds.count(Kind.DOUBLE_QUAD) == 78


def _line_straights(with_two: bool) -> set[str]:
    """Every straight docs/rules.md §3 allows, enumerated from the line directly."""
    out = set()
    for length in range(3, 11):
        for start in range(len(LINE) - length + 1):
            run = LINE[start : start + length]
            if not with_two and "2" in run:
                continue
            out.add(f"straight:{run[0]}-{run[-1]}")
    return out


def test_straights_are_exactly_the_line_runs() -> None:
    names = {c.name for c in COMBOS if c.kind == Kind.STRAIGHT}
    assert names == _line_straights(with_two=True)


@pytest.mark.parametrize(
    ("name", "ranks"),
    [
        ("straight:A-3", ["A", "2", "3"]),
        ("straight:2-5", ["2", "3", "4", "5"]),
        ("straight:Q-A", ["Q", "K", "A"]),
        ("straight:3-5", ["3", "4", "5"]),
        ("straight:A-10", ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]),
        ("straight:5-A", ["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]),
        ("straight:3-Q", ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]),
        ("straight:10-A", ["10", "J", "Q", "K", "A"]),
    ],
)
def test_valid_straights(name: str, ranks: list[str]) -> None:
    combo = COMBOS[combo_index(name)]
    assert combo.kind is Kind.STRAIGHT
    assert sorted(RANKS[r] for r, k in combo.needs for _ in range(k)) == sorted(ranks)
    assert combo.size == len(ranks)


@pytest.mark.parametrize(
    "name",
    [
        "straight:K-2",  # K A 2 wraps
        "straight:K-A-2",
        "straight:Q-2",
        "straight:A-2",  # two cards
        "straight:3-4",
        "straight:J-3",
        "straight:A-J",  # 11 cards
        "straight:3-K",  # 11 cards
        "double_quad:9+5",  # canonical order is low+high
        "double_quad:5+5",
        "quad",
        "single:1",
        "single:11",
        "pair:B",
        "triplet:3",
        "",
    ],
)
def test_names_that_do_not_exist(name: str) -> None:
    with pytest.raises(ValueError, match="unknown action name"):
        combo_index(name)


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("single:T", "single:10"),
        ("single:t", "single:10"),
        ("pair:k", "pair:K"),
        ("Pair:k", "pair:K"),
        ("straight:a-3", "straight:A-3"),
        ("straight:T-a", "straight:10-A"),
        ("STRAIGHT:A-3", "straight:A-3"),
        ("double_quad:5+t", "double_quad:5+10"),
        ("quad:j", "quad:J"),
        ("PASS", "pass"),
        (" Decline_Sam ", "decline_sam"),
    ],
)
def test_name_aliases(alias: str, canonical: str) -> None:
    assert combo_index(alias) == combo_index(canonical)


@pytest.mark.parametrize("bad", [-1, 201, 1.0, "3", None])
def test_combo_name_out_of_range(bad: object) -> None:
    with pytest.raises(ValueError, match="out of range"):
        combo_name(bad)  # type: ignore[arg-type]


def test_straights_containing_two() -> None:
    # With straights_with_two=False, straights run 3..A only: exactly the runs without a 2.
    flagged = {COMBOS[i].name for i in np.flatnonzero(STRAIGHT_WITH_TWO)}
    assert flagged == _line_straights(with_two=True) - _line_straights(with_two=False)
    assert "straight:A-3" in flagged
    assert "straight:2-4" in flagged
    assert "straight:3-5" not in flagged
    assert "straight:Q-A" not in flagged
    assert len(_line_straights(with_two=False)) == sum(13 - length for length in range(3, 11))


def test_sizes() -> None:
    assert SIZE[_c("single:2")] == 1
    assert SIZE[_c("pair:2")] == 2
    assert SIZE[_c("triple:2")] == 3
    assert SIZE[_c("quad:9")] == 4
    assert SIZE[_c("straight:A-3")] == 3
    assert SIZE[_c("straight:3-Q")] == 10
    assert SIZE[_c("double_quad:5+9")] == 8
    assert SIZE[_c("pass")] == 0


def test_only_twos() -> None:
    # docs/rules.md §11: a final play that "consists only of 2s". The rule lists single, pair and triple
    # (four 2s are an instant win by default); with that instant win off, four 2s are also only 2s.
    only = {c.name for c in COMBOS if c.only_twos}
    assert only == {"single:2", "pair:2", "triple:2", "quad:2"}
    assert not COMBOS[_c("straight:A-3")].only_twos
    assert not COMBOS[_c("double_quad:A+2")].only_twos


# ----------------------------------------------------------------- what beats what


def _same_type_cases() -> list[tuple[str, str, bool]]:
    cases = []
    for word in ("single", "pair", "triple", "quad"):
        for hi in range(13):
            for lo in range(13):
                cases.append((f"{word}:{RANKS[hi]}", f"{word}:{RANKS[lo]}", hi > lo))
    return cases


@pytest.mark.parametrize(("play", "table", "expected"), _same_type_cases())
def test_same_type_beats_by_rank(play: str, table: str, expected: bool) -> None:
    # §4: same type, same number of cards, strictly higher rank; equal ranks never beat.
    assert beats(play, table) is expected


def _straight_cases() -> list[tuple[str, str, bool]]:
    runs = []
    for length in range(3, 11):
        for start in range(len(LINE) - length + 1):
            runs.append((length, start + length - 1, f"straight:{LINE[start]}-{LINE[start + length - 1]}"))
    return [(p, t, lp == lt and hp > ht) for lp, hp, p in runs for lt, ht, t in runs]


def test_straights_only_meet_their_own_length() -> None:
    # §3–4: ranked by highest position on the line; only same length meets.
    for play, table, expected in _straight_cases():
        assert beats(play, table) is expected, (play, table)


@pytest.mark.parametrize(
    ("play", "table", "expected"),
    [
        ("straight:2-4", "straight:A-3", True),
        ("straight:3-5", "straight:2-4", True),
        ("straight:Q-A", "straight:J-K", True),
        ("straight:Q-A", "straight:A-3", True),
        ("straight:A-3", "straight:Q-A", False),
        ("straight:3-6", "straight:3-5", False),
        ("straight:3-5", "straight:3-6", False),
        ("straight:J-A", "straight:Q-A", False),
        ("straight:3-5", "straight:3-5", False),
        ("straight:10-A", "straight:2-6", True),
    ],
)
def test_straight_golden(play: str, table: str, expected: bool) -> None:
    assert beats(play, table) is expected


@pytest.mark.parametrize(
    ("play", "table"),
    [
        # The three chops of §4.
        ("quad:3", "single:2"),
        ("quad:2", "single:2"),
        ("quad:A", "single:2"),
        ("double_quad:3+4", "pair:2"),
        ("double_quad:5+9", "pair:2"),
        ("double_quad:A+2", "pair:2"),
        ("quad:4", "quad:3"),
        ("quad:2", "quad:A"),
        ("quad:J", "quad:9"),
    ],
)
def test_chops(play: str, table: str) -> None:
    assert beats(play, table)


@pytest.mark.parametrize(
    ("play", "table"),
    [
        ("quad:3", "single:A"),  # a quad chops only a 2 among singles
        ("quad:2", "single:K"),
        ("quad:9", "pair:2"),  # a single quad does not chop a pair of 2s
        ("quad:9", "pair:3"),
        ("quad:9", "triple:3"),
        ("quad:9", "straight:3-5"),
        ("quad:9", "straight:3-6"),
        ("quad:9", "triple:2"),  # nothing beats three 2s
        ("double_quad:5+9", "triple:2"),
        ("quad:2", "triple:2"),
        ("double_quad:5+9", "single:2"),
        ("double_quad:5+9", "quad:3"),
        ("double_quad:5+9", "pair:A"),
        ("double_quad:10+J", "double_quad:5+9"),  # nothing beats a double quad
        ("double_quad:A+2", "double_quad:3+4"),
        ("quad:2", "double_quad:3+4"),
        ("single:2", "single:2"),  # 2♥ does not beat 2♠: suits never decide
        ("pair:2", "pair:2"),
        ("quad:3", "quad:3"),
        ("quad:3", "quad:4"),
        ("single:2", "pair:A"),
        ("pair:2", "single:A"),
        ("pair:2", "triple:3"),
        ("triple:2", "pair:2"),
        ("single:2", "straight:A-3"),
        ("straight:3-5", "single:2"),
        ("pair:K", "single:3"),
    ],
)
def test_does_not_beat(play: str, table: str) -> None:
    assert not beats(play, table)


def test_nothing_beats_a_non_play() -> None:
    for t in ("pass", "declare_sam", "decline_sam"):
        assert not BEATS[:, _c(t)].any()
    for p in ("pass", "declare_sam", "decline_sam"):
        assert not BEATS[_c(p), :].any()


def test_beaters_of_twos_complete_lists() -> None:
    def beaters(table: str) -> set[str]:
        return {COMBOS[i].name for i in np.flatnonzero(BEATS[:, _c(table)])}

    assert beaters("single:2") == {f"quad:{r}" for r in RANKS}
    assert beaters("pair:2") == {c.name for c in COMBOS if c.kind == Kind.DOUBLE_QUAD}
    assert beaters("triple:2") == set()
    assert beaters("single:A") == {"single:2"}
    assert beaters("quad:A") == {"quad:2"}
    assert beaters("double_quad:3+4") == set()


def test_what_may_lead() -> None:
    # §5: the leader plays any combination, a double quad excepted; the leader may not pass.
    leads = {COMBOS[i].name for i in np.flatnonzero(LEADS)}
    expected = {c.name for c in COMBOS if c.kind not in (Kind.PASS, Kind.DECLARE_SAM, Kind.DECLINE_SAM)}
    expected -= {c.name for c in COMBOS if c.kind == Kind.DOUBLE_QUAD}
    assert leads == expected
    assert "quad:5" in leads
    assert "double_quad:5+9" not in leads
    assert "pass" not in leads
