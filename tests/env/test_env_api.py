"""The AEC environment against PettingZoo's own checks, its reset semantics, rendering and constructor."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from env_helpers import CONFIGS, INSTANT_WIN_DEALS, ForcedDeal, expected_warnings_only, play_aec
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.test import api_test, seed_test

import sam_env
from sam_env import N_ACTIONS, RuleConfig
from sam_env.core import REVEAL_INSTANT_WIN
from sam_env.encoding import observation_layout

CONFIG_IDS = list(CONFIGS)


# ----------------------------------------------------------------- PettingZoo's checks
# pettingzoo.test.max_cycles_test does not apply: it is for parallel environments built with a
# ``max_cycles`` argument, and a hand of Sâm always ends by itself (every trick removes cards).


@pytest.mark.parametrize("name", CONFIG_IDS)
def test_pettingzoo_api_test(name: str) -> None:
    # No flags: api_test resets with a dummy option {"options": 1}, which the environment ignores
    # with a warning. Its other warnings are about Dict observation spaces, which the action-mask
    # convention of PettingZoo's classic environments needs; any other warning fails.
    env = sam_env.env(rules=CONFIGS[name])
    with expected_warnings_only() as caught:
        api_test(env, num_cycles=1000)
    assert any("unknown reset option(s) ['options']" in str(w.message) for w in caught)


@pytest.mark.parametrize("kind", sorted(INSTANT_WIN_DEALS))
def test_api_test_and_seed_test_on_a_forced_instant_win_deal(kind: str) -> None:
    """No agent is terminated after reset, even on a deal decided at once: the winner has one move."""
    deal, winner = INSTANT_WIN_DEALS[kind]
    rules = RuleConfig(instant_wins={kind})

    def forced(render_mode: str | None = None) -> ForcedDeal:
        return ForcedDeal(sam_env.env(rules=rules, render_mode=render_mode), deal)

    env = forced()
    env.reset(seed=0)
    assert not any(env.terminations.values()) and env.agent_selection == f"player_{winner}"
    assert np.flatnonzero(env.last()[0]["action_mask"]).tolist() == [REVEAL_INSTANT_WIN]
    with expected_warnings_only():
        api_test(env, num_cycles=50)
    seed_test(forced, num_cycles=50)


def test_an_unexpected_warning_fails_the_check() -> None:
    """api_test reports an all-zero mask or NaNs in an observation only as warnings: the check must fail on them."""
    with pytest.raises(AssertionError, match=r"unexpected warnings: .*all zeros"), expected_warnings_only():
        warnings.warn("Action mask numpy array is all zeros (no legal actions).", stacklevel=1)
    with expected_warnings_only() as caught:
        warnings.warn("Observation is not a NumPy array", stacklevel=1)
    assert len(caught) == 1


def test_api_test_fails_in_strict_mode() -> None:
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['options'\]"):
        api_test(sam_env.env(strict_options=True), num_cycles=10)


@pytest.mark.parametrize("name", CONFIG_IDS)
def test_same_seed_plays_the_same_table(name: str) -> None:
    """seed_test stops at the first hand's end; a table is several hands (reset() continues it)."""

    def record(seed: int) -> list[object]:
        env = sam_env.env(rules=CONFIGS[name])
        rng = np.random.default_rng(7)
        trace: list[object] = []
        env.reset(seed=seed)
        for _ in range(4):
            trace.append(env.unwrapped.state().copy())
            play_aec(env, rng, on_step=lambda e, a, act: trace.append((a, act, dict(e.rewards))))
            env.reset()
        return trace

    first, second = record(123), record(123)
    assert len(first) == len(second)
    assert all(data_equivalence(a, b) for a, b in zip(first, second, strict=True))
    assert not data_equivalence(first, record(124))


def test_reset_with_seed_starts_a_new_table() -> None:
    env = sam_env.raw_env()
    env.reset(seed=5)
    first_deal, first_leader = env.hand.dealt, env.hand.leader
    rng = np.random.default_rng(0)
    for _ in range(3):
        play_aec(env, rng)
        env.reset()
    assert env.table.hands_played == 4
    env.reset(seed=5)
    assert env.table.hands_played == 1
    assert (env.hand.dealt, env.hand.leader) == (first_deal, first_leader)


@pytest.mark.parametrize("allow_sam", [True, False])
def test_next_hand_is_led_by_the_previous_winner(allow_sam: bool) -> None:
    rules = RuleConfig(allow_sam=allow_sam)
    env = sam_env.env(rules=rules)
    rng = np.random.default_rng(3)
    env.reset(seed=11)
    leaders_seen = set()
    for _ in range(12):
        play_aec(env, rng)
        previous = env.unwrapped.hand
        env.reset()
        hand = env.unwrapped.hand
        assert hand is not previous and hand.dealt != previous.dealt
        assert env.agents == env.possible_agents
        assert hand.leader == previous.result.next_leader
        leaders_seen.add(hand.leader)
        if not hand.over:
            # the would-be leader is asked first about Sâm, or leads at once without the phase
            assert env.agent_selection == f"player_{hand.leader}"
    assert len(leaders_seen) > 1


