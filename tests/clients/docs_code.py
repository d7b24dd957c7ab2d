"""The code of docs/clients.md's examples, for the tests that check what the page's recipes compute."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def example(heading: str) -> str:
    """The first ``python`` block under the page's ``## heading``."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(f"## {heading}\n") :]
    return re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)


def definitions(heading: str, *names: str) -> dict[str, Any]:
    """The imports of the example under ``heading`` and the named top-level functions and classes, run
    without the rest of it (its rollouts and updates): the namespace they live in."""
    tree = ast.parse(example(heading))
    keep = [
        node
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        or (isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names)
    ]
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(ast.Module(body=keep, type_ignores=[]), f"{PAGE.name}: {heading}", "exec"), namespace)
    missing = [name for name in names if name not in namespace]
    assert not missing, f"docs/clients.md, {heading}: no {missing}"
    return namespace
