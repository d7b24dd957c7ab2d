"""The state of a built bot, hashed: what a fingerprint of code of your own covers besides its source.

:func:`bot_state` hashes a bot's own ``fingerprint()`` where it (or the object its adapter seats) defines one,
else every numpy array and torch tensor reachable from it, by path (see :mod:`.fingerprints`, whose docstring says
what is followed and what is not, and why).
"""

from __future__ import annotations

import functools
import hashlib
import random
import sys
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sam_env.agents.bot_objects import ActBot, PolicyBot

MAX_DEPTH = 32
"""How deep the walk of a built bot's state follows references."""
MAX_OBJECTS = 100_000
"""How many objects the walk visits at most (a bot that holds a whole data set is hashed in part, and says so)."""


@dataclass
class BotState:
    """What the walk of a built bot found: its own ``fingerprint()``, or its arrays and tensors."""

    sha256: str
    own: bool = False
    """The bot's own ``fingerprint()`` was hashed."""
    arrays: int = 0
    numbers: int = 0
    in_modules: int = 0
    """Of the arrays, those of a torch module's ``state_dict()``."""
    modules: int = 0
    values: int = 0
    """Plain numbers hashed by value (parameters of the bot, of the code's module)."""
    stopped: bool = False
    """The walk met :data:`MAX_OBJECTS` and hashed only what it had found."""
    refused: str | None = None
    """Why the bot's ``fingerprint()`` was not used (it raised, or returned neither str nor bytes)."""

    @property
    def empty(self) -> bool:
        return not self.own and self.arrays == self.values == 0

    def describe(self) -> str:
        """What was hashed, as the end of the fingerprint's ``of`` sentence."""
        refused = f" (its fingerprint() {self.refused})" if self.refused else ""
        if self.own:
            return "the bot's own fingerprint()"
        if self.arrays == self.values == 0:
            return f"the built bot holds no arrays or numbers{refused}"
        held = []
        if self.arrays:
            torch = ""
            if self.modules:
                some = "" if self.in_modules == self.arrays else f", {self.in_modules} of them"
                torch = f"{some} in {self.modules} torch module{'s' * (self.modules != 1)}"
            held.append(f"{self.arrays} array{'s' * (self.arrays != 1)} ({self.numbers:,} numbers){torch}")
        if self.values:
            held.append(f"{self.values} plain number{'s' * (self.values != 1)}")
        stopped = f" (the walk stopped at {MAX_OBJECTS:,} objects)" if self.stopped else ""
        return f"the state of the built bot: {' and '.join(held)}{stopped}{refused}"


def bot_state(bot: object, module: types.ModuleType | None = None) -> BotState:
    """The state of a built bot, hashed: its own ``fingerprint()`` where it (or the object an adapter seats)
    defines one, else its arrays and tensors (see the module docstring)."""
    refused = None
    for holder in _holders(bot):
        method = getattr(holder, "fingerprint", None)
        if not callable(method):
            continue
        try:
            own = method()
        except Exception as err:  # a fingerprint() that fails: the state is walked instead, and the reason kept
            refused = f"raised {type(err).__name__}: {err}"
            continue
        if isinstance(own, (str, bytes)):
            value = own.encode() if isinstance(own, str) else own
            return BotState(hashlib.sha256(b"fingerprint()\0" + value).hexdigest(), own=True)
        refused = f"returned {type(own).__name__}, not str or bytes"
    roots: list[tuple[str, object]] = [("bot", bot)]
    if module is not None:  # what the bot's code reads from its module: weights loaded at import, a table
        shared = {name: value for name, value in vars(module).items() if not name.startswith("__")}
        roots.append((f"module {module.__name__}", shared))
    state = _Walk().run(roots)
    state.refused = refused
    return state


def _holders(bot: object) -> list[object]:
    """The built bot, and the object its adapter seats (whose ``fingerprint()`` counts as the bot's)."""
    if isinstance(bot, ActBot):
        return [bot, bot.wrapped]
    if isinstance(bot, PolicyBot):
        return [bot, bot.policy]
    return [bot]


