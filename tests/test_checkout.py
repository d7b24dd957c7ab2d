"""At the top of a source checkout, ``sam_env.agents`` and its siblings import whatever installed sam-env.

There the current folder comes first on ``sys.path``, so Python imports the checkout's own ``sam_env/``, not the
installed one; sam_env.utils.checkout serves the checkout's ``agents/``, ``evaluation/``, ... beside it. Without it,
``No module named 'sam_env.evaluation'`` after a non-editable ``pip install .`` (issue 43). Each check runs in a fresh
interpreter started with ``-S``: no ``.pth`` file runs, so no editable install's hook serves the folders, as after
``pip install .``; the packages it needs come on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import tiers
from test_namespace import DATA, MOVED, ROOT, tomllib, wheel  # noqa: F401 - wheel: the fixture, built once here

from sam_env.utils.checkout import PACKAGE_DIR, CheckoutFinder

SITE = Path(sysconfig.get_paths()["purelib"])
"""This interpreter's site-packages (numpy, ...): on ``PYTHONPATH`` it is searched, but its ``.pth`` files never run."""

IMPORTS = """
    import sys
    import sam_env.configs
    import sam_env.evaluation.leaderboard
    from sam_env import load_bot
    print(load_bot("greedy").name)
    print(sam_env.__file__, sam_env.evaluation.__file__, sam_env.configs.__file__, sep="\\n")
    print(any("editable" in getattr(f, "__module__", "").lower() for f in sys.meta_path))
"""
"""What failed at the top of a checkout: the evaluation package, and ``load_bot`` (which imports sam_env.agents).
Prints the bot's name, where sam_env, sam_env.evaluation and sam_env.configs came from, and whether an editable
install's finder is installed (never, with ``-S``)."""


