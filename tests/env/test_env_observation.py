"""Observations, masks and the state: in their spaces, seat-relative, and masks exactly the engine's legal moves."""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import ALL_INSTANT_WINS, CONFIGS, random_legal
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sam_env
from sam_env import RuleConfig
from sam_env.core import COMBOS, Hand, Phase, rules
from sam_env.core.cards import N_RANKS, rank_counts
from sam_env.core.combos import DECLINE_SAM
from sam_env.encoding import UNARY, observation_layout, observation_size

RULE_CONFIGS = st.builds(
    RuleConfig,
    n_players=st.integers(rules.MIN_PLAYERS, rules.MAX_PLAYERS),
    straights_with_two=st.booleans(),
    first_leader=st.sampled_from(rules.FIRST_LEADER_CHOICES),
    bao1=st.sampled_from(rules.BAO1_CHOICES),
    allow_sam=st.booleans(),
    instant_wins=st.frozensets(st.sampled_from(sorted(ALL_INSTANT_WINS))),
    finish_on_two=st.sampled_from(rules.FINISH_ON_TWO_CHOICES),
)


def blocks(obs: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """The observation vector cut into its named blocks."""
    out, pos = {}, 0
    for name, size in observation_layout(n):
        out[name] = obs[pos : pos + size]
        pos += size
    assert pos == obs.size
    return out


def unary_counts(block: np.ndarray) -> list[int]:
    """Rank counts of a 52-entry unary block (13 ranks × "at least 1, 2, 3, 4")."""
    rows = block.reshape(N_RANKS, 4)
    # unary: a count c sets exactly the first c bits of its rank
    assert all(list(r) == sorted(r, reverse=True) for r in rows.tolist())
    return rows.sum(axis=1).astype(int).tolist()


def formable(counts: list[int], action: int) -> bool:
    return all(counts[r] >= k for r, k in COMBOS[action].needs)


@settings(max_examples=100, deadline=None)
@given(rules=RULE_CONFIGS, seed=st.integers(0, 2**32 - 1))
@example(rules=RuleConfig(n_players=2, allow_sam=False, instant_wins=frozenset({"four_twos"})), seed=119475205)
def test_masks_are_the_engines_legal_moves(rules: RuleConfig, seed: int) -> None:
    env = sam_env.raw_env(rules=rules)
    env.reset(seed=seed)
    hand = env.hand
    # an engine hand of its own, fed the same moves: the env's masks must be its legal moves
    shadow = Hand(rules, list(hand.dealt), hand.leader)
    rng = np.random.default_rng(seed)
    n = rules.n_players
    state_space = env.state_space
    while True:
        assert state_space.contains(env.state())
        acting = None if hand.over else env.agent_selection
        for seat, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs)
            counts = unary_counts(blocks(obs["observation"], n)["hand"])
            assert counts == rank_counts(hand.cards[seat])
            mask = obs["action_mask"]
            if agent != acting:
                assert not mask.any()
                continue
            assert np.array_equal(mask.astype(bool), shadow.legal_mask())
            legal = np.flatnonzero(mask).tolist()
            assert legal, "the seat to act always has a move"
            if hand.phase is Phase.SAM_DECISION and hand.instant_win is not None:
                # an instant winner's one forced move reveals the win (docs/rules.md §9)
                assert [COMBOS[a].name for a in legal] == ["decline_sam"]
            elif hand.phase is Phase.SAM_DECISION:
                assert [COMBOS[a].name for a in legal] == ["declare_sam", "decline_sam"]
            else:
                assert all(formable(counts, a) for a in legal)
        if hand.over:
            break
        action = random_legal(rng, env.observe(acting)["action_mask"])
        if hand.phase is Phase.SAM_DECISION and rng.random() < 0.8:
            action = DECLINE_SAM  # declaring Sâm half the time would keep most hands short
        env.step(action)
        shadow.step(action)
    assert shadow.result == hand.result


@pytest.mark.parametrize("name", list(CONFIGS))
def test_played_blocks_rotate_with_the_observer(name: str) -> None:
    rules = CONFIGS[name]
    n = rules.n_players
    env = sam_env.raw_env(rules=rules)
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    steps = 0
    while not env.hand.over and steps < 12:
        env.step(random_legal(rng, env.observe(env.agent_selection)["action_mask"]))
        steps += 1
    hand = env.hand
    obs = [blocks(env.observe(a)["observation"], n) for a in env.possible_agents]
    for s in range(n):
        played = obs[s]["played"].reshape(n, UNARY)
        left = obs[s]["cards_left"].reshape(n, -1)
        for k in range(n):
            t = (s + k) % n
            assert unary_counts(played[k]) == rank_counts(hand.played[t])
            assert left[k].tolist().index(1.0) == hand.n_cards[t]
            # the same block seen from seat t is its own row 0
            assert np.array_equal(played[k], obs[t]["played"][:UNARY])
        assert obs[s]["leader"].tolist().index(1.0) == (hand.leader - s) % n
    assert any(hand.played), "some cards were played"


