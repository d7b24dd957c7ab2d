"""The batched search (sam_env.agents.search.engine) against the per-decision search (sam_env.agents.search.reference).

On the same decisions, each with its own generator, both must draw the same deals and models, rank
the same candidates, replay the same deals and give every candidate the same value, so they pick
the same move: the batched search with every decision of a case in one batch (and in chunks of two),
the per-decision one decision after decision, and ``SearchBot`` (a batch of one) too. Cases cover the
default rules, every instant win with a forced báo 1, 3 and 5 seats, decisions late in hands, other
seats' models and inference. The network's compiled forward pass is checked on its own: the same
moves as ``PPOBot``'s, and the same bits for a row whatever batch it comes in.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig, action_index
from sam_env.agents.networks.catalogue import shipped_checkpoint, shipped_network_for
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import QArch, QCheckpoint, qnet_metadata
from sam_env.agents.registry import load_bot
from sam_env.agents.search import DecisionPoint, SearchBot
from sam_env.agents.search.engine import BatchedSearch
from sam_env.agents.search.models import Network, move_scores
from sam_env.agents.search.network import CompiledNetwork
from sam_env.agents.search.qnetwork import CompiledQNetwork
from sam_env.agents.search.reference import ReferenceSearch
from sam_env.bot import Bot
from sam_env.core import SeatView
from sam_env.core.rules import INSTANT_WIN_TYPES
from sam_env.encoding import observation_size
from sam_env.evaluation.tournament import play_out
from sam_env.vector import VectorEnv
from sam_env.vector.reference_check import random_actions

ALL_INSTANT_WINS = frozenset(INSTANT_WIN_TYPES)
CASES = {
    "default": (RuleConfig(), (), 0),
    "instant-wins-forced-bao1": (RuleConfig(instant_wins=ALL_INSTANT_WINS, bao1="forced"), (), 0),
    "3-seats": (RuleConfig(n_players=3, instant_wins=ALL_INSTANT_WINS), (), 0),
    "5-seats-forced-bao1": (RuleConfig(n_players=5, bao1="forced", allow_sam=False), (), 0),
    "models-and-inference": (RuleConfig(), ("ppo_v1", "heuristic"), 40),
    "after-a-chop": (RuleConfig(), (), 0),
}
CHOP_DEAL = [
    ["7S", "7C", "7D", "7H", "3S", "4S", "5C", "9D", "JH", "KS"],
    ["2S", "3C", "4C", "6D", "8S", "10C", "QD", "AH", "5S", "9S"],
    ["3D", "4D", "5D", "6S", "8C", "10D", "QH", "AS", "JS", "9C"],
    ["3H", "4H", "5H", "6C", "8D", "10H", "QS", "AC", "JC", "KH"],
]
CHOP_OPENING = ["decline_sam"] * 4 + ["single:2", "pass", "pass", "quad:7"]
"""Seat 1 leads its 2 and seat 0 chops it with four 7s: the money of the hand so far is not zero."""
DEALS, CANDIDATES = 12, 4


def _views(rules: RuleConfig, hands: int, seed: int) -> list[tuple[dict, SeatView]]:
    """Decisions with a choice from ``hands`` hands of the heuristic against itself: every third one,
    and every one after the twentieth move of its hand (late decisions, long histories to replay)."""
    env, heuristic, found = sam_env.env(rules=rules), load_bot("heuristic", seed=seed), []

    def record(seat: int, observation: dict, view: SeatView) -> int:
        if observation["action_mask"].sum() > 1:
            found.append(({k: v.copy() for k, v in observation.items()}, view))
        return heuristic.act(observation, view)

    for hand in range(hands):
        env.reset(seed=seed * 1000 + hand)
        play_out(env, record)
    return [(o, v) for i, (o, v) in enumerate(found) if i % 3 == 0 or len(v.history) > 20]


def _views_after_a_chop() -> list[tuple[dict, SeatView]]:
    """The decisions with a choice of seats 0 and 1 after a chop, in hands played on by the heuristic."""
    env, found = sam_env.env(), []
    for seed in range(3):
        heuristic = load_bot("heuristic", seed=seed)
        env.reset(options={"hands": CHOP_DEAL, "leader": 1})
        for move in CHOP_OPENING:
            env.step(action_index(move))

        def record(seat: int, observation: dict, view: SeatView, heuristic: Bot = heuristic) -> int:
            if observation["action_mask"].sum() > 1 and view.net[seat]:
                found.append(({k: v.copy() for k, v in observation.items()}, view))
            return heuristic.act(observation, view)

        play_out(env, record)
    return found


def _decisions(rules: RuleConfig, hands: int, seed: int) -> list[DecisionPoint]:
    return [DecisionPoint.of(o, v) for o, v in _views(rules, hands, seed)]


def _generators(seed: int, count: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(count)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_batched_search_makes_the_per_decision_searchs_moves(case: str) -> None:
    rules, models, proposals = CASES[case]
    checkpoint = shipped_checkpoint(shipped_network_for("ppo", rules))
    views = _views_after_a_chop() if case == "after-a-chop" else _views(rules, hands=3, seed=len(case))
    assert case != "after-a-chop" or all(DecisionPoint.of(o, v).net for o, v in views)
    _check_against_the_reference(checkpoint, rules, views, models, proposals)


@pytest.mark.parametrize("models", [(), ("ppo", "heuristic")], ids=["alone", "with-other-models"])
def test_a_search_over_a_q_network_makes_the_per_decision_searchs_moves(models: tuple[str, ...]) -> None:
    """Over ``dmc`` (a Q-network): candidates by its values, its greedy moves in the rollouts."""
    rules = RuleConfig()
    checkpoint = shipped_checkpoint("dmc")
    assert isinstance(checkpoint, QCheckpoint)
    _check_against_the_reference(checkpoint, rules, _views(rules, hands=3, seed=11), models, 0)
    model = BatchedSearch(shipped_checkpoint("ppo"), opponent_models=("dmc",)).policies(rules)[1]
    assert isinstance(model, CompiledQNetwork)


def _check_against_the_reference(
    checkpoint: Network, rules: RuleConfig, views: list, models: tuple[str, ...], proposals: int
) -> None:
    """The batched search (in one batch, in chunks of two, and as ``SearchBot``) against the per-decision one."""
    points = [DecisionPoint.of(o, v) for o, v in views]
    late = sum(len(p.history) > 20 for p in points)
    assert len(points) >= 8 and late >= 2, (len(points), late)
    budget = {"opponent_models": models, "proposals": proposals}
    batched = BatchedSearch(checkpoint, DEALS, CANDIDATES, **budget).search(points, _generators(1, len(points)))
    small = max(DEALS * CANDIDATES, proposals) * 2  # chunks of two decisions
    chunked = BatchedSearch(checkpoint, DEALS, CANDIDATES, max_tables=small, **budget)
    in_chunks = chunked.search(points, _generators(1, len(points)))
    policies = chunked.policies(rules)
    reference = ReferenceSearch(
        policies,
        lambda o, m: move_scores(policies[0], o[None], m[None])[0],
        rules,
        DEALS,
        CANDIDATES,
        proposals,
    )
    bot = SearchBot(checkpoint, None, DEALS, CANDIDATES, **budget)
    searched = replayed = 0
    for (observation, view), point, rng, bot_rng, found, chunk in zip(
        views, points, _generators(1, len(points)), _generators(1, len(points)), batched, in_chunks, strict=True
    ):
        move, candidates, values = reference.act(point, rng)
        bot.rng = bot_rng  # the bot draws from its own generator: here, the decision's
        assert bot.act(observation, view) == move
        for result in (found, chunk, bot.last):
            assert result.move == move
            assert result.candidates.tolist() == candidates.tolist()
            np.testing.assert_array_equal(result.values, values)
        if len(candidates) > 1:
            assert found.replayed == reference.replayed
            searched += 1
            replayed += found.replayed
    assert searched >= 8 and replayed > searched * DEALS // 2, (searched, replayed)


def test_searches_are_the_same_whatever_else_is_in_the_batch() -> None:
    """A decision's result depends on its generator and itself, not on its neighbours in the batch."""
    rules = RuleConfig()
    points = _decisions(rules, hands=2, seed=9)[:10]
    search = BatchedSearch(shipped_checkpoint("ppo"), DEALS, CANDIDATES)
    together = search.search(points, _generators(3, len(points)))
    order = np.random.default_rng(0).permutation(len(points))
    shuffled = search.search([points[i] for i in order], [_generators(3, len(points))[i] for i in order])
    assert len(points) == 10
    for i, result in zip(order, shuffled, strict=True):
        assert result.move == together[i].move
        np.testing.assert_array_equal(result.values, together[i].values)


