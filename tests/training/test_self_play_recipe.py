"""The self-play recipe (configs/self_play.yaml): the learner faces mostly itself, rule bots at most a
quarter of its opponents' seats (docs/self_play.md).

The share is counted the way the trainer seats tables — with its own :class:`Seating` draw, the "at
least one learner seat per table" rule included — and weighted as the learner's decisions are: each
learner seat sees its table's other seats.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sam_env.training.common.seating import LEARNER, Seating
from sam_env.training.trainers import load_config

ROOT = Path(__file__).resolve().parents[2]
TABLES = 20_000


def rule_bot_share(path: Path) -> float:
    """Of the seats around the learner's seats, the share held by rule bots (not the learner, not a snapshot)."""
    config = load_config(path)
    n = config.rule_config.n_players
    seating = Seating(TABLES, n, config.learner_share, config.opponents.weights(), np.random.default_rng(0))
    seating.draw(np.arange(TABLES))
    learner = seating.occupant == LEARNER
    rule_bots = seating.occupant <= -2  # RANDOM, HEURISTIC: the rule bots the batched trainer seats
    learners = learner.sum(axis=1)
    return float((learners * rule_bots.sum(axis=1)).sum() / ((n - 1) * learners.sum()))


def test_the_self_play_recipe_has_at_most_a_quarter_rule_bots() -> None:
    config = load_config(ROOT / "configs" / "self_play.yaml")
    assert config.trainer == "batched"
    assert config.learner_share >= 0.75
    share = rule_bot_share(ROOT / "configs" / "self_play.yaml")
    assert 0.0 < share <= 0.25, f"rule bots hold {share:.1%} of the seats around the learner's"


def test_the_share_counts_rule_bots_as_the_trainer_seats_them() -> None:
    """The older recipe, one learner seat against three heuristic seats, is all rule bots around the learner."""
    assert rule_bot_share(ROOT / "configs" / "vs_heuristic.yaml") == 1.0
