"""Each trainer is a folder of training/ that the registry names and the package docstring lists, and no trainer
imports another's folder: what several trainers use lives in training/common/ (or beside it in training/), so a
trainer can change or go without breaking the others. The imports are read from the sources (lazy ones too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "training"
PACKAGE = "sam_env.training"
SHARED_FOLDERS = {"common"}
"""Folders of training/ that are no trainer: the pieces the trainers share."""
REGISTRY = TRAINING / "trainers.py"
"""The one module that imports every trainer (a config's ``trainer:`` key picks one)."""
EXTENDS = {"ray_actors": {"batched"}}
"""Trainer folders that are another trainer run differently, not a trainer of their own: ``ray_actors`` is the
batched trainer with its tables in Ray actors (``tables: ray``) — its loop, rollouts, PPO update and checkpoints are
``batched``'s own, not a second copy (docs/rllib.md) — so it imports ``batched``, and only the registry imports it."""


def _folders() -> set[str]:
    return {p.parent.name for p in TRAINING.glob("*/__init__.py")}


def _trainer_folders() -> set[str]:
    return _folders() - SHARED_FOLDERS


def _module_name(path: Path) -> str:
    """``training/dmc/selfplay.py`` -> ``sam_env.training.dmc.selfplay`` (``__init__.py``: the package)."""
    parts = path.relative_to(TRAINING).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Absolute names of what ``source`` (the code of ``module``) imports, at the top or inside functions;
    ``from package import name`` counts as importing ``package`` and ``package.name`` (a module, maybe)."""
    package = module if is_package else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
            name = ".".join(p for p in (base, node.module or "") if p)
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


def trainer_folders_imported(path: Path) -> set[str]:
    """The trainer folders of training/ that the module at ``path`` imports (its own included)."""
    names = imported_modules(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")
    return {
        folder
        for folder in _trainer_folders()
        for name in names
        if name == f"{PACKAGE}.{folder}" or name.startswith(f"{PACKAGE}.{folder}.")
    }


def test_the_import_reader_resolves_relative_lazy_and_package_imports() -> None:
    source = (
        "from ..batched.rollout import RolloutBuffer\n"
        "from .. import dmc\n"
        "def later():\n"
        "    import sam_env.training.sb3.run\n"
    )
    found = imported_modules(source, "sam_env.training.expert.distill")
    assert {"sam_env.training.batched.rollout", "sam_env.training.dmc", "sam_env.training.sb3.run"} <= found
    assert "sam_env.training.expert" in imported_modules("from . import config", "sam_env.training.expert", True)


def test_every_trainer_folder_is_in_the_registry() -> None:
    """The folders of training/ are the trainers the registry imports, and the shared folders."""
    registered = trainer_folders_imported(REGISTRY)
    assert registered == _trainer_folders(), f"not in the registry: {_trainer_folders() - registered}"
    assert SHARED_FOLDERS <= _folders()


@pytest.mark.parametrize("folder", sorted(_trainer_folders()))
def test_no_trainer_imports_another_trainers_folder(folder: str) -> None:
    allowed = {folder} | EXTENDS.get(folder, set())
    offenders = {
        f"{path.relative_to(ROOT)} imports training/{other}/"
        for path in sorted((TRAINING / folder).rglob("*.py"))
        for other in trainer_folders_imported(path) - allowed
    }
    assert not offenders, f"move what they share into training/common/: {sorted(offenders)}"
    used = set().union(*(trainer_folders_imported(p) for p in (TRAINING / folder).rglob("*.py"))) - {folder}
    assert used == EXTENDS.get(folder, set()), f"EXTENDS is out of date for {folder}: it imports {used or 'none'}"


def test_the_shared_modules_import_no_trainer() -> None:
    """training/common/ and the modules beside the folders serve every trainer; only the registry names them."""
    shared = [p for p in TRAINING.glob("*.py") if p != REGISTRY]
    shared += [p for folder in SHARED_FOLDERS for p in (TRAINING / folder).rglob("*.py")]
    offenders = {
        f"{path.relative_to(ROOT)} imports training/{other}/"
        for path in sorted(shared)
        for other in trainer_folders_imported(path)
    }
    assert not offenders, sorted(offenders)


def test_the_package_docstring_names_every_trainer() -> None:
    """training/__init__.py lists every trainer of the registry, one line each, with the folder that holds it."""
    import sam_env.training
    from sam_env.training.trainers import TRAINERS

    lines = (sam_env.training.__doc__ or "").splitlines()
    for name, trainer in TRAINERS.items():
        folder = trainer.config.__module__.split(".")[2]  # the folder that holds its config and its loop
        listed = [line for line in lines if line.startswith(f"* ``{name}``")]
        assert len(listed) == 1, f"trainer {name!r}: {len(listed)} lines start with * ``{name}`` in its docstring"
        assert f":mod:`.{folder}`" in listed[0], f"trainer {name!r}: its line names no :mod:`.{folder}`"
