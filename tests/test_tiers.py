"""The test tiers (tests/tiers.py): a registered marker per extra, the ``fast`` tier importable on the base
install, and CI failing, never skipping, where an extra is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import tiers
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra brings tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_tier_is_a_registered_marker_and_every_extra_has_its_tier() -> None:
    registered = {line.split(":", 1)[0] for line in PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]}
    assert registered == {*tiers.TIER_NAMES, tiers.FAST}
    assert "--strict-markers" in PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"]
    assert set(PYPROJECT["project"]["optional-dependencies"]) - {"dev"} == set(tiers.EXTRA_TIERS)


def test_every_tiered_path_is_a_test_folder_or_file() -> None:
    for key, names in tiers.TIERS.items():
        assert (tiers.TESTS / key).exists(), f"tests/tiers.py: TIERS names tests/{key}, which does not exist"
        assert set(names) <= set(tiers.TIER_NAMES), key


def test_a_file_takes_its_folders_tiers() -> None:
    assert tiers.tiers_of(tiers.TESTS / "training" / "test_ray.py") == {"train", "rllib"}
    assert tiers.tiers_of(tiers.TESTS / "core" / "test_cards.py") == set()


def extras_only_modules() -> list[str]:
    """Top-level modules that only the extras' own requirements install (torch, ray, starlette, ...)."""
    base, extra = set(), set()
    for line in metadata.requires("sam-env") or ():
        requirement = Requirement(line)
        if requirement.marker is None:
            base.add(canonicalize_name(requirement.name))
        elif any(requirement.marker.evaluate({"extra": tier}) for tier in tiers.EXTRA_TIERS):
            extra.add(canonicalize_name(requirement.name))
    for tier in ("web", "browser"):  # not dev's tools: they import nothing a test imports
        extra |= {canonicalize_name(Requirement(r).name) for r in tiers.OTHER_NEEDS[tier][0]}
    extra -= base | {"sam-env"}
    return sorted(
        module
        for module, distributions in metadata.packages_distributions().items()
        if {canonicalize_name(d) for d in distributions} <= extra and module.isidentifier()
    )


def test_the_fast_tiers_modules_import_without_any_extra() -> None:
    """What CI cannot see by running everything with everything installed: every test module outside the
    tiered folders and files imports with the extras' modules made unimportable, as on the base install
    (a test of theirs that needs one imports it inside, under its tier's marker)."""
    blocked = extras_only_modules()
    installed = {m for m in ("torch", "ray", "starlette", "matplotlib") if importlib.util.find_spec(m) is not None}
    assert installed <= set(blocked)
    modules = sorted(p for p in tiers.TESTS.rglob("test_*.py") if not tiers.tiers_of(p))
    assert len(modules) > 40
    script = f"""
        import importlib, json, sys, traceback
        for name in {blocked!r}:
            sys.modules[name] = None  # "import name" now raises ImportError
        sys.path.insert(0, {str(tiers.TESTS)!r})
        import conftest
        failed = {{}}
        for path in {[str(p) for p in modules]!r}:
            folder, name = path.rsplit("/", 1)
            sys.path.insert(0, folder)
            try:
                importlib.import_module(name[: -len(".py")])
            except ImportError:
                failed[path] = traceback.format_exc(limit=-3)
            sys.path.remove(folder)
        print(json.dumps(failed))
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    failed = json.loads(done.stdout.splitlines()[-1])
    assert not failed, "\n".join(f"{path} (add it to TIERS in tests/tiers.py):\n{why}" for path, why in failed.items())


INNER_CONFTEST = f"""
import sys
sys.path.insert(0, {str(tiers.TESTS)!r})
import tiers
from tiers import pytest_make_collect_report, pytest_runtest_makereport, pytest_runtest_setup
tiers.OTHER_NEEDS["dev"] = (("no-such-distribution-of-sam-env-tests",), (), "pip install it")
"""
INNER_TESTS = """
import pytest

def test_importorskip():
    pytest.importorskip("no_such_module_of_sam_env_tests")

@pytest.mark.dev
def test_of_a_missing_tier():
    pass
"""


@pytest.mark.parametrize("ci", ["", "true"])
def test_a_missing_extra_skips_and_under_ci_fails(tmp_path: Path, ci: str) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers = dev: as in pyproject.toml\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST, encoding="utf-8")
    (tmp_path / "test_inner.py").write_text(INNER_TESTS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci else {})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    summary = done.stdout.splitlines()[-1]
    if ci:
        assert "1 failed, 1 error" in summary and "skipped" not in summary, done.stdout[-3000:]  # setup: an error
        assert "CI runs every tier" in done.stdout and "no-such-distribution-of-sam-env-tests" in done.stdout
    else:
        assert "2 skipped" in summary and "failed" not in summary, done.stdout[-3000:]
        assert "the dev tier needs no-such-distribution-of-sam-env-tests (pip install it)" in done.stdout
