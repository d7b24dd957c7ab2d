"""Shared test setup.

Having this file at ``tests/`` puts the folder on ``sys.path`` (pytest's default import mode), so
test modules anywhere below can ``import scenario_data`` — the golden-scenario loader shared by the
engine's and the environment's tests — and ``import policy_files`` (a small checkpoint on the spot).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from policy_files import write_checkpoint


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    """A random tiny policy saved as ``tmp_path/policy.{json,safetensors}``; its JSON path."""
    return write_checkpoint(tmp_path)
