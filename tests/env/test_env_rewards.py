"""Money reaches the seat it belongs to, when it changes hands (PettingZoo issue 1147 is the trap)."""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import (
    CHOP_CHAIN_DEAL,
    CHOP_CHAIN_MONEY,
    CHOP_CHAIN_MOVES,
    CONFIGS,
    FOUR_TWOS_DEAL,
    actions,
    play_aec,
)

import sam_env
from sam_env import IllegalMoveError, RuleConfig, action_index
from sam_env.core.ledger import net_of
from sam_env.encoding import observation_layout

CONFIG_IDS = list(CONFIGS)


def _chop_chain_env(**kwargs):
    env = sam_env.env(**kwargs)
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    return env


def test_chops_credit_payer_and_payee_at_the_chop() -> None:
    env = _chop_chain_env()
    moves = actions(CHOP_CHAIN_MOVES)
    for action in moves[:5]:
        env.step(action)
        assert all(r == 0 for r in env.rewards.values())
    for action, (actor, money) in zip(moves[5:], CHOP_CHAIN_MONEY, strict=True):
        assert env.agent_selection == f"player_{actor}"
        env.step(action)
        expected = {f"player_{s}": float(money.get(s, 0)) for s in range(4)}
        # the payer is not the acting seat: its reward is there all the same, and the previous
        # step's rewards are gone
        assert env.rewards == expected
    # After the chain (docs/rules.md §4): A −4, B −4, C −4, D +12, paid as the chops happened.
    assert env.unwrapped.hand.net() == [-4, -4, -4, 12]


def test_chop_money_reaches_the_payer_through_last() -> None:
    """The chopped seat sees its loss in ``last()`` at its next turn, summed over the chain."""
    env = _chop_chain_env()
    for action in actions(CHOP_CHAIN_MOVES):
        env.step(action)
    # seat 0 acts next (nobody can beat quad J; it may only pass), then seats 1 and 2
    for seat, loss in ((0, -4.0), (1, -4.0), (2, -4.0)):
        assert env.agent_selection == f"player_{seat}"
        _, reward, termination, _, _ = env.last()
        assert (reward, termination) == (loss, False)
        assert env.last()[0]["action_mask"].nonzero()[0].tolist() == [action_index("pass")]
        env.step(action_index("pass"))
    assert env.agent_selection == "player_3"
    assert env.last()[1] == 12.0


def test_chop_chain_hand_played_out_sums_to_the_ledger() -> None:
    env = _chop_chain_env()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    scripted = iter(actions(CHOP_CHAIN_MOVES))

    def choose(agent: str, obs: dict) -> int:
        action = next(scripted, None)
        return int(np.flatnonzero(obs["action_mask"])[-1]) if action is None else action

    totals = play_aec(env, np.random.default_rng(0), choose=choose)
    result = env.unwrapped.result
    assert [totals[a] for a in env.possible_agents] == list(result.net)
    chops = [t for t in result.ledger if t.reason.value == "chop"]
    assert [(t.payer, t.payee, t.amount) for t in chops] == [(0, 1, 4), (1, 2, 8), (2, 3, 12)]


@pytest.mark.parametrize("name", CONFIG_IDS)
def test_rewards_zero_sum_and_equal_to_the_ledger(name: str) -> None:
    env = sam_env.env(rules=CONFIGS[name])
    rng = np.random.default_rng(list(CONFIGS).index(name))
    env.reset(seed=100)
    reasons = set()

    def zero_sum(e, agent, action) -> None:
        assert abs(sum(e.rewards.values())) < 1e-9

    for _ in range(30):
        totals = play_aec(env, rng, on_step=zero_sum)
        raw = env.unwrapped
        result = raw.result
        reasons.add(result.reason.value)
        net = net_of(raw.ledger, raw.rules.n_players)
        assert [totals[a] for a in raw.possible_agents] == net == list(result.net)
        assert sum(net) == 0
        env.reset()
    assert "normal" in reasons


@pytest.mark.parametrize("result_info", [False, True])
def test_final_infos_hold_scalars_and_the_result_on_request(result_info: bool) -> None:
    env = sam_env.env(result_info=result_info)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    infos = {}
    for agent in env.agent_iter():
        obs, _, termination, _, info = env.last()
        if termination:
            infos[agent] = info
            env.step(None)
        else:
            assert info == {}
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    result = env.unwrapped.result
    winner = -1 if result.winner is None else result.winner
    for seat, agent in enumerate(env.possible_agents):
        scalars = {"net": result.net[seat], "winner": winner, "reason": result.reason.value}
        assert infos[agent] == ({**scalars, "result": result.to_dict()} if result_info else scalars)
    assert sum(t["amount"] for t in result.to_dict()["ledger"]) > 0


