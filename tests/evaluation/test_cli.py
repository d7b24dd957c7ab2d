"""The sam-eval command line: a smoke run in a subprocess, and clear errors for bad options."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apps.evaluate import main

ROOT = Path(__file__).resolve().parents[2]


def test_smoke_run_writes_csv_json_markdown_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    args = ["--candidates", "heuristic", "greedy", "--mirror", "greedy", "--deals", "3", "--workers", "2"]
    proc = subprocess.run(
        [sys.executable, "-m", "evaluation", *args, "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "X/hand" in proc.stdout and "ratings" in proc.stdout
    with (out / "summary.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["agent"], r["opponents"]) for r in rows] == [
        ("heuristic", "greedy x3"),
        ("greedy", "heuristic x3"),
        ("greedy", "greedy x3"),
    ]
    assert all(r["hands"] == "12" for r in rows)
    data = json.loads((out / "summary.json").read_text())
    assert data["config"]["deals"] == 3 and len(data["matches"]) == 3
    assert {r["agent"] for r in data["ratings"]} == {"heuristic", "greedy"}
    assert (out / "summary.md").read_text().startswith("| agent |")
    assert (out / "x_per_hand.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--candidates", "heuristic", "nobody"], "unknown agent name(s) 'nobody'; known agents: greedy, heuristic"),
        (["--candidates", "heuristic", "greedy", "--deals", "-5"], "--deals must be at least 1"),
        (["--candidates", "heuristic", "greedy", "--workers", "0"], "--workers must be at least 1"),
        (["--candidates", "heuristic", "greedy", "--players", "6"], "n_players"),
        (["--candidates", "heuristic", "greedy", "--rules", "/no/such/file.yaml"], "does not exist"),
        (["--candidates", "heuristic", "/no/such/policy.json"], "no such checkpoint"),
        (["--candidates", "heuristic"], "at least two --candidates"),
        (["--candidates", "heuristic", "--opponents", "greedy", "random"], "needs 3 names"),
        (["--candidates", "heuristic", "greedy", "--mirror", "random"], "must be among --candidates"),
        (["--candidates", "heuristic", "--deals", "ten"], "invalid int value"),
        (
            ["--candidates", "ppo_v1", "heuristic", "--players", "3"],
            "no shipped 'ppo_v1' network plays a 3-player table",
        ),
    ],
)
def test_bad_options_give_clear_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_rules_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("bao1: sometimes\n")
    with pytest.raises(SystemExit):
        main(["--candidates", "heuristic", "greedy", "--rules", str(path)])
    assert "bao1" in capsys.readouterr().err
    path.write_text("- just\n- a list\n")
    with pytest.raises(SystemExit):
        main(["--candidates", "heuristic", "greedy", "--rules", str(path)])
    assert "must hold a mapping" in capsys.readouterr().err
