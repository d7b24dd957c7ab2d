"""The heuristic's Sâm proof, báo-1 responsibility, chops, and its choices in small positions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sam_env.agents.greedy_bot import GreedyBot
from sam_env.agents.heuristic.bot import HeuristicBot
from sam_env.core import COMBOS, EndReason, Hand, Kind, RuleConfig, SeatView, Table, combo_index
from sam_env.core.cards import mask_of
from sam_env.core.combos import DECLARE_SAM, DECLINE_SAM

# Triple 2, a pair of aces and the highest five-card straight: with three 2s and three aces in
# hand, the unseen cards can form no pair of 2s, no triple 2 and no higher five-card straight.
SAM_HAND = ["2S", "2C", "2D", "AS", "AC", "10H", "JH", "QH", "KH", "AH"]
# The same with a pair of kings: the three unseen aces make a pair of aces, which beats it.
NOT_SAM_HAND = ["2S", "2C", "2D", "KS", "KC", "10H", "JH", "QH", "KH", "AH"]
FILLERS = [
    ["3S", "3C", "4S", "5D", "6H", "7S", "8C", "9D", "9H", "JS"],
    ["3D", "4C", "4D", "5S", "6C", "7C", "8D", "9S", "10S", "JC"],
    ["3H", "4H", "5C", "6D", "7D", "8H", "9C", "10C", "JD", "QS"],
]


def _observation(hand: Hand) -> dict[str, np.ndarray]:
    return {"action_mask": hand.legal_mask().astype(np.int8)}


def _act(bot: HeuristicBot, hand: Hand) -> int:
    return bot.act(_observation(hand), SeatView.of(hand, hand.to_act))


def test_declares_sam_on_a_provably_unbeatable_hand_and_wins_it() -> None:
    hand = Table(RuleConfig()).new_hand(deal=[SAM_HAND, *FILLERS], leader=0)
    bot = HeuristicBot(seed=0)
    assert _act(bot, hand) == DECLARE_SAM
    hand.step(DECLARE_SAM)
    others = [HeuristicBot(seed=s) for s in (1, 2, 3)]
    while not hand.over:
        player = bot if hand.to_act == 0 else others[hand.to_act - 1]
        hand.step(_act(player, hand))
    assert hand.result.reason is EndReason.SAM_WON
    assert hand.result.net[0] == 60


def test_does_not_declare_sam_when_an_unseen_combination_could_beat_a_play() -> None:
    hand = Table(RuleConfig()).new_hand(deal=[NOT_SAM_HAND, *FILLERS], leader=0)
    assert _act(HeuristicBot(seed=0), hand) == DECLINE_SAM


def test_blocks_a_sam_whenever_it_can() -> None:
    # Seat 1 holds a pair of aces; a declarer leading a lower pair is blocked at once.
    weak = ["3S", "3C", "5S", "6D", "8H", "9S", "10C", "JD", "QH", "KS"]
    aces = ["AS", "AC", "4H", "5D", "6H", "7S", "8C", "9D", "9H", "JS"]
    rest = [
        ["3D", "4C", "4D", "5C", "6C", "7C", "8D", "9C", "10S", "JC"],
        ["3H", "4S", "5H", "6S", "7D", "8S", "10D", "10H", "JH", "QS"],
    ]
    hand = Table(RuleConfig()).new_hand(deal=[weak, aces, *rest], leader=0)
    hand.step(DECLARE_SAM)
    hand.step(combo_index("pair:3"))
    assert hand.to_act == 1
    hand.step(_act(HeuristicBot(seed=0), hand))
    assert hand.result.reason is EndReason.SAM_BLOCKED
    assert hand.result.sam_blocker == 1


def _view(hand_cards: list[str], **changes: object) -> SeatView:
    """Seat 0's view at the first lead of a hand, holding ``hand_cards``, with other fields replaced."""
    hand = Table(RuleConfig(allow_sam=False)).new_hand(deal=[SAM_HAND, *FILLERS], leader=0)
    return replace(SeatView.of(hand, 0), hand=mask_of(hand_cards), **changes)


def test_responsible_seat_plays_a_combination_or_its_highest_single() -> None:
    cards = ["3S", "5C", "7D", "9H", "JS", "KC", "AD", "4H", "6S", "8C"]
    # Only singles are offered (as if leading after every combination were gone): the highest one.
    singles = [combo_index(f"single:{r}") for r in ("3", "4", "5", "6", "7", "8", "9", "J", "K", "A")]
    view = _view(cards, responsible=True, n_cards=(10, 1, 10, 10), legal=tuple(singles))
    action = HeuristicBot(seed=0).act({}, view)
    assert action == combo_index("single:A")


def test_responsible_follower_does_not_undersize() -> None:
    cards = ["3S", "5C", "7D", "9H", "JS", "KC", "AD", "4H", "6S", "QC"]
    table = combo_index("single:8")
    legal = (0, *(combo_index(f"single:{r}") for r in ("9", "J", "Q", "K", "A")))
    view = _view(cards, responsible=True, n_cards=(10, 1, 10, 10), table_combo=table, table_owner=3, legal=legal)
    assert HeuristicBot(seed=0).act({}, view) in (0, combo_index("single:A"))


def test_chops_a_two_with_a_quad() -> None:
    cards = ["9S", "9C", "9D", "9H", "3S", "5C", "7D", "JS", "KC", "AD"]
    table = combo_index("single:2")
    legal = (0, combo_index("quad:9"))
    view = _view(cards, table_combo=table, table_owner=3, legal=legal)
    assert HeuristicBot(seed=0).act({}, view) == combo_index("quad:9")


def test_keeps_its_two_early_and_sheds_a_fitting_single() -> None:
    cards = ["3S", "5C", "7D", "9H", "JS", "KC", "2D", "4H", "6S", "QC"]
    table = combo_index("single:4")
    legal = (0, *(combo_index(f"single:{r}") for r in ("5", "6", "7", "9", "J", "Q", "K", "2")))
    view = _view(cards, table_combo=table, table_owner=3, legal=legal)
    action = HeuristicBot(seed=0).act({}, view)
    assert COMBOS[action].kind == Kind.SINGLE and COMBOS[action].key < COMBOS[combo_index("single:K")].key


def test_leads_so_that_its_last_play_is_not_only_twos() -> None:
    view = _view(["5S", "2S"], n_cards=(2, 10, 10, 10))
    view = replace(view, legal=(combo_index("single:5"), combo_index("single:2")))
    assert HeuristicBot(seed=0).act({}, view) == combo_index("single:2")


def test_greedy_plays_its_lowest_combination_and_declines_sam() -> None:
    hand = Table(RuleConfig()).new_hand(deal=[SAM_HAND, *FILLERS], leader=0)
    bot = GreedyBot(seed=0)
    assert bot.act(_observation(hand), SeatView.of(hand, 0)) == DECLINE_SAM
    for _ in range(4):
        hand.step(DECLINE_SAM)
    assert bot.act(_observation(hand), SeatView.of(hand, 0)) == combo_index("single:10")
