"""What a results file's candidate *is*: a SHA-256 of the thing that decides its moves, and what was hashed.

Two results files of one name may be two different bots; the fingerprint tells them apart:

* a network (a shipped name, ``ppo_search``, a checkpoint path): its safetensors weights file;
  a checkpoint in memory: its tensors (name, dtype, shape and bytes, in name order);
* a file spec ``path/to/file.py:attr``: that file;
* a module spec ``package.module:attr``: the module's source file (not the modules it imports);
* a rule bot shipped with sam-env: the source of the module that defines it, or of its whole folder
  when it is a subpackage (``heuristic``, the panel, the search);
* an object: the source file of its module.

Code a bot imports besides what is hashed is not covered; the results file also records the
package version, which fixes sam-env's own code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sam_env.agents.code_specs import CODE_SPEC, is_code_spec
from sam_env.agents.networks.catalogue import SHIPPED_DIR, entry, is_shipped, resolve
from sam_env.agents.networks.format import checkpoint_files, is_checkpoint_path
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint
from sam_env.agents.registry import FACTORIES
from sam_env.agents.search import SearchBot
from sam_env.core import RuleConfig
from sam_env.utils.files import file_sha256

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
    """The source file (or, inside a subpackage of the bots, the folder) that defines ``obj``."""
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
    """``{"kind", "sha256", "of"}``: the candidate's fingerprint at the table of ``rules``, and what it covers."""
    if isinstance(spec, (PolicyCheckpoint, QCheckpoint)):
        return {"kind": "network", "sha256": tensors_sha256(spec.tensors), "of": f"the tensors of {spec.source}"}
    if not isinstance(spec, (str, os.PathLike)):
        return _source_of(spec)
    text = os.fspath(spec)
    if isinstance(spec, str) and spec in FACTORIES:
        if is_shipped(spec) or spec == SearchBot.name:
            network = resolve("ppo" if spec == SearchBot.name else spec, rules.n_players).name
            search = " (with search at decision time: sam_env.agents.search)" if spec == SearchBot.name else ""
            loads = "" if spec in (network, SearchBot.name) else f", what {spec!r} loads at {rules.n_players} seats"
            return {
                "kind": "network",
                "sha256": shipped_weights_sha256(network),
                "of": f"the weights of the shipped network {network} ({network}.safetensors){loads}{search}",
            }
        return _source_of(FACTORIES[spec])
    if isinstance(spec, str) and is_code_spec(spec):
        module = CODE_SPEC.match(spec)["module"]  # type: ignore[index]
        if module.endswith(".py"):
            return {"kind": "code", "sha256": file_sha256(module), "of": f"the file {Path(module).name}"}
        found = importlib.util.find_spec(module)
        if found is None or not found.origin or not Path(found.origin).is_file():
            return {"kind": "code", "sha256": None, "of": f"nothing: module {module} has no source file"}
        return {
            "kind": "code",
            "sha256": file_sha256(found.origin),
            "of": f"the source file of module {module} ({Path(found.origin).name}; not the modules it imports)",
        }
    if isinstance(spec, os.PathLike) or is_checkpoint_path(text):
        _, weights = checkpoint_files(text)
        return {"kind": "network", "sha256": file_sha256(weights), "of": f"the weights file {weights.name}"}
    return {"kind": "code", "sha256": None, "of": f"nothing: {text!r} names no file"}