def test_explicit_leader_overrides_the_previous_winner() -> None:
    env = sam_env.env()
    env.reset(seed=1)
    play_aec(env, np.random.default_rng(0))
    nxt = env.unwrapped.hand.result.next_leader
    forced = (nxt + 1) % 4
    env.reset(options={"leader": forced})
    assert env.unwrapped.hand.leader == forced
    assert env.agent_selection == f"player_{forced}"


# ----------------------------------------------------------------- spaces


@pytest.mark.parametrize("name", CONFIG_IDS)
def test_spaces(name: str) -> None:
    rules = CONFIGS[name]
    env = sam_env.env(rules=rules)
    env.reset(seed=0)
    n = rules.n_players
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    size = sum(s for _, s in observation_layout(n))
    for agent in env.possible_agents:
        assert env.action_space(agent) == spaces.Discrete(N_ACTIONS)
        obs_space = env.observation_space(agent)
        assert obs_space["observation"].shape == (size,)
        assert obs_space["action_mask"].shape == (N_ACTIONS,)
        assert obs_space.contains(env.observe(agent))
    assert env.unwrapped.state_space.contains(env.state())


# ----------------------------------------------------------------- rendering


def test_render_ansi_returns_the_table() -> None:
    env = sam_env.env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str)
    assert text.startswith("Sâm Lốc, 4 seats")
    hand = env.unwrapped.hand
    for seat in range(4):
        assert f"seat {seat}:" in text
    assert "to act" in text
    # every hand is shown to the renderer (it is the table, not a seat's view)
    first_card = sam_env.core.format_cards(hand.cards[0]).split()[0]
    assert first_card in text
    play_aec(env, np.random.default_rng(0))
    assert "result:" in env.render()


def test_render_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = sam_env.env(render_mode="human")
    env.reset(seed=2)  # human mode renders after reset and after every step
    first = capsys.readouterr().out
    assert first.startswith("Sâm Lốc, 4 seats")
    assert env.render() is None
    assert capsys.readouterr().out.strip() == first.strip()
    env.step(env.last()[0]["action_mask"].nonzero()[0][0])
    assert "Sâm Lốc" in capsys.readouterr().out


def test_render_without_mode_warns() -> None:
    env = sam_env.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# ----------------------------------------------------------------- constructor


@pytest.mark.parametrize("rules", ["default", {"n_players": 4}, 4])
def test_rules_must_be_a_rule_config(rules: object) -> None:
    with pytest.raises(TypeError, match=r"rules must be a sam_env\.RuleConfig"):
        sam_env.raw_env(rules=rules)


@pytest.mark.parametrize("mode", ["rgb", "ANSI", ""])
def test_bad_render_mode(mode: str) -> None:
    with pytest.raises(ValueError, match="render_mode"):
        sam_env.env(render_mode=mode)


@pytest.mark.parametrize("scale", [0, -1.0, math.nan, math.inf, True, "1"])
def test_bad_reward_scale(scale: object) -> None:
    with pytest.raises(ValueError, match="reward_scale"):
        sam_env.raw_env(reward_scale=scale)


def test_the_seat_by_seat_api_matches_what_agents_observe() -> None:
    """``over``, ``seat_to_act``, ``legal_mask``, ``legal_moves`` and ``observation_of``: the seam the
    single-agent view uses instead of the engine's internals."""
    env = sam_env.env()
    raw = env.unwrapped
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        assert raw.over == (terminated or truncated)
        if raw.over:
            env.step(None)
            continue
        assert raw.agent_of_seat(raw.seat_to_act) == agent
        np.testing.assert_array_equal(raw.legal_mask(), observation["action_mask"].astype(bool))
        assert raw.legal_moves() == np.flatnonzero(observation["action_mask"]).tolist()
        for seat in range(raw.rules.n_players):
            expected = raw.observe(raw.agent_of_seat(seat))["observation"]
            np.testing.assert_array_equal(raw.observation_of(seat), expected)
        env.step(int(rng.choice(raw.legal_moves())))


def test_a_seats_cards_are_hand_cards() -> None:
    env = sam_env.env()
    env.reset(seed=0)
    hand = env.unwrapped.hand
    assert [bin(c).count("1") for c in hand.cards] == [10] * 4
    assert not hasattr(hand, "hands")  # the name of 0.1.0, removed in 0.2.0
