"""VectorEnv's public contract: shapes and dtypes, reused buffers, seeding, instant wins, results."""

from __future__ import annotations

import numpy as np
import pytest
from env.env_helpers import FOUR_TWOS_DEAL

from sam_env import RuleConfig, VectorEnv, env
from sam_env.core import REVEAL_INSTANT_WIN, EndReason, Reason
from sam_env.encoding import observation_size, state_layout
from sam_env.vector.layout import O_HAND, observation_offsets
from sam_env.vector.reference_check import random_actions

N_ACTIONS = 201


def play(venv: VectorEnv, steps: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    batch = venv.reset()
    seen = []
    for _ in range(steps):
        batch = venv.step(random_actions(rng, batch.action_mask))
        seen.append((batch.observation.copy(), batch.rewards.copy(), batch.terminated.copy()))
    return seen


def test_the_contract_as_the_issue_writes_it() -> None:
    venv = VectorEnv(num_tables=32, rules=RuleConfig(), seed=0)
    batch = venv.reset()
    n = 4
    assert batch.observation.shape == (32, observation_size(n)) and batch.observation.dtype == np.float32
    assert batch.action_mask.shape == (32, N_ACTIONS) and batch.action_mask.dtype == bool
    assert batch.current_seat.shape == (32,) and batch.current_seat.dtype.kind == "i"
    actions = random_actions(np.random.default_rng(0), batch.action_mask)
    batch = venv.step(actions)
    assert batch.rewards.shape == (32, n) and batch.rewards.dtype == np.float32
    assert batch.terminated.shape == (32,) and batch.terminated.dtype == bool
    assert venv.state().shape == (32, sum(size for _, size in state_layout(n)))
    assert venv.observe(2).shape == (32, observation_size(n))


def test_the_first_observation_equals_the_aec_envs_on_the_same_deal() -> None:
    venv = VectorEnv(3, seed=5)
    batch = venv.reset()
    for t in range(3):
        aec = env()
        aec.reset(seed=0, options={"hands": venv.dealt()[t].tolist()})
        obs = aec.observe(aec.agent_selection)
        assert np.array_equal(batch.observation[t], obs["observation"])
        assert np.array_equal(batch.action_mask[t], obs["action_mask"].astype(bool))


def test_output_buffers_are_reused_in_place() -> None:
    venv = VectorEnv(4, seed=0)
    first = venv.reset()
    second = venv.step(random_actions(np.random.default_rng(0), first.action_mask))
    assert second is first and second.observation is first.observation and second.rewards is first.rewards


def test_same_seed_same_play_and_deals_do_not_depend_on_the_batch_size() -> None:
    rules = RuleConfig(allow_sam=False)
    a, b = play(VectorEnv(8, rules, seed=11), 60), play(VectorEnv(8, rules, seed=11), 60)
    assert all(all(np.array_equal(x, y) for x, y in zip(u, v, strict=True)) for u, v in zip(a, b, strict=True))
    small, large = VectorEnv(2, rules, seed=11), VectorEnv(16, rules, seed=11)
    small.reset(), large.reset()
    assert np.array_equal(small.dealt(), large.dealt()[:2])
    other = VectorEnv(2, rules, seed=12)
    other.reset()
    assert not np.array_equal(other.dealt(), small.dealt())


def test_every_hand_is_zero_sum_and_rewards_add_up_to_the_results() -> None:
    venv = VectorEnv(16, RuleConfig(n_players=3, instant_wins={"five_pairs", "three_triples"}), seed=2)
    rng = np.random.default_rng(1)
    batch = venv.reset()
    money = np.zeros((16, 3))
    settled = np.zeros((16, 3))
    for _ in range(300):
        batch = venv.step(random_actions(rng, batch.action_mask))
        money += batch.rewards
        for t, hands in venv.results().items():
            for hand in hands:
                assert sum(hand.result.net) == 0
                settled[t] += hand.result.net
    running = np.array([[0.0] * 3 if not venv.ledger(t) else _net(venv.ledger(t), 3) for t in range(16)])
    assert np.array_equal(money, settled + running)
    assert np.all(money.sum(axis=1) == 0)


def _net(ledger: list, n: int) -> list[float]:
    net = [0.0] * n
    for tr in ledger:
        net[tr.payer] -= tr.amount
        net[tr.payee] += tr.amount
    return net


def test_an_instant_win_deal_waits_for_the_winners_one_move() -> None:
    """As in the AEC env: nothing ends at reset; the winner is to act with one legal move."""
    venv = VectorEnv(2, seed=0)
    batch = venv.reset(options={"hands": [FOUR_TWOS_DEAL, None], "leader": [0, None]})
    assert batch.terminated.tolist() == [False, False] and not batch.rewards.any() and venv.results() == {}
    assert batch.current_seat[0] == 2
    assert np.flatnonzero(batch.action_mask[0]).tolist() == [REVEAL_INSTANT_WIN]
    actions = random_actions(np.random.default_rng(0), batch.action_mask)
    batch = venv.step(actions)
    assert batch.terminated[0] and batch.rewards[0].tolist() == [-20, -20, 60, -20]
    (hand,) = venv.results()[0]
    assert hand.result.reason is EndReason.INSTANT_WIN and hand.result.instant_win == "four_twos"
    assert {t.reason for t in hand.result.ledger} == {Reason.INSTANT_WIN}
    assert venv.leaders()[0] == 2, "the instant winner leads the next hand (docs/rules.md §6)"
    assert batch.action_mask[0].any(), "the table was dealt its next hand"


def test_the_previous_winner_leads_the_next_hand_after_reset_without_seed() -> None:
    venv = VectorEnv(1, seed=0)
    venv.reset(options={"hands": [FOUR_TWOS_DEAL]})
    venv.step([REVEAL_INSTANT_WIN])
    venv.reset()
    assert venv.leaders()[0] == 2
    venv.reset(seed=1, options={"hands": [FOUR_TWOS_DEAL[::-1]]})
    venv.step([REVEAL_INSTANT_WIN])
    assert venv.results()[0][0].result.winner == 1


def test_observe_any_seat_and_into_a_given_buffer() -> None:
    venv = VectorEnv(4, seed=0)
    batch = venv.reset()
    acting = venv.observe(batch.current_seat)
    assert np.array_equal(acting, batch.observation)
    out = np.empty((4, venv.observation_size), dtype=np.float32)
    assert venv.observe(0, out=out) is out
    assert not np.array_equal(venv.observe(0), venv.observe(1))


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_hidden_hands_are_the_other_seats_hand_blocks_in_turn_order(n_players: int) -> None:
    """Row k of a seat's hidden hands is the observation's own ``hand`` block of the seat k places on."""
    venv = VectorEnv(16, RuleConfig(n_players=n_players), seed=5)
    batch = venv.reset()
    at = observation_offsets(n_players)[O_HAND]
    rng = np.random.default_rng(0)
    for _ in range(12):
        seats = batch.current_seat.copy()
        hidden = venv.hidden_hands(seats)
        assert hidden.shape == (16, (n_players - 1) * 52) and venv.hidden_size == hidden.shape[1]
        for k in range(1, n_players):
            theirs = venv.observe((seats + k) % n_players)[:, at : at + 52]
            np.testing.assert_array_equal(hidden[:, 52 * (k - 1) : 52 * k], theirs)
        batch = venv.step(random_actions(rng, batch.action_mask))
    with pytest.raises(ValueError, match=rf"seats must be seat numbers in 0\.\.{n_players - 1}"):
        venv.hidden_hands(n_players)


def test_the_parallel_variant_plays_exactly_as_the_serial_one() -> None:
    rules = RuleConfig(n_players=5, finish_on_two="lose_and_continue", instant_wins={"five_pairs"})
    serial, parallel = VectorEnv(64, rules, seed=9), VectorEnv(64, rules, seed=9, parallel=True)
    rng = np.random.default_rng(0)
    a, b = serial.reset(), parallel.reset()
    for _ in range(60):
        actions = random_actions(rng, a.action_mask)
        a, b = serial.step(actions), parallel.step(actions)
        for name in ("observation", "action_mask", "current_seat", "rewards", "terminated"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(serial.state(), parallel.state())
