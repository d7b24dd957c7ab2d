"""Shared test setup: the test tiers' hooks (tests/tiers.py), and fixtures.

Having this file at ``tests/`` puts the folder on ``sys.path`` (pytest's default import mode), so
test modules anywhere below can ``import scenario_data`` — the golden-scenario loader shared by the
engine's and the environment's tests — ``import policy_files`` (a small checkpoint on the spot), and this
file can take the tiers' hooks from ``tiers``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from policy_files import write_checkpoint
from tiers import (  # noqa: F401 - pytest finds hooks by their names in a conftest
    pytest_collection_modifyitems,
    pytest_ignore_collect,
    pytest_make_collect_report,
    pytest_runtest_makereport,
    pytest_runtest_setup,
    pytest_terminal_summary,
)


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    """A random tiny policy saved as ``tmp_path/policy.{json,safetensors}``; its JSON path."""
    return write_checkpoint(tmp_path)
