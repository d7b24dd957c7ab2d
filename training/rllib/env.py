"""The PettingZoo AEC environment as an RLlib ``MultiAgentEnv``: one seat acts per step.

RLlib ships ``PettingZooEnv`` for AEC games, but it steps a real action for a seat that has finished
(when only ``None`` is allowed), so this adapter is ours. It only translates: observations keep the
environment's dict, so the action mask travels with the observation to the RLModule that applies it
(:mod:`sam_env.training.rllib.module`).

Rewards are the AEC's cumulative rewards, read with ``last()`` when a seat is next to act or when
the hand ends, so money that reaches a seat while another one is acting (chop money) is credited to
the seat it belongs to, never to the seat that happens to act.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.env.multi_agent_env import MultiAgentEnv

import sam_env
from sam_env import RuleConfig

MultiAgentDict = dict[str, Any]


class SamMultiAgentEnv(MultiAgentEnv):
    """Sâm Lốc hands as RLlib episodes; ``config``: ``{"rules": {...}, "reward_scale": float}``.

    Each episode is one hand, with at least one decision: an instant-win deal is an episode whose one
    step is the winner's only legal move, which settles it (see :mod:`sam_env.aec_env`).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        rules = RuleConfig.from_dict(config.get("rules") or {})
        self.aec = sam_env.env(rules=rules, reward_scale=float(config.get("reward_scale", 1.0)))
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        self.aec.reset(seed=seed, options=options)  # no seat is ever terminated at reset
        self.agents = list(self.aec.agents)
        agent = self.aec.agent_selection
        return {agent: self.aec.observe(agent)}, {agent: {}}

    def step(
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        acting = self.aec.agent_selection
        if acting not in action_dict:
            raise ValueError(f"{acting} is to act, but the actions given are for {sorted(action_dict)}")
        self.aec.step(int(action_dict[acting]))
        obs: MultiAgentDict = {}
        rewards: MultiAgentDict = {}
        terminated: MultiAgentDict = {}
        infos: MultiAgentDict = {}
        if self.aec.agents and not self.aec.terminations[self.aec.agent_selection]:
            agent = self.aec.agent_selection
            observation, reward, _, _, _ = self.aec.last()
            obs[agent], rewards[agent], terminated[agent], infos[agent] = observation, reward, False, {}
            # Money of seats that are not acting now (chop money) waits in their cumulative reward
            # and arrives with their next observation, as in the AEC loop.
        else:
            # The hand is over: every seat gets its last observation and the money still owed to it.
            while self.aec.agents:
                agent = self.aec.agent_selection
                observation, reward, _, _, info = self.aec.last()
                obs[agent], rewards[agent], terminated[agent] = observation, reward, True
                infos[agent] = {"net": info.get("net")}
                self.aec.step(None)
        terminated["__all__"] = not self.aec.agents
        self.agents = list(self.aec.agents)
        return obs, rewards, terminated, {"__all__": False}, infos

    def close(self) -> None:
        self.aec.close()
