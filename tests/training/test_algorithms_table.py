"""benchmarks/algorithms_table.py: the table it writes from its records (mean and spread over seeds, each seed's
interval), the speed it calibrates with, and every algorithm's config with the table's overrides."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from sam_env.apps import evaluate
from sam_env.evaluation.protocol import NAME as PROTOCOL
from sam_env.evaluation.results import ResultsError
from sam_env.training import cli
from sam_env.training.algorithms import ALGORITHMS, QUIET
from sam_env.training.run_script import DEFAULT_CONFIG
from sam_env.training.trainers import load_config

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "algorithms_table"
ROW_TRAINERS = {
    "ppo_selfplay": "batched",
    "ppo_vs_heuristic": "batched",
    "sb3": "sb3",
    "rllib": "rllib",
    "expert": "expert",
    "dqn": "dqn",
    "dmc": "dmc",
    "nfsp": "nfsp",
}
"""The trainer each row of the table is about, as its label says: a recipe that came to train something else under
its old name (``configs/default.yaml``: batched PPO self-play until it became Deep Monte-Carlo) would make a command
re-run another algorithm than its row's."""


@pytest.fixture(scope="module")
def script():
    """The table's logic, imported as any module is (the script in benchmarks/ is its command line)."""
    from sam_env.training import algorithms

    return algorithms


def _record(score: float, low: float, high: float, heuristic: float, steps: int, wall: float, **more) -> dict:
    evaluation = {
        "headline": {"score": score, "ci_low": low, "ci_high": high},
        "rows": {"heuristic": heuristic, "random": 9.0},
        "tier": "quick",
    }
    training = {"steps": steps, "wall_seconds": wall, "cpu_seconds": wall}
    return {"budget_minutes": 15, "training": training, "evaluation": evaluation, **more}


def test_the_table_gives_each_algorithms_seeds_and_their_mean_and_spread(script) -> None:
    records = {
        "dmc__s2": _record(3.0, 2.5, 3.5, -1.0, 3000, 900, algorithm="dmc", seed=2),
        "dmc__s1": _record(1.0, 0.5, 1.5, -2.0, 1000, 600, algorithm="dmc", seed=1),
        "dqn__s1": _record(-1.0, -1.5, -0.5, -3.0, 50, 60, algorithm="dqn", seed=1),
    }
    lines = script.table(records, 3).splitlines()
    assert lines[2] == ("| DQN (Tianshou) | 1 | -1.00 | -1.00 [-1.50, -0.50] | -3.00 | 50 | 1.0 | 1.0 |")
    assert lines[3] == (
        "| Deep Monte-Carlo (DouZero's) | 1, 2 | +2.00 ± 1.41 | +1.00 [+0.50, +1.50], +3.00 [+2.50, +3.50] | "
        "-1.50 | 2,000 | 12.5 | 12.5 |"
    )
    note = "\n".join(lines[4:])
    assert "Budget 15 min" in note and "quick tier" in note and "3 seeds planned" in note


def test_calibration_uses_the_rate_after_the_warm_up_where_there_is_one(script) -> None:
    assert (
        script.steps_per_second({"learner_steps_per_second_after_warm_up": 50.0, "learner_steps_per_second": 9}) == 50
    )
    assert script.steps_per_second({"learner_steps_per_second_after_warm_up": None, "learner_steps_per_second": 9}) == 9
    with pytest.raises(RuntimeError, match="no learner steps per second"):
        script.steps_per_second({"learner_steps_per_second": None})


@pytest.mark.parametrize("key", list(ROW_TRAINERS))
def test_every_algorithm_loads_with_the_tables_overrides(script, key: str) -> None:
    algorithm = script.ALGORITHMS[key]
    overrides = {**script.QUIET, **algorithm.overrides, "name": f"table_{key}", "seed": 2, "total_timesteps": 1000}
    config = load_config(algorithm.config, [f"{k}={'null' if v is None else v}" for k, v in overrides.items()])
    assert config.total_timesteps == 1000 and config.final_eval_deals == 0 and config.torch_threads == 1
    assert getattr(config, "eval_every", 0) == 0 and getattr(config, "init_from", None) is None
    assert config.trainer == ROW_TRAINERS[key], f"row {key} ({algorithm.label}) trains {config.trainer}"


