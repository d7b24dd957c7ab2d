"""``train.py --resume RUN_DIR`` on a run stopped before its first checkpoint (issue 43): the refusal says that the
run has no checkpoint yet and where it looked, for every trainer that resumes, and writes nothing.

The run folder is built as a run leaves it then: its ``config.yaml`` (written first), its TensorBoard events, and
perhaps the hidden folder of a first checkpoint whose write was killed. No training is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sam_env.training.checkpoints import read_trainer_state
from sam_env.training.config import ConfigError
from sam_env.training.run_script import main
from sam_env.training.trainers import TRAINERS, config_from_dict

RESUMING = [name for name, trainer in TRAINERS.items() if trainer.resumes]


def stopped_run(runs: Path, trainer: str, killed_writing: bool) -> Path:
    """A run folder of ``trainer`` as a run stopped before its first whole checkpoint leaves it."""
    run = runs / f"{trainer}__s0__20260101-000000"
    run.mkdir(parents=True)
    config = config_from_dict({"trainer": trainer}).to_dict()
    (run / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (run / "events.out.tfevents.1767225600.host.1234.0").write_bytes(b"\x00" * 16)
    if killed_writing:  # killed while writing step_N: only the hidden folder of the write is left
        (run / "checkpoints" / ".step_000000100.x1y2.partial").mkdir(parents=True)
        (run / "checkpoints" / ".step_000000100.x1y2.partial" / "policy.json").write_text("{", encoding="utf-8")
    return run


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("killed_writing", [False, True], ids=["stopped", "killed-writing"])
@pytest.mark.parametrize("trainer", RESUMING)
def test_a_run_stopped_before_its_first_checkpoint_has_nothing_to_resume(
    trainer: str, killed_writing: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = stopped_run(tmp_path / "runs", trainer, killed_writing)
    before = files_of(tmp_path)
    assert main(["--resume", str(run)]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert error.startswith(f"error: {run} has no checkpoint yet: nothing to resume in {run / 'checkpoints'} or ")
    assert "stopped before its first checkpoint" in error and "checkpoint_every" in error
    assert f"python train.py --config {run / 'config.yaml'}" in error
    assert "trainer state" not in error and "FileNotFoundError" not in error
    assert files_of(tmp_path) == before, "a refused resume writes nothing"


def test_a_trainer_given_the_run_folder_itself_says_the_same(tmp_path: Path) -> None:
    """Each trainer reads its checkpoint's state with read_trainer_state (``train(config, run_dir, resume)``)."""
    run = stopped_run(tmp_path, "dmc", killed_writing=False)
    with pytest.raises(ConfigError, match="has no checkpoint yet"):
        read_trainer_state(run)


def test_a_folder_that_is_no_run_keeps_its_own_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "not_a_run"
    empty.mkdir()
    assert main(["--resume", str(empty)]) == 2
    error = capsys.readouterr().err
    assert f"config file '{empty / 'config.yaml'}' does not exist" in error and "no checkpoint yet" not in error
    with pytest.raises(ConfigError, match="cannot read the trainer state"):
        read_trainer_state(empty)
