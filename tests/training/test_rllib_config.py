"""The RLlib configs load and validate without Ray (``sam_env.training.trainers`` imports no Ray)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from policy_files import ROOT
from train_script import ALL_CONFIGS

from sam_env.training.config import ConfigError
from sam_env.training.rllib.config import RLlibConfig

RLLIB_CONFIGS = [p for p in ALL_CONFIGS if "trainer: rllib" in p.read_text()]


def test_there_are_a_smoke_and_a_real_config() -> None:
    assert [p.stem for p in RLLIB_CONFIGS] == ["rllib", "rllib_smoke"]


@pytest.mark.parametrize("path", RLLIB_CONFIGS, ids=[p.stem for p in RLLIB_CONFIGS])
def test_every_rllib_config_loads_and_round_trips(path: Path) -> None:
    config = RLlibConfig.from_dict(yaml.safe_load(path.read_text()))
    assert config.name == path.stem
    assert RLlibConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"num_env_runners": -1}, "num_env_runners = -1 is not allowed; expected an int >= 0"),
        ({"lr": "fast"}, "lr = 'fast' is not allowed; expected a number > 0"),
        ({"pi_layers": []}, "pi_layers = [] is not allowed; expected a non-empty list"),
        ({"rules": {"n_players": 9}}, "rules: "),
        ({"n_envs": 8}, "unknown config field(s) ['n_envs']; allowed: trainer, name"),
        ({"trainer": "sb3"}, "trainer = 'sb3' is not allowed; expected 'rllib'"),
    ],
)
def test_bad_fields_are_refused_with_their_name(data: dict, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        RLlibConfig.from_dict(data)
    assert message in str(err.value)


def test_reading_configs_imports_no_ray() -> None:
    code = "import sys, sam_env.training.trainers; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_floats_written_like_3e_4_are_numbers() -> None:
    assert RLlibConfig.from_dict({"lr": "3e-4"}).lr == 3e-4
