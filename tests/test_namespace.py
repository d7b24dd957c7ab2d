"""One installed namespace (CHANGELOG 0.3.0): sam-env installs ``sam_env`` and nothing else at the top level.

The repository keeps ``agents/``, ``evaluation/``, ``training/`` and ``apps/`` at its top level and
``pyproject.toml`` installs them as ``sam_env.agents`` and its siblings, so a distribution that owns
``agents`` (OpenAI's Agents SDK does) or ``training`` installs beside sam-env with both working. The
checks run in fresh interpreters or on a built wheel: this process has long imported everything.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra brings tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
MOVED = ("agents", "evaluation", "training", "apps")
DATA = ("configs",)
"""Folders installed under sam_env for their files: the recipes (sam_env.configs)."""


def run_python(code: str, cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None if pythonpath is None else {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=180, cwd=cwd, env=env
    )


def test_pyproject_installs_every_package_folder_under_sam_env() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    package_dir = setuptools["package-dir"]
    assert package_dir == {f"sam_env.{folder}": folder for folder in (*MOVED, *DATA)}
    expected = {
        ".".join(("sam_env", *p.parent.relative_to(ROOT / "sam_env").parts))
        for p in ROOT.glob("sam_env/**/__init__.py")
    }
    for folder in (*MOVED, *DATA):
        expected |= {
            ".".join(("sam_env", folder, *p.parent.relative_to(ROOT / folder).parts))
            for p in (ROOT / folder).glob("**/__init__.py")
        }
    assert sorted(setuptools["packages"]) == sorted(expected)


def test_the_docs_build_lays_out_the_same_folders() -> None:
    """docs/_ext/namespace.py copies the sources in the installed shape; read, not imported."""
    tree = ast.parse((ROOT / "docs" / "_ext" / "namespace.py").read_text(encoding="utf-8"))
    folders = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "SUBPACKAGE_FOLDERS"
    )
    assert tuple(folders) == MOVED


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the sources (setuptools writes a ``build/`` folder beside them)."""
    source = tmp_path_factory.mktemp("source")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("sam_env", *MOVED, *DATA):
        shutil.copytree(ROOT / folder, source / folder, ignore=skip)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (found,) = out.glob("sam_env-*.whl")
    return found


@pytest.mark.dev
def test_the_wheel_holds_one_top_level_package_with_its_data(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"sam_env"}
    assert "sam_env/agents/networks/shipped/ppo_v3.safetensors" in names
    assert "sam_env/apps/web/static/index.html" in names
    assert "sam_env/training/batched/ppo.py" in names
    assert {"sam_env/configs/default.yaml", "sam_env/apps/configs/exploit.yaml"} <= set(names)
    assert not any(name.startswith("sam_env/configs/past_runs/") for name in names), "records stay in the repository"
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "sam-eval = sam_env.apps.evaluate:main" in scripts and "sam-exploit = sam_env.apps.exploit:main" in scripts


