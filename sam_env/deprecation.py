"""Old public names kept working for one release, with a ``DeprecationWarning`` that names the new one.

Every renamed or removed public name is listed in ``CHANGELOG.md``. A module keeps its old names by
setting ``__getattr__ = deprecated_names(__name__, {"Old": (New, "new.path.New")})`` (PEP 562), so
the old name costs nothing until someone uses it, and then says where it went; anything else old
(a config key, say) warns with :func:`warn_deprecated`. Both say the same words, which
``pyproject.toml`` turns into a test failure anywhere but in a test that expects them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping


def warn_deprecated(old: str, new: str, stacklevel: int = 2) -> None:
    """Warn that ``old`` is deprecated and goes with the next release; ``new`` says what to use instead."""
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def deprecated_names(module: str, names: Mapping[str, tuple[object, str]]) -> Callable[[str], object]:
    """A module ``__getattr__`` serving ``names`` (old name → (object, its new dotted name)) with a warning."""

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value, new = names[name]
        warn_deprecated(f"{module}.{name}", new)
        return value

    return __getattr__
