"""What a results file's candidate *is*: a SHA-256 of the thing that decides its moves, and what was hashed.

Two results files of one name may be two different bots; the fingerprint tells them apart:

* a network (a shipped name, ``ppo_search``, a checkpoint path): its safetensors weights file;
  a checkpoint in memory: its tensors (name, dtype, shape and bytes, in name order);
* a rule bot shipped with sam-env, by name (a name registered at run time likewise): the source of the module
  that defines it, or of its whole folder when it is a subpackage (``heuristic``, the panel, the search);
* code of your own — a file spec ``path/to/file.py:attr``, a module spec ``package.module:attr``, or an object
  given in place of a spec (a class, a factory, an instance; pickled for workers or not): its source files and
  the state of the bot built from it, each hashed, and the SHA-256 taken over the two hashes.

The source files of code of your own: the file that defines the bot, and the files of its folder (or of packages in
it) that it imports, directly or through each other — read from their ``import`` statements, not from what a process
happens to have loaded, so one bot gives one fingerprint in any process — so that a bot split over several files is
covered; a module spec's package ``__init__.py`` too. A module in a folder of installed packages (site-packages, the
standard library) counts alone; a bot of sam-env's own given by a module spec counts as its registry name does (its
file, or its subpackage's folder; the package version, which the results file records, fixes the rest).

Its state: the bot is built as the evaluation builds it (:func:`~sam_env.agents.registry.load_bot`, seed 0, the
table's rules) — so a bot whose construction is slow is built once more, and an instance that was played in this
process is hashed as it is now. If the bot, or the object its adapter seats (``ActBot.wrapped``,
``PolicyBot.policy``), defines ``fingerprint()`` returning a str or bytes, that is hashed: a bot whose moves
depend on what it does not hold (weights on a server, a table in a database) says so there. Otherwise every numpy
array and torch tensor reachable from the bot and from the module-level values of the code that defines it (weights
a function policy reads from its module) — through attributes, slots, lists, tuples, dicts and a function's closure,
a ``torch.nn.Module`` through its ``state_dict()`` — is hashed by its path, dtype, shape and bytes, and every plain
number (a tuned parameter) by its path and value, in path order. The walk does not enter modules, classes or random
generators (an evaluation reseeds generators every hand), does not hash strings (a path or a label differs between
two machines that run one bot), and is bounded in depth and in objects. torch is never imported here: a torch
object exists only if torch is loaded.

Code a bot imports from elsewhere is not covered; the results file also records the package version, which
fixes sam-env's own code.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.util
import inspect
import os
import random
import site
import sys
import sysconfig
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.agents.bot_objects import ActBot, PickledBot, PolicyBot
from sam_env.agents.code_specs import CODE_SPEC, is_code_spec
from sam_env.agents.llm import ChatSpec, is_chat_spec, parse
from sam_env.agents.llm.spec import fingerprint_text
from sam_env.agents.networks.catalogue import SEARCHES, SHIPPED_DIR, entry, is_shipped, resolve
from sam_env.agents.networks.format import checkpoint_files, is_checkpoint_path
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint
from sam_env.agents.registry import FACTORIES, load_bot
from sam_env.core import RuleConfig
from sam_env.utils.files import file_sha256

from .bot_state import BotState, bot_state

AGENTS_DIR = SHIPPED_DIR.parents[1]
"""The bots' folder, ``agents/``: a rule bot in a subpackage of it is hashed with its whole folder."""


def files_sha256(paths: Iterable[Path], root: Path) -> str:
    """SHA-256 over several files: each file's path relative to ``root``, a NUL, its bytes' SHA-256, a newline."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(f"{path.relative_to(root).as_posix()}\0{file_sha256(path)}\n".encode())
    return digest.hexdigest()


def shipped_weights_sha256(name: str) -> str:
    """SHA-256 of a shipped network's weights file (``agents/networks/shipped/<name>.safetensors``; an alias's too)."""
    return file_sha256(entry(name).weights)


def tensors_sha256(tensors: dict[str, Any]) -> str:
    """SHA-256 of a checkpoint held in memory: every tensor's name, dtype, shape and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(tensors):
        array = tensors[name]
        digest.update(f"{name}\0{array.dtype.str}\0{list(array.shape)}\0".encode())
        digest.update(array.tobytes(order="C"))
    return digest.hexdigest()


