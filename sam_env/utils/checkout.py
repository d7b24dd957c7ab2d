"""``sam_env.agents`` and its siblings imported from a source checkout, however sam-env is installed.

The repository keeps ``agents/``, ``evaluation/``, ``training/``, ``apps/`` and ``configs/`` at its top level and
``pyproject.toml`` installs them as subpackages of ``sam_env`` (:data:`PACKAGE_DIR`, its ``package-dir``). A wheel
puts them inside ``site-packages/sam_env/``; an editable install maps them with an import hook. But at the top of a
checkout the current folder comes first on ``sys.path``, so Python imports the checkout's own ``sam_env/``, which
holds none of them: after a non-editable ``pip install .``, ``python -m sam_env.evaluation.leaderboard`` or
``sam_env.load_bot`` failed there with ``No module named 'sam_env.evaluation'``.

``sam_env/__init__.py`` calls :func:`serve_checkout_subpackages`: when ``sam_env`` was imported from a checkout
(its parent folder holds sam-env's ``pyproject.toml``) and the finders in place do not already serve that checkout's
folders (an editable install of it does), a finder serves each name of :data:`PACKAGE_DIR` from its folder there.
The checkout's ``sam_env`` is the one imported, so its own sibling folders are the consistent ones, whatever
version is installed. Imported from site-packages, nothing is installed; and a package folder that has the
subpackage inside it (a strict editable install's tree of links) is left to Python's own finder.
"""

from __future__ import annotations

import importlib.util
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path

PACKAGE_DIR = {
    "sam_env.agents": "agents",
    "sam_env.evaluation": "evaluation",
    "sam_env.training": "training",
    "sam_env.apps": "apps",
    "sam_env.configs": "configs",
}
"""``pyproject.toml``'s ``package-dir``: subpackage -> its folder at the top of the repository (a test holds the two
equal)."""
INIT = "__init__.py"
PROJECT_LINE = 'name = "sam-env"'
"""The line of ``pyproject.toml`` that says a folder is a checkout of sam-env."""


def checkout_root(package_folder: Path) -> Path | None:
    """The checkout that ``package_folder`` (the folder ``sam_env`` was imported from) sits at the top of, if any."""
    root = package_folder.parent
    try:
        pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if PROJECT_LINE in pyproject.splitlines() else None


class CheckoutFinder:
    """A meta-path finder: each subpackage of :data:`PACKAGE_DIR` is its folder of one checkout.

    Only the subpackages themselves: their modules are found by Python in the ``__path__`` each one gets.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folders = {name: root / folder for name, folder in PACKAGE_DIR.items() if (root / folder / INIT).is_file()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        folder = self.folders.get(fullname)
        if folder is None:
            return None
        child = fullname.rpartition(".")[2]
        if isinstance(path, list) and any(Path(entry, child, INIT).is_file() for entry in path):
            return None  # the package has it inside, as installed: Python's own finder serves it
        return importlib.util.spec_from_file_location(fullname, folder / INIT, submodule_search_locations=[str(folder)])


def served_from(root: Path) -> bool:
    """Whether the finders in place already import every subpackage from ``root``'s folders (an editable install
    of this checkout does); nothing is imported to see it."""
    for name, folder in PACKAGE_DIR.items():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return False
        if spec is None or spec.origin is None or Path(spec.origin).resolve() != (root / folder / INIT).resolve():
            return False
    return True


def serve_checkout_subpackages(package_folder: Path) -> CheckoutFinder | None:
    """Serve :data:`PACKAGE_DIR` from the checkout that ``package_folder`` (``sam_env``'s folder) sits in, if needed.

    Nothing is done outside a checkout, or when the installed finders serve this checkout's folders already (an
    editable install of it). Otherwise the finder goes first on ``sys.meta_path``, so that no other install's hook
    (an editable install of another checkout) serves a different version beside this ``sam_env``; once per
    checkout. Returns the finder in place, if any.
    """
    root = checkout_root(package_folder)
    if root is None:
        return None
    for finder in sys.meta_path:  # by name: a test that imports sam_env afresh makes the class afresh
        if type(finder).__name__ == CheckoutFinder.__name__ and getattr(finder, "root", None) == root:
            return finder  # type: ignore[return-value]
    if served_from(root):
        return None
    finder = CheckoutFinder(root)
    sys.meta_path.insert(0, finder)
    return finder
