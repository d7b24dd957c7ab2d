"""The sam-eval command line: a smoke run in a subprocess, and clear errors for bad options."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import ray  # noqa: F401 - the rllib extra (sam-eval --ray), which CI installs: missing, these tests fail

from sam_env.apps.evaluate import main

ROOT = Path(__file__).resolve().parents[2]


def test_smoke_run_writes_csv_json_markdown_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    args = ["--candidates", "heuristic", "greedy", "--mirror", "greedy", "--deals", "3", "--workers", "2"]
    proc = subprocess.run(
        [sys.executable, "-m", "sam_env.apps.evaluate", *args, "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "X/hand" in proc.stdout and "ratings, sorted by money" in proc.stdout
    assert max(len(line) for line in proc.stdout.splitlines() if not line.startswith("wrote ")) <= 100
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
    summary_md = (out / "summary.md").read_text()
    assert summary_md.startswith("| agent |") and "Sâm decl/won" in summary_md  # the full table is in the files
    assert (out / "x_per_hand.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--candidates", "heuristic", "nobody"],
            "unknown agent name(s) 'nobody'; known agents: recommended: best; rule bots: random, greedy, heuristic; "
            "held-out panel: panel_shedder",
        ),
        (["--candidates", "heuristic", "greedy", "--deals", "-5"], "--deals must be at least 1"),
        (["--candidates", "heuristic", "greedy", "--workers", "0"], "--workers must be at least 1"),
        (["--candidates", "heuristic", "greedy", "--players", "6"], "n_players"),
        (["--candidates", "heuristic", "greedy", "--rules", "/no/such/file.yaml"], "does not exist"),
        (["--candidates", "heuristic", "/no/such/policy.json"], "no such checkpoint"),
        (["--candidates", "heuristic"], "at least two --candidates"),
        (["--candidates", "heuristic", "--against", "heuristic"], "nothing to play: --against names only"),
        (["--candidates", "heuristic", "--opponents", "greedy", "random"], "needs 3 names"),
        (["--candidates", "heuristic", "greedy", "--mirror", "random"], "must be among --candidates"),
        (["--candidates", "heuristic", "--deals", "ten"], "invalid int value"),
        (["--candidates", "heuristic", "greedy", "--address", "auto"], "--address names a Ray cluster; add --ray"),
        (
            ["--candidates", "ppo_v1", "heuristic", "--players", "3"],
            "the shipped family 'ppo_v1' has no network for a 3-player table; it has ppo_v1 (4 players)",
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


def test_ray_prints_the_numbers_of_the_local_pool(tmp_path: Path) -> None:
    args = ["--candidates", "heuristic", "greedy", "--opponents", "random", "--deals", "6", "--seed", "3"]
    outputs = {}
    for name, extra in (("local", ["--workers", "2"]), ("ray", ["--ray", "--workers", "2"])):
        env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
        command = [
            sys.executable,
            "-m",
            "sam_env.apps.evaluate",
            *args,
            *extra,
            "--out",
            str(tmp_path / name),
            "--no-progress",
        ]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs[name] = proc.stdout
    local, on_ray = (outputs[k].split("\n\n")[:-1] for k in ("local", "ray"))  # all but the timing line
    assert on_ray == local and "heuristic" in local[-1]
    assert "on Ray\n" in outputs["ray"] and "on 2 worker(s)\n" in outputs["local"]
    assert (tmp_path / "local" / "summary.csv").read_text() == (tmp_path / "ray" / "summary.csv").read_text()


def test_against_plays_one_match_per_opponent_as_the_readme_table() -> None:
    from sam_env.apps.evaluate import build_parser, plan_matches
    from sam_env.core import RuleConfig

    args = build_parser().parse_args(["--candidates", "ppo", "--against", "heuristic", "greedy", "random"])
    matches = plan_matches(args, RuleConfig())
    assert [(m.candidate, m.opponents) for m in matches] == [
        ("ppo", ("heuristic",) * 3),
        ("ppo", ("greedy",) * 3),
        ("ppo", ("random",) * 3),
    ]


def test_against_and_opponents_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--candidates", "ppo", "--against", "greedy", "--opponents", "random"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_terminal_tables_fit_100_columns_with_long_names() -> None:
    from sam_env.evaluation.ratings import RatingRow
    from sam_env.evaluation.report import text_table
    from sam_env.evaluation.seating import NeighbourFlow
    from sam_env.evaluation.stats import EVENT_METRICS, Summary

    long = "runs/a_rather_long_run_name__s0__2026-12-01_03-57-39/checkpoints/step_000450560"
    summary = Summary(
        long,
        f"{long}+heuristic+random+greedy",
        10_000,
        1_200_000,
        0.25,
        1.5,
        1.4,
        1.6,
        (1.0, -2.0, 3.0, -4.0, 5.0),
        (0.1,) * 5,
        dict.fromkeys(EVENT_METRICS, 12_345),
    )
    text = text_table(
        [summary], [RatingRow(long, 1.5, 25.0, 1.0, 22.0, 1000)], [NeighbourFlow(long, "random", 10, 1.0)]
    )
    assert max(map(len, text.splitlines())) <= 100
    assert "…" in text and "+1.50" in text
