"""The training config: every shipped file loads, overrides apply, bad values are refused by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from training.checkpoints import run_dir_of
from training.config import ConfigError, config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]
# Configs of the SB3 path; those with `backend: rllib` are checked in test_rllib_config.py.
CONFIGS = sorted(p for p in (ROOT / "configs").glob("*.yaml") if "backend: rllib" not in p.read_text())


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_config_in_configs_loads(path: Path) -> None:
    config = load_config(path)
    assert config.name == path.stem
    assert config_from_dict(config.to_dict()) == config


def test_overrides_reach_plain_and_nested_fields() -> None:
    overrides = ["total_timesteps=20000", "opponents.heuristic=0.5", "pi_layers=[64, 64]", "rules.bao1=forced"]
    config = load_config(ROOT / "configs" / "smoke.yaml", overrides)
    assert config.total_timesteps == 20000
    assert config.opponents.heuristic == 0.5
    assert config.pi_layers == (64, 64)
    assert config.rule_config.bao1 == "forced"


def test_opponent_kinds_left_out_of_the_mix_get_no_seats() -> None:
    config = config_from_dict({"opponents": {"heuristic": 2, "self_play": 1}})
    assert config.opponents.weights() == {"self_play": 1.0, "random": 0.0, "greedy": 0.0, "heuristic": 2.0}


def test_yaml_exponent_floats_are_numbers() -> None:
    """YAML 1.1 reads ``3e-4`` as a string; float fields accept it anyway."""
    config = config_from_dict({"learning_rate": "3e-4", "opponents": {"random": "1e-1"}})
    assert config.learning_rate == pytest.approx(3e-4)
    assert config.opponents.random == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"total_timestep": 5}, "unknown config field(s) ['total_timestep']; allowed: trainer, name, seed"),
        ({"opponents": {"heuristics": 1}}, "unknown opponent kind(s) ['heuristics']; allowed: self_play"),
        ({"total_timesteps": 0}, "total_timesteps = 0 is not allowed; expected an int > 0"),
        ({"total_timesteps": 1.5}, "total_timesteps = 1.5 is not allowed; expected an int > 0"),
        ({"learning_rate": -1}, "learning_rate = -1 is not allowed; expected a number > 0"),
        ({"learning_rate": "fast"}, "learning_rate = 'fast' is not allowed; expected a number > 0"),
        ({"gamma": 1.5}, "gamma = 1.5 is not allowed; expected a number in (0, 1]"),
        ({"vec_env": "ray"}, "vec_env = 'ray' is not allowed; expected 'dummy' or 'subproc'"),
        ({"activation": "gelu"}, "activation = 'gelu' is not allowed; expected one of ['tanh', 'relu']"),
        ({"pi_layers": []}, "pi_layers = [] is not allowed; expected a non-empty list"),
        ({"n_envs": 3, "n_steps": 10, "batch_size": 16}, "batch_size = 16 is not allowed; expected a divisor of"),
        ({"opponents": {"self_play": -1}}, "opponents.self_play = -1 is not allowed; expected a weight >= 0"),
        (
            {"opponents": {"self_play": 0, "random": 0, "greedy": 0, "heuristic": 0}},
            "expected at least one weight > 0",
        ),
        ({"final_eval_opponents": ["nobody"]}, "final_eval_opponents = ['nobody'] is not allowed"),
        ({"rules": {"n_players": 9}}, "rules: RuleConfig.n_players = 9 is not allowed"),
        ({"progress_bar": "yes"}, "progress_bar = 'yes' is not allowed; expected true or false"),
        ({"name": "my run"}, "name = 'my run' is not allowed"),
    ],
)
def test_bad_values_name_the_field_the_value_and_what_is_allowed(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("override", "message"),
    [("total_timesteps", "expected KEY=VALUE"), ("opponents=[1", "not valid YAML"), ("seed.x=1", "seed is not a")],
)
def test_malformed_overrides(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(ROOT / "configs" / "smoke.yaml", [override])


def test_command_line_reports_config_errors_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nn_epochs: 0\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--config", str(bad)], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 2
    assert "n_epochs = 0 is not allowed; expected an int > 0" in out.stderr
    assert "Traceback" not in out.stderr


def test_resume_from_a_folder_without_trainer_state_writes_nothing(tmp_path: Path) -> None:
    """It used to crash with FileNotFoundError after writing config.yaml two folders up."""
    folder = tmp_path / "a" / "b" / "not_a_checkpoint"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text((ROOT / "configs" / "smoke.yaml").read_text(encoding="utf-8"))
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(folder)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 2
    assert "cannot read the trainer state" in out.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "config.yaml", "not_a_checkpoint"]


def test_a_run_folder_is_found_from_a_step_checkpoint_or_the_final_one(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "smoke__s7__20260101-000000"
    assert run_dir_of(run / "checkpoints" / "step_000000128") == run.resolve()
    assert run_dir_of(run / "final") == run.resolve()


def test_an_rllib_config_is_named_as_such_where_an_sb3_config_is_read() -> None:
    """``--resume`` of an RLlib run reads its config.yaml as an SB3 config: say so, not 'unknown fields'."""
    with pytest.raises(ConfigError, match=r"is a backend: rllib config; run it with train.py --config"):
        load_config(ROOT / "configs" / "rllib_smoke.yaml")