def test_result_info_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="result_info='yes' must be True or False"):
        sam_env.env(result_info="yes")


@pytest.mark.parametrize("scale", [0.5, 0.05, 3])
def test_reward_scale_scales_every_reward(scale: float) -> None:
    def run(reward_scale: float) -> list[dict[str, float]]:
        env = sam_env.env(reward_scale=reward_scale)
        env.reset(seed=9)
        rng = np.random.default_rng(9)
        trace: list[dict[str, float]] = []
        for _ in range(5):
            totals = play_aec(env, rng, on_step=lambda e, a, act: trace.append(dict(e.rewards)))
            trace.append(totals)
            env.reset()
        return trace

    plain, scaled = run(1.0), run(scale)
    assert len(plain) == len(scaled)
    assert any(v != 0 for step in plain for v in step.values())
    for a, b in zip(plain, scaled, strict=True):
        assert b == pytest.approx({k: v * scale for k, v in a.items()})


def test_reward_scale_applies_to_chops() -> None:
    env = _chop_chain_env(reward_scale=0.25)
    for action in actions(CHOP_CHAIN_MOVES[:6]):
        env.step(action)
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": 0.0, "player_3": 0.0}


def test_an_illegal_action_changes_nothing() -> None:
    """A rejected action must leave the pending reward, the turn and the mask as they were."""
    env = _chop_chain_env()
    for action in actions(CHOP_CHAIN_MOVES):
        env.step(action)
    before = env.last()
    with pytest.raises(IllegalMoveError):
        env.step(action_index("single:3"))
    after = env.last()
    assert env.agent_selection == "player_0"
    assert after[1] == before[1] == -4.0
    assert np.array_equal(after[0]["action_mask"], before[0]["action_mask"])
    assert np.array_equal(after[0]["observation"], before[0]["observation"])


# ----------------------------------------------------------------- instant win at the deal


@pytest.mark.parametrize("allow_sam", [True, False])
def test_an_instant_win_waits_for_the_winners_one_move(allow_sam: bool) -> None:
    """No agent is terminated at reset: the winner acts once, with one legal move, and every seat is paid."""
    env = sam_env.env(rules=RuleConfig(allow_sam=allow_sam))
    env.reset(seed=0, options={"hands": FOUR_TWOS_DEAL})
    raw = env.unwrapped
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert env.agent_selection == "player_2" and raw.result is None and raw.ledger == []
    obs, reward, termination, truncation, info = env.last()
    assert np.flatnonzero(obs["action_mask"]).tolist() == [action_index("decline_sam")]
    assert (reward, termination, truncation, info) == (0.0, False, False, {})
    names, sizes = zip(*observation_layout(4), strict=True)
    at = sum(sizes[: names.index("phase")])
    assert obs["observation"][at : at + 3].tolist() == [1.0, 0.0, 0.0], "the Sâm-decision phase"
    with pytest.raises(IllegalMoveError, match=r"legal moves: decline_sam$"):
        env.step(action_index("declare_sam"))
    env.step(action_index("decline_sam"))
    result = raw.result
    assert result.reason.value == "instant_win" and result.winner == 2 and result.instant_win == "four_twos"
    assert all(env.terminations.values())
    expected = {"player_0": -20.0, "player_1": -20.0, "player_2": 60.0, "player_3": -20.0}
    seen = {}
    while env.agents:
        agent = env.agent_selection
        obs, reward, termination, truncation, info = env.last()
        assert termination and not truncation
        assert not obs["action_mask"].any()
        assert info == {"net": expected[agent], "winner": 2, "reason": "instant_win"}
        seen[agent] = reward
        with pytest.raises(ValueError, match="None"):
            env.step(0)
        env.step(None)
    assert seen == expected
    assert env.agents == []


def test_instant_win_through_agent_iter() -> None:
    env = sam_env.env(reward_scale=0.5)
    env.reset(seed=0, options={"hands": FOUR_TWOS_DEAL, "leader": 1})
    totals = play_aec(env, np.random.default_rng(0))
    assert totals == {"player_0": -10.0, "player_1": -10.0, "player_2": 30.0, "player_3": -10.0}
    # the instant winner leads the next hand (§6)
    env.reset()
    assert env.unwrapped.hand.leader == 2
