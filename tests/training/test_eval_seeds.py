"""Evaluations during a run play deals disjoint from the final evaluation's and from sam-eval's default."""

from __future__ import annotations

from pathlib import Path

import pytest
from policy_files import ROOT

from sam_env import RuleConfig
from sam_env.apps.evaluate import build_parser
from sam_env.evaluation.deals import make_deal
from sam_env.training import evaluate as evaluation
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.config import IN_TRAINING_SEEDS, ConfigError
from sam_env.training.trainers import config_from_dict, load_config


@pytest.fixture
def seeds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seed of every tournament the training evaluations start (nothing is played)."""
    played: list[int] = []

    def run_matches(matches: list, rules: RuleConfig, deals: int, seed: int, **_: object) -> list:
        played.append(seed)
        raise StopIteration  # stop before anything is played

    monkeypatch.setattr(evaluation, "run_matches", run_matches)
    return played


def test_the_in_training_seeds_are_a_range_of_their_own() -> None:
    sam_eval_default = build_parser().parse_args(["--candidates", "greedy"]).seed
    for eval_seed in (0, 12345, IN_TRAINING_SEEDS - 1):
        seed = evaluation.in_training_seed(eval_seed)
        assert seed >= IN_TRAINING_SEEDS > eval_seed and seed != sam_eval_default
    rules = RuleConfig()
    first = [make_deal(rules, evaluation.in_training_seed(12345), i).hands for i in range(50)]
    assert not {*first} & {make_deal(rules, 12345, i).hands for i in range(50)}
    assert not {*first} & {make_deal(rules, sam_eval_default, i).hands for i in range(50)}


def test_a_runs_evaluations_and_its_final_one_use_different_deals(seeds: list[int], tmp_path: Path) -> None:
    trainer = BatchedTrainer(load_config(ROOT / "tests/training/configs/batched_smoke.yaml", ["eval_seed=77"]))
    with pytest.raises(StopIteration):
        trainer.run_eval("ppo")
    checkpoint = trainer.snapshot()
    with pytest.raises(StopIteration):
        evaluation.final_evaluation(checkpoint, "ppo", ["random"], 4, 77, tmp_path, {"steps": 0})
    assert seeds == [IN_TRAINING_SEEDS + 77, 77]


def test_an_eval_seed_in_the_in_training_range_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"config field eval_seed = 1099511627776 .*below 1099511627776"):
        config_from_dict({"trainer": "batched", "eval_seed": IN_TRAINING_SEEDS})
