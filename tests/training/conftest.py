"""Fixtures of the training tests: ``train.py`` as a module, and a small checkpoint written on the spot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from training_helpers import ROOT, write_checkpoint


@pytest.fixture(scope="session")
def train() -> ModuleType:
    """``train.py`` imported from the repository root (it is a script, not part of a package)."""
    spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["train"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    return write_checkpoint(tmp_path)
