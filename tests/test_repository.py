"""Promises the repository makes about itself: CI runs the README's test command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra brings tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _commands(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "pip install" in line and not line.startswith("#")]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash", 1)[1].split("```", 1)[0]
    install_run, install_test = _commands(block)[:2]
    assert "pytest" in install_test and "pytest" not in install_run
    assert install_test in _commands((ROOT / ".ci" / "run").read_text(encoding="utf-8"))


@pytest.mark.dev
def test_ruff_lint_and_format_are_clean() -> None:
    """The lint and format rules of pyproject.toml hold for the whole tree, so CI enforces them."""
    for args in (["check", "."], ["format", "--check", "."]):
        done = subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.dev
def test_ruff_sorts_every_sam_env_import_as_first_party() -> None:
    """``sam_env.agents``, ``.evaluation``, ``.training`` and ``.apps`` live in folders ruff cannot map to the
    namespace; pyproject.toml names it first-party, so all of sam_env is one group after the third-party one."""

    def sorted_ok(code: str) -> bool:
        done = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--select", "I", "--stdin-filename", "tests/example.py", "-"],
            input=code,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        return done.returncode == 0

    third_then_first = "import numpy as np\n\nimport sam_env\nfrom sam_env.agents.registry import load_bot\n"
    one_group = "import numpy as np\nimport sam_env\nfrom sam_env.agents.registry import load_bot\n"
    assert sorted_ok(third_then_first) and not sorted_ok(one_group)


def test_the_readme_is_a_front_page() -> None:
    """Under 200 lines: what sam-env is in its first five, the two commands within 30, the best bot of each table
    size from the catalogue; runs, speed tables and trials live in docs pages."""
    from sam_env.agents.networks.catalogue import best_for, entries

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    assert len(lines) < 200
    opening = " ".join(lines[:5])
    assert lines[0] == "# sam-env" and "**sam-env** is a reinforcement-learning environment for **Sâm Lốc**" in opening
    assert lines.index("```bash") < 30 and len(_commands(readme.split("```bash", 1)[1].split("```", 1)[0])) == 2
    for players in (2, 3, 4, 5):
        best = best_for(players)
        row = f"| {players} | `{best.name}` | {best.protocol_v1.x_per_hand:+.2f} |"
        assert row in readme, f"the README's 'which bot for which table' row for {players} seats: {row}"
    for family in sorted({e.family for e in entries()}):
        assert f"`{family}`" in readme, f"the README's bot table names every family of the catalogue: {family}"
    assert not re.search(r"\[[+−-]\d+\.\d+, [+−-]\d", readme)  # no confidence intervals at the front door


LOADS_BY_PATH = ("spec_from_file_location", "run_path", "SourceFileLoader", "exec(open(")
"""What loads a file's code by its path, around the import system's names for it."""


def test_no_test_loads_code_by_path() -> None:
    """Tests import modules by name (scripts keep their logic in the package); a script runs as a user runs it."""
    offenders = [
        f"{path.relative_to(ROOT)}: {needle}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path.name != "test_repository.py"
        for needle in LOADS_BY_PATH
        if needle in path.read_text(encoding="utf-8")
    ]
    assert not offenders, offenders


DROPS_WARNINGS = re.compile(
    r"""simplefilter\(\s*["']ignore|filterwarnings\(\s*["']ignore|["']ignore:|-W\s*ignore|PYTHONWARNINGS|no:warnings"""
)
"""What drops warnings in a test: an "ignore" filter (warnings', pytest's mark), or the warnings plugin turned off."""
THIRD_PARTY_NOISE = {"ignore:The old environment creation API:DeprecationWarning"}
"""pyproject.toml's "ignore" filters, each one a third party's warning that is not about our code (why: beside it)."""


def test_no_test_drops_warnings() -> None:
    """A test expects a warning with ``pytest.warns`` or records and checks them; it never silences them, so a
    warning of our own code shows (and a deprecated name of ours fails, by pyproject.toml's "error" filter)."""
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path.name != "test_repository.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DROPS_WARNINGS.search(line)
    ]
    assert not offenders, offenders
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    filters = pytest_options["ini_options"]["filterwarnings"]
    assert {f for f in filters if f.startswith("ignore")} <= THIRD_PARTY_NOISE
