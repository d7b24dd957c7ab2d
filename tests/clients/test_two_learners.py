"""docs/clients.md's two learners at one table (Tianshou's DQN and a small PPO through the AEC loop): the money
each learner's loss sees is the money its seats earned, and its ``Ledger`` credits every X of a seat to the
seat's latest decision of the hand, also over instant-win deals where some seats never act."""

from __future__ import annotations

import numpy as np
from clients.docs_code import definitions, example
from env.env_helpers import ALL_INSTANT_WINS, InstantWinEveryOtherHand

import sam_env
from sam_env import RuleConfig

HEADING = "Two algorithms at one table: the AEC loop"


def test_each_learners_loss_sees_the_money_its_seats_earned() -> None:
    namespace = {"__name__": "docs_example"}
    exec(compile(example(HEADING), "docs/clients.md", "exec"), namespace)
    dqn, ppo, earned, seen, scale = (namespace[k] for k in ("dqn", "ppo", "earned", "seen", "SCALE"))
    assert set(seen) == {"DQN", "PPO"}
    for name, learner in (("DQN", dqn), ("PPO", ppo)):
        assert np.isclose(seen[name] + learner.ledger.unearned, earned[learner], atol=1e-4)
        assert abs(earned[learner]) > 10 * scale, "hands with money were played"
        assert all("next_obs" in row for row in learner.ledger.rows), "every decision was closed by its hand's end"
    assert np.isclose(earned[dqn] + earned[ppo], 0.0, atol=1e-6), "zero-sum"


def test_ledger_credits_each_seat_until_its_next_decision_over_instant_wins() -> None:
    """Random legal moves at every seat; per hand, a seat's decisions carry its whole net for the hand, or the
    net is unearned when the seat never acted (another seat's instant win)."""
    ledger_class = definitions(HEADING, "Ledger")["Ledger"]
    env = InstantWinEveryOtherHand(sam_env.env(rules=RuleConfig(instant_wins=ALL_INSTANT_WINS)))
    rng = np.random.default_rng(0)
    unearned_hands = 0
    for hand in range(10):
        ledger = ledger_class()
        env.reset(seed=hand)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            ledger.credit(agent, reward, observation, done=termination or truncation)
            if termination or truncation:
                env.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            ledger.decide(agent, observation, action)
            env.step(action)
        rows: dict[str, list[int]] = {}
        for i, row in enumerate(ledger.rows):
            rows.setdefault(row["agent"], []).append(i)
            assert row["done"] == (row["next"] < 0), "a seat's last decision of the hand, and only it, is done"
        returns = ledger.returns()
        for agent, net in zip(env.possible_agents, env.unwrapped.result.net, strict=True):
            if agent in rows:  # its decisions carry all its money, and the first one's return is the hand's net
                assert sum(ledger.rows[i]["reward"] for i in rows[agent]) == net == returns[rows[agent][0]]
        nets = zip(env.possible_agents, env.unwrapped.result.net, strict=True)
        never_acted = [net for agent, net in nets if agent not in rows]
        assert ledger.unearned == sum(never_acted)
        unearned_hands += ledger.unearned != 0
    assert env.resets == 10 and unearned_hands >= 3, "instant wins paid seats that never acted"
