"""Runs ``train.py`` in a subprocess, as a user would, for the end-to-end training tests; where configs are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from policy_files import ROOT

FIXTURES = Path(__file__).resolve().parent / "configs"
"""The tests' own configs: a few hundred steps through every part of a trainer (``*_smoke.yaml``)."""
ALL_CONFIGS = [
    *sorted(ROOT.glob("configs/*.yaml")),
    *sorted(ROOT.glob("configs/past_runs/*.yaml")),
    *sorted(ROOT.glob("apps/configs/*.yaml")),
    *sorted(FIXTURES.glob("*.yaml")),
]
"""Every training config of the repository: the recipes, the records of past runs, sam-exploit's learner
configs and the tests' fixtures."""


def run_train(run_dir: Path, *args: str, timeout: float = 180) -> str:
    """``train.py ARGS --set run_dir=RUN_DIR``; fails the test with its stderr if it exits non-zero."""
    command = [sys.executable, str(ROOT / "train.py"), *args, "--set", f"run_dir={run_dir}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout


def smoke_fixture(*args: str, timeout: float = 180) -> Any:
    """A module-scoped fixture: one run of ``train.py ARGS`` in a fresh folder of runs, as ``(run folder, stdout)``.

    A test module names it ``smoke = smoke_fixture("--config", "tests/training/configs/dmc_smoke.yaml")``; its tests
    share the run (a smoke run takes tens of seconds).
    """

    @pytest.fixture(scope="module")
    def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
        runs = tmp_path_factory.mktemp("runs")
        stdout = run_train(runs, *args, timeout=timeout)
        [run] = list(runs.iterdir())
        return run, stdout

    return smoke