def _source_of(obj: object) -> dict[str, Any]:
    """The source file (or, inside a subpackage of the bots, the folder) that defines ``obj``: a registry name's."""
    target = obj if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismethod(obj) else type(obj)
    try:
        source = inspect.getsourcefile(target)  # type: ignore[arg-type]
    except TypeError:
        source = None
    if source is None:
        return {"kind": "code", "sha256": None, "of": f"nothing: {target!r} has no Python source file"}
    path = Path(source).resolve()
    folder = path.parent
    if folder != AGENTS_DIR and folder.parent == AGENTS_DIR and (folder / "__init__.py").is_file():
        files = list(folder.glob("*.py"))
        return {
            "kind": "rule bot",
            "sha256": files_sha256(files, AGENTS_DIR),
            "of": f"the source of sam_env.agents.{folder.name} ({len(files)} files)",
        }
    kind = "rule bot" if path.is_relative_to(AGENTS_DIR.parent) else "code"
    return {"kind": kind, "sha256": file_sha256(path), "of": f"the source file {path.name}"}


def fingerprint(spec: object, rules: RuleConfig) -> dict[str, Any]:
    """``{"kind", "sha256", "of"}``: the candidate's fingerprint at the table of ``rules``, and what it covers.

    A code spec or an object is built here once more to hash its state (see the module docstring)."""
    if isinstance(spec, (PolicyCheckpoint, QCheckpoint)):
        return {"kind": "network", "sha256": tensors_sha256(spec.tensors), "of": f"the tensors of {spec.source}"}
    if is_chat_spec(spec) or isinstance(spec, ChatSpec):
        chat = parse(spec) if isinstance(spec, str) else spec
        return {
            "kind": "language model",
            "sha256": hashlib.sha256(fingerprint_text(chat).encode("utf-8")).hexdigest(),
            "of": f"the model's name {chat.model!r}, its prompt template {chat.template} and the settings that change "
            "its prompt or sampling; not the model's weights, which the server holds",
        }
    if not isinstance(spec, (str, os.PathLike)):
        return code_fingerprint(spec, rules)
    text = os.fspath(spec)
    if isinstance(spec, str) and spec in FACTORIES:
        if is_shipped(spec) or spec in SEARCHES:
            network = resolve(SEARCHES.get(spec, spec), rules.n_players).name
            search = (
                f" (the network {spec} searches over at {rules.n_players} seats; its search's code, "
                "sam_env.agents.search, is fixed by the package version)"
                if spec in SEARCHES
                else ""
            )
            loads = "" if spec == network or spec in SEARCHES else f", what {spec!r} loads at {rules.n_players} seats"
            return {
                "kind": "network",
                "sha256": shipped_weights_sha256(network),
                "of": f"the weights of the shipped network {network} ({network}.safetensors){loads}{search}",
            }
        return _source_of(FACTORIES[spec])
    if isinstance(spec, str) and is_code_spec(spec):
        return code_fingerprint(spec, rules)
    if isinstance(spec, os.PathLike) or is_checkpoint_path(text):
        _, weights = checkpoint_files(text)
        return {"kind": "network", "sha256": file_sha256(weights), "of": f"the weights file {weights.name}"}
    return {"kind": "code", "sha256": None, "of": f"nothing: {text!r} names no file"}


# ---------------------------------------------------------------- code of one's own: source and state


def code_fingerprint(spec: object, rules: RuleConfig) -> dict[str, Any]:
    """The fingerprint of a code spec or an object: its source files and the state of the bot built from it."""
    bot, failure = _built(spec, rules)
    source = _source_files(spec, bot)
    state = None if bot is None else bot_state(bot, _code_module(spec, bot))
    parts = [source.sha256 if source else None, state.sha256 if state else None]
    sha256 = None if parts == [None, None] or (state and state.empty and not source) else _joined(parts)
    kind = "rule bot" if source and source.of_sam_env and not isinstance(spec, str) else "code"
    return {"kind": kind, "sha256": sha256, "of": _coverage(spec, source, state, failure)}


def _code_module(spec: object, bot: object) -> types.ModuleType | None:
    """The module that defines the bot, when it is code of one's own (not sam-env's, not an installed package): its
    module-level values are part of what plays (weights loaded at import, read by a function policy)."""
    target = _defining(bot if isinstance(spec, str) else spec, bot)
    name = getattr(target, "__module__", None) or ""
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if module is None or _is_sam_env(name) or not file or _is_installation_folder(Path(file).resolve().parent):
        return None
    return module


