"""Optional extras imported on first use: where one is missing, one line names the extra and how to install it.

A module that needs an extra of pyproject.toml (Ray for ``trainer: rllib``, Tianshou for ``trainer: dqn``) is
imported by :func:`import_extra` when it is first needed, so everything else works without the extra and a
run that needs it stops with the install command, not a traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType


class MissingExtra(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message names the extra and the command."""


def install_command(extra: str) -> str:
    """The command that installs ``extra`` into a source checkout, as the README installs the project."""
    return f'pip install -e ".[{extra}]"'


def import_extra(
    name: str,
    *,
    extra: str,
    needs: Sequence[str],
    what: str,
    package: str | None = None,
    error: type[Exception] = MissingExtra,
) -> ModuleType:
    """Import ``name`` (relative to ``package`` if it starts with a dot), which needs the optional ``extra``.

    ``needs``: the top-level modules the extra installs (``("ray",)``). A ``ModuleNotFoundError`` for one of
    them, or raised while one of them was importing (a dependency it lacks), becomes ``error`` (default
    :class:`MissingExtra`) saying that ``what`` needs the extra, with :func:`install_command`; any other
    missing module is a fault of its own and propagates unchanged.
    """
    if not needs:
        raise ValueError(f"import_extra({name!r}): name the modules the {extra} extra installs (needs)")
    try:
        return importlib.import_module(name, package)
    except ModuleNotFoundError as err:
        if not _from_extra(err, tuple(needs)):
            raise
        top = (err.name or "").partition(".")[0]
        missing = top if top in needs else (err.name or str(err))  # ``ray``, not ``ray.rllib``
        message = f"{what} needs the {extra} extra ({missing} is not installed): {install_command(extra)}"
        raise (MissingExtra(message, name=err.name) if error is MissingExtra else error(message)) from None


def _from_extra(err: ModuleNotFoundError, needs: tuple[str, ...]) -> bool:
    """Whether the missing module is one of ``needs``, or was imported by one of them."""
    if (err.name or "").partition(".")[0] in needs:
        return True
    frame = err.__traceback__
    while frame is not None:
        if str(frame.tb_frame.f_globals.get("__name__", "")).partition(".")[0] in needs:
            return True
        frame = frame.tb_next
    return False
