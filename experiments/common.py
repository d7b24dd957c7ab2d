"""What the experiment scripts share: one core per process (a script's own folder is its import path,
so this folder keeps its copy of the benchmarks' helper)."""

from __future__ import annotations

import os
import sys

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


def run_single_threaded() -> None:
    """Restart this script with every BLAS/OpenMP pool capped at one thread, unless it already is.

    The variables only count if they are set before numpy (or torch) is first imported, hence
    the restart rather than setting them here.
    """
    if any(os.environ.get(name) != "1" for name in THREAD_VARIABLES):
        os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
        os.execv(sys.executable, [sys.executable, *sys.argv])
