"""The file format of every trained network: weights as safetensors, facts about them as JSON, checked on loading.

A checkpoint is two files with the same stem: ``<stem>.safetensors`` (plain tensors) and ``<stem>.json``
(metadata). Loading never unpickles anything — safetensors holds only arrays, JSON only data — so a
checkpoint downloaded from anywhere cannot run code.

Both kinds of network (:mod:`.policy`, :mod:`.qnet`) use this one format and differ only in their
``format`` tag and their architecture record. The metadata records what the weights only make sense with:
the observation encoding version and its fingerprint (:func:`sam_env.encoding.fingerprint`: layout,
action table, scaling), the number of actions, the observation shape, the rules (their seat count fixes
the observation layout), the architecture (enough to rebuild the network without the training code), the
move features' fingerprint where the network reads them, the training configuration, and the SHA-256 of
the weights file, so that a file swapped, edited or cut short is refused with a message naming it
instead of playing with garbage weights.

:class:`NetworkCheckpoint` is the one shape of a loaded checkpoint; each kind subclasses it with its
format tag, its architecture record and the tensors that record implies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
from safetensors import SafetensorError
from safetensors.numpy import load_file, save_file

from sam_env import N_ACTIONS, RuleConfig, RuleConfigError, encoding, move_features
from sam_env.encoding import observation_size
from sam_env.utils.files import file_sha256


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here: missing, damaged, or made for another encoding or table."""


class Architecture(Protocol):
    """What a kind's architecture record offers the format: whether it reads move features, and its dict."""

    def to_dict(self) -> dict[str, Any]: ...

    @property
    def reads_move_features(self) -> bool: ...


A = TypeVar("A", bound=Architecture)
C = TypeVar("C", bound="NetworkCheckpoint[Any]")


