"""``tables: ray``: the batched trainer with its tables in Ray env runner actors (training/ray_actors).

The smoke run and its resume go through ``train.py`` in a subprocess on a local Ray; the
equivalence tests start a local Ray in this process and hold the Ray path's rollouts (deals, moves,
rewards) and updates equal to the local batched trainer's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import ray
import torch
from policy_files import ROOT

from sam_env import RuleConfig
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.registry import load_bot
from sam_env.training.batched.config import BatchedConfig
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.config import ConfigError
from sam_env.training.ray_actors.learner import RayTrainer
from sam_env.training.ray_actors.runner import BUFFER_FIELDS, runner_seed
from sam_env.training.trainers import config_from_dict, load_config

SMOKE = ROOT / "tests/training/configs/ray_smoke.yaml"


def without_ray_address() -> dict[str, str]:
    """This environment less ``RAY_ADDRESS``: the runs start their own local Ray."""
    return {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}


def train(run_dir: Path, *args: str, timeout: float = 300) -> str:
    command = [sys.executable, str(ROOT / "train.py"), *args, "--set", f"run_dir={run_dir}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=timeout, env=without_ray_address())
    assert out.returncode == 0, out.stderr[-4000:]
    return out.stdout


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """tests/training/configs/ray_smoke.yaml: one env runner actor on a local Ray; its folder and what it printed."""
    runs = tmp_path_factory.mktemp("ray_runs")
    stdout = train(runs, "--config", str(SMOKE))
    [run] = list(runs.iterdir())
    return run, stdout


def test_the_smoke_run_trains_in_an_env_runner_evaluates_and_writes_checkpoints(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("ray_smoke__s7__")
    assert "1 env runner(s) x 16 tables on 1 node(s) of a local Ray on 2 CPUs, learner on cpu" in stdout
    assert "random x3" in stdout and "95% CI" in stdout
    speed = json.loads((run / "speed.json").read_text())
    assert speed["trainer"] == "batched" and speed["table_workers"] == 1 and len(speed["env_runner_nodes"]) == 1
    assert speed["learner_steps"] >= 2000 and speed["iterations"] >= 3
    assert speed["learner_steps_per_second"] > 0 and speed["learner_steps_per_second_after_warm_up"] > 0
    [checkpoint] = list((run / "checkpoints").iterdir())
    state = json.loads((checkpoint / "trainer.json").read_text())
    assert state["trainer"] == "batched" and len(state["pool_steps"]) == 2
    policy = load_policy(checkpoint / "policy.json")
    assert policy.metadata["training"]["trainer"] == "batched"
    assert policy.metadata["training"]["tables"] == "ray"
    assert json.loads((run / "evaluation.json").read_text())["steps"] >= 2000
    assert load_bot(str(run / "final"), rules=RuleConfig()) is not None


def test_resume_continues_a_ray_run_from_its_checkpoint(smoke: tuple[Path, str], tmp_path: Path) -> None:
    run, _ = smoke
    [checkpoint] = list((run / "checkpoints").iterdir())
    saved = json.loads((checkpoint / "trainer.json").read_text())
    start = saved["num_timesteps"]
    stdout = train(tmp_path, "--resume", str(checkpoint), "--set", f"total_timesteps={start + 1000}")
    assert f"resuming {run.name} at step {start:,} with {len(saved['pool_steps'])} snapshots in the pool" in stdout
    resumed = json.loads((run / "final" / "trainer.json").read_text())
    assert resumed["trainer"] == "batched" and resumed["num_timesteps"] >= start + 1000
    assert resumed["n_updates"] > saved["n_updates"]
    speed = json.loads((run / "speed.json").read_text())  # the resumed session's own
    assert 1000 <= speed["learner_steps"] < start + 1000


def test_a_run_of_0_3_s_trainer_ray_resumes_as_batched_with_tables_ray(smoke: tuple[Path, str], tmp_path: Path) -> None:
    """A run folder written before ``tables: ray`` (``trainer: ray`` in its config.yaml and trainer.json, and
    ``num_env_runners``) resumes: the alias reads its config, its checkpoint's trainer reads as batched."""
    import yaml

    run, _ = smoke
    checkpoint = sorted((run / "checkpoints").iterdir())[0]
    copy = tmp_path / "old" / "checkpoints" / checkpoint.name
    copy.mkdir(parents=True)
    for file in checkpoint.iterdir():
        copy.joinpath(file.name).write_bytes(file.read_bytes())
    state = json.loads((copy / "trainer.json").read_text())
    (copy / "trainer.json").write_text(json.dumps({**state, "trainer": "ray"}))
    config = yaml.safe_load((copy / "config.yaml").read_text())
    old = {k: v for k, v in config.items() if k not in ("tables", "table_workers")}
    (copy / "config.yaml").write_text(yaml.safe_dump({**old, "trainer": "ray", "num_env_runners": 1}))
    stdout = train(tmp_path, "--resume", str(copy), "--set", f"total_timesteps={state['num_timesteps'] + 500}")
    assert f"resuming old at step {state['num_timesteps']:,}" in stdout
    assert json.loads((tmp_path / "old" / "final" / "trainer.json").read_text())["trainer"] == "batched"


