"""Old public names keep working for one release, each with a DeprecationWarning naming its new place.

The list matches CHANGELOG.md's "Deprecated" section. Each import runs in a fresh interpreter, so a
module-level warning is seen even though this process may already have imported the module.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

OLD_NAMES = [
    ("from sam_env import Policy", "sam_env.Bot", "Policy is Bot", "sam_env.bot"),
    ("from sam_env.policy import Policy", "sam_env.Bot", "Policy is Bot", "sam_env.bot"),
    ("from agents.base import Agent", "sam_env.Bot", "Agent is Bot", "sam_env.bot"),
    ("from agents.greedy_bot import GreedyAgent", "GreedyBot", "GreedyAgent is GreedyBot", "agents.greedy_bot"),
    ("from agents.human import HumanAgent", "HumanPlayer", "HumanAgent is HumanPlayer", "agents.human"),
    ("from agents.ppo_bot import PPOAgent", "agents.ppo.bot", "PPOAgent is PPOBot", "agents.ppo.bot"),
    ("from agents.checkpoint import load_policy", "agents.ppo.checkpoint", None, None),
    ("from agents.rules_options import check_bots", "apps.options", None, None),
    ("from agents.play import main", "apps.play", None, None),
    ("from evaluation.cli import main", "apps.evaluate", None, None),
]


def _program() -> str:
    """One interpreter imports every old name in turn (each old module once) and reports its warnings."""
    lines = ["import json, warnings", "report = {}"]
    for statement, _, identity, home in OLD_NAMES:
        old = statement.split()[-1]
        lines += [
            "with warnings.catch_warnings(record=True) as caught:",
            '    warnings.simplefilter("always")',
            f"    {statement}",
        ]
        if identity is not None:
            new_name = identity.split()[-1]
            lines.append(f"from {home or statement.split()[1]} import {new_name}")
            lines.append(f"assert {old} is {new_name}, {statement!r}")
        lines.append(f"report[{statement!r}] = [str(w.message) for w in caught if w.category is DeprecationWarning]")
    lines.append("print(json.dumps(report))")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def warnings_by_statement() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", _program()], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("statement", "new"), [(s, n) for s, n, *_ in OLD_NAMES], ids=[s for s, *_ in OLD_NAMES])
def test_an_old_name_still_imports_and_says_where_it_went(
    warnings_by_statement: dict[str, list[str]], statement: str, new: str
) -> None:
    messages = warnings_by_statement[statement]
    assert messages and all("deprecated and will be removed in the next release" in m for m in messages)
    assert any(new in m for m in messages)


def test_python_m_evaluation_still_runs_sam_eval() -> None:
    done = subprocess.run([sys.executable, "-m", "evaluation", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "sam-eval" in done.stdout
    assert "import apps.evaluate instead" in done.stderr
