"""``sam-web`` starts with one command and serves the page; bad options are refused before it starts."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from sam_env.apps.web import cli


def test_sam_web_serves_the_page_on_a_free_port(served: Path) -> None:
    command = [sys.executable, "-m", "sam_env.apps.web.cli", "--port", "0", "--serve", str(served)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline, url = time.monotonic() + 120, None
        while url is None and time.monotonic() < deadline:
            line = server.stderr.readline()
            assert line or server.poll() is None, "sam-web exited before it was up"
            found = re.search(r"running on (http://127\.0\.0\.1:\d+)", line)
            url = found.group(1) if found else None
        assert url, "sam-web did not say where it listens"
        page = httpx.get(url + "/")
        assert page.status_code == 200 and "<title>Sâm Lốc" in page.text and "/static/app.js" in page.text
        for name in ("app.js", "common.js", "play.js", "replay.js", "leaderboard.js", "style.css"):
            assert httpx.get(f"{url}/static/{name}").status_code == 200, name
        assert httpx.get(f"{url}/api/files").json()["replays"] == ["eval/hands.jsonl"]
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--serve", "/nonexistent/folder"], "--serve /nonexistent/folder: not a folder"),
        (["--checkpoints", "/nonexistent/runs"], "not a folder"),
        (["--max-games", "0"], "--max-games must be at least 1"),
        (["--games-per-client", "0"], "--games-per-client must be at least 1"),
        (["--idle-minutes", "nan"], "--idle-minutes must be a positive number"),
        (["--idle-minutes", "inf"], "--idle-minutes must be a positive number"),
        (["--port", "70000"], "--port must be from 0"),
        (["--allow-host", "evil example"], "not a host name or address: 'evil example'"),
        (["--port", "eighty"], "invalid int value"),
    ],
)
def test_bad_options_are_refused(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(args)
    assert exit_info.value.code == 2 and says in capsys.readouterr().err
