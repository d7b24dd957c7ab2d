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
