"""Fixtures of the training tests: a small checkpoint written on the spot."""

from __future__ import annotations

from pathlib import Path

import pytest
from training_helpers import write_checkpoint


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    return write_checkpoint(tmp_path)