@dataclass(frozen=True)
class NetworkCheckpoint(Generic[A]):
    """Validated weights and metadata of one network (from files, or built in memory during training).

    Subclasses set :attr:`FORMAT` (the metadata's ``format`` tag), :attr:`ARCH` and :attr:`ARCH_KEY` (the
    architecture record's class, with ``from_dict``, and where the metadata keeps it), :attr:`WHAT` (the kind in
    messages) and :attr:`ENCODINGS` (the observation encoding versions the kind loads), and implement
    :meth:`tensor_shapes`.
    """

    tensors: dict[str, np.ndarray]
    metadata: dict[str, Any]
    source: str
    """Where the checkpoint came from (a path, or a description), for error messages."""

    FORMAT: ClassVar[str]
    FORMAT_VERSION: ClassVar[int] = 1
    ARCH: ClassVar[Any]
    ARCH_KEY: ClassVar[str]
    WHAT: ClassVar[str]
    ENCODINGS: ClassVar[tuple[int, ...]]

    @property
    def arch(self) -> A:
        """The architecture record of the metadata, as the kind's dataclass."""
        return self.ARCH.from_dict(self.metadata[self.ARCH_KEY])

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every tensor the architecture implies, by name, with its shape."""
        raise NotImplementedError

    @property
    def rules(self) -> RuleConfig:
        return RuleConfig.from_dict(self.metadata["rules"])

    @property
    def n_players(self) -> int:
        """The only table size the network plays: its observation layout depends on it."""
        return int(self.metadata["rules"]["n_players"])

    @property
    def obs_size(self) -> int:
        return int(self.metadata["observation_shape"][0])

    @property
    def encoding_version(self) -> int:
        """The observation encoding the network was trained on: a table must encode it, or a later version."""
        return int(self.metadata["encoding_version"])

    @classmethod
    def in_memory(cls: type[C], tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any], source: str) -> C:
        """Validate weights that never touched the disk (a training run's snapshots)."""
        checkpoint = cls({k: np.ascontiguousarray(v) for k, v in tensors.items()}, dict(metadata), source)
        cls.check_metadata(checkpoint.metadata, source)
        checkpoint.check_tensors()
        return checkpoint

    @classmethod
    def load(cls: type[C], path: str | Path, n_players: int | None = None) -> C:
        """Load and check a checkpoint; ``n_players``: the table it must fit (refused otherwise).

        Raises :class:`CheckpointError` naming the file, what was found and what was expected.
        """
        json_path, weights_path = checkpoint_files(path)
        metadata = read_metadata(json_path)
        cls.check_metadata(metadata, str(json_path))
        check_seat_count(str(json_path), metadata["rules"].get("n_players"), n_players)
        tensors = read_weights(json_path, weights_path, metadata, f"the {cls.WHAT}'s tensors")
        checkpoint = cls(tensors, metadata, str(weights_path))
        checkpoint.check_tensors()
        return checkpoint

    @classmethod
    def save(cls, path: str | Path, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
        """Write ``<stem>.safetensors`` then ``<stem>.json`` with the weights' SHA-256; return the JSON path."""
        json_path, weights_path = checkpoint_files(path)
        arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}
        cls.in_memory(arrays, metadata, str(json_path))
        return write_checkpoint(json_path, weights_path, arrays, metadata)

    @classmethod
    def check_metadata(cls, metadata: dict[str, Any], source: str) -> None:
        """Refuse metadata of another format, encoding, action table or move features, or an inconsistent shape."""
        if metadata.get("format") != cls.FORMAT or metadata.get("format_version") != cls.FORMAT_VERSION:
            raise CheckpointError(
                f"{source}: format {metadata.get('format')!r} version {metadata.get('format_version')!r}; "
                f"expected {cls.FORMAT!r} version {cls.FORMAT_VERSION}"
            )
        version = metadata.get("encoding_version")
        if isinstance(version, bool) or version not in cls.ENCODINGS:
            raise CheckpointError(
                f"{source}: the {cls.WHAT} was trained on observation encoding version {version!r}, but this sam-env "
                f"loads versions {list(cls.ENCODINGS)} for it; its inputs would mean something else (retrain, or use "
                "the sam-env release it was made with)"
            )
        if metadata.get("n_actions") != N_ACTIONS:
            raise CheckpointError(
                f"{source}: the {cls.WHAT} has {metadata.get('n_actions')!r} actions, but this sam-env's action "
                f"table has {N_ACTIONS}; action ids would not match"
            )
        try:
            rules = RuleConfig.from_dict(metadata.get("rules"))
            arch = cls.ARCH.from_dict(metadata.get(cls.ARCH_KEY) or {})
        except (RuleConfigError, ValueError, KeyError, TypeError) as err:
            raise CheckpointError(f"{source}: bad rules or {cls.WHAT} architecture in the metadata: {err}") from None
        expected = [observation_size(rules.n_players, version)]
        if metadata.get("observation_shape") != expected:
            raise CheckpointError(
                f"{source}: observation shape {metadata.get('observation_shape')!r}, but a {rules.n_players}-player "
                f"table observes {expected} in the encoding the metadata names (trained on observation "
                f"encoding version {version})"
            )
        if arch.reads_move_features:
            found = (metadata.get("move_features") or {}).get("fingerprint")
            if found != move_features.fingerprint():
                raise CheckpointError(
                    f"{source}: the {cls.WHAT} reads move features with fingerprint {found!r}, but this sam-env "
                    f"computes {move_features.fingerprint()!r} (version {move_features.FEATURES_VERSION}); retrain it"
                )
        expected_fingerprint = encoding.fingerprint(rules.n_players, version)
        if metadata.get("fingerprint") != expected_fingerprint:
            found = metadata.get("fingerprint")
            raise CheckpointError(
                f"{source}: the {cls.WHAT} was trained on an encoding with fingerprint {found!r}, but this sam-env's "
                f"observation layout (version {version}), action table and scaling for {rules.n_players} players "
                f"have fingerprint {expected_fingerprint!r}; its inputs or actions would mean something else "
                "(retrain, or use the sam-env release it was made with)" + cls.missing_fingerprint_hint(found)
            )

    @classmethod
    def missing_fingerprint_hint(cls, found: object) -> str:
        """What to add to the fingerprint refusal (a kind with a migration for old files says how)."""
        return ""

    def check_tensors(self) -> None:
        """Exactly the tensors the architecture implies, finite float32 (:func:`check_tensor_shapes`)."""
        check_tensor_shapes(self.tensors, self.tensor_shapes(), self.source, "the architecture")


def format_metadata(
    cls: type[NetworkCheckpoint[Any]],
    rules: RuleConfig,
    arch: Architecture,
    arch_extra: Mapping[str, Any],
    training: Mapping[str, Any] | None,
    encoding_version: int,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """The metadata every checkpoint of kind ``cls`` starts with (``arch_extra``: what trained it, beside the
    architecture record; ``extra``: the run name, the step count)."""
    n = rules.n_players
    meta: dict[str, Any] = {
        "format": cls.FORMAT,
        "format_version": cls.FORMAT_VERSION,
        "encoding_version": encoding_version,
        "fingerprint": encoding.fingerprint(n, encoding_version),
        "n_actions": N_ACTIONS,
        "observation_shape": [observation_size(n, encoding_version)],
        "rules": rules.to_dict(),
        cls.ARCH_KEY: {**arch_extra, **arch.to_dict()},
    }
    if arch.reads_move_features:
        meta["move_features"] = {"version": move_features.FEATURES_VERSION, "fingerprint": move_features.fingerprint()}
    return {**meta, "training": dict(training or {}), **extra}


def checkpoint_files(path: str | Path) -> tuple[Path, Path]:
    """``(json, safetensors)`` paths of a checkpoint: the one rule for checkpoint paths everywhere.

    A checkpoint is named by either of its files, by their common stem, or by the folder that holds
    ``policy.json`` + ``policy.safetensors`` (``runs/<run>/final``, ``checkpoints/step_N``: the
    folders ``train.py --resume`` takes).
    """
    path = Path(path)
    if path.is_dir():
        path = path / "policy"
    stem = path.with_suffix("") if path.suffix in (".json", ".safetensors") else path
    return stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".safetensors")


def is_checkpoint_path(text: str) -> bool:
    """Whether ``text`` names a checkpoint by :func:`checkpoint_files`' rule (a file suffix, or files on disk)."""
    json_path, _ = checkpoint_files(text)
    return text.endswith((".json", ".safetensors")) or json_path.is_file()


def checkpoint_format(path: str | Path) -> str | None:
    """The ``format`` the metadata of the checkpoint ``path`` names declares (``sam-env-policy``, ``sam-env-qnet``),
    or ``None`` when it has none or cannot be read (the loaders say why)."""
    json_path, _ = checkpoint_files(path)
    try:
        return json.loads(json_path.read_text(encoding="utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        return None


def save_weights(arrays: Mapping[str, Any], path: Path, save: Any = save_file) -> None:
    """``save(arrays, path)`` (safetensors' ``save_file``), then the permissions of any new file.

    safetensors writes through a private temporary file (mode 0600); a checkpoint is meant to be
    shared and read by other users' evaluations, so it gets what ``open()`` would give (0644 under
    the usual umask 022).
    """
    save(arrays, str(path))
    umask = os.umask(0)
    os.umask(umask)
    path.chmod(0o666 & ~umask)


def write_checkpoint(
    json_path: Path, weights_path: Path, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]
) -> Path:
    """The files of any network checkpoint, once its tensors are checked.

    The weights are written first and hashed into the metadata, so a JSON file always describes
    exactly the weights beside it.
    """
    json_path.parent.mkdir(parents=True, exist_ok=True)
    save_weights(arrays, weights_path)
    meta = {**metadata, "weights": {"file": weights_path.name, "sha256": file_sha256(weights_path)}}
    write_metadata(json_path, meta)
    return json_path


def write_metadata(json_path: Path, metadata: Mapping[str, Any]) -> None:
    """A checkpoint's JSON file, in the one layout every writer uses (two-space indent, keys in order)."""
    json_path.write_text(json.dumps(metadata, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def check_seat_count(source: str, seats: object, n_players: int | None) -> None:
    """Refuse a network trained for ``seats`` players at a table of ``n_players`` (``None``: any table),
    with a :class:`CheckpointError` naming ``source``: its observation layout depends on the seat count."""
    if n_players is not None and seats != n_players:
        raise CheckpointError(
            f"{source}: the network was trained for {seats} players, but this table has {n_players}; "
            "its observation layout does not fit (train one for this seat count)"
        )


def read_weights(
    json_path: Path, weights_path: Path, metadata: Mapping[str, Any], what: str = "the network's tensors"
) -> dict[str, np.ndarray]:
    """The tensors of a checkpoint (``what`` they are), once the file's SHA-256 is the one recorded."""
    if not weights_path.is_file():
        raise CheckpointError(f"{json_path}: the weights file {weights_path} is missing")
    record = metadata.get("weights")
    recorded = record.get("sha256") if isinstance(record, dict) else None
    if not isinstance(recorded, str):
        raise CheckpointError(
            f"{json_path}: no SHA-256 of the weights in the metadata (found weights = {record!r}); expected "
            '{"file": ..., "sha256": ...} as a checkpoint is saved, so that the weights can be checked'
        )
    actual = file_sha256(weights_path)
    if recorded != actual:
        raise CheckpointError(
            f"{weights_path}: the file is damaged or was replaced — its SHA-256 is {actual}, but "
            f"{json_path.name} expects {recorded}; re-download or re-export the checkpoint"
        )
    try:
        return load_file(str(weights_path))
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(
            f"{weights_path}: not a readable safetensors file ({err}); expected {what} described by {json_path.name}"
        ) from None


def read_metadata(json_path: Path) -> dict[str, Any]:
    """The metadata dict of a checkpoint's JSON file, or a :class:`CheckpointError` saying why not."""
    if not json_path.is_file():
        raise CheckpointError(f"{json_path}: no such checkpoint metadata file")
    try:
        metadata = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CheckpointError(
            f"{json_path}: not valid JSON ({err}); expected a network checkpoint's metadata"
        ) from None
    if not isinstance(metadata, dict):
        kind = type(metadata).__name__
        raise CheckpointError(f"{json_path}: expected a JSON object of network metadata, got a JSON {kind}")
    return metadata


def check_tensor_shapes(
    tensors: Mapping[str, np.ndarray], expected: Mapping[str, tuple[int, ...]], source: str, what: str = "the network"
) -> None:
    """A checkpoint's tensors: exactly the names and shapes of ``what`` the metadata records, as finite float32."""
    found = {k: tuple(v.shape) for k, v in tensors.items()}
    if found != expected:
        missing = sorted(set(expected) - set(found))
        unexpected = sorted(set(found) - set(expected))
        wrong = sorted(k for k in set(found) & set(expected) if found[k] != expected[k])
        raise CheckpointError(
            f"{source}: tensors do not match {what} in the metadata "
            f"(missing {missing}, unexpected {unexpected}, wrong shape {wrong})"
        )
    bad = sorted(k for k, v in tensors.items() if v.dtype != np.float32 or not np.isfinite(v).all())
    if bad:
        raise CheckpointError(f"{source}: tensors {bad} are not finite float32 values")
