"""Training configs by name (sam_env.training.recipes): the recipes of configs/ run from any folder, a path
still runs its file, and a spec that is neither says what exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from policy_files import ROOT

from sam_env.apps import exploit
from sam_env.training import cli
from sam_env.training.config import ConfigError
from sam_env.training.recipes import config_path, recipe_names, recipe_path
from sam_env.training.trainers import load_config


def test_the_recipes_are_the_yaml_files_of_configs() -> None:
    assert recipe_names() == sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))
    assert {"default", "vs_heuristic", "sb3"} <= set(recipe_names())
    assert recipe_path("sb3") == recipe_path("sb3.yaml") == (ROOT / "configs" / "sb3.yaml")  # installed editable


def test_a_name_resolves_from_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = cli.parse_args(["--config", "vs_heuristic", "--set", "total_timesteps=1000"])
    config = load_config(args.config, args.overrides)
    assert (config.name, config.total_timesteps) == ("vs_heuristic", 1000)
    assert load_config("default").name == "default"


def test_a_file_of_ones_own_keeps_its_meaning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file in the current folder named like a recipe is that file, not the recipe."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sb3.yaml").write_text("trainer: batched\nname: mine\n", encoding="utf-8")
    assert config_path("sb3.yaml") == Path("sb3.yaml")
    assert load_config("sb3.yaml").name == "mine"
    assert load_config("sb3").name == "sb3"  # without the suffix no file is named: the recipe
    assert load_config(tmp_path / "sb3.yaml").name == "mine"


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("no_such_recipe", "no shipped recipe is named 'no_such_recipe'; the recipes: bc, default, "),
        ("my_configs/no_such.yaml", "config file 'my_configs/no_such.yaml' does not exist (a shipped recipe is named "),
        ("smoke", "no shipped recipe is named 'smoke'"),  # the tests' fixtures are not recipes
    ],
)
def test_a_spec_that_is_neither_names_the_recipes(spec: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("(", r"\(")):
        load_config(spec)


def test_train_py_runs_a_recipe_by_name_from_another_folder(tmp_path: Path) -> None:
    """The recipe is found (its bad override is reported against it) with the working folder outside the repo."""
    command = [sys.executable, str(ROOT / "train.py"), "--config", "vs_heuristic", "--set", "n_epochs=0"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "error: vs_heuristic: config field n_epochs = 0 is not allowed" in done.stderr, done.stderr


def test_sam_exploits_configs_are_package_data_not_files_of_the_checkout() -> None:
    from importlib import resources

    installed = Path(str(resources.files("sam_env.apps") / "configs"))
    assert exploit.CONFIG == installed / "exploit.yaml" and exploit.SCRATCH_CONFIG == installed / "exploit_scratch.yaml"
    assert not (ROOT / "configs" / "exploit.yaml").exists()
    assert load_config(exploit.CONFIG).learner_share == 0.0


def test_the_default_recipe_is_deep_monte_carlo_as_configs_dmc_trains_it() -> None:
    """``python train.py``'s recipe and the DMC recipe of the algorithms table differ only in name, budget, torch's
    threads, whether the update overlaps the collection (the tables then play one update behind) and evaluations:
    the learning itself cannot drift apart between them."""
    default, dmc = load_config("default").to_dict(), load_config("dmc").to_dict()
    assert default["trainer"] == "dmc"
    run_fields = {"name", "total_timesteps", "torch_threads", "overlap_update", "progress_bar"}
    run_fields |= {k for k in default if "eval" in k or "checkpoint" in k}
    learning = {k: v for k, v in default.items() if k not in run_fields}
    assert learning == {k: v for k, v in dmc.items() if k not in run_fields}
    assert "ppo_v1" in default["final_eval_opponents"], "the README's run reports its margin against ppo_v1"