def python_s(args: list[str], cwd: Path, path: list[Path]) -> subprocess.CompletedProcess[str]:
    """``python -S ARGS`` in ``cwd`` with ``PYTHONPATH`` = ``path``: site-packages without their ``.pth`` files."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run(
        [sys.executable, "-S", *args], capture_output=True, text=True, timeout=180, cwd=cwd, env=env, check=False
    )


def test_the_finder_serves_exactly_pyprojects_package_dir() -> None:
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert PACKAGE_DIR == package_dir["package-dir"]
    assert set(PACKAGE_DIR.values()) == {*MOVED, *DATA}


def test_the_checkout_serves_its_folders_with_no_editable_hook() -> None:
    """The installed sam-env here is editable, but with ``-S`` its hook never runs: the checkout alone."""
    done = python_s(["-c", textwrap.dedent(IMPORTS)], cwd=ROOT, path=[SITE])
    assert done.returncode == 0, done.stderr[-3000:]
    name, package, evaluation, configs, editable = done.stdout.splitlines()
    assert name == "greedy"
    assert Path(package) == ROOT / "sam_env" / "__init__.py"
    assert Path(evaluation) == ROOT / "evaluation" / "__init__.py"
    assert Path(configs) == ROOT / "configs" / "__init__.py"
    assert editable == "False", "the reproduction needs no editable install's finder"
    done = python_s(["-m", "sam_env.evaluation.leaderboard", "--help"], cwd=ROOT, path=[SITE])
    assert done.returncode == 0, done.stderr[-3000:]
    assert "usage: python -m sam_env.evaluation.leaderboard" in done.stdout


def editable_install_of_this_checkout() -> bool:
    """Whether the sam-env installed here is ``pip install -e`` of this checkout (its ``direct_url.json``)."""
    for distribution in metadata.distributions(name="sam-env"):  # the checkout's own sam_env.egg-info may come first
        found = json.loads(distribution.read_text("direct_url.json") or "{}")
        if found.get("dir_info", {}).get("editable") and found.get("url") == ROOT.as_uri():
            return True
    return False


def test_an_editable_install_of_this_checkout_needs_no_finder() -> None:
    """Its hook serves these very folders already: sam_env adds none (tests/env/test_dependencies.py: no hook)."""
    if not editable_install_of_this_checkout():
        # CI installs this checkout editable (the README's command): there a missing install is a failure
        assert not tiers.in_ci(), "CI runs on `pip install -e` of this checkout, which is not what is installed"
        pytest.skip("sam-env is not installed editable from this checkout (pip install -e .)")
    code = "import sys, sam_env.agents as a; print(a.__file__, [type(f).__name__ for f in sys.meta_path])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(str(ROOT / "agents" / "__init__.py"))
    assert "CheckoutFinder" not in done.stdout


def test_a_checkout_serves_its_own_folders_over_another_checkouts_hook(tmp_path: Path) -> None:
    """A second checkout (its own sam_env/, and stand-ins for the other folders), run with this checkout's
    editable install active: its sam_env takes its own siblings, never the ones the editable hook maps."""
    other = tmp_path / "other"
    shutil.copytree(ROOT / "sam_env", other / "sam_env", ignore=shutil.ignore_patterns("__pycache__", "vector"))
    shutil.copy(ROOT / "pyproject.toml", other / "pyproject.toml")
    for folder in PACKAGE_DIR.values():
        (other / folder).mkdir()
        (other / folder / "__init__.py").write_text(f"OWNER = 'the other checkout: {folder}'\n", encoding="utf-8")
    code = "import sam_env.agents, sam_env.configs; print(sam_env.agents.OWNER, sam_env.configs.OWNER, sep='|')"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=other, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "the other checkout: agents|the other checkout: configs"


def test_the_finder_leaves_a_package_that_holds_the_folder_to_python(tmp_path: Path) -> None:
    """A tree that has ``sam_env/agents/`` inside (a strict editable install's links) is Python's own to import."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("", encoding="utf-8")
    finder = CheckoutFinder(ROOT)
    assert finder.find_spec("sam_env.agents", [str(tmp_path)]) is None
    spec = finder.find_spec("sam_env.agents", [str(ROOT / "sam_env")])
    assert spec is not None and spec.submodule_search_locations == [str(ROOT / "agents")]
    assert finder.find_spec("sam_env.core", [str(ROOT / "sam_env")]) is None


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811 - the imported fixture
    """The wheel built from this checkout, installed into a folder of its own (as ``pip install .`` does)."""
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return target


@pytest.mark.dev
def test_the_commands_work_at_the_top_of_a_checkout_after_a_non_editable_install(installed: Path) -> None:
    """The issue's commands, in the checkout's top folder, sam-env installed from its wheel: the checkout's
    sam_env is imported, and its folders serve its subpackages."""
    done = python_s(["-c", textwrap.dedent(IMPORTS)], cwd=ROOT, path=[installed, SITE])
    assert done.returncode == 0, done.stderr[-3000:]
    name, package, evaluation, _, _ = done.stdout.splitlines()
    assert (name, Path(package), Path(evaluation)) == (
        "greedy",
        ROOT / "sam_env" / "__init__.py",
        ROOT / "evaluation" / "__init__.py",
    )
    done = python_s(["-m", "sam_env.evaluation.leaderboard", "--help"], cwd=ROOT, path=[installed, SITE])
    assert done.returncode == 0, done.stderr[-3000:]
    # PYTHONPATH=. sam-eval: the installed script, with the checkout first on the path
    done = python_s([str(installed / "bin" / "sam-eval"), "--help"], cwd=ROOT, path=[ROOT, installed, SITE])
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("usage: sam-eval")


@pytest.mark.dev
def test_an_installed_sam_env_imported_elsewhere_adds_no_finder(installed: Path, tmp_path: Path) -> None:
    code = "import sys, sam_env.agents as a; print(a.__file__); print([type(f).__name__ for f in sys.meta_path])"
    done = python_s(["-c", code], cwd=tmp_path, path=[installed, SITE])
    assert done.returncode == 0, done.stderr[-3000:]
    agents, finders = done.stdout.splitlines()
    assert Path(agents) == installed / "sam_env" / "agents" / "__init__.py"
    assert "CheckoutFinder" not in finders
