"""Generalization margins: the paired arithmetic on hand-made matches, the pairing checks, ``sam-eval --panel``."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sam_env.agents.panel import PANEL
from sam_env.apps.evaluate import main
from sam_env.evaluation.panel import paired_nets, panel_matches, panel_rows
from sam_env.evaluation.stats import METRICS, NET, Z_95, mean_ci, paired_difference
from sam_env.evaluation.tournament import Match, MatchResult

ROOT = Path(__file__).resolve().parents[2]


def test_paired_difference_is_the_interval_of_per_deal_differences() -> None:
    candidate = np.array([1.0, 3.0, 5.0])
    heuristic = np.array([0.0, 1.0, 2.0])
    mean, low, high = paired_difference(candidate, heuristic)
    # Differences 1, 2, 3: mean 2, sample sd 1, half-width 1.96 / sqrt(3).
    assert mean == 2.0
    assert math.isclose(high - mean, Z_95 / math.sqrt(3)) and math.isclose(mean - low, Z_95 / math.sqrt(3))
    # The deals' luck is shared, so the paired interval is narrower than either unpaired one.
    assert high - low < (mean_ci(candidate)[2] - mean_ci(candidate)[1])
    with pytest.raises(ValueError, match="one value per deal from each"):
        paired_difference(candidate, heuristic[:2])


def _result(candidate: str, panel_bot: str, net: list[list[int]], leaders: list[int] | None = None) -> MatchResult:
    """A 4-seat match whose candidate won ``net[deal][seating]`` (the other metrics zero)."""
    match = Match(candidate, (panel_bot,) * 3)
    values = np.zeros((len(net), len(match.seatings), 4, len(METRICS)), dtype=np.int32)
    values[:, :, 0, NET] = net
    leaders_array = np.array(leaders if leaders is not None else [0] * len(net), dtype=np.int32)
    return MatchResult(match, values, leaders_array, np.zeros(values.shape[:3], dtype=np.int32))


def test_panel_rows_pair_the_candidate_with_the_heuristic_deal_by_deal() -> None:
    heuristic = _result("heuristic", "panel_hoarder", [[4, 0, 0, 0], [0, 0, 0, 8], [2, 2, 2, 2]])
    candidate = _result("ppo", "panel_hoarder", [[4, 4, 0, 0], [4, 4, 4, 4], [4, 4, 4, 4]])
    [row] = panel_rows([candidate, heuristic])
    # Per-deal means: candidate 2, 4, 4; heuristic 1, 2, 2; differences 1, 2, 2.
    assert (row.panel_bot, row.candidate, row.deals) == ("panel_hoarder", "ppo", 3)
    assert math.isclose(row.x_per_hand, 10 / 3) and math.isclose(row.baseline_x_per_hand, 5 / 3)
    assert math.isclose(row.margin, 5 / 3)
    half = Z_95 * float(np.std([1, 2, 2], ddof=1)) / math.sqrt(3)
    assert math.isclose(row.margin_low, 5 / 3 - half) and math.isclose(row.margin_high, 5 / 3 + half)


def test_panel_rows_refuse_matches_that_cannot_be_paired() -> None:
    candidate = _result("ppo", "panel_chopper", [[1, 1, 1, 1]] * 3)
    with pytest.raises(ValueError, match="no match of heuristic against panel_chopper"):
        panel_rows([candidate])
    other_deals = _result("heuristic", "panel_chopper", [[1, 1, 1, 1]] * 3, leaders=[0, 1, 2])
    with pytest.raises(ValueError, match="did not meet panel_chopper on the same deals"):
        panel_rows([candidate, other_deals])
    fewer_deals = _result("heuristic", "panel_chopper", [[1, 1, 1, 1]] * 2)
    with pytest.raises(ValueError, match="did not meet panel_chopper on the same deals"):
        panel_rows([candidate, fewer_deals])


def test_paired_nets_give_both_per_deal_means_and_refuse_other_seatings() -> None:
    """The one pairing check of panel rows, protocol rows and benchmarks/paired_margin.py."""
    candidate = _result("ppo", "heuristic", [[4, 4, 0, 0], [4, 4, 4, 4]])
    baseline = _result("greedy", "heuristic", [[4, 0, 0, 0], [0, 0, 0, 8]])
    own, base = paired_nets(candidate, baseline)
    assert own.tolist() == [2.0, 4.0] and base.tolist() == [1.0, 2.0]
    mixed = Match("greedy", ("heuristic", "random", "heuristic"))  # balanced orders: other seatings
    values = np.zeros((2, len(mixed.seatings), 4, len(METRICS)), dtype=np.int32)
    other = MatchResult(mixed, values, np.zeros(2, dtype=np.int32), np.zeros(values.shape[:3], dtype=np.int32))
    with pytest.raises(ValueError, match="ppo and greedy did not meet heuristic on the same deals and seatings"):
        paired_nets(candidate, other)


def test_panel_matches_play_the_heuristic_once_and_every_candidate_against_every_panel_bot() -> None:
    matches = panel_matches(["ppo", "heuristic", "ppo_v1"], ["panel_shedder", "panel_noisy"], 3)
    assert [(m.candidate, m.opponents) for m in matches] == [
        ("heuristic", ("panel_shedder",) * 2),
        ("heuristic", ("panel_noisy",) * 2),
        ("ppo", ("panel_shedder",) * 2),
        ("ppo", ("panel_noisy",) * 2),
        ("ppo_v1", ("panel_shedder",) * 2),
        ("ppo_v1", ("panel_noisy",) * 2),
    ]
    with pytest.raises(ValueError, match="not a panel bot: greedy"):
        panel_matches(["ppo"], ["greedy"], 4)
    with pytest.raises(ValueError, match="name a candidate other than it"):
        panel_matches(["heuristic"], PANEL, 4)


def test_sam_eval_panel_prints_and_writes_the_generalization_margins(tmp_path: Path) -> None:
    out = tmp_path / "panel"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    args = ["--candidates", "greedy", "--panel", "panel_shedder", "panel_noisy", "--deals", "3", "--seed", "5"]
    proc = subprocess.run(
        [sys.executable, "-m", "sam_env.apps.evaluate", *args, "--workers", "2", "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "generalization margin" in proc.stdout and "panel.md and panel.json" in proc.stdout
    assert max(len(line) for line in proc.stdout.splitlines() if str(out) not in line) <= 100
    data = json.loads((out / "panel.json").read_text())
    assert data["baseline"] == "heuristic" and data["config"]["deals"] == 3 and data["config"]["seed"] == 5
    assert [(r["panel_bot"], r["candidate"]) for r in data["rows"]] == [
        ("panel_shedder", "greedy"),
        ("panel_noisy", "greedy"),
    ]
    summary = {
        (m["agent"], m["opponents"]): m["x_per_hand"] for m in json.loads((out / "summary.json").read_text())["matches"]
    }
    for r in data["rows"]:
        mine, theirs = summary["greedy", f"{r['panel_bot']} x3"], summary["heuristic", f"{r['panel_bot']} x3"]
        assert math.isclose(r["margin"], mine - theirs, abs_tol=1e-9)
        assert r["margin_low"] <= r["margin"] <= r["margin_high"]
    table = (out / "panel.md").read_text()
    assert table.startswith("| panel bot | candidate | deals |") and table.count("\n") == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--candidates", "ppo", "--panel", "greedy"], "not a panel bot: greedy"),
        (["--candidates", "ppo", "--panel", "nobody"], "unknown agent name(s) 'nobody'"),
        (["--candidates", "heuristic", "--panel"], "name a candidate other than it"),
        (["--candidates", "ppo", "--panel", "--against", "greedy"], "not allowed with argument"),
    ],
)
def test_bad_panel_options_give_clear_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
