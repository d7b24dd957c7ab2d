"""Every command line answers bad arguments with a usage error — exit code 2 and one message naming what
was wrong — before it plays, trains or writes anything, never with a traceback: sam-eval, sam-play,
sam-exploit, sam-web and train.py, in process (fast) and once each as the installed command a user runs."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from policy_files import ROOT

pytestmark = [pytest.mark.train, pytest.mark.web]  # sam-exploit and train.py train; sam-web serves


def _files(folder: Path) -> dict[str, str]:
    files = {
        "huge.yaml": "card_value: 1" + "0" * 309 + "\n",
        "nan.yaml": "card_value: .nan\n",
        "list.yaml": "- 1\n",
        "broken.yaml": "{nope: [\n",
        "deep.json": "[" * 3000,
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "binary.yaml").write_bytes(b"\xff\xfe\x00")
    return {name.split(".")[0]: str(folder / name) for name in [*files, "binary.yaml"]}


CASES: list[tuple[str, list[str], str]] = [
    # (command, arguments; {name} is a file of _files, what the message says)
    ("sam-eval", ["--candidates", "heuristic", "--deals", "0"], "--deals must be at least 1"),
    ("sam-eval", ["--candidates", "heuristic", "--deals", "x"], "invalid int value"),
    ("sam-eval", ["--candidates", "heuristic", "--workers", "-3"], "--workers must be at least 1"),
    ("sam-eval", ["--candidates", "heuristic", "--seed", "-1"], "--seed must be an int >= 0"),
    ("sam-eval", ["--candidates", "heuristic", "--players", "9"], "n_players = 9 is not allowed"),
    ("sam-eval", ["--candidates", "heuristic", "--rules", "{huge}"], "expected an int from 0 to 1000"),
    ("sam-eval", ["--candidates", "heuristic", "--rules", "{nan}"], "card_value = nan is not allowed"),
    ("sam-eval", ["--candidates", "heuristic", "--rules", "{list}"], "must hold a mapping"),
    ("sam-eval", ["--candidates", "heuristic", "--rules", "{broken}"], "is not valid yaml"),
    ("sam-eval", ["--candidates", "heuristic", "--rules", "{binary}"], "cannot be read as UTF-8 text"),
    ("sam-eval", ["--candidates", "heuristic", "--rules", "/nonexistent.yaml"], "does not exist"),
    (
        "sam-eval",
        ["--candidates", "heuristic", "greedy", "--out", "/proc/no/such"],
        "cannot write the results to --out",
    ),
    ("sam-eval", ["--candidates", "nobody"], "unknown agent name"),
    ("sam-eval", ["--candidates", "missing.py:Bot"], "no such file"),
    ("sam-eval", ["--candidates", "no_such_module:Bot"], "cannot import module"),
    ("sam-eval", ["--deals", "3"], "--candidates"),
    ("sam-play", ["--players", "1"], "n_players = 1 is not allowed"),
    ("sam-play", ["--seat", "7"], "--seat must be a seat from 0 to 3"),
    ("sam-play", ["--hands", "0"], "--hands must be at least 1"),
    ("sam-play", ["--seed", "-5"], "--seed must be an int >= 0"),
    ("sam-play", ["--rules", "{huge}"], "expected an int from 0 to 1000"),
    ("sam-play", ["--opponents", "nobody"], "unknown agent name"),
    ("sam-play", ["--record", "/proc/no/such/hands.jsonl"], "cannot record hands"),
    ("sam-exploit", ["--steps", "10"], "--bot"),
    ("sam-exploit", ["--bot", "heuristic"], "is not a network"),
    ("sam-exploit", ["--bot", "ppo", "--deals", "-1"], "--deals must be at least 1"),
    ("sam-exploit", ["--bot", "ppo", "--players", "9"], "n_players = 9 is not allowed"),
    ("sam-exploit", ["--bot", "ppo", "--out", "/proc/no/such/x.json"], "its folder does not exist"),
    ("sam-exploit", ["--bot", "ppo", "--set", "total_timesteps=x"], "total_timesteps = 'x' is not allowed"),
    ("sam-web", ["--port", "70000"], "--port must be from 0"),
    ("sam-web", ["--idle-minutes", "nan"], "--idle-minutes must be a positive number"),
    ("sam-web", ["--allow-host", "not a host"], "not a host name or address"),
    ("sam-web", ["--serve", "/nonexistent"], "not a folder"),
    ("train.py", ["--config", "{binary}"], "cannot be read as UTF-8 text"),
    ("train.py", ["--config", "{deep}"], "nested too deeply"),
    ("train.py", ["--config", "no_such_recipe"], "no shipped recipe is named"),
    ("train.py", ["--set", "total_timesteps=x"], "total_timesteps = 'x' is not allowed"),
    ("train.py", ["--set", "rules.card_value=1e400"], "expected an int from 0 to 1000"),
    ("train.py", ["--set", "keep_checkpoints=-1"], "keep_checkpoints = -1 is not allowed"),
    ("train.py", ["--resume", "/nonexistent/run"], "does not exist"),
    ("train.py", ["--nope"], "unrecognized arguments"),
]


def _mains() -> dict[str, Callable[[list[str]], int | None]]:
    from sam_env.apps import evaluate, exploit, play
    from sam_env.apps.web import cli
    from sam_env.training import run_script

    quiet_play = lambda argv: play.main(argv, stdin=io.StringIO(""), stdout=io.StringIO())  # noqa: E731
    return {"sam-eval": evaluate.main, "sam-play": quiet_play, "sam-exploit": exploit.main, "sam-web": cli.main,
            "train.py": run_script.main}  # fmt: skip


@pytest.fixture(scope="module")
def mains() -> dict[str, Callable[[list[str]], int | None]]:
    return _mains()


@pytest.mark.parametrize(("command", "argv", "says"), CASES, ids=[f"{c} {' '.join(a)}" for c, a, _ in CASES])
def test_a_bad_argument_is_a_usage_error(
    command: str, argv: list[str], says: str, mains: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing is written into the checkout, whatever happens
    argv = [a.format(**_files(tmp_path)) for a in argv]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = mains[command](argv)
        except SystemExit as exit_:
            code = exit_.code
    assert code == 2, err.getvalue()
    assert says in err.getvalue() and "error" in err.getvalue(), err.getvalue()
    assert "Traceback" not in err.getvalue()
    assert not (tmp_path / "runs").exists()  # no run was started


INSTALLED = [
    ("sam-eval", ["--candidates", "heuristic", "--deals", "0"]),
    ("sam-play", ["--seed", "-5"]),
    ("sam-exploit", ["--bot", "heuristic"]),
    ("sam-web", ["--port", "70000"]),
    ("train.py", ["--set", "total_timesteps=x"]),
]


@pytest.mark.parametrize(("command", "argv"), INSTALLED, ids=[c for c, _ in INSTALLED])
def test_the_installed_command_says_usage_without_a_traceback(command: str, argv: list[str], tmp_path: Path) -> None:
    if command == "train.py":
        line = [sys.executable, str(ROOT / "train.py")]
    else:
        found = shutil.which(command, path=str(Path(sys.executable).parent))
        assert found, f"{command} is not installed beside {sys.executable}"
        line = [found]
    out = subprocess.run([*line, *argv], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 2 and "error" in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_sam_web_without_the_web_extra_names_it_and_the_pip_command() -> None:
    """Starlette hidden from a fresh interpreter, as on the base install: sam-web's command line still reads, then
    it stops with the extra's install command (sam_env.utils.extras), not a traceback."""
    code = (
        "import sys\n"
        "sys.modules['starlette'] = None\n"
        "from sam_env.apps.web import cli\n"
        "sys.exit(cli.main(['--port', '0']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        'sam-web: error: sam-web needs the web extra (starlette is not installed): pip install -e ".[web]"'
    )