@dataclass
class _Walk:
    """One walk of the objects reachable from a bot: the arrays and tensors it finds, by path."""

    entries: list[tuple[str, str, str]] = field(default_factory=list)
    """(path, dtype and shape, SHA-256 of the bytes) of every array and tensor."""
    seen: set[int] = field(default_factory=set)
    visited: int = 0
    state: BotState = field(default_factory=lambda: BotState(""))

    def run(self, roots: list[tuple[str, object]]) -> BotState:
        torch = sys.modules.get("torch")  # a torch object can only exist if torch is loaded: never import it here
        stack: list[tuple[str, object, int]] = [(path, root, 0) for path, root in reversed(roots)]
        while stack:
            path, obj, depth = stack.pop()
            if isinstance(obj, NUMBERS):  # a parameter of the bot: hashed by its value, wherever it sits
                self.entries.append((path, type(obj).__name__, repr(obj)))
                self.state.values += 1
                continue
            if id(obj) in self.seen or depth > MAX_DEPTH or _not_followed(obj, torch):
                continue
            self.seen.add(id(obj))
            self.visited += 1
            if self.visited > MAX_OBJECTS:
                self.state.stopped = True
                break
            children = self._visit(path, obj, torch)
            stack.extend((p, child, depth + 1) for p, child in reversed(children))
        digest = hashlib.sha256()
        for path, header, sha256 in sorted(self.entries):
            digest.update(f"{path}\0{header}\0{sha256}\n".encode())
        self.state.sha256 = digest.hexdigest()
        return self.state

    def _visit(self, path: str, obj: object, torch: types.ModuleType | None) -> list[tuple[str, object]]:
        """Hash ``obj`` if it is an array or a tensor; the objects it refers to, by path, to walk next."""
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject:
                return [(f"{path}[{i}]", item) for i, item in enumerate(obj.flat)]
            self._add(path, f"{obj.dtype.str}{list(obj.shape)}", obj.tobytes(order="C"), obj.size)
            return []
        if torch is not None and isinstance(obj, torch.Tensor):
            self._add_tensor(path, obj)
            return []
        if torch is not None and isinstance(obj, torch.nn.Module):
            self._add_module(path, obj, torch)
        return _references(path, obj)

    def _add(self, path: str, header: str, data: bytes, size: int, in_module: bool = False) -> None:
        self.entries.append((path, header, hashlib.sha256(data).hexdigest()))
        self.state.arrays += 1
        self.state.numbers += size
        self.state.in_modules += in_module

    def _add_tensor(self, path: str, tensor: Any, in_module: bool = False) -> None:
        try:
            flat = tensor.detach().cpu().contiguous().reshape(-1)
            data = flat.view(sys.modules["torch"].uint8).numpy().tobytes()
        except Exception:  # a tensor without plain storage (sparse, meta, quantized): not hashed
            return
        self._add(path, f"{tensor.dtype}{list(tensor.shape)}", data, tensor.numel(), in_module)

    def _add_module(self, path: str, module: Any, torch: types.ModuleType) -> None:
        """A torch module's ``state_dict()`` tensors by their names (the module itself is walked after)."""
        found = 0
        for name, value in module.state_dict(keep_vars=True).items():
            if isinstance(value, torch.Tensor) and id(value) not in self.seen:
                self.seen.add(id(value))
                self._add_tensor(f"{path}.{name}", value, in_module=True)
                found += 1
        self.state.modules += found > 0


NUMBERS = (bool, int, float, complex, np.generic)
"""Plain numbers: hashed by value (a tuned parameter, a threshold), unlike strings, which name paths and labels
that differ between two machines running one bot."""


def _not_followed(obj: object, torch: types.ModuleType | None) -> bool:
    """Modules, classes, strings and random generators: not part of a bot's hashed state (a function is followed
    into its closure only)."""
    if obj is None or isinstance(obj, (str, bytes, bytearray, range)):
        return True
    if isinstance(obj, (types.ModuleType, type, types.BuiltinFunctionType, types.CodeType)):
        return True
    if isinstance(obj, (random.Random, np.random.Generator, np.random.RandomState, np.random.BitGenerator)):
        return True
    return torch is not None and isinstance(obj, torch.Generator)


def _references(path: str, obj: object) -> list[tuple[str, object]]:
    """What ``obj`` refers to, by path: items of lists, tuples and dicts, attributes and slots of an instance,
    the instance a bound method is bound to, a partial's arguments."""
    if isinstance(obj, (list, tuple)):
        return [(f"{path}[{i}]", item) for i, item in enumerate(obj)]
    if isinstance(obj, dict):
        return [(f"{path}[{key!r}]", value) for key, value in obj.items()]
    if isinstance(obj, types.MethodType):
        return [(f"{path}.__self__", obj.__self__)]
    if isinstance(obj, functools.partial):
        return [(f"{path}.args", obj.args), (f"{path}.keywords", obj.keywords)]
    if isinstance(obj, types.FunctionType):  # what it closes over; its module's values come in as a root
        cells = obj.__closure__ or ()
        names = obj.__code__.co_freevars
        return [(f"{path}.<{name}>", cell.cell_contents) for name, cell in zip(names, cells, strict=False)]
    try:
        attributes = vars(obj)
    except TypeError:  # no __dict__: slots only, or a value of C code
        attributes = {}
    found = [(f"{path}.{name}", value) for name, value in attributes.items()]
    for cls in type(obj).__mro__:
        slots = vars(cls).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                found.append((f"{path}.{name}", getattr(obj, name)))
    return found