def _built(spec: object, rules: RuleConfig) -> tuple[object | None, str | None]:
    """The bot as the evaluation builds it, or None and why it did not build; the process's global random
    generators are left as they were (building may seed them: :class:`~sam_env.agents.bot_objects.ActBot`)."""
    with _global_generators_kept():
        try:
            return load_bot(spec, seed=0, rules=rules), None
        except Exception as err:  # the fingerprint then covers the source alone, and says why
            return None, f"{type(err).__name__}: {err}"


@contextlib.contextmanager
def _global_generators_kept() -> Iterator[None]:
    states = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])


def _joined(hashes: list[str | None]) -> str:
    """SHA-256 over the source hash and the state hash (an empty line for a part that is missing)."""
    return hashlib.sha256("\n".join(h or "" for h in hashes).encode()).hexdigest()


@dataclass(frozen=True)
class SourceFiles:
    """The files a bot's code is hashed by: ``main`` (the file that defines it) and the others beside it."""

    main: Path
    others: tuple[Path, ...]
    root: Path
    module: str | None = None
    """A module spec's module (its name is part of the description)."""
    of_sam_env: bool = False
    """The bot is sam-env's own (then sam-env's modules beside it count)."""

    @property
    def sha256(self) -> str:
        return files_sha256([self.main, *self.others], self.root)

    def describe(self) -> str:
        where = f" of module {self.module}" if self.module else ""
        if not self.others:
            return f"the source file {self.main.name}{where}"
        names = [p.relative_to(self.root).as_posix() for p in self.others]
        shown = ", ".join(names) if len(names) <= 4 else f"{', '.join(names[:3])} and {len(names) - 3} more"
        return f"the source file {self.main.name}{where} (and {shown})"


def _source_files(spec: object, bot: object | None) -> SourceFiles | None:
    """The source files of a code spec or an object, None when it has no Python source file."""
    if isinstance(spec, str):
        module = CODE_SPEC.match(spec)["module"]  # type: ignore[index]
        if module.endswith(".py"):
            path = Path(module).resolve()
            return _beside(path, own_sam_env=False) if path.is_file() else None
        path = _module_file(module)
        return None if path is None else _beside(path, own_sam_env=_is_sam_env(module), module=module)
    target = _defining(spec, bot)
    try:
        source = inspect.getsourcefile(target)  # type: ignore[arg-type]
    except TypeError:  # a built-in: no source
        source = None
    if source is None or not Path(source).is_file():
        return None
    return _beside(Path(source).resolve(), own_sam_env=_is_sam_env(getattr(target, "__module__", None) or ""))


def _module_file(module: str) -> Path | None:
    """A module's file: as loaded (building the bot imported it), else as found without importing it."""
    loaded = sys.modules.get(module)
    file = getattr(loaded, "__file__", None)
    if file is None:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        file = found.origin if found is not None else None
    return Path(file).resolve() if file and Path(file).is_file() else None


def _defining(spec: object, bot: object | None) -> object:
    """The class or function whose source defines an object given in place of a spec (an adapter's inner object's)."""
    obj = spec
    if isinstance(obj, PickledBot):
        with contextlib.suppress(Exception):  # it did not unpickle: the built bot (if any) tells instead
            obj = obj.load()
        if isinstance(obj, PickledBot):
            obj = bot
    obj = obj.wrapped if isinstance(obj, ActBot) else obj.policy if isinstance(obj, PolicyBot) else obj
    while isinstance(obj, functools.partial):
        obj = obj.func
    return obj if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismethod(obj) else type(obj)


def _is_sam_env(module: str) -> bool:
    return module == "sam_env" or module.startswith("sam_env.")


