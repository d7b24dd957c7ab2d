"""Every bot plays only legal actions, under every rule option, in mixed tables through the env."""

from __future__ import annotations

import numpy as np
import pytest

import sam_env
from sam_env.agents.panel import PANEL_BOTS
from sam_env.agents.panel.base import PanelBot
from sam_env.agents.registry import available, can_play, load_bot
from sam_env.agents.search import SearchBot
from sam_env.bot import Bot
from sam_env.core import COMBOS, Kind, RuleConfig, SeatView
from sam_env.core.rules import INSTANT_WIN_TYPES
from sam_env.evaluation.tournament import play_out

RULE_CASES = [
    RuleConfig(n_players=2),
    RuleConfig(n_players=3, bao1="forced"),
    RuleConfig(n_players=4),
    RuleConfig(n_players=4, bao1="forced", allow_sam=False),
    RuleConfig(n_players=4, finish_on_two="lose_and_continue", straights_with_two=False),
    RuleConfig(n_players=5, finish_on_two="lose_and_continue", first_leader="random"),
    RuleConfig(n_players=5, bao1="forced", first_leader="host", cong_cards=20),
    RuleConfig(n_players=4, instant_wins=frozenset(INSTANT_WIN_TYPES)),
    RuleConfig(n_players=3, instant_wins=frozenset(), allow_sam=False, finish_on_two="lose_and_continue"),
]
HANDS_PER_CASE = 150
HONOUR_BAO1 = {"heuristic"} | {name for name, bot in PANEL_BOTS.items() if issubclass(bot, PanelBot)}
"""Bots that, as the upper seat of a one-card seat, play a single only if it is their highest
(docs/rules.md §7)."""


def _at_test_budget(bot: Bot, seed: int) -> Bot:
    """A search bot with a small budget: the budget changes how long it thinks, not which moves it
    may make, and the default one would make this test minutes longer."""
    if isinstance(bot, SearchBot):
        proposals = min(bot.proposals, 8)  # inference, if the bot has it, on fewer proposals
        return SearchBot(bot.network.checkpoint, seed, 4, 3, opponent_models=bot.opponent_models, proposals=proposals)
    return bot


def _case_id(rules: RuleConfig) -> str:
    return f"n{rules.n_players}-{rules.bao1}-sam{rules.allow_sam}-{rules.finish_on_two}"


@pytest.mark.parametrize("rules", RULE_CASES, ids=_case_id)
def test_every_bot_only_plays_legal_actions(rules: RuleConfig) -> None:
    names = [name for name in available() if can_play(name, rules)]
    env = sam_env.env(rules=rules)
    rng = np.random.default_rng(0)
    decisions = responsible_singles = 0
    lineup: list[Bot] = []

    def checked(seat: int, observation: dict, view: SeatView) -> int:
        nonlocal decisions, responsible_singles
        bot = lineup[seat]
        action = bot.act(observation, view)
        assert observation["action_mask"][action] == 1, f"{bot.name} chose illegal {COMBOS[action].name}"
        assert action in view.legal
        decisions += 1
        if bot.name in HONOUR_BAO1 and view.responsible and COMBOS[action].kind == Kind.SINGLE:
            responsible_singles += 1
            top = max(r for r, c in enumerate(view.counts) if c)
            assert COMBOS[action].key == top, f"báo 1: a responsible {bot.name} plays its highest single"
        return action

    for hand_number in range(HANDS_PER_CASE):
        env.reset(seed=hand_number)
        picks = rng.integers(len(names), size=rules.n_players)
        bots = [load_bot(names[int(i)], seed=hand_number, rules=rules) for i in picks]
        lineup[:] = [_at_test_budget(bot, hand_number) for bot in bots]
        assert play_out(env, checked) is not None
    assert decisions > HANDS_PER_CASE
    assert responsible_singles > 0, "the báo-1 check above was never exercised"
