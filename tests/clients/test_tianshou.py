"""Tianshou as its users run it: its PettingZoo wrapper and Collector on the AEC env, with masked random
policies, over instant-win deals (the DQN that learns on the single-agent view is docs/clients.md's example)."""

from __future__ import annotations

import numpy as np
from env.env_helpers import ALL_INSTANT_WINS, InstantWinEveryOtherHand
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import sam_env
from sam_env import RuleConfig


def test_collector_crosses_instant_win_deals_and_stacks_the_infos() -> None:
    def make() -> PettingZooEnv:
        return PettingZooEnv(InstantWinEveryOtherHand(sam_env.env(rules=RuleConfig(instant_wins=ALL_INSTANT_WINS))))

    env = make()
    randoms = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    collector = Collector(
        MultiAgentOffPolicyAlgorithm(algorithms=randoms, env=env),
        DummyVectorEnv([make, make]),
        VectorReplayBuffer(4_000, 2),
    )
    collector.reset()
    stats = collector.collect(n_episode=6)  # every other hand an instant win
    buffer = collector.buffer
    ended = buffer.terminated[: len(buffer)]
    reasons = buffer.info.reason[: len(buffer)][ended]
    assert stats.n_collected_episodes >= 6 and "instant_win" in set(reasons)
    assert buffer.info.net.dtype.kind == "i" and buffer.info.winner.dtype.kind == "i"
    assert np.all(buffer.rew[: len(buffer)].sum(axis=1) == 0), "every step's money is zero-sum over the seats"
