"""Bots from your own code: the specs ``package.module:attr`` and ``path/to/file.py:attr``.

A code spec is plain data (a string), so a worker process rebuilds the same bot from it: it imports
the module, or loads the file, and reads ``attr`` (a dotted path is followed: ``agent:Agent.create``).
What ``attr`` may be — a :class:`sam_env.Bot` class or factory, a batched policy — is
:mod:`.bot_objects`' business; this module only finds the object.

A file is loaded with :func:`importlib.util.spec_from_file_location` under a module name made from
its absolute path (:func:`file_module_name`), so the same file is the same module in every process:
loaded once per process and kept in ``sys.modules``, its classes keep their identity (``isinstance``
works) and pickle by reference in any process that loaded the file. Its folder is appended to
``sys.path`` (after everything else, so it shadows nothing), as when Python runs a script, so the file
can import its neighbours.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
CODE_SPEC = re.compile(rf"^(?P<module>.+\.py|{_DOTTED}):(?P<attr>{_DOTTED})$")
"""``module:attr`` (a dotted module name) or ``path/to/file.py:attr``; ``attr`` may be dotted."""

CHAT_PREFIX = "openai:"
"""What a language-model agent's spec starts with (:mod:`.llm.spec`): such a spec is never a code spec."""

FILE_MODULE_PREFIX = "sam_env_bot_file_"

_loaded_files: dict[str, str] = {}
"""Module name -> absolute path of every bot file this process loaded (sent to worker processes)."""


class BotSpecError(ValueError):
    """A bot spec that names no usable bot: the message names the spec, what went wrong and what was expected."""


def is_code_spec(spec: str) -> bool:
    """Whether ``spec`` has the form ``module:attr`` or ``file.py:attr`` (not whether it imports); a language-model
    agent's ``openai:MODEL`` (:data:`CHAT_PREFIX`, :mod:`.llm.spec`) is not one."""
    return CODE_SPEC.match(spec) is not None and not spec.startswith(CHAT_PREFIX)


def file_module_name(path: str | Path) -> str:
    """The module name a bot file is loaded under: its stem and a hash of its absolute path, the same
    in every process of this machine and distinct for two files of the same name."""
    resolved = Path(path).resolve()
    digest = hashlib.sha256(str(resolved).encode("utf-8")).hexdigest()[:12]
    stem = re.sub(r"\W", "_", resolved.stem)
    return f"{FILE_MODULE_PREFIX}{stem}_{digest}"


def load_code_object(spec: str) -> object:
    """The object a code spec names; :class:`BotSpecError` naming the module and the error if the
    module does not import or has no such attribute."""
    match = CODE_SPEC.match(spec)
    if match is None:
        raise BotSpecError(f"bot spec {spec!r} is not of the form 'package.module:attr' or 'path/to/file.py:attr'")
    module_name, attr = match["module"], match["attr"]
    module = _load_file(spec, module_name) if module_name.endswith(".py") else _import(spec, module_name)
    value: object = module
    for i, part in enumerate(attr.split(".")):
        try:
            value = getattr(value, part)
        except AttributeError:
            owner = module_name if i == 0 else f"{module_name}:{'.'.join(attr.split('.')[:i])}"
            public = sorted(n for n in dir(value) if not n.startswith("_"))
            raise BotSpecError(
                f"bot spec {spec!r}: {owner} has no attribute {part!r}"
                + (f"; it has: {', '.join(public[:30])}" if public else "")
            ) from None
    return value


def _import(spec: str, module_name: str) -> object:
    try:
        return importlib.import_module(module_name)
    except Exception as err:  # any error while importing user code is reported the same way
        raise BotSpecError(
            f"bot spec {spec!r}: cannot import module {module_name!r}: {type(err).__name__}: {err}"
            + (" (is it installed, or is its folder on sys.path / PYTHONPATH?)" if isinstance(err, ImportError) else "")
        ) from err


def _load_file(spec: str, file_name: str) -> object:
    path = Path(file_name)
    if not path.is_file():
        raise BotSpecError(f"bot spec {spec!r}: no such file {file_name!r} (from {Path.cwd()})")
    return load_file_module(path, spec)


def load_file_module(path: str | Path, spec: str | None = None) -> object:
    """Load a bot file under its stable name (:func:`file_module_name`), once per process."""
    path = Path(path).resolve()
    name = file_module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise BotSpecError(f"bot spec {spec or str(path)!r}: {path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.append(folder)
    sys.modules[name] = module  # before running it: dataclasses and pickle look the module up by name
    try:
        module_spec.loader.exec_module(module)
    except Exception as err:  # any error while running user code is reported the same way
        del sys.modules[name]
        raise BotSpecError(
            f"bot spec {spec or str(path)!r}: cannot import module {path.name!r} ({path}): {type(err).__name__}: {err}"
        ) from err
    _loaded_files[name] = str(path)
    return module


def loaded_files() -> dict[str, str]:
    """Module name -> path of the bot files loaded in this process: a worker loads them before it
    unpickles anything, so that objects defined in them unpickle by reference."""
    return dict(_loaded_files)
