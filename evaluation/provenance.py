"""Where and how a results file was made: the package and its commit, the machine and how busy it was.

A record of the run beside its figures (:mod:`.results` keeps it in every file); none of it is recomputed by the
validator, as none of it is a figure.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from .protocol_run import load_average


def package_version() -> str:
    try:
        return metadata.version("sam-env")
    except metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
        return "unknown"


def package_source() -> dict[str, Any]:
    """Which sam-env code ran, where the version alone does not say: run from a git checkout (an editable install, or
    the top of a checkout), the commit it stood at and whether tracked files differed from it (``modified``); nothing
    for an installed release, or where git cannot tell."""
    top = Path(__file__).resolve().parents[1]  # evaluation/ in a checkout; sam_env/ in an installed package
    if not (top / ".git").exists() or not (top / "pyproject.toml").is_file():
        return {}
    try:
        commit = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        changes = subprocess.run(
            ["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):  # no git here, or not a repository it can read
        return {}
    return {"commit": commit, "modified": bool(changes.strip())} if re.fullmatch(r"[0-9a-f]{40}", commit) else {}


def _processor() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(workers: int, load_at_start: float | None) -> dict[str, Any]:
    """The machine a run was measured on, and how busy it was (the 1-minute load average, start and end)."""
    end = load_average()
    return {
        "platform": platform.platform(),
        "processor": _processor(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "workers": workers,
        "load_average": None if load_at_start is None or end is None else [load_at_start, end],
    }
