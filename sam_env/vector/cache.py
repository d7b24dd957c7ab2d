"""Keeping numba's on-disk cache honest across modules.

numba checks a cached function only against the source file that defines it. A kernel in
:mod:`.batch` that calls one in :mod:`.play`, or that reads a table frozen from
:mod:`sam_env.core.combos`, would keep running the old code after those files change — and the
compiled engine would silently stop being the reference's twin. So the cache is stamped with a
digest of every source file the kernels depend on, and dropped when the digest changes (before
any kernel loads from it). Other packages' kernels (the compiled heuristic bot) use the same
check with their own list of sources.

Compiling every kernel takes the better part of a minute, once per installation and source change;
:func:`announce_cold_cache` says so on stderr before it happens, so a first run does not seem to hang.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import TextIO

from numba.core.dispatcher import Dispatcher

PACKAGE = Path(__file__).resolve().parent
SOURCES = (
    *(PACKAGE / f"{name}.py" for name in ("layout", "play", "deal", "encode", "batch")),
    *sorted((PACKAGE.parent / "core").glob("*.py")),
    PACKAGE.parent / "encoding.py",
)
"""The kernel modules, and the modules their constant tables are derived from."""
KERNEL_MODULES = {path.stem for path in SOURCES[:5]}
STAMP = "sam_env_vector_sources.sha256"
ANNOUNCED: set[tuple[Path, str]] = set()
"""The cache folders and kernel families already announced in this process (the notice is given once)."""


def sources_digest(sources: tuple[Path, ...] = SOURCES) -> str:
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def drop_stale_cache(
    kernel: Dispatcher,
    sources: tuple[Path, ...] = SOURCES,
    modules: frozenset[str] | set[str] = KERNEL_MODULES,
    stamp_name: str = STAMP,
) -> bool:
    """Delete the cached kernels of ``modules`` if they were compiled from other ``sources``; True if it did.

    ``kernel`` is any ``cache=True`` kernel of those modules: its cache directory is numba's choice
    (``__pycache__`` beside the sources, or under ``NUMBA_CACHE_DIR``). The defaults are this
    package's kernels.
    """
    cache_dir = Path(kernel._cache._cache_path)
    stamp, digest = cache_dir / stamp_name, sources_digest(sources)
    if stamp.exists() and stamp.read_text() == digest:
        return False
    stale = [p for pattern in ("*.nbi", "*.nbc") for p in cache_dir.glob(pattern) if p.name.split(".")[0] in modules]
    for path in stale:
        path.unlink(missing_ok=True)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: numba then caches elsewhere or not at all, and compiles afresh
    return bool(stale)


def announce_cold_cache(
    kernel: Dispatcher, what: str, modules: frozenset[str] | set[str] = KERNEL_MODULES, file: TextIO | None = None
) -> bool:
    """Print a one-line notice (on stderr) that ``what`` compiles now, when none of ``modules``' kernels is
    cached; once per process and cache folder. True if it printed.

    Call it before the first kernel runs, after :func:`drop_stale_cache` (a dropped cache is a cold one).
    ``kernel`` is any ``cache=True`` kernel of ``modules``, as there.
    """
    cache_dir = Path(kernel._cache._cache_path)
    if (cache_dir, what) in ANNOUNCED:
        return False
    ANNOUNCED.add((cache_dir, what))
    if any(path.name.split(".")[0] in modules for path in cache_dir.glob("*.nbi")):
        return False
    print(
        f"{what}: compiling with numba on first use (about a minute on 2 cores; cached on disk for later runs)",
        file=file or sys.stderr,
        flush=True,
    )
    return True
