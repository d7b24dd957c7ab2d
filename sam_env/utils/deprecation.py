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


MOVED_PACKAGES = ("agents", "evaluation", "training", "apps")
"""The repository's top-level folders that install as ``sam_env.<name>`` since 0.3.0 (see the CHANGELOG)."""


def redirect_moved_package(
    old: str,
    new: str | None = None,
    moved_names: Mapping[str, Mapping[str, tuple[Callable[[], object], str]]] | None = None,
    moved_modules: Mapping[str, str] | None = None,
) -> None:
    """Serve the package ``old`` (and its submodules) as the package ``new``, with a warning.

    Its ``__init__`` calls this when the package is imported by its old name. It swaps in the ``new``
    module itself and installs a finder that hands out ``<new>.x`` for ``<old>.x``, so no module is
    ever loaded twice (two registries, two classes of one name). Two moves use it:

    * the pre-0.3 top-level packages (``new`` left out: ``sam_env.<old>``). Installing sam-env no longer
      puts ``agents``, ``evaluation``, ``training`` or ``apps`` into site-packages: owning those generic
      names overwrote other distributions' files. In a source checkout the folders still sit on
      ``sys.path`` when Python runs from the repository root;
    * the networks' packages of 0.3 (``sam_env.agents.ppo`` and ``sam_env.agents.qnet``), which moved
      under ``sam_env.agents.networks`` in 0.4.

    ``moved_names``: names that left a submodule in the move, by submodule
    (``{"bot": {"old_name": (get, "its.new.name")}}``): that submodule serves them with a warning naming the old
    path (a module ``__getattr__``, PEP 562), only once the old package has been imported, so the new modules carry
    nothing of their past and import nothing to serve it. ``moved_modules``: submodules that went elsewhere than
    ``<new>.x`` (``{"features": "sam_env.move_features"}``), served as that module with a warning.
    """
    import importlib
    import sys

    if new is None:
        new = f"sam_env.{old}"
        warn_deprecated(f"the top-level package {old!r}", f"{new!r} (installed sam-env no longer owns {old!r})", 3)
    else:
        warn_deprecated(f"the package {old!r}", f"{new!r}", 3)
    if not any(isinstance(f, _MovedPackageFinder) and f.old == old for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedPackageFinder(old, new, dict(moved_modules or {})))
    sys.modules[old] = importlib.import_module(new)
    for submodule, names in (moved_names or {}).items():
        _serve_moved_names(importlib.import_module(f"{new}.{submodule}"), f"{old}.{submodule}", names)


def _serve_moved_names(module: object, old: str, names: Mapping[str, tuple[Callable[[], object], str]]) -> None:
    """Give ``module`` a ``__getattr__`` that serves ``names`` (each built on first use) with a warning that names
    them by their old module ``old``."""

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")  # type: ignore[attr-defined]
        get, new = names[name]
        warn_deprecated(f"{old}.{name}", new)
        return get()

    module.__getattr__ = __getattr__  # type: ignore[attr-defined]


class _MovedPackageFinder:
    """A meta-path finder and loader: ``<old>.x.y`` is the module ``<new>.x.y``, the very same object."""

    def __init__(self, old: str, new: str, elsewhere: dict[str, str] | None = None) -> None:
        self.old, self.new = old, new
        self.elsewhere = {f"{old}.{sub}": target for sub, target in (elsewhere or {}).items()}

    def _new_name(self, fullname: str) -> str:
        if fullname in self.elsewhere:
            return self.elsewhere[fullname]
        return self.new + fullname[len(self.old) :]

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        import importlib.util

        if not fullname.startswith(self.old + "."):
            return None
        real = importlib.util.find_spec(self._new_name(fullname))
        if real is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=real.submodule_search_locations is not None)

    def create_module(self, spec: object) -> object:
        import importlib

        name = spec.name  # type: ignore[attr-defined]
        if name in self.elsewhere:
            warn_deprecated(f"the module {name!r}", f"{self.elsewhere[name]!r}", 4)
        module = importlib.import_module(self._new_name(name))
        self._real_spec = module.__spec__
        return module

    def exec_module(self, module: object) -> None:
        # The import system stamped the alias spec on the shared module; give it back its own.
        module.__spec__ = self._real_spec  # type: ignore[attr-defined]

    def get_code(self, fullname: str) -> object:
        """For ``python -m <old>.x``: the code of ``<new>.x``."""
        import importlib.util

        real = importlib.util.find_spec(self._new_name(fullname))
        return real.loader.get_code(real.name)  # type: ignore[union-attr]
