"""Hand splitting is exact for its cost; the unseen-card checks match the combination table."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sam_env.agents.heuristic.analysis import COST, beatable, beaters, best_split, counts_after, formable, sam_plan
from sam_env.core import COMBOS, Kind, RuleConfig, combo_index, combo_name
from sam_env.core.cards import FULL_DECK, N_RANKS, mask_of, rank_counts

PLAYABLE = [c.id for c in COMBOS if c.kind in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD, Kind.STRAIGHT)]


def _counts(cards: str) -> tuple[int, ...]:
    return tuple(rank_counts(mask_of(cards.split())))


def _brute_force_cost(counts: tuple[int, ...]) -> float:
    """Cheapest partition by trying every playable combination at every step."""
    if not any(counts):
        return 0.0
    return min(COST[c] + _brute_force_cost(counts_after(counts, c)) for c in PLAYABLE if formable(counts, c))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=1, max_size=6, unique=True))
def test_best_split_is_the_cheapest_partition(cards: list[int]) -> None:
    counts = tuple(rank_counts(mask_of(cards)))
    cost, split = best_split(counts)
    assert abs(cost - _brute_force_cost(counts)) < 1e-9
    rest = counts
    for c in split:
        rest = counts_after(rest, c)
    assert rest == (0,) * N_RANKS, "the split uses every card exactly once"


def test_best_split_prefers_few_strong_plays() -> None:
    assert [combo_name(c) for c in best_split(_counts("3S 4C 5D 6H 7S"))[1]] == ["straight:3-7"]
    split = {combo_name(c) for c in best_split(_counts("9S 9C 9D 9H 2S 2C KD KH 4S 6C"))[1]}
    assert {"quad:9", "pair:2", "pair:K"} <= split


def test_straights_with_two_follow_the_rule_option() -> None:
    counts = _counts("AS 2C 3D")
    assert best_split(counts, True)[1] == (combo_index("straight:A-3"),)
    assert len(best_split(counts, False)[1]) == 3


def test_beaters_see_chops_and_respect_card_limits() -> None:
    unseen = tuple(rank_counts(FULL_DECK ^ mask_of(["2S", "2C", "2D"])))
    possible = beaters(unseen, RuleConfig())
    assert beatable(combo_index("single:2"), possible), "a quad in unseen cards chops a 2"
    assert not beatable(combo_index("triple:2"), possible)
    assert not beatable(combo_index("single:2"), beaters(unseen, RuleConfig(), max_size=3))


def test_sam_plan_orders_twos_first() -> None:
    hand = "2S 2C 2D AS AC 10H JH QH KH AH"
    unseen = tuple(rank_counts(FULL_DECK ^ mask_of(hand.split())))
    plan = sam_plan(_counts(hand), unseen, RuleConfig())
    assert plan is not None
    assert combo_name(plan[0]) == "triple:2"
    assert not COMBOS[plan[-1]].only_twos
