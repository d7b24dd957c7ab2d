"""Stand-in chat-completions servers for the language-model tests: real processes speaking HTTP on loopback."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def stand_in(mode: str, *options: str) -> Iterator[str]:
    """``python -m sam_env.agents.llm.stand_in MODE OPTIONS`` running; yields its base URL (``http://127.0.0.1:P/v1``).
    The process is stopped on exit (one that died on its own, ``--die-after``, is left as it is)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sam_env.agents.llm.stand_in", mode, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("PORT "):
            raise RuntimeError(f"the stand-in did not start: {line!r} {process.stderr.read()!r}")  # type: ignore[union-attr]
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        process.kill()
        process.wait(timeout=30)
