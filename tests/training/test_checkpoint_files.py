"""Checkpoint folders written whole or not at all, pruned to ``keep_checkpoints``, and the last whole one of a
run found for ``--resume RUN_DIR`` (past what a killed write or an older release left)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from policy_files import write_checkpoint
from safetensors.numpy import save_file

from sam_env.training.checkpoints import (
    latest_checkpoint,
    prune_checkpoints,
    resume_folder,
    step_folder,
    whole_folder,
    written_whole,
)
from sam_env.training.config import ConfigError


def fake_checkpoint(folder: Path, step: int) -> Path:
    """A folder with what every resumable trainer writes: policy, trainer state, config."""
    write_checkpoint(folder)
    save_file({"rng": np.zeros(3, dtype=np.float32)}, str(folder / "trainer.safetensors"))
    (folder / "trainer.json").write_text(json.dumps({"trainer": "batched", "num_timesteps": step}), encoding="utf-8")
    (folder / "config.yaml").write_text("trainer: batched\n", encoding="utf-8")
    return folder


def test_a_folder_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "checkpoints" / "step_000000100"
    with pytest.raises(RuntimeError, match="killed"), whole_folder(target) as temp:
        (temp / "policy.json").write_text("{}", encoding="utf-8")
        assert not target.exists() and temp.name.startswith(".step_000000100.")
        raise RuntimeError("killed while writing")
    assert not target.exists() and list(target.parent.iterdir()) == []
    with whole_folder(target) as temp:
        (temp / "a").write_text("new", encoding="utf-8")
    assert (target / "a").read_text(encoding="utf-8") == "new" and list(target.parent.iterdir()) == [target]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o777 & ~umask  # readable by others, like any new folder
    with whole_folder(target) as temp:  # a folder already there is replaced as a whole
        (temp / "b").write_text("newer", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == ["b"] and list(target.parent.iterdir()) == [target]


def test_a_writer_returns_the_path_its_file_has_in_place(tmp_path: Path) -> None:
    @written_whole
    def save(folder: Path, text: str) -> Path:
        (folder / "policy.json").write_text(text, encoding="utf-8")
        return folder / "policy.json"

    written = save(tmp_path / "final", "{}")
    assert written == tmp_path / "final" / "policy.json" and written.read_text(encoding="utf-8") == "{}"


def test_only_the_newest_checkpoints_are_kept_with_nothing_a_killed_write_left(tmp_path: Path) -> None:
    for step in (100, 200, 300, 400, 1000):
        step_folder(tmp_path, step).mkdir(parents=True)
    (tmp_path / "checkpoints" / ".step_000000500.x1.partial").mkdir()
    (tmp_path / ".final.x2.old").mkdir()
    (tmp_path / "final").mkdir()
    gone = prune_checkpoints(tmp_path, keep=2)
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["step_000000400", "step_000001000"]
    assert len(gone) == 5 and (tmp_path / "final").is_dir() and not (tmp_path / ".final.x2.old").exists()
    assert prune_checkpoints(tmp_path, keep=0) == []  # 0 keeps every one


def test_the_last_whole_checkpoint_of_a_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    for step in (100, 200):
        fake_checkpoint(step_folder(run, step), step)
    legacy = step_folder(run, 300)  # an older release's write killed before trainer.json
    write_checkpoint(legacy)
    torn = fake_checkpoint(step_folder(run, 400), 400)  # weights cut short: their hash no longer matches
    weights = torn / "policy.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    (run / "checkpoints" / ".step_000000500.abc.partial").mkdir()  # a write killed now
    assert latest_checkpoint(run) == step_folder(run, 200)
    assert resume_folder(run) == step_folder(run, 200)
    assert resume_folder(step_folder(run, 100)) == step_folder(run, 100)  # a checkpoint names itself
    fake_checkpoint(run / "final", 200)
    assert latest_checkpoint(run) == run / "final"  # final/ before a step_N of as many steps


def test_a_run_without_a_whole_checkpoint_is_refused_naming_what_it_found(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_checkpoint(step_folder(run, 300))
    with pytest.raises(ConfigError, match=r"no whole checkpoint to resume from \(found step_000000300 \(no trainer"):
        resume_folder(run)
