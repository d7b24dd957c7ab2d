"""Runs ``train.py`` in a subprocess, as a user would, for the end-to-end training tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from policy_files import ROOT


def run_train(run_dir: Path, *args: str, timeout: float = 180) -> str:
    """``train.py ARGS --set run_dir=RUN_DIR``; fails the test with its stderr if it exits non-zero."""
    command = [sys.executable, str(ROOT / "train.py"), *args, "--set", f"run_dir={run_dir}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout
