"""benchmarks/algorithms_table.py: the table it writes from its records (mean and spread over seeds, each seed's
interval), the speed it calibrates with, and every algorithm's config with the table's overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sam_env.evaluation.results import ResultsError
from sam_env.training.trainers import load_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script():
    """The table's logic, imported as any module is (the script in benchmarks/ is its command line)."""
    from sam_env.training import algorithms

    return algorithms


def _record(score: float, low: float, high: float, heuristic: float, steps: int, wall: float) -> dict:
    evaluation = {
        "headline": {"score": score, "ci_low": low, "ci_high": high},
        "rows": {"heuristic": heuristic, "random": 9.0},
        "tier": "quick",
    }
    return {"training": {"steps": steps, "wall_seconds": wall, "cpu_seconds": wall}, "evaluation": evaluation}


def test_the_table_gives_each_algorithms_mean_and_spread_over_seeds(script) -> None:
    records = {
        "dmc__s1": _record(1.0, 0.5, 1.5, -2.0, 1000, 600),
        "dmc__s2": _record(3.0, 2.5, 3.5, -1.0, 3000, 900),
        "dqn__s1": _record(-1.0, -1.5, -0.5, -3.0, 50, 60),
    }
    body = script.table(records, ["dqn", "dmc"], 15, [1, 2])
    lines = body.splitlines()
    assert lines[2] == "| DQN (Tianshou) | -1.00 | -1.00 [-1.50, -0.50] | -3.00 | 50 | 1.0 | 1.0 |"
    assert lines[3] == (
        "| Deep Monte-Carlo (DouZero's) | +2.00 ± 1.41 | +1.00 [+0.50, +1.50], +3.00 [+2.50, +3.50] | -1.50 | "
        "2,000 | 12.5 | 12.5 |"
    )
    assert "Budget 15 min" in body and "quick tier" in body and "seeds 1, 2" in body


def test_calibration_uses_the_rate_after_the_warm_up_where_there_is_one(script) -> None:
    assert (
        script.steps_per_second({"learner_steps_per_second_after_warm_up": 50.0, "learner_steps_per_second": 9}) == 50
    )
    assert script.steps_per_second({"learner_steps_per_second_after_warm_up": None, "learner_steps_per_second": 9}) == 9
    with pytest.raises(RuntimeError, match="no learner steps per second"):
        script.steps_per_second({"learner_steps_per_second": None})


@pytest.mark.parametrize("key", ["ppo_selfplay", "ppo_vs_heuristic", "sb3", "rllib", "expert", "dqn", "dmc"])
def test_every_algorithm_loads_with_the_tables_overrides(script, key: str) -> None:
    algorithm = script.ALGORITHMS[key]
    overrides = {**script.QUIET, **algorithm.overrides, "name": f"table_{key}", "seed": 2, "total_timesteps": 1000}
    config = load_config(algorithm.config, [f"{k}={'null' if v is None else v}" for k, v in overrides.items()])
    assert config.total_timesteps == 1000 and config.final_eval_deals == 0 and config.torch_threads == 1
    assert getattr(config, "eval_every", 0) == 0 and getattr(config, "init_from", None) is None


def test_the_tables_figures_are_read_from_each_runs_results_file(script, tmp_path: Path) -> None:
    """table.json keeps a copy of each run's figures; the page is written from the results files themselves."""
    source = ROOT / "leaderboard" / "ppo.v1-4p-quick.results.json"
    (tmp_path / "dqn__s1").mkdir()
    (tmp_path / "dqn__s1" / source.name).write_bytes(source.read_bytes())
    record = _record(99.0, 98.0, 100.0, 50.0, 50, 60)
    record["evaluation"]["file"] = f"dqn__s1/{source.name}"
    [read] = script.read_figures({"dqn__s1": record}, tmp_path).values()
    document = json.loads(source.read_text(encoding="utf-8"))
    assert read["evaluation"]["headline"] == {k: document["headline"][k] for k in ("score", "ci_low", "ci_high")}
    assert read["evaluation"]["rows"]["heuristic"] == document["rows"][2]["x_per_hand"]
    assert read["evaluation"]["file"] == f"dqn__s1/{source.name}" and read["training"] == record["training"]
    line = script.table({"dqn__s1": read}, ["dqn"], 15, [1]).splitlines()[2]
    assert f"{document['headline']['score']:+.2f}" in line and "+99.00" not in line

    with pytest.raises(RuntimeError, match="run dqn__s1 names no results file"):
        script.read_figures({"dqn__s1": _record(1.0, 0.5, 1.5, 0.0, 1, 1)}, tmp_path)
    document["headline"]["score"] += 1
    (tmp_path / "dqn__s1" / source.name).write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsError, match=r"headline\.score"):
        script.read_figures({"dqn__s1": record}, tmp_path)


def test_the_finished_runs_are_every_folders_run_json(script, tmp_path: Path) -> None:
    """Two instances of the script side by side each write their own folders; either sees both's runs."""
    for key, seed in [("dmc", 1), ("dqn", 2)]:
        (tmp_path / f"{key}__s{seed}").mkdir()
        record = {"algorithm": key, "seed": seed, **_record(1.0, 0.5, 1.5, 0.0, 1, 1)}
        (tmp_path / f"{key}__s{seed}" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    (tmp_path / "sb3__s1").mkdir()  # a run still being evaluated: no run.json yet
    runs = script.finished_runs(tmp_path)
    assert sorted(runs) == ["dmc__s1", "dqn__s2"] and runs["dqn__s2"]["seed"] == 2
    assert script.finished_runs(tmp_path / "absent") == {}
