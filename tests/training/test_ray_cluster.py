"""A two-node Ray cluster on this machine (``ray start --head`` and ``ray start --address`` on the loopback
address), and smoke runs of batched PPO and Deep Monte-Carlo with ``tables: ray`` whose table workers land on both
nodes.

Each node holds one CPU, so the run's two env runners (one CPU each) can only be placed one per node.
The nodes are started with ``--block`` as child processes of the test and stopped by signalling
those processes (each then stops the Ray processes it started), never with ``ray stop``, which would
stop every Ray on the machine.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from policy_files import ROOT
from tiers import in_ci

RAY = str(Path(sys.executable).with_name("ray"))
ENV = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {
    "RAY_AUTH_MODE": "token",  # the cluster's own token for its nodes, the run and `ray status`,
    "RAY_AUTH_TOKEN": secrets.token_hex(32),  # whatever ~/.ray/auth_token holds
}


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports free on the loopback address now."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def node_ports(names: tuple[str, ...]) -> list[str]:
    """``--NAME PORT`` for each name, every port its own (two nodes on one machine must not share one)."""
    return [arg for name, port in zip(names, free_ports(len(names)), strict=True) for arg in (f"--{name}", str(port))]


NODE_PORTS = (
    "node-manager-port",
    "object-manager-port",
    "dashboard-agent-listen-port",
    "dashboard-agent-grpc-port",
    "runtime-env-agent-port",
    "metrics-export-port",
)
COMMON = ["--block", "--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--object-store-memory", str(200 * 1024**2)]


def start(command: list[str], log: Path) -> subprocess.Popen:
    with log.open("w") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=ENV, start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to one ``ray start --block`` (it stops the node's processes), SIGKILL if it hangs."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for_nodes(address: str, count: int, node: subprocess.Popen, log: Path, timeout: float = 180) -> None:
    """Return once ``ray status`` at ``address`` lists ``count`` active nodes; skip the test if the node's
    ``ray start`` exited (Ray cannot start it here; under CI, which runs every tier, that fails too), fail it if
    the node runs but never shows."""
    deadline, status = time.monotonic() + timeout, ""
    while time.monotonic() < deadline:
        if node.poll() is not None:
            why = f"Ray could not start node {count} of 2 here: {log.read_text()[-2000:]}"
            if in_ci():
                pytest.fail(why)
            pytest.skip(why)
        out = subprocess.run([RAY, "status", "--address", address], capture_output=True, text=True, env=ENV, timeout=60)
        status = out.stdout + out.stderr[-1000:]
        active = out.stdout.split("Active:", 1)[-1].split("Pending:", 1)[0] if "Active:" in out.stdout else ""
        if active.count("node_") >= count:
            return
        time.sleep(2)
    pytest.fail(f"node {count} of 2 runs but ray status does not list it: {status}")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A head node and a worker node, one CPU each, on 127.0.0.1; yields the head's address."""
    temp = Path(tempfile.mkdtemp(prefix="ray2n", dir="/tmp"))  # short: Ray's socket paths have a length limit
    [port, client] = free_ports(2)
    address = f"127.0.0.1:{port}"
    head_command = [RAY, "start", "--head", "--port", str(port), "--ray-client-server-port", str(client)]
    head_command += ["--include-dashboard", "false", "--temp-dir", str(temp), *COMMON, *node_ports(NODE_PORTS)]
    head = start(head_command, temp / "head.log")
    worker = None
    try:
        wait_for_nodes(address, 1, head, temp / "head.log")
        worker_command = [RAY, "start", "--address", address, *COMMON, *node_ports(NODE_PORTS)]
        worker = start(worker_command, temp / "worker.log")
        wait_for_nodes(address, 2, worker, temp / "worker.log")
        yield address
    finally:
        for process in (worker, head):
            if process is not None:
                stop(process)
        shutil.rmtree(temp, ignore_errors=True)


def test_a_ray_run_on_a_two_node_cluster_puts_an_env_runner_on_each_node(cluster: str, tmp_path: Path) -> None:
    command = [sys.executable, "train.py", "--config", "tests/training/configs/ray_smoke.yaml", "--address", cluster]
    command += ["--set", "table_workers=2", "--set", f"run_dir={tmp_path}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600, env=ENV)
    assert out.returncode == 0, out.stderr[-4000:]
    assert f"2 env runner(s) x 16 tables on 2 node(s) of the Ray cluster at {cluster}" in out.stdout
    [run] = list(tmp_path.iterdir())
    speed = json.loads((run / "speed.json").read_text())
    assert speed["table_workers"] == 2 and len(set(speed["env_runner_nodes"])) == 2
    assert speed["learner_steps"] >= 2000
    assert (run / "final" / "policy.json").is_file()


def test_deep_monte_carlo_on_a_two_node_cluster_puts_a_table_worker_on_each_node(cluster: str, tmp_path: Path) -> None:
    command = [
        sys.executable,
        "train.py",
        "--config",
        "tests/training/configs/dmc_ray_smoke.yaml",
        "--address",
        cluster,
    ]
    command += ["--set", "table_workers=2", "--set", f"run_dir={tmp_path}"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600, env=ENV)
    assert out.returncode == 0, out.stderr[-4000:]
    assert f"2 Ray actor(s) x 32 tables (the Ray cluster at {cluster})" in out.stdout
    [run] = list(tmp_path.iterdir())
    speed = json.loads((run / "speed.json").read_text())
    assert speed["table_workers"] == 2 and len(set(speed["table_worker_nodes"])) == 2
    assert speed["trainer"] == "dmc" and speed["learner_steps"] >= 6000
    assert (run / "final" / "policy.json").is_file()
