"""A training killed (SIGKILL) in the middle of writing a checkpoint resumes from its run folder.

``train.py``'s steps (``sam_env.training.run_script.main``) run in a subprocess with one fault injected:
the second checkpoint's ``trainer.safetensors`` is written halfway, then the writer waits; the test kills
it there. The run folder then holds the first checkpoint whole and nothing that looks like the second,
and ``train.py --resume RUN_DIR`` takes the first, trains to the end and leaves no more than
``keep_checkpoints`` of them, with no leftover of the killed write.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from train_script import FIXTURES, run_train

from sam_env.training.checkpoints import latest_checkpoint

SMALL = [
    "--set", "num_tables=8", "--set", "n_steps=32", "--set", "batch_size=64", "--set", "eval_every=0",
    "--set", "final_eval_deals=0", "--set", "checkpoint_every=100", "--set", "keep_checkpoints=2",
    "--set", "snapshot_every=100",
]  # fmt: skip

HANGING_WRITER = """
import sys, time
from pathlib import Path
import safetensors.torch
from sam_env.training.batched import state

marker, calls = Path(sys.argv[1]), []

def save_file(tensors, path):  # the second checkpoint's trainer state: half of it, then a wait for the kill
    calls.append(path)
    if len(calls) < 2:
        return safetensors.torch.save_file(tensors, path)
    safetensors.torch.save_file(tensors, path)
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])
    marker.write_text(path, encoding="utf-8")
    time.sleep(600)

state.save_file = save_file
from sam_env.training.run_script import main  # train.py's steps

sys.exit(main(sys.argv[2:]))
"""


def test_a_run_killed_while_writing_a_checkpoint_resumes_from_its_last_whole_one(tmp_path: Path) -> None:
    marker = tmp_path / "writing"
    config = str(FIXTURES / "batched_smoke.yaml")
    args = ["--config", config, *SMALL, "--set", "total_timesteps=2000", "--set", f"run_dir={tmp_path / 'runs'}"]
    writer = subprocess.Popen(
        [sys.executable, "-c", HANGING_WRITER, str(marker), *args],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not marker.exists():
            assert writer.poll() is None, f"train.py ended before its second checkpoint: {writer.stderr.read()}"
            assert time.monotonic() < deadline, "no second checkpoint within 300 s"
            time.sleep(0.1)
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait(timeout=60)
    assert writer.returncode == -signal.SIGKILL
    (run,) = (tmp_path / "runs").iterdir()
    torn = Path(marker.read_text(encoding="utf-8")).parent
    assert torn.exists() and torn.name.startswith(".step_") and torn.name.endswith(".partial")
    (first,) = (run / "checkpoints").glob("step_*")  # the killed one is not among them
    assert not (run / "final").exists()
    assert latest_checkpoint(run) == first
    started = json.loads((first / "trainer.json").read_text(encoding="utf-8"))["num_timesteps"]

    stdout = run_train(tmp_path / "runs", "--resume", str(run), "--set", "total_timesteps=600", timeout=300)
    assert f"from its last whole checkpoint, {first}" in stdout
    final = json.loads((run / "final" / "trainer.json").read_text(encoding="utf-8"))
    assert final["num_timesteps"] >= 600 > started
    kept = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert len(kept) == 2 and all(name.startswith("step_") for name in kept), kept  # keep_checkpoints=2, no leftover
    assert not first.exists() and not torn.exists()  # the oldest pruned, the killed write's folder removed
    assert latest_checkpoint(run) == run / "final"
