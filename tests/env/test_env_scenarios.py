"""The golden scenarios of ``tests/scenarios`` replayed through the AEC environment by action name.

The engine's tests (``tests/core/test_scenarios.py``) replay them on ``Hand`` directly; here the
same moves go through ``sam_env.env()``, and each agent's rewards, summed from ``last()`` over the
whole hand (its final dead step included), must come to the money the scenario expects.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scenario_data import Scenario, check_hand, expected_ledger, load_scenarios

import sam_env
from sam_env import IllegalMoveError, action_index, action_name

SCENARIOS = load_scenarios()


def expected_money(spec, n: int) -> list[int] | None:
    """Each seat's money from the ``expect`` block: ``net``, or else the ledger's transfers."""
    if "net" in spec.expect:
        return list(spec.expect["net"])
    rows = expected_ledger(spec)
    if rows is None:
        return None
    net = [0] * n
    for payer, payee, amount, _ in rows:
        net[payer] -= amount
        net[payee] += amount
    return net


def replay_hand(env, spec, where: str) -> dict[str, float]:
    """Make the hand's moves through the env; return each agent's rewards summed from ``last()``."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for i, move in enumerate(spec.moves):
        at = f"{where} move {i} {move.text!r}"
        agent = f"player_{move.seat}"
        assert env.agents and not env.terminations[env.agent_selection], f"{at}: the hand is over"
        assert env.agent_selection == agent, f"{at}: {env.agent_selection} is to act"
        obs, reward, *_ = env.last()
        legal = {action_name(a) for a in np.flatnonzero(obs["action_mask"])}
        if move.kind == "legal":
            want = {action_name(action_index(a)) for a in move.actions}
            assert legal == want, f"{at}: the mask allows {sorted(legal)}"
        elif move.kind == "illegal":
            assert move.action not in legal, f"{at}: the mask allows it"
            canonical = action_name(action_index(move.action))
            with pytest.raises(IllegalMoveError, match=re.escape(f"may not play {canonical} now")):
                env.step(action_index(move.action))
            assert env.agent_selection == agent and env.last()[1] == reward, f"{at}: the rejected move changed the env"
        else:
            assert action_name(action_index(move.action)) in legal, f"{at}: the mask allows only {sorted(legal)}"
            totals[agent] += reward
            env.step(action_index(move.action))
    return totals


def finish_hand(env, totals: dict[str, float]) -> None:
    """Dead steps: every agent collects its last reward and leaves, as in any AEC loop."""
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination and not truncation, f"{agent} must still act, but the scenario has no more moves"
        totals[agent] += reward
        env.step(None)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario_through_the_environment(scenario: Scenario) -> None:
    env = sam_env.env(rules=scenario.rules)
    raw = env.unwrapped
    n = scenario.rules.n_players
    for k, spec in enumerate(scenario.hands):
        where = f"{scenario.name} hand {k}:"
        options = {"hands": spec.deal}
        if spec.leader is not None:
            options["leader"] = spec.leader
        env.reset(seed=scenario.seed if k == 0 else None, options=options)
        totals = replay_hand(env, spec, where)
        hand = raw.hand
        check_hand(hand, spec, where=where)  # the scenario's own checks, on the env's hand
        if hand.over:
            result = raw.result.to_dict()
            infos = {a: dict(env.infos[a]) for a in env.agents}
            finish_hand(env, totals)
            assert env.agents == []
            winner = -1 if result["winner"] is None else result["winner"]
            for seat, agent in enumerate(env.possible_agents):
                assert infos[agent] == {"net": result["net"][seat], "winner": winner, "reason": result["reason"]}
        else:
            if "to_act" in spec.expect:
                assert env.agent_selection == f"player_{spec.expect['to_act']}"
            for agent in env.agents:  # money credited but not yet seen in last()
                totals[agent] += raw._cumulative_rewards[agent]
        money = [totals[a] for a in env.possible_agents]
        assert money == hand.net(), f"{where} rewards {money}, ledger {hand.net()}"
        want = expected_money(spec, n)
        if want is not None:
            assert money == want, f"{where} rewards {money}, scenario expects {want}"


def test_scenarios_cover_money_moving_mid_hand() -> None:
    """The replay above is worth most where money changes hands before the end: chops."""
    chops = [s for s in SCENARIOS if any(r[3] == "chop" for h in s.hands for r in expected_ledger(h) or [])]
    assert len(chops) >= 3
    assert {s.rules.n_players for s in SCENARIOS} >= {2, 4}