def test_a_checkpoint_whose_state_and_config_disagree_on_the_trainer_is_refused(
    smoke: tuple[Path, str], tmp_path: Path
) -> None:
    run, _ = smoke
    checkpoint = sorted((run / "checkpoints").iterdir())[0]  # the resume test may have added one
    copy = tmp_path / "run" / "checkpoints" / checkpoint.name
    copy.mkdir(parents=True)
    for file in checkpoint.iterdir():
        copy.joinpath(file.name).write_bytes(file.read_bytes())
    state = json.loads((copy / "trainer.json").read_text())
    (copy / "trainer.json").write_text(json.dumps({**state, "trainer": "dmc"}))
    command = [sys.executable, str(ROOT / "train.py"), "--resume", str(copy)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, env=without_ray_address())
    assert out.returncode == 2
    assert f"{copy}: written by the 'dmc' trainer, but its config says trainer: batched" in out.stderr
    assert "Started a local Ray" not in out.stderr


def test_more_table_workers_than_local_cpus_is_refused_before_ray_starts(tmp_path: Path) -> None:
    command = [sys.executable, "train.py", "--config", str(SMOKE), "--set", "table_workers=3"]
    command += ["--set", f"run_dir={tmp_path}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120, env=without_ray_address())
    assert out.returncode == 2
    assert "error: 3 table workers need 3 CPUs of the local Ray, but num_cpus = 2" in out.stderr
    assert "Started a local Ray" not in out.stderr


def test_tables_ray_is_a_field_of_the_batched_config_and_trainer_ray_its_deprecated_alias() -> None:
    config = load_config(SMOKE)
    assert isinstance(config, BatchedConfig) and (config.tables, config.table_workers) == ("ray", 1)
    with pytest.raises(ConfigError, match=r"table_workers = 0 is not allowed; expected an int > 0"):
        config_from_dict({**config.to_dict(), "table_workers": 0})
    with pytest.raises(ConfigError, match=r"tables = 'gpu' is not allowed; expected one of \['local', 'ray'\]"):
        config_from_dict({**config.to_dict(), "tables": "gpu"})
    data = {k: v for k, v in config.to_dict().items() if k not in ("tables", "table_workers")}
    with pytest.warns(DeprecationWarning, match="'trainer: ray' is deprecated .* use 'trainer: batched' with 'tables"):
        alias = config_from_dict({**data, "trainer": "ray", "num_env_runners": 2})
    assert isinstance(alias, BatchedConfig) and (alias.trainer, alias.tables, alias.table_workers) == (
        "batched",
        "ray",
        2,
    )


# ---------------------------------------------------------------- the same rollouts as the local trainer


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A Ray of this process on 2 CPUs (never a cluster at RAY_ADDRESS), one CPU per env runner; torch on
    one thread, as in the runners, so the local trainer's forward passes round as theirs do."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
        torch.set_num_threads(threads)


def configs(**changes: object) -> tuple[BatchedConfig, BatchedConfig]:
    """The smoke config for the Ray trainer and, with the same fields, for the local one."""
    config = load_config(SMOKE, ["eval_every=0", "checkpoint_every=0", *(f"{k}={v}" for k, v in changes.items())])
    assert config.tables == "ray"
    local = config_from_dict({**config.to_dict(), "tables": "local"})
    assert isinstance(local, BatchedConfig)
    return config, local


def recorded(trainer: BatchedTrainer) -> list[dict[str, np.ndarray]]:
    """Every rollout's decisions (observations, moves, rewards, …) from now on, copied as the trainer collects."""
    rollouts: list[dict[str, np.ndarray]] = []
    collect = trainer.collector.collect

    def collect_and_record() -> object:
        stats = collect()
        buffer = trainer.collector.buffer
        rollouts.append({name: getattr(buffer, name)[: buffer.size].copy() for name in BUFFER_FIELDS})
        return stats

    trainer.collector.collect = collect_and_record  # type: ignore[method-assign]
    return rollouts


def assert_same_rollouts(ours: list[dict[str, np.ndarray]], theirs: list[dict[str, np.ndarray]]) -> None:
    assert len(ours) == len(theirs) >= 2
    for mine, other in zip(ours, theirs, strict=True):
        assert len(mine["reward"]) > 0 and np.any(mine["reward"] != 0)
        for name in BUFFER_FIELDS:
            np.testing.assert_array_equal(mine[name], other[name], err_msg=name)


@pytest.mark.usefixtures("local_ray")
def test_one_env_runner_sees_the_local_trainers_deals_moves_and_rewards_and_learns_the_same_weights() -> None:
    # The local trainer samples from torch's global generator, seeded when it is built: build it
    # after the learner of the Ray run has done all its work in this process.
    config, local_config = configs(total_timesteps=1500)
    ray_trainer = RayTrainer(config)
    on_ray = recorded(ray_trainer)
    ray_trainer.learn(config.total_timesteps)
    local = BatchedTrainer(local_config)
    here = recorded(local)
    local.learn(config.total_timesteps)
    assert_same_rollouts(on_ray, here)  # snapshots joined both pools at the same steps
    assert ray_trainer.num_timesteps == local.num_timesteps and ray_trainer.n_updates == local.n_updates
    for key, value in ray_trainer.net.tensors().items():
        np.testing.assert_array_equal(value, local.net.tensors()[key], err_msg=key)


@pytest.mark.usefixtures("local_ray")
def test_two_env_runners_play_the_tables_of_two_local_trainers_and_join_them_in_order() -> None:
    config, local_config = configs(table_workers=2)
    ray_trainer = RayTrainer(config)
    on_ray = recorded(ray_trainer)
    snapshot = ray_trainer.snapshot(0)
    ray_trainer.add_to_pool(0, snapshot)
    sent = []
    for _ in range(2):
        sent.append(ray_trainer.net.tensors())
        ray_trainer.collector.collect()
        ray_trainer.net.load_tensors({k: v * 0.5 for k, v in sent[-1].items()})  # new weights for the next one
    here = []
    for i in (0, 1):  # one after the other: each is seeded when built, as runner i is in its own process
        local = BatchedTrainer(dataclasses.replace(local_config, seed=runner_seed(config.seed, i)))
        here.append(recorded(local))
        local.add_to_pool(0, snapshot)
        for weights in sent:
            local.net.load_tensors(weights)
            local.collector.collect()
    joined = []
    for first, second in zip(*here, strict=True):
        size = len(first["reward"])
        part = {name: np.concatenate([first[name], second[name]]) for name in BUFFER_FIELDS}
        part["next"] = np.concatenate([first["next"], np.where(second["next"] >= 0, second["next"] + size, -1)])
        joined.append(part)
    assert_same_rollouts(on_ray, joined)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
@pytest.mark.usefixtures("local_ray")
def test_the_learner_updates_on_the_gpu_while_the_env_runners_play_on_their_cpus() -> None:
    config, _ = configs(device="cuda", total_timesteps=500)
    trainer = RayTrainer(config)
    trainer.learn(config.total_timesteps)
    assert trainer.num_timesteps >= 500 and next(trainer.net.parameters()).is_cuda
    assert trainer.collector.buffer.size > 0  # the runners' CPU rollouts reached the GPU update
