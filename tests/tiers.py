"""The test tiers: a marker per extra, given by folder and file here, and what each tier needs.

A test that needs an extra carries that extra's marker (``train``, ``rllib``, ``web``, ``clients``,
``docs``; ``browser`` for Chromium, ``dev`` for the development tools): whole folders and files get theirs
from :data:`TIERS`, single tests from a decorator in their module. Every other test is marked ``fast``:
it needs only the base install, pytest and hypothesis (the engine, the environments, the bots and the
evaluation) — ``pytest -m fast`` (docs/architecture.md#test-tiers).

Where an extra is not installed, its folders and files are not collected and its single tests skip,
each named in the summary. Under CI (the environment variable ``CI`` set, as ``.ci/run`` and CI
services do) nothing is left out: a missing extra fails, never skips, and so does a skip that
``pytest.importorskip`` raises. tests/conftest.py registers the hooks below; tests/test_tiers.py tests them.
"""

from __future__ import annotations

import os
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

TESTS = Path(__file__).resolve().parent

TIERS: dict[str, tuple[str, ...]] = {
    "training": ("train",),
    "training/test_ray.py": ("rllib",),
    "training/test_dmc_ray.py": ("rllib",),
    "training/test_ray_cluster.py": ("rllib",),
    "training/test_rllib_env.py": ("rllib",),
    "training/test_rllib_smoke.py": ("rllib",),
    "training/test_dqn.py": ("clients",),  # Tianshou's DQN
    "clients": ("train", "clients"),
    "apps/webapp": ("web", "train"),  # its fixture runs sam-eval, whose plot (x_per_hand.png) is matplotlib's
    "apps/webapp/test_browser.py": ("browser",),
    "agents/test_network.py": ("train",),
    "agents/test_qnet.py": ("train",),
    "evaluation/test_cli.py": ("train", "rllib"),
    "test_readme.py": ("train", "web"),
    "test_docs_site.py": ("docs",),
    "test_references.py": ("docs",),
    "apps/test_mcp_server.py": ("mcp",),
    "agents/test_llm_agent.py": ("llm",),
    "evaluation/test_llm_protocol.py": ("llm",),
}
"""Folders and files under ``tests/`` -> the tier markers of every test in them (a file also gets its
folders'). Tests of the base install sit anywhere else, or are the rest of a listed file."""

EXTRA_TIERS = ("train", "rllib", "web", "clients", "docs", "mcp", "llm")
"""The tiers named after an extra of pyproject.toml: what they need is that extra's requirements."""
OTHER_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "web": (("httpx",), (), 'pip install -e ".[web,dev]"'),
    "browser": (("playwright",), ("/usr/bin/chromium",), 'pip install -e ".[dev]" and apt-get install chromium'),
    "dev": (("ruff", "setuptools>=68"), (), 'pip install -e ".[dev]"'),
}
"""Tier -> (requirements, files, how to install them): what a tier needs beyond its extra (``dev``: ruff,
and the build backend that tests/test_namespace.py builds a wheel with, without build isolation)."""
TIER_NAMES = (*EXTRA_TIERS, "browser", "dev")
FAST = "fast"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def tiers_of(path: Path) -> set[str]:
    """The tier markers of a test file or folder under ``tests/``, from :data:`TIERS`."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return set()
    found: set[str] = set()
    for key, tiers in TIERS.items():
        key_parts = tuple(key.split("/"))
        if parts[: len(key_parts)] == key_parts:
            found.update(tiers)
    return found


@cache
def missing_for(tier: str) -> tuple[str, ...]:
    """What ``tier`` needs that is not installed here: distributions and files, by name."""
    needed: list[Requirement] = []
    if tier in EXTRA_TIERS:
        for line in metadata.requires("sam-env") or ():
            requirement = Requirement(line)
            if requirement.marker is not None and requirement.marker.evaluate({"extra": tier}):
                needed.append(requirement)
    requirements, files, _ = OTHER_NEEDS.get(tier, ((), (), ""))
    needed += [Requirement(line) for line in requirements]
    missing = [f"{r.name}{r.specifier}" for r in needed if not _installed(r)]
    return (*missing, *(f for f in files if not Path(f).exists()))


def _installed(requirement: Requirement) -> bool:
    """Whether a distribution that meets ``requirement`` is installed (its extras are not looked at)."""
    try:
        version = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        return False
    return requirement.specifier.contains(Version(version), prereleases=True)


def install_hint(tier: str) -> str:
    return OTHER_NEEDS[tier][2] if tier in OTHER_NEEDS else f'pip install -e ".[{tier}]"'


def missing_message(tiers: set[str]) -> str | None:
    """Which of ``tiers`` lack what they need, and how to install it; None when nothing is missing."""
    parts = [
        f"the {tier} tier needs {', '.join(missing)} ({install_hint(tier)})"
        for tier in sorted(tiers)
        if (missing := missing_for(tier))
    ]
    return "; ".join(parts) or None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if in_ci() or not (tiers := tiers_of(collection_path)) or missing_message(tiers) is None:
        return None
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks every test with its tiers (before ``-m`` selects by them); the rest is ``fast``."""
    for item in items:
        for tier in sorted(tiers_of(item.path)):
            item.add_marker(tier)
        if not any(item.get_closest_marker(tier) for tier in TIER_NAMES):
            item.add_marker(FAST)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A single test of a tier whose extra is missing: a skip that says so, or under CI a failure."""
    tiers = {tier for tier in TIER_NAMES if item.get_closest_marker(tier)}
    why = missing_message(tiers)
    if why is None:
        return
    if in_ci():
        pytest.fail(f"CI runs every tier, and {why}", pytrace=False)
    pytest.skip(why)


IMPORT_SKIP = "could not import"
"""How ``pytest.importorskip`` words its skip."""


def _fail_import_skips_in_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    if in_ci() and report.skipped and IMPORT_SKIP in str(report.longrepr):
        where = report.longrepr  # (path, line, message) for a skip
        message = where[2] if isinstance(where, tuple) else str(where)
        report.outcome = "failed"
        report.longrepr = f"CI runs every tier, and a missing module fails it: {message}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport:
    report = yield
    _fail_import_skips_in_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport:
    report = yield
    _fail_import_skips_in_ci(report)
    return report


def left_out(args: list[str], cwd: Path) -> dict[str, str]:
    """The folders and files of :data:`TIERS` under ``args`` (the paths pytest was given) that are not
    collected here for want of an extra: path -> why. Worked out again rather than recorded during
    collection, which pytest-xdist runs in its workers."""
    roots = [(cwd / arg.split("::")[0]).resolve() for arg in args]
    found: dict[str, str] = {}
    for key in TIERS:
        path = TESTS / key
        asked = any(path.is_relative_to(root) for root in roots)
        covered = any(key.startswith(f"{other}/") for other in found)
        if asked and not covered and (why := missing_message(tiers_of(path))):
            found[key] = why
    return found


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if in_ci() or not (found := left_out(config.args, config.invocation_params.dir)):
        return
    terminalreporter.section("not collected: an extra is not installed")
    for key, why in found.items():
        terminalreporter.write_line(f"tests/{key}: {why}")
