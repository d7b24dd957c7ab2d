"""TorchRL's ``PettingZooWrapper(use_mask=True)`` over instant-win deals, and docs/clients.md's PPO update: the
money each of its decisions carries (the example itself runs in tests/test_readme.py)."""

from __future__ import annotations

import pytest
import torch
from clients.docs_code import definitions
from env.env_helpers import ALL_INSTANT_WINS, InstantWinEveryOtherHand
from torchrl.envs.libs.pettingzoo import PettingZooWrapper

import sam_env
from sam_env import RuleConfig


def test_random_rollouts_cross_instant_win_deals() -> None:
    """Its random rollout samples each seat's action from ``action_mask``: an all-zero mask at reset failed."""
    aec = InstantWinEveryOtherHand(sam_env.env(rules=RuleConfig(instant_wins=ALL_INSTANT_WINS)))
    with pytest.warns(UserWarning, match="PettingZoo in TorchRL is tested using version"):  # its own note
        env = PettingZooWrapper(env=aec, use_mask=True, categorical_actions=True, seed=0)
    data = env.rollout(100, break_when_any_done=False)
    seats = list(env.group_map)
    money = torch.stack([data["next", seat, "reward"].reshape(-1) for seat in seats])
    assert aec.resets >= 4, "hands of both kinds were played"
    assert torch.equal(money.sum(dim=0), torch.zeros(money.shape[1])), "zero-sum at every step"
    assert data["next", "done"].sum() >= 3


def test_each_decision_gets_its_seats_money_until_its_next_decision() -> None:
    """docs/clients.md's ``seat_decisions`` against a step-by-step reference, over instant-win deals: every X
    a seat receives lands on its latest decision of the same hand, or is unearned when it came before the
    seat's first decision of that hand (another seat's instant win); the steps where the seat acted alone
    miss money."""
    seat_decisions = definitions("TorchRL", "seat_decisions")["seat_decisions"]
    aec = InstantWinEveryOtherHand(sam_env.env(rules=RuleConfig(instant_wins=ALL_INSTANT_WINS)))
    with pytest.warns(UserWarning, match="PettingZoo in TorchRL is tested using version"):
        env = PettingZooWrapper(env=aec, use_mask=True, categorical_actions=True, seed=1)
    data = env.rollout(300, break_when_any_done=False)
    data = data[: int(data["next", "done"].reshape(-1).nonzero().max()) + 1]
    unearned_somewhere = missed_by_acting_steps = False
    for seat in env.group_map:
        decisions, unearned = seat_decisions(data, seat)
        acts = data[seat, "mask"].reshape(-1).tolist()
        money = data["next", seat, "reward"].reshape(-1).tolist()
        ended = data["next", "done"].reshape(-1).tolist()
        expected, expected_done, left_out, latest = [], [], 0.0, None  # latest: this hand's last decision
        for t in range(len(acts)):
            if acts[t]:
                expected.append(0.0)
                expected_done.append(False)
                latest = len(expected) - 1
            if latest is None:
                left_out += money[t]
            else:
                expected[latest] += money[t]
            if ended[t]:
                if latest is not None:
                    expected_done[latest] = True
                latest = None
        assert decisions["next", seat, "reward"].reshape(-1).tolist() == expected
        assert decisions["next", seat, "done"].reshape(-1).tolist() == expected_done
        assert float(unearned) == left_out
        assert sum(expected) + left_out == sum(money), "every X the seat received is accounted for"
        unearned_somewhere |= left_out != 0
        acting_steps = data[data[seat, "mask"].reshape(-1)]["next", seat, "reward"].sum()
        missed_by_acting_steps |= float(acting_steps) != sum(expected)
    assert aec.resets >= 6 and unearned_somewhere, "instant wins paid seats that never acted"
    assert missed_by_acting_steps, "the rewards of a seat's own steps alone miss money paid on other turns"
