"""Files as bytes: the one SHA-256 of a file that checkpoints, lineages and benchmark fingerprints record."""

from __future__ import annotations

import hashlib
import os


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, read a megabyte at a time (weights files run to megabytes)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all: into a temporary file beside it, then renamed over
    it, so that a reader in another process (a second instance of a script sharing a results folder) sees the
    old file or the new one, never a half-written one."""
    path = os.fspath(path)
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temp, path)
