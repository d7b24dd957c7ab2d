"""The targets NFSP's networks regress to: double-DQN targets for the Q-network, TD(0) targets for the critic.

The Q-network's target (RLCard's ``DQNAgent.train``, van Hasselt et al.'s double DQN) for a transition is its
reward plus, unless the hand ended, the discounted value that the *target* network gives the move the *online*
network finds best among the legal moves of the seat's next decision. The average policy's critic learns the
money its seat can expect from a state when it plays the average policy, by TD(0) on the transitions of the
hands in which it did (a seat keeps its mode for a whole hand, so such a transition's next decision is the
average policy's too).
"""

from __future__ import annotations

import torch

from ..common.masking import masked


def double_q_targets(
    reward: torch.Tensor,
    done: torch.Tensor,
    next_online: torch.Tensor,
    next_target: torch.Tensor,
    next_mask: torch.Tensor,
    gamma: float,
) -> torch.Tensor:
    """``reward + gamma * next_target[argmax over the legal moves of next_online]``, or ``reward`` where ``done``.

    ``next_online``, ``next_target``: ``[k, 201]`` values of the next decision's observation by the online and
    the target network; ``next_mask``: its legal moves (none where ``done``).
    """
    best = masked(next_online, next_mask).argmax(dim=1, keepdim=True)
    bootstrap = next_target.gather(1, best).squeeze(1)
    return torch.where(done, reward, reward + gamma * bootstrap)


def value_targets(reward: torch.Tensor, done: torch.Tensor, next_value: torch.Tensor, gamma: float) -> torch.Tensor:
    """TD(0): ``reward + gamma * next_value``, or ``reward`` where ``done``."""
    return torch.where(done, reward, reward + gamma * next_value)
