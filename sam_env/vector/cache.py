"""Keeping numba's on-disk cache honest across modules.

numba checks a cached function only against the source file that defines it. A kernel in
:mod:`.batch` that calls one in :mod:`.play`, or that reads a table frozen from
:mod:`sam_env.core.combos`, would keep running the old code after those files change — and the
compiled engine would silently stop being the reference's twin. So the cache is stamped with a
digest of every source file the kernels depend on, and dropped when the digest changes (before
any kernel loads from it). Other packages' kernels (the compiled heuristic bot) use the same
check with their own list of sources.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba.core.dispatcher import Dispatcher

PACKAGE = Path(__file__).resolve().parent
SOURCES = (
    *(PACKAGE / f"{name}.py" for name in ("tables", "play", "deal", "encode", "batch")),
    *sorted((PACKAGE.parent / "core").glob("*.py")),
    PACKAGE.parent / "encoding.py",
)
"""The kernel modules, and the modules their constant tables are derived from."""
KERNEL_MODULES = {path.stem for path in SOURCES[:5]}
STAMP = "sam_env_vector_sources.sha256"


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
