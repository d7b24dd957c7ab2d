"""Deep Monte-Carlo with its tables in Ray actors (``trainer: dmc``, ``tables: ray``; training/dmc/ray_tables.py).

The equivalence tests start a local Ray in this process and hold one actor's run, update for update, to the local
trainer's (with and without ``overlap_update``); the smoke run and its resume go through ``train.py`` in a
subprocess on a local Ray.
"""

from __future__ import annotations

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

from sam_env.training.config import ConfigError
from sam_env.training.dmc.config import DMCConfig
from sam_env.training.dmc.ray_tables import RayDMCTrainer
from sam_env.training.dmc.trainer import DMCTrainer, learner_device
from sam_env.training.trainers import config_from_dict, load_config

SMOKE = ROOT / "tests/training/configs/dmc_ray_smoke.yaml"


def without_ray_address() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}


def train(run_dir: Path, *args: str) -> str:
    command = [sys.executable, str(ROOT / "train.py"), *args, "--set", f"run_dir={run_dir}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, env=without_ray_address())
    assert out.returncode == 0, out.stderr[-4000:]
    return out.stdout


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A Ray of this process on 2 CPUs; torch on one thread, as in the actors, so both sides round alike."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
        torch.set_num_threads(threads)


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("overlap", [False, True])
def test_one_actor_plays_and_learns_exactly_as_the_local_trainer(overlap: bool) -> None:
    config = load_config(SMOKE, ["eval_every=0", "checkpoint_every=0", f"overlap_update={str(overlap).lower()}"])
    assert isinstance(config, DMCConfig) and config.tables == "ray"
    local_config = config_from_dict({**config.to_dict(), "tables": "local"})
    on_ray = RayDMCTrainer(config)
    local = DMCTrainer(local_config)
    for _ in range(6):
        with on_ray.update_thread() as a, local.update_thread() as b:
            ray_stats, ray_losses, ray_targets = on_ray.iterate(a)
            stats, losses, targets = local.iterate(b)
        assert ray_stats.moves == stats.moves and ray_stats.decisions == stats.decisions
        np.testing.assert_array_equal(ray_targets, targets)
        assert ray_losses == losses
    assert local.n_updates > 0 and on_ray.n_updates == local.n_updates
    for key, value in on_ray.net.tensors().items():
        np.testing.assert_array_equal(value, local.net.tensors()[key], err_msg=key)
    on_ray.close()


@pytest.mark.usefixtures("local_ray")
def test_two_actors_play_other_deals_and_the_learner_fits_both() -> None:
    config = load_config(SMOKE, ["eval_every=0", "checkpoint_every=0", "table_workers=2"])
    one = load_config(SMOKE, ["eval_every=0", "checkpoint_every=0"])
    two = RayDMCTrainer(config)
    weights = ray.put(two.net.tensors())
    (first, _), (second, _) = ray.get([a.collect.remote(weights, config.n_steps) for a in two.actors])
    assert len(first[0]) and len(second[0])
    assert first[0].shape != second[0].shape or not np.array_equal(first[0], second[0])  # their own deals
    stats2, _, targets2 = two.iterate(None)
    nodes = two.nodes()
    two.close()  # its actors hold both CPUs
    single = RayDMCTrainer(one)
    stats1, _, targets1 = single.iterate(None)
    single.close()
    assert stats2.moves == 2 * stats1.moves  # each actor plays num_tables tables
    assert len(targets2) > len(targets1)
    assert len(nodes) == 2 and len(set(nodes)) == 1  # one machine: both on this node


def test_the_smoke_run_trains_on_ray_checkpoints_and_resumes_from_its_folder(tmp_path: Path) -> None:
    stdout = train(tmp_path, "--config", str(SMOKE))
    [run] = list(tmp_path.iterdir())
    assert "1 Ray actor(s) x 32 tables (a local Ray on 2 CPUs)" in stdout and "learner on cpu" in stdout
    speed = json.loads((run / "speed.json").read_text())
    assert speed["trainer"] == "dmc" and speed["tables"] == "ray" and speed["table_workers"] == 1
    assert len(speed["table_worker_nodes"]) == 1 and speed["learner_device"] == "cpu"
    checkpoints = sorted((run / "checkpoints").iterdir())
    assert checkpoints and (run / "final" / "policy.json").is_file()
    saved = json.loads((run / "final" / "trainer.json").read_text())  # the run folder resumes from its last one
    stdout = train(tmp_path, "--resume", str(run), "--set", f"total_timesteps={saved['num_timesteps'] + 3000}")
    assert f"resuming {run.name} at step {saved['num_timesteps']:,}" in stdout
    resumed = json.loads((run / "final" / "trainer.json").read_text())
    assert resumed["num_timesteps"] >= saved["num_timesteps"] + 3000 and resumed["n_updates"] > saved["n_updates"]


def test_the_learner_device_is_the_gpu_only_where_there_is_one() -> None:
    assert learner_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert learner_device("cpu").type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="device: cuda, but torch sees no GPU here; use device: auto"):
            learner_device("cuda")
    with pytest.raises(ConfigError, match=r"device = 'tpu' is not allowed; expected one of \['cpu', 'cuda', 'auto'\]"):
        config_from_dict({"trainer": "dmc", "device": "tpu"})
