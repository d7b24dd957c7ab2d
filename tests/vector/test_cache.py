"""numba's cache is dropped when any source the kernels depend on changes (numba alone checks one file)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from sam_env.vector.cache import STAMP, drop_stale_cache, sources_digest


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
