"""The held-out panel: its registry names, legal play under random rules, the shared rules, each style."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import sam_env
from sam_env.agents.heuristic.bot import HeuristicBot
from sam_env.agents.panel import PANEL, PANEL_BOTS, NoisyHeuristicBot, is_panel_bot
from sam_env.agents.registry import FACTORIES, available, load_bot
from sam_env.bot import Bot
from sam_env.core import COMBOS, Kind, RuleConfig, SeatView, Table, combo_index
from sam_env.core.cards import mask_of, rank_counts
from sam_env.core.combos import BEATS, LEADS, PASS, formable_combos, unary_mask
from sam_env.core.rule_masks import rule_masks
from sam_env.core.rules import INSTANT_WIN_TYPES
from sam_env.evaluation.stats import METRICS, hand_metrics
from sam_env.evaluation.tournament import play_out

STRATEGIC = [name for name in PANEL if name != "panel_noisy"]
"""The panel bots that follow the shared rules of agents/panel/base.py at every decision."""


def test_the_panel_is_at_least_four_registered_bots_with_one_prefix() -> None:
    assert len(PANEL) >= 4 and len(set(PANEL)) == len(PANEL)
    assert all(name.startswith("panel_") for name in PANEL)
    assert set(PANEL) <= set(available())
    for name in PANEL:
        bot = load_bot(name, seed=0)
        assert isinstance(bot, Bot) and bot.name == name and FACTORIES[name] is PANEL_BOTS[name]
    assert len({type(load_bot(name)) for name in PANEL}) == len(PANEL)
    assert is_panel_bot("panel_shedder") and not is_panel_bot("heuristic") and not is_panel_bot(None)


def _random_rules(rng: np.random.Generator) -> RuleConfig:
    wins = [w for w in sorted(INSTANT_WIN_TYPES) if rng.random() < 0.3]
    return RuleConfig(
        n_players=int(rng.integers(2, 6)),
        bao1=str(rng.choice(["penalty", "forced"])),
        allow_sam=bool(rng.random() < 0.7),
        finish_on_two=str(rng.choice(["pay_played", "lose_and_continue"])),
        straights_with_two=bool(rng.random() < 0.5),
        first_leader=str(rng.choice(["lowest_card", "host", "random"])),
        instant_wins=frozenset(wins),
    )


def test_panel_tables_play_legally_under_random_rules_and_keep_the_shared_rules() -> None:
    """Tables of panel bots only, 60 random rule sets: every action legal, and the bots built on the
    shared rules never finish on 2s, never pay for báo 1 and never lose a Sâm they declared."""
    rng = np.random.default_rng(21)
    decisions, kept = 0, dict.fromkeys(["finish_on_two", "responsibility", "sam_lost"], 0)
    bots: list[Bot] = []

    def checked(seat: int, observation: dict, view: SeatView) -> int:
        nonlocal decisions
        action = bots[seat].act(observation, view)
        assert observation["action_mask"][action] == 1, f"{bots[seat].name} chose illegal {COMBOS[action].name}"
        decisions += 1
        return action

    for case in range(60):
        rules = _random_rules(rng)
        env = sam_env.env(rules=rules)
        for hand_number in range(4):
            env.reset(seed=case * 10 + hand_number)
            names = [PANEL[int(i)] for i in rng.integers(len(PANEL), size=rules.n_players)]
            bots[:] = [load_bot(name, seed=hand_number, rules=rules) for name in names]
            result = play_out(env, checked)
            for seat, name in enumerate(names):
                if name in STRATEGIC:
                    m = dict(zip(METRICS, hand_metrics(result, seat), strict=True))
                    kept["finish_on_two"] += m["finish_on_two"]
                    kept["responsibility"] += m["responsibility"]
                    kept["sam_lost"] += m["sam_declared"] - m["sam_won"]
    assert decisions > 2000
    assert kept == dict.fromkeys(kept, 0)


# ---------------------------------------------------------------------- positions


RULES = RuleConfig(allow_sam=False)
OTHERS = [
    ["3S", "3C", "4S", "5D", "6H", "7S", "8C", "9D", "9H", "JS"],
    ["3D", "4C", "4D", "5S", "6C", "7C", "8D", "9S", "10S", "JC"],
    ["3H", "4H", "5C", "6D", "7D", "8H", "9C", "10C", "JD", "QS"],
]


def _view(cards: list[str], table: str | None = None, n_cards: tuple[int, ...] = (10, 10, 10, 10)) -> SeatView:
    """Seat 0 holding ``cards``: leading, or answering ``table`` played by seat 3; legal moves computed."""
    hand = Table(RULES).new_hand(deal=[["QD", "QH", "KS", "KD", "KH", "AS", "AC", "AD", "2C", "2H"], *OTHERS], leader=0)
    mask = mask_of(cards)
    formable = formable_combos(unary_mask(rank_counts(mask))) & rule_masks(RULES).allowed
    counts = list(n_cards)
    counts[0] = len(cards)
    if table is None:
        legal = tuple(int(c) for c in np.flatnonzero(formable & LEADS) if COMBOS[c].kind >= Kind.SINGLE)
        return replace(SeatView.of(hand, 0), hand=mask, n_cards=tuple(counts), legal=legal)
    on = combo_index(table)
    legal = (PASS, *(int(c) for c in np.flatnonzero(formable & BEATS[:, on])))
    return replace(SeatView.of(hand, 0), hand=mask, n_cards=tuple(counts), table_combo=on, table_owner=3, legal=legal)


def _act(name: str, view: SeatView) -> str:
    return COMBOS[load_bot(name, seed=0).act({}, view)].name


STRAIGHT_HAND = ["3S", "4C", "5D", "6H", "7S", "9C", "9D", "JS", "KC", "AD"]


def test_the_shedder_leads_its_biggest_play_where_the_heuristic_leads_its_weakest() -> None:
    view = _view(STRAIGHT_HAND)
    assert _act("panel_shedder", view) == "straight:3-7"
    assert _act("heuristic", view) != "straight:3-7"


def test_the_shedder_breaks_its_straight_to_shed_where_the_heuristic_passes() -> None:
    view = _view(["3S", "5C", "5D", "8H", "9S", "10C", "JD", "2S", "2C"], table="single:7")
    assert _act("panel_shedder", view) == "single:8"  # 9-10-J stays a straight; the 2s stay for later
    assert _act("heuristic", view) == "pass"


def test_the_hoarder_keeps_its_2_where_the_heuristic_contests_an_ace() -> None:
    cards = ["3S", "5C", "7D", "9H", "JS", "2D"]
    view = _view(cards, table="single:A", n_cards=(6, 6, 6, 6))
    assert _act("panel_hoarder", view) == "pass"
    assert _act("heuristic", view) == "single:2"
    pressed = _view(cards, table="single:A", n_cards=(6, 6, 6, 3))
    assert _act("panel_hoarder", pressed) == "single:2"


def test_the_hoarder_and_the_chopper_chop_a_2() -> None:
    cards = ["9S", "9C", "9D", "9H", "3S", "5C", "7D", "JS", "KC", "AD"]
    for name in ("panel_hoarder", "panel_chopper", "panel_shedder", "panel_cautious"):
        assert _act(name, _view(cards, table="single:2")) == "quad:9", name


def test_the_chopper_answers_whatever_it_can_and_hunts_a_short_seat() -> None:
    cards = ["3S", "5C", "7D", "9H", "JS", "KC", "AD", "4H", "6S", "QC"]
    assert _act("panel_chopper", _view(cards, table="single:8", n_cards=(10, 9, 9, 9))) != "pass"
    short = _view(cards, table="single:8", n_cards=(10, 9, 9, 3))
    assert _act("panel_chopper", short) == "single:A"
    # Leading against a seat of two cards: a play it cannot answer at all.
    lead = _view(["3S", "4C", "5D", "9C", "9D", "JS", "KC"], n_cards=(7, 9, 2, 9))
    assert COMBOS[combo_index(_act("panel_chopper", lead))].size > 2


def test_the_cautious_player_passes_rather_than_break_its_triple_until_an_opponent_is_close() -> None:
    cards = ["3S", "8S", "8C", "8D", "JS", "KC", "AD"]
    assert _act("panel_cautious", _view(cards, table="pair:5", n_cards=(7, 6, 6, 6))) == "pass"
    assert _act("heuristic", _view(cards, table="pair:5", n_cards=(7, 6, 6, 6))) == "pair:8"
    assert _act("panel_cautious", _view(cards, table="pair:5", n_cards=(7, 6, 4, 6))) == "pair:8"


def test_every_strategic_panel_bot_honours_bao1_and_never_leaves_only_2s() -> None:
    responsible = replace(_view(["3S", "5C", "7D", "9H", "KC", "AD"]), responsible=True, n_cards=(6, 1, 10, 10))
    twos = _view(["5S", "2S"], n_cards=(2, 10, 10, 10))
    for name in STRATEGIC:
        action = COMBOS[combo_index(_act(name, responsible))]
        assert action.kind != Kind.SINGLE or action.name == "single:A", name
        assert _act(name, twos) == "single:2", name


def test_the_noisy_heuristic_is_the_heuristic_at_epsilon_0_and_random_at_1() -> None:
    rules = RuleConfig()
    env = sam_env.env(rules=rules)
    heuristic = HeuristicBot()
    quiet, loud = NoisyHeuristicBot(seed=1, epsilon=0.0), NoisyHeuristicBot(seed=1, epsilon=1.0)
    differ = decisions = 0

    def compare(seat: int, observation: dict, view: SeatView) -> int:
        nonlocal differ, decisions
        expected = heuristic.act(observation, view)
        assert quiet.act(observation, view) == expected
        if view.sam_declarer is None and len(view.legal) > 1:
            decisions += 1
            differ += loud.act(observation, view) != expected
        return expected

    for hand_number in range(20):
        env.reset(seed=hand_number)
        play_out(env, compare)
    assert decisions > 100 and differ > decisions / 3
    with pytest.raises(ValueError, match="epsilon must be a probability"):
        NoisyHeuristicBot(epsilon=1.5)