def test_the_rows_are_the_algorithms_whose_trainers_are_known() -> None:
    assert list(ALGORITHMS) == list(ROW_TRAINERS)


def _committed_runs() -> list[str]:
    return sorted(p.parent.name for p in RESULTS.glob("*/run.json"))


@pytest.mark.parametrize("run", _committed_runs())
def test_every_recorded_command_re_runs_its_row_as_written(run: str) -> None:
    """Each committed run's training command, parsed by ``train.py``'s own parser and built by its config loader as
    ``train.py`` builds it, is the row's trainer on the config the table gives that algorithm today (with the run's
    name, seed and steps); its evaluation command, parsed by ``sam-eval``'s parser, names the protocol, tier and seat
    count its results file holds, the run's final network and the run's folder."""
    record = json.loads((RESULTS / run / "run.json").read_text(encoding="utf-8"))
    key, training = record["algorithm"], record["training"]
    algorithm = ALGORITHMS[key]
    words = shlex.split(training["command"])
    assert words[:2] == ["python", "train.py"], training["command"]
    parsed = cli.parse_args(words[2:])
    assert parsed.resume is None and parsed.address is None
    config = load_config(parsed.config or DEFAULT_CONFIG, parsed.overrides)
    assert config.trainer == ROW_TRAINERS[key], f"{run}: {training['command']} trains {config.trainer}"
    assert str(parsed.config) == algorithm.config, (
        f"{run}: recorded --config {parsed.config}, the table's {algorithm.config}"
    )
    steps = max(1, round(record["rate"] * record["budget_minutes"] * 60))
    table = {**QUIET, **algorithm.overrides, "name": f"table_{key}", "seed": record["seed"], "total_timesteps": steps}
    table["run_dir"] = "runs/algorithms_table"
    assert config == load_config(algorithm.config, [f"{k}={json.dumps(v)}" for k, v in table.items()])
    assert training["run"].startswith(f"{table['run_dir']}/table_{key}__s{record['seed']}__")
    assert training["policy"] == f"{training['run']}/final"

    words = shlex.split(record["evaluation"]["command"])
    assert words[0] == "sam-eval"
    args = evaluate.build_parser().parse_args(words[1:])
    protocol = json.loads((ROOT / record["evaluation"]["file"]).read_text(encoding="utf-8"))["protocol"]
    assert args.protocol == PROTOCOL == f"v{protocol['version']}"
    assert (args.tier or "full") == protocol["tier"] == record["evaluation"]["tier"]
    assert (args.players or 4) == protocol["players"]
    assert args.candidates == [training["policy"]] and args.out == Path(f"benchmarks/algorithms_table/{run}")


def test_the_tables_figures_are_read_from_each_runs_results_file(script, tmp_path: Path) -> None:
    """table.json keeps a copy of each run's figures; the page is written from the results files themselves."""
    source = ROOT / "leaderboard" / "ppo.v1-4p-quick.results.json"
    (tmp_path / "dqn__s1").mkdir()
    (tmp_path / "dqn__s1" / source.name).write_bytes(source.read_bytes())
    record = _record(99.0, 98.0, 100.0, 50.0, 50, 60, algorithm="dqn", seed=1)
    record["evaluation"]["file"] = f"dqn__s1/{source.name}"
    [read] = script.read_figures({"dqn__s1": record}, tmp_path).values()
    document = json.loads(source.read_text(encoding="utf-8"))
    assert read["evaluation"]["headline"] == {k: document["headline"][k] for k in ("score", "ci_low", "ci_high")}
    assert read["evaluation"]["rows"]["heuristic"] == document["rows"][2]["x_per_hand"]
    assert read["evaluation"]["file"] == f"dqn__s1/{source.name}" and read["training"] == record["training"]
    line = script.table({"dqn__s1": read}, 3).splitlines()[2]
    assert f"{document['headline']['score']:+.2f}" in line and "+99.00" not in line

    with pytest.raises(RuntimeError, match="run dqn__s1 names no results file"):
        script.read_figures({"dqn__s1": _record(1.0, 0.5, 1.5, 0.0, 1, 1)}, tmp_path)
    document["headline"]["score"] += 1
    (tmp_path / "dqn__s1" / source.name).write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsError, match=r"headline\.score"):
        script.read_figures({"dqn__s1": record}, tmp_path)