def _observations(rules: RuleConfig, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks with a choice from random play in a ``VectorEnv``."""
    venv, rng = VectorEnv(256, rules, seed=seed), np.random.default_rng(seed)
    batch, rows, masks = venv.reset(), [], []
    for _ in range(30):
        choosing = batch.action_mask.sum(axis=1) > 1
        rows.append(batch.observation[choosing].copy())
        masks.append(batch.action_mask[choosing].copy())
        batch = venv.step(random_actions(rng, batch.action_mask))
    return np.concatenate(rows), np.concatenate(masks)


@pytest.mark.parametrize("network", ["dmc_v2", "dmc_v2_2p", "dmc_3p", "dmc_v2_5p"])
def test_the_compiled_q_network_values_moves_as_qbot_and_rows_do_not_depend_on_the_batch(network: str) -> None:
    checkpoint = shipped_checkpoint(network)
    observations, masks = _observations(checkpoint.rules, seed=len(network))
    compiled, numpy_bot = CompiledQNetwork(checkpoint), QBot(checkpoint)
    values = compiled.legal_values(observations, masks)
    expected = numpy_bot.legal_values(observations, masks)
    assert len(observations) > 2000
    assert np.array_equal(np.isfinite(values), masks)
    np.testing.assert_allclose(values[masks], expected[masks], rtol=0, atol=1e-4)
    # the same moves as QBot wherever its best move is clear of the next by more than the rounding
    ordered = np.sort(np.where(masks, expected, -np.inf), axis=1)
    clear = (masks.sum(axis=1) == 1) | (ordered[:, -1] - ordered[:, -2] > 1e-4)
    assert clear.mean() > 0.99
    assert np.array_equal(compiled(observations, masks)[clear], numpy_bot.best_actions(observations, masks)[clear])
    rows = np.random.default_rng(1).permutation(len(observations))[:301]
    np.testing.assert_array_equal(compiled.legal_values(observations, masks, rows), values[rows])
    for row in rows[:20].tolist():
        np.testing.assert_array_equal(
            compiled.legal_values(observations[row : row + 1], masks[row : row + 1])[0], values[row]
        )


def _random_q_network(kind: str, layers: tuple[int, ...], rules: RuleConfig) -> QCheckpoint:
    """A Q-network of random weights (numpy only), of any depth."""
    arch = QArch(kind=kind, layers=layers, activation="relu")
    sizes = [arch.input_size(observation_size(rules.n_players)), *layers]
    rng, tensors = np.random.default_rng(5), {}
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        tensors[f"hidden.{i}.weight"] = rng.normal(0, a**-0.5, (b, a)).astype(np.float32)
        tensors[f"hidden.{i}.bias"] = rng.normal(0, 0.1, b).astype(np.float32)
    tensors["out.weight"] = rng.normal(0, sizes[-1] ** -0.5, (arch.output_size, sizes[-1])).astype(np.float32)
    tensors["out.bias"] = np.zeros(arch.output_size, dtype=np.float32)
    return QCheckpoint.in_memory(tensors, qnet_metadata(rules, arch, "test"), f"random {kind} network")


def test_a_deeper_q_network_is_compiled_layer_by_layer_and_a_dqn_network_is_not() -> None:
    rules = RuleConfig()
    deep = _random_q_network("dmc", (24, 16, 8), rules)
    observations, masks = _observations(rules, seed=3)
    values = CompiledQNetwork(deep).legal_values(observations, masks)
    np.testing.assert_allclose(values[masks], QBot(deep).legal_values(observations, masks)[masks], rtol=0, atol=1e-4)
    dqn = _random_q_network("dqn", (24,), rules)
    with pytest.raises(TypeError, match="dmc QCheckpoint"):
        CompiledQNetwork(dqn)
    assert isinstance(BatchedSearch(dqn).network, QBot)  # a dqn network is played by QBot (numpy)


def test_the_compiled_q_network_refuses_rows_of_another_table_and_masks_its_hands_cannot_play() -> None:
    network = CompiledQNetwork(shipped_checkpoint("dmc_v2"))
    five, five_masks = _observations(RuleConfig(n_players=5), seed=1)
    with pytest.raises(ValueError, match=r"shape \(3, 655\), but it reads rows of 586, 754 numbers"):
        network.legal_values(five[:3], five_masks[:3])
    observations, masks = _observations(RuleConfig(), seed=1)
    with pytest.raises(ValueError, match="row 0's action mask allows a move that plays cards its observed hand"):
        network.legal_values(observations[:2], np.ones_like(masks[:2]))


@pytest.mark.parametrize("network", ["ppo", "ppo_v1", "ppo_3p", "ppo_5p"])
def test_the_compiled_network_plays_ppobots_moves_and_rows_do_not_depend_on_the_batch(network: str) -> None:
    checkpoint = shipped_checkpoint(network)
    observations, masks = _observations(checkpoint.rules, seed=len(network))
    compiled, numpy_bot = CompiledNetwork(checkpoint), PPOBot(checkpoint)
    logits = compiled.logits(observations, masks)
    expected = np.where(masks, numpy_bot.batch_logits(observations), -np.inf)
    assert len(observations) > 2000
    np.testing.assert_allclose(logits[masks], expected[masks], rtol=0, atol=1e-4)
    assert np.array_equal(compiled(observations, masks), numpy_bot.best_actions(observations, masks))
    rows = np.random.default_rng(1).permutation(len(observations))[:301]
    np.testing.assert_array_equal(compiled.logits(observations, masks, rows), logits[rows])
    for row in rows[:20].tolist():
        np.testing.assert_array_equal(
            compiled.logits(observations[row : row + 1], masks[row : row + 1])[0], logits[row]
        )


def test_bad_searches_are_refused() -> None:
    checkpoint = shipped_checkpoint("ppo")
    points = _decisions(RuleConfig(), hands=1, seed=2)
    search = BatchedSearch(checkpoint, 4, 2)
    with pytest.raises(ValueError, match="one generator per decision: 2 decisions, 1 generators"):
        search.search(points[:2], _generators(0, 1))
    other = _decisions(RuleConfig(straights_with_two=False), hands=1, seed=2)[0]
    with pytest.raises(ValueError, match="every decision of a batch must be played under the same rules"):
        search.search([points[0], other], _generators(0, 2))
    with pytest.raises(ValueError, match="history_loglik: this search has no inference"):
        search.history_loglik(points[:1], [np.zeros((1, 4), dtype=np.int64)])
    for kwargs, message in (
        ({"max_tables": 7}, "max_tables must be an int >= 8"),
        ({"proposals": -1}, "proposals must be an int >= 0"),
        ({"mismatch": 1.0}, "mismatch must be a probability"),
    ):
        with pytest.raises(ValueError, match=message):
            BatchedSearch(checkpoint, 4, 2, **kwargs)
