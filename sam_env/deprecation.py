"""Old public names kept working for one release, with a ``DeprecationWarning`` that names the new one.

Every renamed or moved public name is listed in ``CHANGELOG.md``; a module keeps its old names by
setting ``__getattr__ = deprecated_names(__name__, {"Old": (New, "new.path.New")})`` (PEP 562), so
the old name costs nothing until someone uses it, and then says where it went.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping


def deprecated_names(module: str, names: Mapping[str, tuple[object, str]]) -> Callable[[str], object]:
    """A module ``__getattr__`` serving ``names`` (old name → (object, its new dotted name)) with a warning."""

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value, new = names[name]
        warnings.warn(
            f"{module}.{name} is deprecated and will be removed in the next release; use {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__


def warn_moved(old: str, new: str, *, blame_importer: bool = True) -> None:
    """Warn, from a module kept only for its old import path, that it moved to ``new``.

    The warning points at the code that imported the old module; ``blame_importer=False`` points at
    the old module itself, for a ``__main__`` run with ``python -m`` (Python shows deprecation
    warnings raised in ``__main__`` by default).
    """
    warnings.warn(
        f"module {old} is deprecated and will be removed in the next release; import {new} instead",
        DeprecationWarning,
        stacklevel=3 if blame_importer else 2,
    )
