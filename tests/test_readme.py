"""Every example of the README and of docs/*.md runs as written, or is marked as a fragment.

- ```` ```python ```` blocks run, each in a fresh namespace. A block right after a line
  ``<!-- fragment -->`` is a piece of a larger program: it is only compiled.
- ```` ```bash ```` blocks: every ``sam-eval``, ``sam-play``, ``sam-web`` and ``python train.py`` command is parsed by
  that program's own argument parser (running them takes minutes to hours).
- Other blocks (``text``, ``mermaid``, untagged) are diagrams and output, not code.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest
import torch

from apps import evaluate, play
from apps.web import cli as web

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(<!-- fragment -->\n)?```(\w*)\n(.*?)^```", flags=re.S | re.M)


def _blocks(language: str) -> list[tuple[str, int, bool, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(2) == language:
                line = text.count("\n", 0, match.start(3)) + 1
                found.append((page.relative_to(ROOT).as_posix(), line, bool(match.group(1)), match.group(3)))
    return found


PYTHON = _blocks("python")
BASH = _blocks("bash")


def _train_parser_args() -> object:
    spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines functions only; main() runs under __main__
    return module.parse_args


def test_every_page_has_examples() -> None:
    assert len(PYTHON) >= 5 and len(BASH) >= 4
    assert {page for page, *_ in PYTHON} >= {"README.md", "docs/ppo_bot.md"}


@pytest.mark.parametrize(("page", "line", "fragment", "code"), PYTHON, ids=[f"{p}:{n}" for p, n, *_ in PYTHON])
def test_python_example_runs(page: str, line: int, fragment: bool, code: str) -> None:
    compiled = compile(code, f"{page} python block at line {line}", "exec")
    if fragment:
        return
    torch.set_num_threads(1)  # the MaskablePPO example: torch's thread pool spin-waits on a busy 2-core CI box
    exec(compiled, {"__name__": "docs_example"})


@pytest.mark.parametrize(("page", "line", "fragment", "code"), BASH, ids=[f"{p}:{n}" for p, n, *_ in BASH])
def test_command_examples_parse(page: str, line: int, fragment: bool, code: str) -> None:
    parsers = {
        "sam-eval": evaluate.build_parser().parse_args,
        "sam-play": play.build_parser().parse_args,
        "sam-web": web.build_parser().parse_args,
        "python train.py": _train_parser_args(),
    }
    for command in code.splitlines():
        words = shlex.split(command, comments=True)
        for program, parse in parsers.items():
            if " ".join(words[: len(program.split())]) == program:
                parse(words[len(program.split()) :])  # SystemExit (with argparse's message) if it does not parse
