"""mkdocs hook: the API reference documents the installed namespace, ``sam_env.agents`` and its siblings.

``pyproject.toml`` installs the repository's top-level folders ``agents/``, ``evaluation/``,
``training/`` and ``apps/`` as subpackages of ``sam_env`` (its ``package-dir``). mkdocstrings reads
packages from folders, statically, and would find ``agents`` as a package of its own, so the build
lays out a copy of the Python sources in the installed shape, in a temporary folder, and points the
handler at it. Nothing is imported; the copy is the sources as they are at build time.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
SUBPACKAGE_FOLDERS = ("agents", "evaluation", "training", "apps")
"""The folders installed as ``sam_env.<folder>`` (tests/test_repository.py holds them to pyproject.toml)."""


def installed_layout(stage: Path) -> Path:
    """Copy the ``.py`` sources under ``stage`` as they install: ``sam_env/`` with the folders inside it."""
    only_python = shutil.ignore_patterns("__pycache__", "shipped", "static", "*.pyc")
    shutil.copytree(ROOT / "sam_env", stage / "sam_env", ignore=only_python)
    for folder in SUBPACKAGE_FOLDERS:
        shutil.copytree(ROOT / folder, stage / "sam_env" / folder, ignore=only_python)
    return stage


@event_priority(100)  # before mkdocstrings reads its handlers' options
def on_config(config: Any) -> Any:
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    config_dir = Path(config.config_file_path).resolve().parent
    paths = python.get("paths", ["."])
    if ROOT not in [(config_dir / p).resolve() for p in paths]:
        return config  # a site that reads other sources (a test's small site) keeps its own paths
    stage = Path(tempfile.mkdtemp(prefix="sam-env-api-"))
    atexit.register(shutil.rmtree, stage, ignore_errors=True)
    installed_layout(stage)
    # The repository's own entry gives way to the laid-out copy; the other entries keep their order.
    python["paths"] = [str(stage) if (config_dir / p).resolve() == ROOT else p for p in paths]
    return config
