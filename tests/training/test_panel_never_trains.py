"""No training run may seat a held-out panel bot (agents/panel): not the configs of the repository, not the
config classes' defaults, and not a user's config — validation refuses it by name.

Evaluation fields may name panel bots: evaluating during or after a run trains nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from train_script import ALL_CONFIGS

from sam_env.agents.panel import PANEL
from sam_env.training.batched.config import BatchedConfig
from sam_env.training.config import ConfigError, OpponentMix, apply_overrides
from sam_env.training.rllib.config import RLlibConfig
from sam_env.training.trainers import TRAINERS, config_from_dict

ROOT = Path(__file__).resolve().parents[2]
EVAL_ONLY = {"eval_opponents", "final_eval_opponents"}
"""Top-level fields whose bots are only evaluated against, never trained against."""


def _panel_names_outside_eval(data: object, path: tuple[str, ...] = ()) -> Iterator[str]:
    """Where a panel bot's name appears in a config (as a value or as a key), outside evaluation fields."""
    if path and path[0] in EVAL_ONLY:
        return
    if isinstance(data, dict):
        for k, v in data.items():
            if k in PANEL:
                yield ".".join((*path, str(k)))
            yield from _panel_names_outside_eval(v, (*path, str(k)))
    elif isinstance(data, (list, tuple, set, frozenset)):
        for item in data:
            yield from _panel_names_outside_eval(item, path)
    elif isinstance(data, str) and any(name in data for name in PANEL):
        yield ".".join(path) + f" = {data!r}"


def test_the_walk_finds_panel_names_wherever_they_are_seated() -> None:
    data = {
        "opponents": {"panel_shedder": 1.0},
        "league": [{"bot": "panel_noisy"}],
        "eval_opponents": ["panel_hoarder"],
    }
    assert list(_panel_names_outside_eval(data)) == ["opponents.panel_shedder", "league.bot = 'panel_noisy'"]


@pytest.mark.parametrize("path", ALL_CONFIGS, ids=[p.relative_to(ROOT).as_posix() for p in ALL_CONFIGS])
def test_no_config_in_configs_seats_a_panel_bot(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert list(_panel_names_outside_eval(data)) == []


@pytest.mark.parametrize("trainer", sorted(TRAINERS))
def test_no_config_default_seats_a_panel_bot(trainer: str) -> None:
    config_class = TRAINERS[trainer].config
    assert list(_panel_names_outside_eval(config_class().to_dict())) == []


@pytest.mark.parametrize("name", PANEL)
def test_validation_refuses_a_panel_bot_in_the_opponent_mix(name: str) -> None:
    with pytest.raises(ConfigError, match=rf"config field opponents names {name}: the held-out panel"):
        config_from_dict({"opponents": {"self_play": 0.5, name: 0.5}})
    overridden = apply_overrides({"opponents": {"heuristic": 1.0}}, [f"opponents.{name}=0.2"])
    with pytest.raises(ConfigError, match=r"held-out panel \(.*\) never plays at a learner's table"):
        config_from_dict(overridden)


@pytest.mark.parametrize("name", PANEL)
def test_validation_refuses_a_panel_bot_among_the_fixed_opponents(name: str) -> None:
    data = {"trainer": "batched", "opponents": {"self_play": 1.0}, "fixed_opponents": ["ppo_v1", name]}
    with pytest.raises(ConfigError, match=rf"config field fixed_opponents names {name}: the held-out panel"):
        config_from_dict(data)
    with pytest.raises(ConfigError, match="fixed_opponents names"):
        BatchedConfig(opponents=OpponentMix(1.0, 0.0, 0.0, 0.0), fixed_opponents=(name,))


def test_evaluation_fields_may_name_panel_bots() -> None:
    config = config_from_dict({"eval_opponents": ["heuristic", *PANEL], "final_eval_opponents": list(PANEL)})
    assert config.eval_opponents == ("heuristic", *PANEL) and config.final_eval_opponents == PANEL
    assert RLlibConfig(final_eval_opponents=PANEL).final_eval_opponents == PANEL
