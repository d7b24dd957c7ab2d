"""The training configs: every shipped file loads into its trainer's class, overrides apply, bad values
are refused by name, and configs of earlier releases still load."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from train_script import ALL_CONFIGS

from sam_env.training.batched.config import BatchedConfig
from sam_env.training.bc.config import BCConfig
from sam_env.training.checkpoints import run_dir_of
from sam_env.training.config import ConfigError, MaskedPPOConfig, RunConfig
from sam_env.training.dmc.config import DMCConfig
from sam_env.training.dqn.config import DQNConfig
from sam_env.training.expert.config import ExpertConfig
from sam_env.training.nfsp.config import NFSPConfig
from sam_env.training.rllib.config import RLlibConfig
from sam_env.training.rollout_advantage.config import RolloutAdvantageConfig
from sam_env.training.sb3.config import SB3Config
from sam_env.training.trainers import TRAINERS, config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]
RUN_NAMES = {"configs/past_runs/ppo_v1.yaml": "shipped"}
"""A record keeps the name its run had (``ppo_v1``'s checkpoints are ``runs/shipped__s1__<time>``)."""


@pytest.mark.parametrize("path", ALL_CONFIGS, ids=[p.relative_to(ROOT).as_posix() for p in ALL_CONFIGS])
def test_every_config_loads_into_its_trainers_class(path: Path) -> None:
    config = load_config(path)
    assert config.name == RUN_NAMES.get(path.relative_to(ROOT).as_posix(), path.stem)
    assert isinstance(config, TRAINERS[yaml.safe_load(path.read_text())["trainer"]].config)
    assert config_from_dict(config.to_dict()) == config


def test_one_config_class_per_trainer_on_the_shared_fields() -> None:
    assert {name: t.config for name, t in TRAINERS.items()} == {
        "batched": BatchedConfig,
        "sb3": SB3Config,
        "rllib": RLlibConfig,
        "expert": ExpertConfig,
        "dmc": DMCConfig,
        "dqn": DQNConfig,
        "rollout_advantage": RolloutAdvantageConfig,
        "nfsp": NFSPConfig,
        "bc": BCConfig,
    }
    shared = {f.name for f in dataclasses.fields(RunConfig)}
    for name, trainer in TRAINERS.items():
        assert issubclass(trainer.config, RunConfig) and trainer.config.trainer_name() == name
        assert shared <= {f.name for f in dataclasses.fields(trainer.config)}
    assert issubclass(BatchedConfig, MaskedPPOConfig) and issubclass(SB3Config, MaskedPPOConfig)
    for cls in (BatchedConfig, DMCConfig):  # where the tables play is a setting of these trainers
        assert {"tables", "table_workers", "num_cpus"} <= {f.name for f in dataclasses.fields(cls)}
    assert "n_envs" not in {f.name for f in dataclasses.fields(BatchedConfig)}
    assert "num_tables" not in {f.name for f in dataclasses.fields(SB3Config)}


def test_the_default_trainer_is_batched() -> None:
    assert isinstance(config_from_dict({}), BatchedConfig)
    assert config_from_dict({}).trainer == "batched"


def test_a_field_of_another_trainer_is_refused_naming_that_trainer() -> None:
    with pytest.raises(ConfigError, match=r"of another trainer with trainer: sb3: critic \(batched\)"):
        config_from_dict({"trainer": "sb3", "critic": "oracle"})
    with pytest.raises(ConfigError, match=r"with trainer: batched: n_envs \(sb3\), vec_env \(sb3\)"):
        config_from_dict({"n_envs": 4, "vec_env": "dummy"})
    with pytest.raises(ConfigError, match=r"trainer = 'ppo' is not allowed; expected one of \['batched', 'sb3'"):
        config_from_dict({"trainer": "ppo"})
    with pytest.raises(ConfigError, match=r"trainer = \['sb3'\] is not allowed"):
        config_from_dict({"trainer": ["sb3"]})
    with pytest.raises(ConfigError, match=r"trainer = 'sb3' is not allowed; expected 'batched'"):
        BatchedConfig(trainer="sb3")


def test_the_backend_key_of_earlier_releases_reads_as_trainer_with_a_warning() -> None:
    data = yaml.safe_load((ROOT / "tests/training/configs/rllib_smoke.yaml").read_text())
    old = {"backend": "rllib", **{k: v for k, v in data.items() if k != "trainer"}}
    with pytest.warns(DeprecationWarning, match=r"'backend: rllib' is deprecated .* use 'trainer: rllib'"):
        config = config_from_dict(old)
    assert config == load_config(ROOT / "tests/training/configs/rllib_smoke.yaml")
    with (
        pytest.warns(DeprecationWarning, match="backend"),
        pytest.raises(ConfigError, match="backend: rllib and trainer: sb3 disagree"),
    ):
        config_from_dict({**old, "trainer": "sb3"})


def test_a_saved_config_of_an_earlier_release_resumes_as_the_trainer_it_ran() -> None:
    """Before 0.2.0 one class served both masked-PPO trainers: saved configs hold the other's fields
    (without effect on the run), and the oldest ones no trainer key (they ran sb3)."""
    sb3 = load_config(ROOT / "tests/training/configs/smoke.yaml")
    batched_only = {"num_tables": 512, "learner_share": 1.0, "device": "cpu", "critic": "observation"}
    batched_only |= {"fixed_opponents": [], "init_from": None, "eval_opponents": ["heuristic"]}
    old = {k: v for k, v in sb3.to_dict().items() if k != "trainer"} | batched_only
    assert config_from_dict(old, saved=True) == sb3
    with pytest.raises(ConfigError, match="of another trainer"):
        config_from_dict(old)
    batched = load_config(ROOT / "tests/training/configs/batched_smoke.yaml")
    old = batched.to_dict() | {"n_envs": 8, "vec_env": "dummy"}
    assert config_from_dict(old, saved=True) == batched


def test_overrides_reach_plain_and_nested_fields() -> None:
    overrides = ["total_timesteps=20000", "opponents.heuristic=0.5", "pi_layers=[64, 64]", "rules.bao1=forced"]
    config = load_config(ROOT / "tests/training/configs/smoke.yaml", overrides)
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
        ({"trainer": "sb3", "vec_env": "ray"}, "vec_env = 'ray' is not allowed; expected 'dummy' or 'subproc'"),
        ({"activation": "gelu"}, "activation = 'gelu' is not allowed; expected one of ['tanh', 'relu']"),
        ({"pi_layers": []}, "pi_layers = [] is not allowed; expected a non-empty list"),
        (
            {"trainer": "sb3", "n_envs": 3, "n_steps": 10, "batch_size": 16},
            "batch_size = 16 is not allowed; expected a divisor of",
        ),
        ({"opponents": {"self_play": -1}}, "opponents.self_play = -1 is not allowed; expected a weight >= 0"),
        (
            {"opponents": {"self_play": 0, "random": 0, "greedy": 0, "heuristic": 0}},
            "expected at least one weight > 0",
        ),
        ({"final_eval_opponents": ["nobody"]}, "final_eval_opponents = ['nobody'] is not allowed"),
        ({"rules": {"n_players": 9}}, "rules: RuleConfig.n_players = 9 is not allowed"),
        ({"rules": {"card_value": 10**309}}, "expected an int from 0 to 1000 (units of the bet X)"),
        ({"progress_bar": "yes"}, "progress_bar = 'yes' is not allowed; expected true or false"),
        ({"name": "my run"}, "name = 'my run' is not allowed"),
    ],
)
def test_bad_values_name_the_field_the_value_and_what_is_allowed(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert message in str(err.value)


def test_a_huge_stake_set_on_the_command_line_is_refused_naming_the_range() -> None:
    with pytest.raises(
        ConfigError, match=r"rules: RuleConfig.card_value = 1000+ is not allowed; expected an int from 0"
    ):
        load_config(ROOT / "tests/training/configs/smoke.yaml", ["rules.card_value=1" + "0" * 309])


@pytest.mark.parametrize(
    ("override", "message"),
    [("total_timesteps", "expected KEY=VALUE"), ("opponents=[1", "not valid YAML"), ("seed.x=1", "seed is not a")],
)
def test_malformed_overrides(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(ROOT / "tests/training/configs/smoke.yaml", [override])


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
    """It used to crash with FileNotFoundError after writing config.yaml two folders up. A folder with only a
    config.yaml is a run stopped before its first checkpoint (tests/training/test_resume_before_first_checkpoint.py)."""
    folder = tmp_path / "a" / "b" / "not_a_checkpoint"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text((ROOT / "tests/training/configs/smoke.yaml").read_text(encoding="utf-8"))
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(folder)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 2
    assert f"{folder} has no checkpoint yet" in out.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "config.yaml", "not_a_checkpoint"]


def test_a_run_folder_is_found_from_a_step_checkpoint_or_the_final_one(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "smoke__s7__20260101-000000"
    assert run_dir_of(run / "checkpoints" / "step_000000128") == run.resolve()
    assert run_dir_of(run / "final") == run.resolve()


def test_resuming_an_rllib_run_is_refused_saying_so(tmp_path: Path) -> None:
    folder = tmp_path / "run" / "final"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text((ROOT / "tests/training/configs/rllib_smoke.yaml").read_text(encoding="utf-8"))
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(folder)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 2
    assert "error: trainer: rllib runs cannot be resumed yet" in out.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["config.yaml", "final", "run"]


def test_address_is_refused_for_a_trainer_without_ray() -> None:
    command = [sys.executable, "train.py", "--config", "tests/training/configs/smoke.yaml", "--address", "auto"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert (
        "--address is for configs that run on Ray (a Ray cluster): tables: ray (trainers dmc and batched)" in out.stderr
    )
