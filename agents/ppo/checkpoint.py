"""Policy checkpoints: weights as safetensors, facts about them as JSON, and the checks on loading.

A checkpoint is two files with the same stem: ``<stem>.safetensors`` (the policy's state dict, plain
tensors) and ``<stem>.json`` (metadata). Loading never unpickles anything — safetensors holds only
arrays, JSON only data — so a checkpoint downloaded from anywhere cannot run code.

The metadata records what the weights only make sense with: the observation encoding version and
its fingerprint (:func:`sam_env.encoding.fingerprint`: layout, action table, scaling; a checkpoint of
any version this sam-env encodes loads, and whatever seats it gives it that version), the number
of actions, the observation shape, the rules (their seat count fixes the observation
layout), the network architecture (enough to rebuild the network without the training code), the
training configuration, and the SHA-256 of the weights file, so that a file swapped, edited or cut
short is refused with a message naming it instead of playing with garbage weights.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np
from safetensors import SafetensorError
from safetensors.numpy import load_file, save_file

from sam_env import ENCODING_VERSION, N_ACTIONS, RuleConfig, RuleConfigError, encoding, move_features
from sam_env.encoding import ENCODING_VERSIONS, observation_size
from sam_env.utils.files import file_sha256

FORMAT = "sam-env-policy"
FORMAT_VERSION = 1


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


class Activation(NamedTuple):
    """An activation function, as the numpy player computes it and as torch builds it."""

    numpy: Callable[[np.ndarray], np.ndarray]
    torch: str
    """The name of its ``torch.nn`` module (torch is imported only where networks are built)."""


ACTIVATIONS: dict[str, Activation] = {"tanh": Activation(np.tanh, "Tanh"), "relu": Activation(_relu, "ReLU")}
"""Activation functions a checkpoint may name, by name: the one table every network is built from."""


class Head(NamedTuple):
    """One MLP head of SB3's actor-critic as its state dict names it: ``<hidden>.<2i>`` is hidden layer
    ``i`` (SB3 builds a head as ``nn.Sequential(Linear, activation, Linear, activation, …)``), then
    ``<out>`` maps the last hidden layer to the head's outputs."""

    sizes: str
    """The :class:`PolicyArch` field with the head's hidden layer sizes."""
    hidden: str
    out: str


