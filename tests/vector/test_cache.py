"""numba's cache is dropped when any source the kernels depend on changes (numba alone checks one file)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from sam_env.vector.cache import STAMP, announce_cold_cache, drop_stale_cache, sources_digest


def fake_kernel(cache_dir: Path) -> SimpleNamespace:
    return SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(cache_dir)))


def test_a_cache_from_other_sources_is_dropped_once(tmp_path: Path) -> None:
    ours = [tmp_path / "batch.step_serial-73.py311.nbi", tmp_path / "play.advance-200.py311.1.nbc"]
    theirs = tmp_path / "other_module.f-1.py311.nbi"
    for path in [*ours, theirs]:
        path.write_bytes(b"compiled")
    (tmp_path / STAMP).write_text("a digest of older sources")
    assert drop_stale_cache(fake_kernel(tmp_path))
    assert not any(p.exists() for p in ours) and theirs.exists()
    assert (tmp_path / STAMP).read_text() == sources_digest()
    ours[0].write_bytes(b"compiled from today's sources")
    assert not drop_stale_cache(fake_kernel(tmp_path))
    assert ours[0].exists()


def test_another_packages_kernels_are_checked_against_their_own_sources(tmp_path: Path) -> None:
    """How sam_env.agents.heuristic.kernels uses it: its own sources, modules and stamp beside the engine's."""
    source = tmp_path / "bot.py"
    source.write_text("THRESHOLD = 1")
    cached = tmp_path / "bot_kernels.decide-10.py311.nbi"
    engine = tmp_path / "batch.step_serial-73.py311.nbi"
    for path in (cached, engine):
        path.write_bytes(b"compiled")
    check = {"sources": (source,), "modules": {"bot_kernels"}, "stamp_name": "bot.sha256"}
    assert drop_stale_cache(fake_kernel(tmp_path), **check)
    assert not cached.exists() and engine.exists()
    cached.write_bytes(b"compiled again")
    assert not drop_stale_cache(fake_kernel(tmp_path), **check)
    source.write_text("THRESHOLD = 2")
    assert drop_stale_cache(fake_kernel(tmp_path), **check) and not cached.exists()


def test_a_cold_cache_is_announced_once_before_compiling(tmp_path: Path) -> None:
    out = io.StringIO()
    kernel = fake_kernel(tmp_path / "cold")
    assert announce_cold_cache(kernel, "sam_env.VectorEnv", file=out)
    assert not announce_cold_cache(kernel, "sam_env.VectorEnv", file=out)  # once per process
    [line] = out.getvalue().splitlines()
    assert line.startswith("sam_env.VectorEnv: compiling with numba on first use")


def test_a_warm_cache_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "batch.step_serial-73.py311.nbi").write_bytes(b"compiled")
    out = io.StringIO()
    assert not announce_cold_cache(fake_kernel(tmp_path), "sam_env.VectorEnv", file=out)
    assert out.getvalue() == ""


def test_the_first_vector_env_of_a_fresh_install_says_it_compiles(tmp_path: Path) -> None:
    """A fresh numba cache (NUMBA_CACHE_DIR, as after installing): one line on stderr, before any kernel runs."""
    code = "import sam_env; sam_env.VectorEnv(1); sam_env.VectorEnv(2, parallel=True); print('built')"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout == "built\n", done.stderr
    notices = [line for line in done.stderr.splitlines() if "compiling with numba" in line]
    assert len(notices) == 1 and notices[0].startswith("sam_env.VectorEnv: "), done.stderr
