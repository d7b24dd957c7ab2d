"""docs/score_your_agent.md, run as written: a file with a bot class becomes a validated results file
and a leaderboard row, in a copy of the checkout's leaderboard folder and page (the quick tier, 2 seats)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from sam_env.evaluation.leaderboard import page_differs, read_entries

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "score_your_agent.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


def test_the_pages_ten_lines_give_a_validated_results_file_and_a_leaderboard_row(tmp_path: Path) -> None:
    python, shell = blocks("python")[0], blocks("bash")[0]
    lines = [line for block in (python, shell) for line in block.splitlines() if line.strip()]
    assert len(lines) <= 10, lines
    assert python.startswith("# my_agent.py\n")
    (tmp_path / "my_agent.py").write_text(python, encoding="utf-8")
    shutil.copytree(ROOT / "leaderboard", tmp_path / "leaderboard")
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "docs" / "leaderboard.md", tmp_path / "docs" / "leaderboard.md")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command in shell.strip().splitlines():
        done = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        if command.startswith("sam-eval --validate"):
            assert ": valid protocol v1 result: my_agent.py:MyBot, 2 players, quick tier" in done.stdout
    entries = {e.label: e for e in read_entries(tmp_path / "leaderboard")}
    mine = entries["my_agent.py:MyBot"].document
    assert (
        mine["candidate"]["fingerprint"]["of"]
        == "the source file my_agent.py; the built bot holds no arrays or numbers"
    )
    assert page_differs(tmp_path / "leaderboard", tmp_path / "docs" / "leaderboard.md") is None