def _write_run(folder: Path, key: str, seed: int, **more) -> None:
    (folder / f"{key}__s{seed}").mkdir(parents=True, exist_ok=True)
    record = {"algorithm": key, "seed": seed, "rate": 100.0, **_record(1.0, 0.5, 1.5, 0.0, 1, 1), **more}
    (folder / f"{key}__s{seed}" / "run.json").write_text(json.dumps(record), encoding="utf-8")


def test_the_finished_runs_are_every_folders_run_json(script, tmp_path: Path) -> None:
    """Two instances of the script side by side each write their own folders; either sees both's runs."""
    _write_run(tmp_path, "dmc", 1)
    _write_run(tmp_path, "dqn", 2)
    (tmp_path / "sb3__s1").mkdir()  # a run still being evaluated: no run.json yet
    runs = script.finished_runs(tmp_path)
    assert sorted(runs) == ["dmc__s1", "dqn__s2"] and runs["dqn__s2"]["seed"] == 2
    assert script.finished_runs(tmp_path / "absent") == {}


def test_the_jobs_go_seed_by_seed_and_skip_finished_runs(script) -> None:
    jobs = script.pending_jobs(["dmc", "dqn"], [1, 2], {"dqn__s1": {}})
    assert jobs == [("dmc", 1), ("dmc", 2), ("dqn", 2)]


def test_a_table_of_another_budget_or_of_disagreeing_rates_is_refused(script, tmp_path: Path) -> None:
    _write_run(tmp_path, "dmc", 1)
    _write_run(tmp_path, "dmc", 2, rate=90.0)
    _write_run(tmp_path, "dqn", 1, budget_minutes=5)
    records = script.finished_runs(tmp_path)
    with pytest.raises(ValueError, match=r"runs dqn__s1 were made on another budget than 15 min \(5 min\)"):
        script.check_budget(records, 15)
    with pytest.raises(ValueError, match=r"run dmc__s2 was trained at 90\.0 learner steps/s, its algorithm's others"):
        script.calibrated_rates(records)
    del records["dmc__s2"]
    assert script.calibrated_rates(records) == {"dmc": 100.0, "dqn": 100.0}


def test_a_claimed_folder_is_refused_to_a_second_holder_until_the_first_lets_go(script, tmp_path: Path) -> None:
    with script.claim(tmp_path / "dmc__s1") as first, script.claim(tmp_path / "dmc__s1") as second:
        assert first and not second
    with script.claim(tmp_path / "dmc__s1") as again:
        assert again


def test_the_runs_calibrate_once_train_the_budgets_steps_and_write_each_record_whole(script, tmp_path: Path) -> None:
    """make_runs with a stub trainer and evaluator: one calibration per algorithm without a recorded rate, ``rate x
    budget`` steps for every seed, a run another instance holds or has finished is left alone."""
    _write_run(tmp_path, "dqn", 1, rate=2.0)  # dqn's rate is known from its finished run
    calls, written = [], []

    def train(algorithm, name: str, seed: int, steps: int) -> dict:
        calls.append((name, seed, steps))
        speed = {"learner_steps_per_second_after_warm_up": 10.0}
        return {"policy": f"{name}/final", "steps": steps, "wall_seconds": 1, "cpu_seconds": 1, "speed": speed}

    def evaluate(policy: str, folder: Path) -> dict:
        assert folder.is_dir() and not (folder / "run.json").exists()
        return {"file": f"{folder.name}/x.results.json", "headline": {"score": 1.0, "ci_low": 0, "ci_high": 2}}

    jobs = [("dmc", 1), ("dqn", 2), ("sb3", 1), ("dmc", 2)]
    with script.claim(tmp_path / "sb3__s1"):  # another instance is making it
        script.make_runs(jobs, tmp_path, 0.5, train, evaluate, after_run=written.append)
    assert calls == [
        ("calibrate_dmc", 0, 1_000_000),
        ("table_dmc", 1, 300),
        ("table_dqn", 2, 60),
        ("table_dmc", 2, 300),
    ]
    assert [(r["algorithm"], r["seed"], r["rate"], r["budget_minutes"]) for r in written] == [
        ("dmc", 1, 10.0, 0.5),
        ("dqn", 2, 2.0, 0.5),
        ("dmc", 2, 10.0, 0.5),
    ]
    assert json.loads((tmp_path / "dqn__s2" / "run.json").read_text(encoding="utf-8")) == written[1]
    assert not (tmp_path / "sb3__s1" / "run.json").exists()
    calls.clear()
    script.make_runs(jobs, tmp_path, 0.5, train, evaluate)
    assert calls == [("calibrate_sb3", 0, 20_000), ("table_sb3", 1, 300)]