@pytest.mark.dev
def test_a_strict_editable_install_lays_out_sam_env_as_static_tools_see_it(tmp_path: Path) -> None:
    """``pip install -e . --config-settings editable_mode=strict`` (docs/installing.md, for editors and type
    checkers): the wheel's ``.pth`` names a plain folder, with no import hook, and in that folder every package of
    the repository sits where ``import sam_env.…`` finds it, so pyright and mypy follow it."""
    source = tmp_path / "source"
    source.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("sam_env", *MOVED, *DATA):
        shutil.copytree(ROOT / folder, source / folder, ignore=skip)
    build = "from setuptools import build_meta; print(build_meta.build_editable(%r, {'editable-mode': 'strict'}))"
    done = subprocess.run(
        [sys.executable, "-c", build % str(tmp_path)], cwd=source, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    wheel = zipfile.ZipFile(tmp_path / done.stdout.strip().splitlines()[-1])
    (pth,) = [n for n in wheel.namelist() if n.endswith(".pth")]
    (folder,) = wheel.read(pth).decode().split()
    assert "import" not in wheel.read(pth).decode(), "a path, not an import hook: static tools read only paths"
    tree = Path(folder)
    for module in (
        "sam_env/core/rules.py",
        "sam_env/agents/registry.py",
        "sam_env/agents/networks/catalogue.py",
        "sam_env/evaluation/protocol.py",
        "sam_env/training/trainers.py",
        "sam_env/apps/evaluate.py",
    ):
        assert (tree / module).resolve().is_file(), module
    assert (tree / "sam_env/agents/registry.py").resolve() == (source / "agents/registry.py").resolve()


@pytest.mark.dev
@pytest.mark.train
def test_a_non_editable_install_finds_its_configs_from_any_folder(wheel: Path, tmp_path: Path) -> None:
    """Installed from the wheel (not the checkout) and run from a folder outside the repository, a recipe
    resolves by name and sam-exploit's learner configs load, both from the installed package data."""
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    done = run_python(
        """
        from pathlib import Path
        import sam_env
        from sam_env.apps import exploit
        from sam_env.training.recipes import config_path
        from sam_env.training.trainers import load_config
        site = Path(sam_env.__file__).parents[1]
        print(site.name, config_path("vs_heuristic").is_relative_to(site), load_config("vs_heuristic").name)
        print(exploit.CONFIG.is_relative_to(site), load_config(exploit.CONFIG).name)
        print(exploit.SCRATCH_CONFIG.is_relative_to(site), load_config(exploit.SCRATCH_CONFIG).name)
        """,
        cwd=tmp_path,
        pythonpath=target,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["site True vs_heuristic", "True exploit", "True exploit_scratch"]


def test_a_distribution_that_owns_the_generic_names_works_beside_sam_env(tmp_path: Path) -> None:
    """Another project's ``agents``, ``training``, ``evaluation`` and ``apps`` import as themselves, and a
    hand is played with ``load_bot("ppo")`` opponents, in one interpreter, from a folder outside the repo."""
    other = tmp_path / "other"
    for name in MOVED:
        (other / name).mkdir(parents=True)
        (other / name / "__init__.py").write_text(f"OWNER = 'other project: {name}'\n", encoding="utf-8")
    done = run_python(
        """
        import agents, apps, evaluation, training
        import sam_env
        from sam_env import RuleConfig
        rules = RuleConfig(n_players=4)
        bots = [sam_env.load_bot("ppo", seed=seat, rules=rules) for seat in range(4)]
        env = sam_env.env(rules=rules)
        env.reset(seed=3)
        money = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            money[agent] += reward
            seat = env.possible_agents.index(agent)
            done = termination or truncation
            env.step(None if done else bots[seat].act(observation, env.unwrapped.seat_view(agent)))
        import agents as again
        print(again.OWNER, training.OWNER, evaluation.OWNER, apps.OWNER, sep="|")
        print(abs(sum(money.values())) < 1e-9, sorted(sam_env.agents.registry.available())[:2])
        print("torch" in __import__("sys").modules)
        """,
        cwd=tmp_path,
        pythonpath=other,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "other project: agents|other project: training|other project: evaluation|other project: apps"
    assert lines[1] == "True ['best', 'dmc']"
    assert lines[2] == "False", "the environment with the shipped networks as opponents loads no torch"


@pytest.mark.train
def test_the_pre_0_3_names_still_import_from_a_checkout_with_a_warning() -> None:
    """From the repository root the old folders are on ``sys.path``: each serves the very module of
    ``sam_env.<name>`` (never a second copy) and says where it went."""
    done = run_python(
        """
        import warnings
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as caught:
            import agents.registry
            from training import cli
            from evaluation.stats import mean_ci
        import sam_env.agents.registry, sam_env.training.cli, sam_env.evaluation.stats
        print(agents.registry is sam_env.agents.registry, cli is sam_env.training.cli,
              mean_ci is sam_env.evaluation.stats.mean_ci, agents.registry.__spec__.name)
        print("|".join(sorted({str(w.message).split("'")[1] for w in caught if w.category is DeprecationWarning})))
        """,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    same, warned = done.stdout.splitlines()
    assert same == "True True True sam_env.agents.registry"
    assert warned == "agents|evaluation|training"


def test_load_bot_is_the_registry_loader() -> None:
    import sam_env
    from sam_env.agents import registry

    assert sam_env.load_bot is registry.load_bot
    assert "load_bot" in sam_env.__all__
