"""Each extra, installed alone, runs what its docs page gives: read from the package's own metadata.

For every extra, the modules its documented commands run (:data:`COMMANDS`) are read, with every sam_env module
they import at their top level (an import inside a function, under ``TYPE_CHECKING`` or in a ``try`` that catches
``ImportError`` is a lazy or optional one, which the code reports itself). Each third-party package imported so must
come with the extra: from sam-env's own requirements, the extra's, the extras it names (``sam-env[train]``) and,
transitively, their requirements as the installed distributions declare them. This is what a fresh ``pip install
".[EXTRA]"`` would install; CI installs ``[dev,rllib]``, which hides a missing one (``[rllib]`` once lacked
stable-baselines3, which every trainer's module imports).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

COMMANDS: dict[str, tuple[str, ...]] = {
    "train": (  # python train.py (every trainer but the extras' own), sam-exploit: docs/training.md, docs/installing.md
        "sam_env.training.run_script",
        "sam_env.training.batched.run",
        "sam_env.training.dmc.run",
        "sam_env.training.sb3",
        "sam_env.training.expert",
        "sam_env.training.nfsp",
        "sam_env.training.rollout_advantage",
        "sam_env.apps.exploit",
    ),
    "rllib": (  # trainer: rllib, tables: ray for dmc and batched, sam-eval --ray: docs/rllib.md
        "sam_env.training.run_script",
        "sam_env.training.rllib.run",
        "sam_env.training.ray_actors.run",
        "sam_env.training.dmc.ray_tables",
        "sam_env.evaluation.ray_pool",
    ),
    "clients": ("sam_env.training.run_script", "sam_env.training.dqn.run"),  # trainer: dqn: docs/standard_algorithms.md
    "web": ("sam_env.apps.web.cli", "sam_env.apps.web.server"),  # sam-web: docs/web.md
    "mcp": ("sam_env.apps.mcp_server",),  # sam-mcp: docs/clients.md
    "llm": ("sam_env.agents.llm.agent", "sam_env.apps.evaluate"),  # sam-eval with openai:MODEL: docs/llm.md
}
"""Extra -> the modules its documented commands run."""


def _optional(node: ast.Try) -> bool:
    """A ``try`` whose handlers catch a missing module: what it imports is optional."""
    names = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
    return any(n in ("ImportError", "ModuleNotFoundError") or "ImportError" in n for n in names)


def top_level_imports(path: Path, module: str) -> set[str]:
    """Absolute names of what ``module`` (at ``path``) imports when it is imported (see the module docstring)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
                name = ".".join(p for p in (base, node.module or "") if p)
                found.add(name)
                found.update(f"{name}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try) and not _optional(node):
                visit(node.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


@cache
def _file_of(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return None if spec is None or not spec.origin or not spec.origin.endswith(".py") else Path(spec.origin)


def third_party_imports(modules: tuple[str, ...]) -> dict[str, str]:
    """Top-level third-party package -> the sam_env module that imports it, over the modules' import closure."""
    seen: set[str] = set()
    todo = list(modules)
    found: dict[str, str] = {}
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _file_of(module)
        if path is None:
            continue
        for name in top_level_imports(path, module):
            top = name.split(".")[0]
            if top == "sam_env":
                todo.append(name)
            elif top not in sys.stdlib_module_names and top != "__future__":
                found.setdefault(top, module)
    return found


@cache
def _requirements(distribution: str, extras: frozenset[str]) -> frozenset[str]:
    """The distributions installing ``distribution[extras]`` brings, itself included, by its declared requirements."""
    out = {distribution.lower()}
    try:
        declared = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return frozenset(out)
    for text in declared:
        requirement = Requirement(text)
        marker = requirement.marker
        wanted = marker is None or any(marker.evaluate({"extra": e}) for e in (*extras, ""))
        if wanted:
            out |= _requirements(requirement.name, frozenset(requirement.extras))
    return frozenset(out)


def provided(extra: str) -> set[str]:
    """Every distribution ``pip install "sam-env[EXTRA]"`` installs, by name (lower case)."""
    return {name.replace("_", "-") for name in _requirements("sam-env", frozenset({extra}))}


def _distributions_of(top: str) -> set[str]:
    return {d.lower().replace("_", "-") for d in metadata.packages_distributions().get(top, [])}


@pytest.mark.parametrize("extra", sorted(COMMANDS))
def test_an_extra_alone_provides_every_package_its_commands_import(extra: str) -> None:
    if extra not in (metadata.metadata("sam-env").get_all("Provides-Extra") or []):
        pytest.fail(f"pyproject.toml has no extra {extra!r}")
    have = provided(extra)
    missing = {
        top: module
        for top, module in third_party_imports(COMMANDS[extra]).items()
        if _distributions_of(top) and not _distributions_of(top) & have
    }
    assert not missing, f"pip install sam-env[{extra}] lacks what these import: {missing}"


def test_the_reader_follows_sam_env_imports_and_skips_lazy_and_optional_ones(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import numpy\nfrom .sibling import thing\ntry:\n    import torch\nexcept ImportError:\n    torch = None\n"
        "def later():\n    import ray\nif TYPE_CHECKING:\n    import yaml\n"
    )
    found = top_level_imports(source, "sam_env.pkg.m")
    assert {"numpy", "sam_env.pkg.sibling", "sam_env.pkg.sibling.thing"} <= found
    assert not found & {"torch", "ray", "yaml"}
    assert "stable_baselines3" in third_party_imports(("sam_env.training.dmc.run",))  # the logger, at the top
