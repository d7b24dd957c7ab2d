"""Fixtures of the web app's tests: the app in process (httpx's ASGI transport), a live server on
127.0.0.1 at a free port, and a folder to serve with a recorded tournament and its summary."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sam_env.apps import evaluate
from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with what sam-eval writes (summary.json, x_per_hand.png) and its hands (--record)."""
    root = tmp_path_factory.mktemp("served")
    evaluate.main(
        [
            "--candidates", "heuristic", "greedy", "random",
            "--deals", "3", "--workers", "1", "--no-progress",
            "--out", str(root / "eval"), "--record", str(root / "eval" / "hands.jsonl"),
        ]
    )  # fmt: skip
    (root / "notes.txt").write_text("not a plot", encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def live(served: Path) -> Iterator[str]:
    """The base URL of a real sam-web (uvicorn) on 127.0.0.1, serving ``served``."""
    with running(create_app(serve=served, games_per_client=64)) as url:
        yield url


@pytest.fixture
def client(served: Path) -> Iterator[httpx.Client]:
    """A client of a fresh live app (its own games), for tests that change the store."""
    with running(create_app(serve=served)) as url, httpx.Client(base_url=url, timeout=120) as c:
        yield c