def _beside(path: Path, own_sam_env: bool, module: str | None = None) -> SourceFiles:
    """``path`` and the files of its folder it imports, directly or through each other (see the module docstring);
    ``module``: a module spec's module, named in the description. Read from the source (:func:`imported_files`),
    not from what this process happens to have loaded, so the same code gives the same files in any process."""
    folder = path.parent
    if _is_installation_folder(folder):
        return SourceFiles(path, (), folder, module, own_sam_env)
    if own_sam_env:  # sam-env's own bot: its file, or its subpackage's folder, as a registry name is hashed
        others = set(folder.glob("*.py")) if folder.parent == AGENTS_DIR and folder != AGENTS_DIR else set()
    else:
        roots = [folder]
        if module:  # a module's absolute imports resolve from the folder its top package lies in
            roots.append(path.parents[len(module.split(".")) - 1])
            others = {folder / "__init__.py"} if (folder / "__init__.py").is_file() else set()
        else:
            others = set()
        others |= imported_files(path, folder, roots)
    ordered = tuple(sorted(others - {path}, key=lambda p: p.relative_to(folder).as_posix()))
    return SourceFiles(path, ordered, folder, module, own_sam_env)


def imported_files(path: Path, folder: Path, roots: list[Path]) -> set[Path]:
    """The Python files in ``folder`` (or its packages) that ``path`` imports, and those they import, found by
    reading their ``import`` statements (absolute ones resolved from each of ``roots``, relative ones from the
    importing file's package); a file that does not parse imports nothing here."""
    found: set[Path] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        try:
            tree = ast.parse(current.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            for candidate in _import_targets(node, current, roots):
                resolved = candidate.resolve()
                if resolved not in found and resolved.is_file() and _in_folder_or_its_packages(resolved, folder):
                    found.add(resolved)
                    todo.append(resolved)
    return found


def _import_targets(node: ast.AST, file: Path, roots: list[Path]) -> list[Path]:
    """The files an import statement may load: each named module as ``name.py`` or ``name/__init__.py``, with the
    packages on its way (``from m import x``: ``x`` as a submodule of ``m`` too)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        bases = roots
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        names = [f"{module}.{alias.name}".strip(".") for alias in node.names] + ([module] if module else [])
        if node.level:
            base = file.parent
            for _ in range(node.level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = roots
    else:
        return []
    targets = []
    for base in bases:
        for name in names:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                stem = base.joinpath(*parts[:i])
                targets += [stem.with_suffix(".py"), stem / "__init__.py"]
    return targets


def _in_folder_or_its_packages(file: Path, folder: Path) -> bool:
    """Whether ``file`` lies in ``folder``, or in a package inside it (every folder on the way has ``__init__.py``)."""
    if not file.is_relative_to(folder):
        return False
    between = file.parent
    while between != folder:
        if not (between / "__init__.py").is_file():
            return False
        between = between.parent
    return True


@functools.cache
def _installation_folders() -> frozenset[Path]:
    """Where Python installs packages and keeps its standard library, here and in the base installation."""
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix, "installed_base": sys.base_prefix}
    paths = [sysconfig.get_paths()[n] for n in names] + [sysconfig.get_paths(vars=base)[n] for n in names]
    with contextlib.suppress(AttributeError):  # an old virtualenv's site module has neither
        paths += [*site.getsitepackages(), site.getusersitepackages()]
    return frozenset(Path(p).resolve() for p in paths)


def _is_installation_folder(folder: Path) -> bool:
    return folder in _installation_folders() or folder.name in ("site-packages", "dist-packages")


def _coverage(spec: object, source: SourceFiles | None, state: BotState | None, failure: str | None) -> str:
    """The ``of`` sentence of a code spec's or an object's fingerprint (it reads after "SHA-256 of")."""
    if source is not None:
        if state is None:
            return f"{source.describe()}; not the bot's state: {_unbuilt(failure)}"
        return f"{source.describe()}{'; ' if state.empty else ' and '}{state.describe()}"
    if state is None:
        return f"nothing: {_no_source(spec)}, and {_unbuilt(failure)}"
    if state.empty:
        return f"nothing: {_no_source(spec)}, and {state.describe()}"
    return f"{state.describe()} ({_no_source(spec)})"


def _unbuilt(failure: str | None) -> str:
    """Why the state is not covered: the first line of the error the build raised."""
    lines = (failure or "").strip().splitlines()
    return f"the bot did not build here ({lines[0][:200] if lines else 'no reason given'})"


def _no_source(spec: object) -> str:
    """Why a spec or an object has no source file to hash."""
    if isinstance(spec, str):
        module = CODE_SPEC.match(spec)["module"]  # type: ignore[index]
        return f"there is no file {module}" if module.endswith(".py") else f"module {module} has no source file"
    target = _defining(spec, None)
    return f"{getattr(target, '__qualname__', type(target).__name__)} has no Python source file"
