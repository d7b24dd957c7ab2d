"""TorchRL's ``PettingZooWrapper(use_mask=True)`` over instant-win deals (docs/clients.md: a PPO update)."""

from __future__ import annotations

import pytest
import torch
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
