"""A griffe extension: the docstrings' Sphinx roles as links of the docs site's API reference.

The docstrings cite other objects the reStructuredText way (``:class:`~sam_env.core.Hand```,
``:func:`.tournament.run_matches```, ``:mod:`.combos```), which mkdocstrings leaves as literal text.
This extension rewrites each role, when griffe loads a docstring, as a cross-reference of
mkdocs-autorefs, ``[`Hand`][sam_env.core.game.Hand]``, so the API reference links it:

- the target is resolved as Sphinx does: an absolute path; a name in the scope of the documented
  object (its imports included); a leading ``.`` for a path relative to the module or one of the
  packages above it; ``~`` shows only the last part;
- a target of this project that resolves becomes a cross-reference. If its page does not render it,
  autorefs warns and the strict build (``tests/test_docs_site.py``) fails: a bad cross-reference is
  an error, not a quiet dead link;
- a private target (a part starting with ``_``) or another library's (numpy, torch …) stays code;
- a target that resolves to nothing is reported as a warning, which fails the strict build too.

Configured in ``mkdocs.yml`` (``plugins: mkdocstrings: handlers: python: options: extensions``).
"""

from __future__ import annotations

import ast
import re
from typing import Any

import griffe

PACKAGES = ("sam_env", "agents", "evaluation", "training", "apps")
"""The project's packages: only their objects are linked (the API reference renders them)."""

ROLE = re.compile(r":(?:py:)?(?P<role>class|func|meth|attr|mod|data|obj|exc|const):`(?P<target>[^`<>]+)`")
logger = griffe.get_logger("sam_env.docs.sphinx_roles")


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring of the loaded packages."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name in PACKAGES:
            self._rewrite(pkg)

    def _rewrite(self, obj: griffe.Object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(lambda match: self._link(obj, match), obj.docstring.value)
        for member in obj.members.values():
            if not member.is_alias:
                self._rewrite(member)

    def _link(self, obj: griffe.Object, match: re.Match[str]) -> str:
        target = match["target"].strip()
        short = target.startswith("~")
        target = target.lstrip("~")
        shown = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        code = f"`{shown}`"
        path = _resolve(obj, target)
        if path is None:
            where = obj.filepath if isinstance(obj.filepath, str) else obj.relative_filepath
            logger.warning(f"{where}: {obj.path}: cannot resolve the cross-reference {match[0]}")
            return code
        if path.split(".")[0] not in PACKAGES or any(part.startswith("_") for part in path.split(".")):
            return code
        return f"[{code}][{path}]"


def _resolve(obj: griffe.Object, target: str) -> str | None:
    """The full path ``target`` names from ``obj``'s docstring, or ``None``."""
    collection = obj.modules_collection
    if target.startswith("."):
        relative = target.lstrip(".")
        scope: griffe.Object | None = obj if obj.is_module else obj.module
        while scope is not None:
            found = _lookup(collection, f"{scope.path}.{relative}")
            if found is not None:
                return found
            scope = scope.parent
        return None
    head, _, rest = target.partition(".")
    for scope in (obj, obj.parent):
        try:
            base = scope.resolve(head) if scope is not None else None
        except griffe.NameResolutionError:
            continue
        if base is not None:
            return _lookup(collection, f"{base}.{rest}" if rest else base)
    return _lookup(collection, target) if rest else None  # a bare name must be in scope


def _lookup(collection: griffe.ModulesCollection, path: str) -> str | None:
    """``path``'s canonical path, ``None`` if it is not there; a path into a package griffe has not
    loaded (another library, or one of ours not loaded yet) is returned as it is."""
    if path.split(".")[0] not in collection.members:
        return path
    try:
        found = collection.get_member(path)
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        lazy = _lazy_path(collection, path)
        return None if lazy is None else _lookup(collection, lazy)
    try:
        return found.canonical_path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return found.path


def _lazy_path(collection: griffe.ModulesCollection, path: str) -> str | None:
    """Where a name a package imports on first use lives: ``sam_env.VectorEnv`` is ``VectorEnv`` of
    ``sam_env.vector``, by the package's ``_LAZY`` table (PEP 562 ``__getattr__``), which griffe's
    static analysis does not follow; ``None`` for a path that is no such name."""
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        package, head, tail = ".".join(parts[:split]), parts[split], ".".join(parts[split + 1 :])
        try:
            table = collection.get_member(f"{package}._LAZY")
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
        try:
            modules = ast.literal_eval(str(table.value))
        except (ValueError, SyntaxError):
            return None
        if head in modules:
            return ".".join(part for part in (modules[head], head, tail) if part)
        return None
    return None