MACHINE_PATH_IN_NAME = re.compile(r"(?:^|_)(?:work|tmp|home|users|root)_", re.IGNORECASE)
"""A machine's path flattened into a file name, as ``sam-eval`` names a results file after its candidate's path
(``/work/main/runs/...`` -> ``work_main_runs_...``)."""
MACHINE_FOLDERS = ("/work/", "/home/", "/tmp/")


def _benchmark_files() -> list[Path]:
    """The files under benchmarks/, as committed (no caches, no claim files of a table being made)."""
    ignored = ("__pycache__", ".claim")
    return sorted(p for p in (ROOT / "benchmarks").rglob("*") if p.is_file() and not set(ignored) & set(p.parts))


def test_no_committed_benchmark_file_names_a_machines_folders(script) -> None:
    """The committed records say where things are relative to the checkout: no machine's path in a file's name, no
    absolute /work/, /home/ or /tmp/ path in a record (a script may still default its scratch output to /tmp/)."""
    files = _benchmark_files()
    assert len([f for f in files if f.suffix == ".json"]) >= 43
    named = [str(f.relative_to(ROOT)) for f in files if MACHINE_PATH_IN_NAME.search(f.name)]
    assert not named, named
    for file in files:
        text = file.read_text(encoding="utf-8")
        folders = ("/work/", "/home/") if file.suffix == ".py" else MACHINE_FOLDERS
        assert not [f for f in folders if f in text], f"{file.relative_to(ROOT)} names {folders}"
        if file.suffix == ".json":
            assert not script.absolute_paths(json.loads(text)), file.relative_to(ROOT)


def test_each_runs_results_file_is_named_after_its_run(script) -> None:
    results = ROOT / "benchmarks" / "algorithms_table"
    records = script.finished_runs(results)
    assert len(records) >= 21 and {r["algorithm"] for r in records.values()} <= set(script.ALGORITHMS)
    for key, record in records.items():
        file = ROOT / record["evaluation"]["file"]
        assert file.parent == results / key and file.is_file()
        assert file.name == script.results_name(file.parent, json.loads(file.read_text(encoding="utf-8")))
        assert file.name == f"{key}.v1-4p-quick.results.json"
    assert "+" in script.table(script.read_figures(records, ROOT), 3)


def test_records_keep_paths_relative_and_a_record_with_an_absolute_one_is_refused(script, tmp_path: Path) -> None:
    assert script.relative(ROOT / "runs" / "x" / "final", ROOT) == "runs/x/final"
    assert script.absolute_paths({"c": "python train.py --set 'run_dir=\"runs/t\"'", "s": {"steps/s": "X/hand"}}) == []
    record = {"training": {"command": "sam-eval --candidates /work/a/final --out b", "runs": ["/tmp/r"]}}
    assert script.absolute_paths(record) == ["training.command: /work/a/final", "training.runs[0]: /tmp/r"]

    def train(algorithm, name: str, seed: int, steps: int) -> dict:
        speed = {"learner_steps_per_second_after_warm_up": 10.0}
        policy = f"/home/someone/runs/{name}/final"
        return {"policy": policy, "steps": steps, "wall_seconds": 1, "cpu_seconds": 1, "speed": speed}

    def evaluate(policy: str, folder: Path) -> dict:
        return {"file": f"{folder.name}/x.results.json", "headline": {"score": 1.0, "ci_low": 0, "ci_high": 2}}

    with pytest.raises(ValueError, match=r"dqn__s1's record names absolute paths .*training\.policy: /home/someone"):
        script.make_runs([("dqn", 1)], tmp_path, 0.5, train, evaluate)
    assert not (tmp_path / "dqn__s1" / "run.json").exists()
