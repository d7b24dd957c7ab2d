"""Opponents that teach (PFSP) and a learner that sees the hand's history and scores moves, in the batched trainer."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from policy_files import ROOT

import sam_env
from sam_env import RuleConfig
from sam_env.agents.greedy_bot import BatchedGreedy, GreedyBot
from sam_env.agents.heuristic.bot import HeuristicParams
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch
from sam_env.agents.panel import PANEL
from sam_env.evaluation.tournament import play_out
from sam_env.training.batched.pfsp import FIRST_VARIANT, GREEDY, WEIGHTINGS, PrioritizedSeating
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.common.seating import HEURISTIC, LEARNER, RANDOM
from sam_env.training.config import ConfigError
from sam_env.training.trainers import config_from_dict, load_config
from sam_env.training.widen import widen

SMOKE = ROOT / "tests/training/configs/batched_smoke.yaml"
KINDS = {"self_play": 0.0, "random": 1.0, "greedy": 1.0, "heuristic": 2.0}


def _seating(weighting: str = "hard", memory: int = 1000) -> PrioritizedSeating:
    variants = [HeuristicParams(0.2, 5, 1), HeuristicParams(1.2, 8, 3)]
    return PrioritizedSeating(8, RuleConfig(), 0.25, KINDS, np.random.default_rng(0), weighting, memory, variants)


def test_the_sampling_weights_are_the_kind_shares_times_f_of_p() -> None:
    seating = _seating()
    codes, probabilities = seating.probabilities()
    assert codes.tolist() == [HEURISTIC, FIRST_VARIANT, FIRST_VARIANT - 1, GREEDY, RANDOM]
    # before any result every p is 0.5: the shares alone (heuristic's 2 shared by the three heuristics)
    share = np.array([2 / 3, 2 / 3, 2 / 3, 1, 1])
    assert probabilities == pytest.approx(share / share.sum())
    seating.wins[GREEDY], seating.games[GREEDY] = 98.0, 98.0  # the learner beats greedy every time
    seating.wins[RANDOM], seating.games[RANDOM] = 0.0, 98.0  # and never beats random
    p = seating.p_beats(codes)
    assert p.tolist() == pytest.approx([0.5, 0.5, 0.5, 0.99, 0.01])
    _, probabilities = seating.probabilities()
    weights = share * (1 - p) ** 2
    assert probabilities == pytest.approx(weights / weights.sum())
    assert probabilities[3] < 1e-3 < 0.4 < probabilities[4]
    assert WEIGHTINGS["variance"](np.array([0.5, 0.99]))[0] > WEIGHTINGS["variance"](np.array([0.5, 0.99]))[1]


def test_draws_follow_the_probabilities_and_keep_a_learner_seat() -> None:
    seating = _seating()
    seating.wins[HEURISTIC], seating.games[HEURISTIC] = 100.0, 100.0  # beaten: hardly drawn any more
    tables = np.arange(8)
    counts: dict[int, int] = {}
    for _ in range(400):
        seating.draw(tables)
        assert ((seating.occupant == LEARNER).sum(axis=1) >= 1).all()
        for code in seating.occupant[seating.occupant != LEARNER].tolist():
            counts[code] = counts.get(code, 0) + 1
    codes, probabilities = seating.probabilities()
    total = sum(counts.values())
    for code, probability in zip(codes.tolist(), probabilities, strict=True):
        assert counts.get(code, 0) / total == pytest.approx(probability, abs=0.03)
    assert counts.get(HEURISTIC, 0) / total < 0.01


def test_results_update_each_opponents_rate_and_old_ones_fade() -> None:
    seating = _seating(memory=10)
    seating.occupant[0] = [LEARNER, GREEDY, RANDOM, LEARNER]
    seating.record(0, [5, -3, 8, -10])  # learners ended +5 and -10; greedy -3, random +8
    # two results each, the older weighing 1 - 1/memory = 0.9: beat greedy with +5 (1), then lost with -10 (0)
    assert (seating.games[GREEDY], seating.wins[GREEDY]) == pytest.approx((1.9, 0.9))
    assert (seating.games[RANDOM], seating.wins[RANDOM]) == pytest.approx((1.9, 0.0))
    seating.occupant[1] = [LEARNER, GREEDY, LEARNER, LEARNER]
    seating.record(1, [-2, -2, 4, 0])  # a tie (0.5), then two wins
    assert seating.p_beats([GREEDY])[0] > 0.5
    for _ in range(60):  # the learner now always loses to greedy: the old results fade
        seating.record(1, [-5, 10, -5, 0])
    assert seating.p_beats([GREEDY])[0] < 0.15


def test_batched_greedy_makes_the_greedy_bots_moves() -> None:
    env, bot, batched = sam_env.env(), GreedyBot(), BatchedGreedy()
    decisions = 0

    def choose(seat: int, observation: dict, view: object) -> int:
        nonlocal decisions
        expected = bot.act(observation, view)
        assert batched(observation["observation"][None], observation["action_mask"][None].astype(bool))[0] == expected
        decisions += 1
        return expected

    for hand in range(20):
        env.reset(seed=hand)
        play_out(env, choose)
    assert decisions > 300


def test_a_pfsp_run_seats_every_kind_records_results_and_trains() -> None:
    overrides = [
        "eval_every=0",
        "opponent_sampling=pfsp",
        "heuristic_variants=2",
        "opponents={self_play: 1.0, greedy: 1.0, heuristic: 1.0, random: 0.5}",
    ]
    trainer = BatchedTrainer(load_config(SMOKE, overrides))
    seating = trainer.seating
    assert isinstance(seating, PrioritizedSeating) and len(seating.variants) == 2
    trainer.learn(1200, progress_bar=False)
    assert {GREEDY, RANDOM, HEURISTIC, FIRST_VARIANT, FIRST_VARIANT - 1} <= set(seating.games)  # all played
    assert any(code >= 0 for code in seating.games)  # and the snapshots
    described = seating.describe()
    assert any(name.startswith("heuristic_g") for name in described)
    assert sum(chance for _, _, chance in described.values()) == pytest.approx(1.0)


def test_pfsp_options_are_checked_and_the_panel_stays_out() -> None:
    with pytest.raises(ConfigError, match="config field opponent_sampling"):
        config_from_dict({"trainer": "batched", "opponent_sampling": "league"})
    with pytest.raises(ConfigError, match="config field heuristic_variants"):
        config_from_dict({"trainer": "batched", "heuristic_variants": 3})
    with pytest.raises(ConfigError, match=r"greedy too with opponent_sampling: pfsp"):
        config_from_dict({"trainer": "batched", "opponents": {"self_play": 1, "greedy": 1}})
    config_from_dict({"trainer": "batched", "opponent_sampling": "pfsp", "opponents": {"greedy": 1}})
    for name in PANEL:
        with pytest.raises(ConfigError, match="held-out panel"):
            config_from_dict({"trainer": "batched", "opponent_sampling": "pfsp", "opponents": {name: 1.0}})


def test_a_learner_of_version_2_with_a_move_head_trains_and_saves_what_it_reads() -> None:
    overrides = ["eval_every=0", "encoding_version=2", "move_head=8", "fixed_opponents=[ppo_v1]"]
    trainer = BatchedTrainer(load_config(SMOKE, overrides))
    assert trainer.venv.encoding_version == 2 and trainer.net.arch.move_head == 8
    trainer.learn(600, progress_bar=False)
    snapshot = trainer.snapshot()
    assert snapshot.encoding_version == 2 and snapshot.arch.move_head == 8
    bot = PPOBot(snapshot)
    env = sam_env.env(encoding_version=2)
    env.reset(seed=0)
    play_out(env, lambda seat, observation, view: bot.act(observation, view))


def test_a_version_1_network_widened_to_version_2_and_a_move_head_plays_as_before() -> None:
    start = sam_env.agents.networks.catalogue.shipped_checkpoint("ppo_v1")
    arch = start.arch
    wide = widen(start, PolicyArch(arch.pi, arch.vf, arch.activation, 16), seed=1, encoding_version=2)
    assert wide.encoding_version == 2 and wide.arch.move_head == 16
    old, new = PPOBot(start), PPOBot(wide)
    venv = sam_env.VectorEnv(64, seed=4, encoding_version=2)
    batch = venv.reset()
    for _ in range(20):
        a = old.best_actions(batch.observation, batch.action_mask)
        assert np.array_equal(new.best_actions(batch.observation, batch.action_mask), a)
        z_old = old.batch_logits(batch.observation)[batch.action_mask]
        assert np.allclose(new.batch_logits(batch.observation, batch.action_mask)[batch.action_mask], z_old, atol=1e-5)
        batch = venv.step(a)
    with torch.no_grad():
        assert torch.count_nonzero(torch.from_numpy(wide.tensors["move_out.weight"])) == 0