@pytest.mark.parametrize("name", list(CONFIGS))
def test_rotating_the_seats_rotates_the_observations(name: str) -> None:
    """The same deal and moves, every seat moved one place on: seat s+1 then sees what seat s saw."""
    rules = CONFIGS[name]
    n = rules.n_players
    rng = np.random.default_rng(5)
    original = sam_env.raw_env(rules=rules)
    for seed in range(50):  # the first deal without an instant win
        original.reset(seed=seed)
        if not original.hand.over:
            break
    dealt, leader = list(original.hand.dealt), original.hand.leader
    rotated = sam_env.raw_env(rules=rules)
    rotated.reset(seed=0, options={"hands": [dealt[(i - 1) % n] for i in range(n)], "leader": (leader + 1) % n})
    agents = original.possible_agents
    compared = 0
    while True:
        for s in range(n):
            a, b = original.observe(agents[s]), rotated.observe(agents[(s + 1) % n])
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            compared += 1
        if original.hand.over:
            break
        assert rotated.agent_selection == agents[(agents.index(original.agent_selection) + 1) % n]
        action = random_legal(rng, original.observe(original.agent_selection)["action_mask"])
        original.step(action)
        rotated.step(action)
    net = original.result.net
    assert list(rotated.result.net) == [net[(i - 1) % n] for i in range(n)]
    # the state is absolute: it does not rotate
    assert not np.array_equal(original.state(), rotated.state())
    assert compared > 4 * n


def test_observation_hides_other_hands() -> None:
    """Two deals that differ only in the cards of seats 1 and 2 look the same to seat 0."""
    hands = [
        ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS"],
        ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC"],
        ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD"],
        ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH"],
    ]
    swapped = [hands[0], hands[1][5:] + hands[2][5:], hands[1][:5] + hands[2][:5], hands[3]]
    a, b = sam_env.raw_env(), sam_env.raw_env()
    a.reset(options={"hands": hands, "leader": 0})
    b.reset(options={"hands": swapped, "leader": 0})
    assert np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])
    assert not np.array_equal(a.state(), b.state())
    assert not np.array_equal(a.observe("player_1")["observation"], b.observe("player_1")["observation"])


def test_seat_view_agrees_with_the_observation() -> None:
    env = sam_env.env()
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    raw = env.unwrapped
    for _ in range(15):
        agent = env.agent_selection
        view = raw.seat_view(agent)
        obs = env.observe(agent)
        assert view.seat == raw.seat_of(agent)
        assert list(view.legal) == np.flatnonzero(obs["action_mask"]).tolist()
        assert view.counts == unary_counts(blocks(obs["observation"], 4)["hand"])
        env.step(random_legal(rng, obs["action_mask"]))
        if raw.hand.over:
            break


def _unary(counts: list[int]) -> np.ndarray:
    """The 52-entry unary block of 13 rank counts, written out the slow, obvious way."""
    block = np.zeros(UNARY, dtype=np.float32)
    for rank, count in enumerate(counts):
        block[4 * rank : 4 * rank + count] = 1
    return block


def _one_hot(size: int, index: int | None) -> np.ndarray:
    block = np.zeros(size, dtype=np.float32)
    if index is not None:
        block[index] = 1
    return block


def reference_observation(hand: Hand, seat: int) -> dict[str, np.ndarray]:
    """Every block of ``seat``'s observation, from the hand's plain attributes (no bit tricks)."""
    n = hand.n_players
    order = [(seat + k) % n for k in range(n)]
    relative = {s: row for row, s in enumerate(order)}
    known = hand.cards[seat]
    for played in hand.played:
        known |= played
    on_table = hand.table_combo >= 0
    chain = hand.chain_value()
    return {
        "hand": _unary(rank_counts(hand.cards[seat])),
        "unseen": _unary([4 - c for c in rank_counts(known)]),
        "played": np.concatenate([_unary(rank_counts(hand.played[s])) for s in order]),
        "cards_left": np.concatenate([_one_hot(rules.CARDS_PER_HAND + 1, hand.n_cards[s]) for s in order]),
        "one_card": np.array([hand.n_cards[s] == 1 for s in order], dtype=np.float32),
        "table_play": _one_hot(len(COMBOS), hand.table_combo if on_table else None),
        "table_owner": _one_hot(n, relative[hand.table_owner] if on_table else None),
        "passed": np.array([hand.passed[s] for s in order], dtype=np.float32),
        "out": np.array([hand.out[s] for s in order], dtype=np.float32),
        "sam_declarer": _one_hot(n, None if hand.sam_declarer is None else relative[hand.sam_declarer]),
        "leader": _one_hot(n, relative[hand.leader]),
        "phase": _one_hot(len(Phase), int(hand.phase)),
        "responsible": np.array([hand.phase is Phase.PLAY and hand.responsible(seat)], dtype=np.float32),
        "chain_value": np.array([chain / (chain + 20.0) if on_table else 0.0], dtype=np.float32),
    }


@settings(max_examples=40, deadline=None)
@given(rules=RULE_CONFIGS, seed=st.integers(0, 2**16))
def test_every_observation_block_matches_a_plain_reference(rules: RuleConfig, seed: int) -> None:
    """The encoder's bit assembly (the env's hot path) against the obvious block-by-block reading."""
    env = sam_env.raw_env(rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        hand = env.hand
        for other in env.possible_agents:
            got = blocks(env.observe(other)["observation"], rules.n_players)
            expected = reference_observation(hand, env.seat_of(other))
            for name, block in expected.items():
                np.testing.assert_array_equal(got[name], block, err_msg=f"{name} of {other}")
        if env.terminations[agent]:
            env.step(None)
        else:
            env.step(random_legal(rng, env.observe(agent)["action_mask"]))


@pytest.mark.parametrize("n_players", range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))
def test_observation_size_is_the_spaces_size(n_players: int) -> None:
    env = sam_env.raw_env(rules=RuleConfig(n_players=n_players))
    assert env.observation_space("player_0")["observation"].shape == (observation_size(n_players),)