MIGRATE = (
    "if it was made with this encoding version, migrate it with sam_env.agents.ppo.checkpoint.add_fingerprint(path)"
)


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here: missing, damaged, or made for another encoding or table."""


@dataclass(frozen=True)
class PolicyArch:
    """The shape of a MaskablePPO actor-critic: hidden layer sizes of each head and their activation.

    The features extractor is SB3's ``Flatten`` (the observation is already a flat vector), so this
    plus the observation size and the action count determine every tensor of the state dict.

    ``move_head`` (0: none, the SB3 layout) adds a move-scoring head beside the logits, as DouZero scores
    its actions: each legal move's features (:mod:`sam_env.move_features`: what it plays, what it leaves
    in hand, its kind, key and size) and the policy's last hidden layer go through one hidden layer of
    ``move_head`` units (``move_net``) to a score (``move_out``) added to that move's logit. Moves that
    share cards or structure then share what is learned about them, where the 201 logits learn each
    action apart. SB3 cannot build it; the numpy player, the torch network and the search's compiled
    network all do. The
    record also holds the tensor names (:attr:`POLICY`, :attr:`VALUE`, :meth:`hidden_layers`) and the
    activation (:attr:`activation_fn`) that every implementation of the network is built from: the
    numpy player (:mod:`.bot`), the torch module (:mod:`.network`: the batched and RLlib trainers),
    and SB3's policy (:mod:`.sb3`), which a test holds to the same names and outputs.
    """

    pi: tuple[int, ...]
    vf: tuple[int, ...]
    activation: str
    move_head: int = 0

    POLICY: ClassVar[Head] = Head("pi", "mlp_extractor.policy_net", "action_net")
    MOVE_NET: ClassVar[str] = "move_net"
    MOVE_OUT: ClassVar[str] = "move_out"
    VALUE: ClassVar[Head] = Head("vf", "mlp_extractor.value_net", "value_net")
    HEADS: ClassVar[tuple[Head, Head]] = (POLICY, VALUE)

    def __post_init__(self) -> None:
        for head in ("pi", "vf"):
            sizes = getattr(self, head)
            if not isinstance(sizes, (list, tuple)) or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes
            ):
                raise ValueError(f"net_arch.{head} = {sizes!r} must be a list of positive layer sizes")
            object.__setattr__(self, head, tuple(sizes))
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation = {self.activation!r} is not allowed; expected one of {list(ACTIVATIONS)}")
        m = self.move_head
        if isinstance(m, bool) or not isinstance(m, int) or m < 0:
            raise ValueError(f"move_head = {m!r} must be an int >= 0 (units of the move-scoring head; 0: none)")

    def to_dict(self) -> dict[str, Any]:
        """The record in a checkpoint's metadata (``move_head`` only where there is one: SB3's layout otherwise)."""
        out: dict[str, Any] = {"net_arch": {"pi": list(self.pi), "vf": list(self.vf)}, "activation": self.activation}
        if self.move_head:
            out["move_head"] = self.move_head
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicyArch:
        arch = data["net_arch"]
        move_head = data.get("move_head", 0)
        return cls(pi=tuple(arch["pi"]), vf=tuple(arch["vf"]), activation=data["activation"], move_head=move_head)

    @property
    def activation_fn(self) -> Activation:
        return ACTIVATIONS[self.activation]

    def hidden_layers(self, head: Head) -> list[str]:
        """The names of ``head``'s hidden ``Linear`` layers, the input side first."""
        return [f"{head.hidden}.{2 * i}" for i in range(len(getattr(self, head.sizes)))]

    def tensor_shapes(self, obs_size: int, n_actions: int) -> dict[str, tuple[int, ...]]:
        """Every tensor of the SB3 state dict, by name, with its shape."""
        shapes: dict[str, tuple[int, ...]] = {}
        for head, out_size in ((self.POLICY, n_actions), (self.VALUE, 1)):
            previous = obs_size
            for name, size in zip(self.hidden_layers(head), getattr(self, head.sizes), strict=True):
                shapes[f"{name}.weight"] = (size, previous)
                shapes[f"{name}.bias"] = (size,)
                previous = size
            shapes[f"{head.out}.weight"] = (out_size, previous)
            shapes[f"{head.out}.bias"] = (out_size,)
        if self.move_head:
            shapes[f"{self.MOVE_NET}.weight"] = (self.move_head, self.pi[-1] + move_features.N_FEATURES)
            shapes[f"{self.MOVE_NET}.bias"] = (self.move_head,)
            shapes[f"{self.MOVE_OUT}.weight"] = (1, self.move_head)
            shapes[f"{self.MOVE_OUT}.bias"] = (1,)
        return shapes


@dataclass(frozen=True)
class PolicyCheckpoint:
    """Validated weights and metadata of one policy (from files, or built in memory during training)."""

    tensors: dict[str, np.ndarray]
    metadata: dict[str, Any]
    source: str
    """Where the checkpoint came from (a path, or a description), for error messages."""

    @property
    def arch(self) -> PolicyArch:
        return PolicyArch.from_dict(self.metadata["policy"])

    @property
    def rules(self) -> RuleConfig:
        return RuleConfig.from_dict(self.metadata["rules"])

    @property
    def obs_size(self) -> int:
        return int(self.metadata["observation_shape"][0])

    @property
    def encoding_version(self) -> int:
        """The observation encoding the policy was trained on: a table must encode it, or a later version."""
        return int(self.metadata["encoding_version"])

    @classmethod
    def in_memory(cls, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any], source: str) -> PolicyCheckpoint:
        """Validate weights that never touched the disk (the self-play snapshots of a training run)."""
        checkpoint = cls({k: np.ascontiguousarray(v) for k, v in tensors.items()}, dict(metadata), source)
        _check_metadata(checkpoint.metadata, source)
        _check_tensors(checkpoint, source)
        return checkpoint


def policy_metadata(
    rules: RuleConfig,
    arch: PolicyArch,
    training: Mapping[str, Any] | None = None,
    *,
    encoding_version: int = ENCODING_VERSION,
    **extra: Any,
) -> dict[str, Any]:
    """The metadata of a policy for ``rules`` trained on observations of ``encoding_version`` (``extra``:
    e.g. the run name and step count). A move-scoring head records its features' fingerprint."""
    n = rules.n_players
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "encoding_version": encoding_version,
        "fingerprint": encoding.fingerprint(n, encoding_version),
        "n_actions": N_ACTIONS,
        "observation_shape": [observation_size(n, encoding_version)],
        "rules": rules.to_dict(),
        "policy": {"algorithm": "MaskablePPO", "class": "MaskableActorCriticPolicy", **arch.to_dict()},
    }
    if arch.move_head:
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


