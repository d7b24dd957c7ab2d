"""Training configs by name: the recipes shipped in ``sam_env.configs``, or a YAML file by its path.

``python train.py --config sb3`` runs the recipe ``sb3.yaml`` wherever sam-env is installed (the
repository's ``configs/``, installed as package data), from any folder; ``--config path/to/run.yaml``
runs that file. A spec without a folder is a name only when no such file is in the current folder, so
a file of one's own keeps its meaning.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .config import ConfigError

RECIPES = "sam_env.configs"
SUFFIX = ".yaml"


def recipe_names() -> list[str]:
    """The shipped recipes' names: ``default``, ``sb3``, ..."""
    return sorted(
        entry.name.removesuffix(SUFFIX) for entry in resources.files(RECIPES).iterdir() if entry.name.endswith(SUFFIX)
    )


def recipe_path(name: str) -> Path:
    """The installed file of the recipe ``name`` (``ConfigError`` naming the recipes if there is none)."""
    entry = resources.files(RECIPES) / f"{name.removesuffix(SUFFIX)}{SUFFIX}"
    if not entry.is_file():
        raise ConfigError(f"no shipped recipe is named {name!r}; the recipes: {', '.join(recipe_names())}")
    return Path(str(entry))  # a folder of site-packages (or of the checkout, installed editable)


def config_path(spec: str | Path) -> Path:
    """The config file ``spec`` means: an existing file, else the recipe of that name (``default``, ``sb3.yaml``).

    A spec with a folder in it is always a path: a missing one is an error that says what exists.
    """
    path = Path(spec)
    if path.is_file():
        return path
    if path.parent == Path(".") and path.suffix in ("", SUFFIX):
        return recipe_path(path.name)
    raise ConfigError(
        f"config file {str(path)!r} does not exist (a shipped recipe is named without a folder: "
        f"{', '.join(recipe_names())})"
    )
