"""Every example of the README and of the docs pages (docs/**/*.md) runs as written, or is marked as a fragment.

- ```` ```python ```` blocks run, each in a fresh namespace. A block right after a line
  ``<!-- fragment -->`` is a piece of a larger program: it is only compiled.
- ```` ```bash ```` / ```` ```sh ```` / ```` ```shell ```` / ```` ```console ```` blocks (indented ones in
  lists included): every command is checked. Our programs (``sam-eval``, ``sam-play``,
  ``sam-exploit``, ``sam-web``, ``python train.py``, ``python -m apps.…``) are parsed by their own argument
  parsers (running them takes minutes to hours), ``python -c`` code is compiled, and the other
  programs must be ones the docs are known to use (pip, pytest, ray …). A command that is none of
  these fails the test: a new kind of command needs a parser here, not a blind eye.
- Other blocks (``text``, ``mermaid``, untagged) are diagrams and output, not code.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import torch

from sam_env.agents.llm import stand_in
from sam_env.apps import evaluate, exploit, play
from sam_env.apps.web import cli as web
from sam_env.evaluation import dataset
from sam_env.training import cli
from sam_env.training.config import ConfigError
from sam_env.training.recipes import recipe_names
from sam_env.training.run_script import DEFAULT_CONFIG
from sam_env.training.trainers import load_config

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
"""The README and every docs page, those of the results section (``docs/results/``) included."""
FENCE = re.compile(
    r"^(?P<fragment><!-- fragment -->\n)?(?P<indent>[ \t]*)```(?P<lang>\w*)\n(?P<code>.*?)^(?P=indent)```",
    flags=re.S | re.M,
)
SHELLS = ("bash", "sh", "shell", "console")


def check_train_command(args: Sequence[str]) -> object:
    """Parse a ``python train.py`` command and, unless it resumes a run, build its config as ``train.py`` would:
    a ``--set`` that the recipe's trainer does not have fails here, not in a reader's shell. A config named by a
    path that is not in the repository (``path/to/my_run.yaml``) is only parsed."""
    parsed = cli.parse_args(args)
    config = parsed.config or DEFAULT_CONFIG
    if parsed.resume is None and (config in recipe_names() or (ROOT / config).is_file()):
        load_config(config if config in recipe_names() else ROOT / config, parsed.overrides)
    return parsed


PARSERS: dict[str, Callable[[Sequence[str]], object]] = {
    "sam-eval": evaluate.build_parser().parse_args,
    "sam-play": play.build_parser().parse_args,
    "sam-exploit": exploit.build_parser().parse_args,
    "sam-web": web.build_parser().parse_args,
    "python train.py": check_train_command,
    "python -m sam_env.apps.evaluate": evaluate.build_parser().parse_args,
    "python -m sam_env.apps.play": play.build_parser().parse_args,
    "python -m sam_env.agents.llm.stand_in": stand_in.build_parser().parse_args,
    "python -m sam_env.evaluation.dataset": dataset.build_parser().parse_args,
}
"""Our programs, by the words that start their command, and what parses the rest of it."""
EXTERNAL = (
    "pip",
    "pytest",
    "tensorboard",
    "ray",
    "git",
    "cd",
    ".",
    "source",
    "python -m venv",
    "mkdocs",
    "vllm",  # docs/llm.md: the servers a language model is served by
    "llama-server",
    "nohup",
    "grep",
)
"""Other people's programs the docs run: checked by their authors, not here."""


def _blocks(languages: tuple[str, ...]) -> list[tuple[str, int, bool, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group("lang") in languages:
                line = text.count("\n", 0, match.start("code")) + 1
                indent = match.group("indent")
                code = "".join(row.removeprefix(indent) for row in match.group("code").splitlines(keepends=True))
                found.append((page.relative_to(ROOT).as_posix(), line, bool(match.group("fragment")), code))
    return found


PYTHON = _blocks(("python",))
SHELL = _blocks(SHELLS)


def commands(code: str) -> list[list[str]]:
    """The commands of a shell block as word lists: comments and continuation lines joined, chains
    (``&&``, ``||``, ``;``, ``|``) split, leading ``VAR=value`` assignments and ``$`` prompts dropped."""
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        words: list[str] = []
        for word in [*shlex.split(line, comments=True), "&&"]:
            if word in ("&&", "||", ";", "|"):
                while words and (re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]) or words[0] == "$"):
                    words.pop(0)
                if words:
                    out.append(words)
                words = []
            else:
                words.append(word)
    return out


def check_command(words: list[str]) -> str:
    """Parse one command with its program's parser (SystemExit with argparse's message if it does not
    parse); return how it was checked. Raise AssertionError for a command nobody can check."""
    words = ["python", *words[1:]] if words[0] == "python3" else words
    for program, parse in PARSERS.items():
        n = len(program.split())
        if " ".join(words[:n]) == program:
            parse(words[n:])
            return program
    if words[:2] == ["python", "-c"] and len(words) == 3:
        compile(words[2], "python -c", "exec")
        return "python -c"
    for program in EXTERNAL:
        n = len(program.split())
        if " ".join(words[:n]) == program:
            return program
    raise AssertionError(f"cannot parse the command {shlex.join(words)!r}: add its program to PARSERS or EXTERNAL")


def test_every_page_has_examples() -> None:
    assert len(PYTHON) >= 5 and len(SHELL) >= 4
    assert {page for page, *_ in PYTHON} >= {"README.md", "docs/networks.md"}
    checked = {check_command(words) for *_, code in SHELL for words in commands(code)}
    assert {"python train.py", "sam-eval", "sam-play", "pip"} <= checked


@pytest.mark.parametrize(("page", "line", "fragment", "code"), PYTHON, ids=[f"{p}:{n}" for p, n, *_ in PYTHON])
def test_python_example_runs(page: str, line: int, fragment: bool, code: str) -> None:
    compiled = compile(code, f"{page} python block at line {line}", "exec")
    if fragment:
        return
    torch.set_num_threads(1)  # the MaskablePPO example: torch's thread pool spin-waits on a busy 2-core CI box
    exec(compiled, {"__name__": "docs_example"})


@pytest.mark.parametrize(("page", "line", "fragment", "code"), SHELL, ids=[f"{p}:{n}" for p, n, *_ in SHELL])
def test_every_shell_command_parses(page: str, line: int, fragment: bool, code: str) -> None:
    found = commands(code)
    assert found, f"{page}:{line}: a shell block without a command"
    for words in found:
        check_command(words)


def test_the_checker_refuses_what_it_cannot_parse() -> None:
    """It must fail, not skip: an unknown program, a bad option of ours, and a broken ``python -c``."""
    assert commands("A=1 B=2 python train.py --set x=1 && cd runs  # comment\n$ sam-play \\\n  --seat 2") == [
        ["python", "train.py", "--set", "x=1"],
        ["cd", "runs"],
        ["sam-play", "--seat", "2"],
    ]
    with pytest.raises(AssertionError, match="cannot parse the command 'make docs'"):
        check_command(["make", "docs"])
    with pytest.raises(SystemExit):
        check_command(["python", "train.py", "--no-such-option"])
    with pytest.raises(ConfigError, match="another trainer"):  # a field of the self-play recipe, not of the default
        check_command(["python", "train.py", "--set", "learner_share=0.5"])
    check_command(["python", "train.py", "--config", "self_play", "--set", "learner_share=0.5"])
    with pytest.raises(SystemExit):
        check_command(["sam-eval", "--deals", "many"])
    with pytest.raises(SyntaxError):
        check_command(["python", "-c", "import ("])