def save_policy(path: str | Path, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
    """Write ``<stem>.safetensors`` and ``<stem>.json``; return the JSON path (:func:`write_checkpoint`)."""
    json_path, weights_path = checkpoint_files(path)
    arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}
    PolicyCheckpoint.in_memory(arrays, metadata, str(json_path))
    return write_checkpoint(json_path, weights_path, arrays, metadata)


def write_checkpoint(
    json_path: Path, weights_path: Path, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]
) -> Path:
    """The files of any network checkpoint (a policy, a Q-network), once its tensors are checked.

    The weights are written first and hashed into the metadata, so a JSON file always describes
    exactly the weights beside it.
    """
    json_path.parent.mkdir(parents=True, exist_ok=True)
    save_weights(arrays, weights_path)
    meta = {**metadata, "weights": {"file": weights_path.name, "sha256": file_sha256(weights_path)}}
    json_path.write_text(json.dumps(meta, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return json_path


def check_table(source: str, seats: object, n_players: int | None) -> None:
    """Refuse a policy trained for ``seats`` players at a table of ``n_players`` (``None``: any table),
    with a :class:`CheckpointError` naming ``source``: its observation layout depends on the seat count."""
    if n_players is not None and seats != n_players:
        raise CheckpointError(
            f"{source}: the policy was trained for {seats} players, but this table has {n_players}; "
            "its observation layout does not fit (train one for this seat count)"
        )


def load_policy(path: str | Path, n_players: int | None = None) -> PolicyCheckpoint:
    """Load and check a checkpoint; ``n_players``: the table it must fit (refused otherwise).

    Raises :class:`CheckpointError` naming the file, what was found and what was expected.
    """
    json_path, weights_path = checkpoint_files(path)
    metadata = read_metadata(json_path)
    _check_metadata(metadata, str(json_path))
    check_table(str(json_path), metadata["rules"].get("n_players"), n_players)
    tensors = read_weights(json_path, weights_path, metadata)
    checkpoint = PolicyCheckpoint(tensors, metadata, str(weights_path))
    _check_tensors(checkpoint, str(weights_path))
    return checkpoint


def read_weights(
    json_path: Path, weights_path: Path, metadata: Mapping[str, Any], what: str = "the policy state dict"
) -> dict[str, np.ndarray]:
    """The tensors of any network checkpoint (``what`` they are), once the file's SHA-256 is the one recorded."""
    if not weights_path.is_file():
        raise CheckpointError(f"{json_path}: the weights file {weights_path} is missing")
    record = metadata.get("weights")
    recorded = record.get("sha256") if isinstance(record, dict) else None
    if not isinstance(recorded, str):
        raise CheckpointError(
            f"{json_path}: no SHA-256 of the weights in the metadata (found weights = {record!r}); expected "
            '{"file": ..., "sha256": ...} as save_policy writes it, so that the weights can be checked'
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


def copy_policy(source: str | Path, destination: str | Path) -> Path:
    """Check a checkpoint and write it under a new stem (e.g. ``agents/pretrained/ppo``); return the JSON path.

    Renaming the files by hand would leave the metadata naming the old weights file; this rewrites it.
    """
    checkpoint = load_policy(source)
    metadata = {k: v for k, v in checkpoint.metadata.items() if k != "weights"}
    return save_policy(destination, checkpoint.tensors, metadata)


def add_fingerprint(path: str | Path) -> Path:
    """Record this sam-env's encoding fingerprint in a checkpoint saved before fingerprints existed.

    The weights file is untouched (its SHA-256 stays valid). Only for checkpoints of the current
    :data:`~sam_env.ENCODING_VERSION`, whose encoding the fingerprint describes; one that already has
    a fingerprint is refused, since its fingerprint is the record of what it was trained on.
    """
    json_path, _ = checkpoint_files(path)
    metadata = read_metadata(json_path)
    if "fingerprint" in metadata:
        raise CheckpointError(f"{json_path}: already has a fingerprint ({metadata['fingerprint']!r})")
    rules = metadata.get("rules")
    n_players = rules.get("n_players") if isinstance(rules, dict) else None
    stamped = {}
    for key, value in metadata.items():
        stamped[key] = value
        if key == "encoding_version" and isinstance(n_players, int):
            stamped["fingerprint"] = encoding.fingerprint(n_players)
    json_path.write_text(json.dumps(stamped, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    try:
        load_policy(json_path)
    except CheckpointError:
        json_path.write_text(json.dumps(metadata, indent=2, sort_keys=False) + "\n", encoding="utf-8")
        raise
    return json_path


def read_metadata(json_path: Path) -> dict[str, Any]:
    """The metadata dict of a checkpoint's JSON file, or a :class:`CheckpointError` saying why not."""
    if not json_path.is_file():
        raise CheckpointError(f"{json_path}: no such checkpoint metadata file")
    try:
        metadata = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{json_path}: not valid JSON ({err}); expected {FORMAT} metadata") from None
    if not isinstance(metadata, dict):
        kind = type(metadata).__name__
        raise CheckpointError(f"{json_path}: expected a JSON object of {FORMAT} metadata, got a JSON {kind}")
    return metadata


def _check_metadata(metadata: dict[str, Any], source: str) -> None:
    """Refuse metadata from another format, encoding, action table or with an inconsistent shape."""
    if metadata.get("format") != FORMAT or metadata.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{source}: format {metadata.get('format')!r} version {metadata.get('format_version')!r}; "
            f"expected {FORMAT!r} version {FORMAT_VERSION}"
        )
    version = metadata.get("encoding_version")
    if isinstance(version, bool) or version not in ENCODING_VERSIONS:
        raise CheckpointError(
            f"{source}: the policy was trained on observation encoding version {version!r}, but this sam-env "
            f"encodes versions {list(ENCODING_VERSIONS)}; its inputs would mean something else (retrain, or use "
            "the sam-env release it was made with)"
        )
    if metadata.get("n_actions") != N_ACTIONS:
        raise CheckpointError(
            f"{source}: the policy has {metadata.get('n_actions')!r} actions, but this sam-env's action "
            f"table has {N_ACTIONS}; action ids would not match"
        )
    try:
        rules = RuleConfig.from_dict(metadata.get("rules"))
        arch = PolicyArch.from_dict(metadata.get("policy") or {})
    except (RuleConfigError, ValueError, KeyError, TypeError) as err:
        raise CheckpointError(f"{source}: bad rules or policy architecture in the metadata: {err}") from None
    expected = [observation_size(rules.n_players, version)]
    if metadata.get("observation_shape") != expected:
        raise CheckpointError(
            f"{source}: observation shape {metadata.get('observation_shape')!r}, but a {rules.n_players}-player "
            f"table observes {expected} in the encoding the metadata names (trained on observation encoding "
            f"version {version})"
        )
    if arch.move_head:
        found = (metadata.get("move_features") or {}).get("fingerprint")
        if found != move_features.fingerprint():
            raise CheckpointError(
                f"{source}: its move-scoring head reads move features with fingerprint {found!r}, but this sam-env "
                f"computes {move_features.fingerprint()!r} (version {move_features.FEATURES_VERSION}); retrain it"
            )
    expected_fingerprint = encoding.fingerprint(rules.n_players, version)
    if metadata.get("fingerprint") != expected_fingerprint:
        found = metadata.get("fingerprint")
        raise CheckpointError(
            f"{source}: the policy was trained on an encoding with fingerprint {found!r}, but this sam-env's "
            f"observation layout (version {version}), action table and scaling for {rules.n_players} players have "
            "fingerprint "
            f"{expected_fingerprint!r}; its inputs or actions would mean something else (retrain, or use the "
            "sam-env release it was made with)"
            + ("" if found is not None else f"; one saved before fingerprints existed: {MIGRATE}")
        )


def _check_tensors(checkpoint: PolicyCheckpoint, source: str) -> None:
    shapes = checkpoint.arch.tensor_shapes(checkpoint.obs_size, N_ACTIONS)
    check_tensor_shapes(checkpoint.tensors, shapes, source, "the architecture")


def check_tensor_shapes(
    tensors: Mapping[str, np.ndarray], expected: Mapping[str, tuple[int, ...]], source: str, what: str = "the network"
) -> None:
    """Any network checkpoint's tensors: exactly the names and shapes of ``what`` the metadata records, as finite
    float32 values."""
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
