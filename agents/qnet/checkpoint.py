"""Q-network checkpoints: weights as safetensors, facts about them as JSON, checked on loading like a policy's.

A Q-network estimates the money a move is worth rather than how likely it should be played, so it
does not fit the actor-critic layout of :mod:`sam_env.agents.ppo.checkpoint`; it gets this sibling
format (``"format": "sam-env-qnet"``) with the same two files, the same path rule
(:func:`~sam_env.agents.ppo.checkpoint.checkpoint_files`), the same SHA-256 of the weights and the same
refusals (another encoding, action table or seat count). Two kinds of network, both an MLP whose
tensors are ``hidden.<i>.weight/bias`` then ``out.weight/bias``:

* ``dqn`` — observation → one Q-value per action id (DQN's network);
* ``dmc`` — observation followed by a move's features (:mod:`.features`) → the Q-value of that move
  (DouZero's Deep Monte-Carlo network); its metadata records the features' fingerprint.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sam_env import ENCODING_VERSION, N_ACTIONS, RuleConfig, RuleConfigError, encoding
from sam_env.encoding import observation_size

from ..ppo.checkpoint import (
    ACTIVATIONS,
    CheckpointError,
    check_table,
    check_tensor_shapes,
    checkpoint_files,
    read_metadata,
    read_weights,
    write_checkpoint,
)
from . import features

FORMAT = "sam-env-qnet"
FORMAT_VERSION = 1
KINDS = ("dqn", "dmc")


@dataclass(frozen=True)
class QArch:
    """The shape of a Q-network: its kind (:data:`KINDS`), hidden layer sizes and activation."""

    kind: str
    layers: tuple[int, ...]
    activation: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"network kind = {self.kind!r} is not allowed; expected one of {list(KINDS)}")
        sizes = self.layers
        if (
            not isinstance(sizes, (list, tuple))
            or not sizes
            or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes)
        ):
            raise ValueError(f"network layers = {sizes!r} must be a non-empty list of positive layer sizes")
        object.__setattr__(self, "layers", tuple(sizes))
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation = {self.activation!r} is not allowed; expected one of {list(ACTIVATIONS)}")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "layers": list(self.layers), "activation": self.activation}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QArch:
        return cls(kind=data["kind"], layers=tuple(data["layers"]), activation=data["activation"])

    def input_size(self, obs_size: int) -> int:
        """The observation, then (``dmc``) the move's features."""
        return obs_size + (features.N_FEATURES if self.kind == "dmc" else 0)

    @property
    def output_size(self) -> int:
        return N_ACTIONS if self.kind == "dqn" else 1

    def tensor_shapes(self, obs_size: int) -> dict[str, tuple[int, ...]]:
        """Every tensor of the network, by name, with its shape."""
        shapes: dict[str, tuple[int, ...]] = {}
        previous = self.input_size(obs_size)
        for i, size in enumerate(self.layers):
            shapes[f"hidden.{i}.weight"] = (size, previous)
            shapes[f"hidden.{i}.bias"] = (size,)
            previous = size
        shapes["out.weight"] = (self.output_size, previous)
        shapes["out.bias"] = (self.output_size,)
        return shapes


@dataclass(frozen=True)
class QCheckpoint:
    """Validated weights and metadata of one Q-network (from files, or built in memory during training)."""

    tensors: dict[str, np.ndarray]
    metadata: dict[str, Any]
    source: str

    @property
    def arch(self) -> QArch:
        return QArch.from_dict(self.metadata["network"])

    @property
    def rules(self) -> RuleConfig:
        return RuleConfig.from_dict(self.metadata["rules"])

    @property
    def obs_size(self) -> int:
        return int(self.metadata["observation_shape"][0])

    @property
    def encoding_version(self) -> int:
        """The observation encoding the network was trained on (it reads a later version's prefix)."""
        return int(self.metadata["encoding_version"])

    @classmethod
    def in_memory(cls, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any], source: str) -> QCheckpoint:
        checkpoint = cls({k: np.ascontiguousarray(v) for k, v in tensors.items()}, dict(metadata), source)
        _check(checkpoint)
        return checkpoint


def qnet_metadata(
    rules: RuleConfig, arch: QArch, algorithm: str, training: Mapping[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """The metadata of a Q-network for ``rules``; ``algorithm`` names what trained it (``extra``: run name, steps)."""
    meta: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "encoding_version": ENCODING_VERSION,
        "fingerprint": encoding.fingerprint(rules.n_players),
        "n_actions": N_ACTIONS,
        "observation_shape": [observation_size(rules.n_players)],
        "rules": rules.to_dict(),
        "network": {"algorithm": algorithm, **arch.to_dict()},
    }
    if arch.kind == "dmc":
        meta["move_features"] = {"version": features.FEATURES_VERSION, "fingerprint": features.fingerprint()}
    return {**meta, "training": dict(training or {}), **extra}


def checkpoint_format(path: str | Path) -> str | None:
    """The ``format`` the metadata of the checkpoint ``path`` names declares (``sam-env-policy``, ``sam-env-qnet``),
    or ``None`` when it has none or cannot be read (the loaders say why)."""
    json_path, _ = checkpoint_files(path)
    try:
        return json.loads(json_path.read_text(encoding="utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        return None


def is_qnet_checkpoint(path: str | Path) -> bool:
    """Whether the checkpoint that ``path`` names (by :func:`checkpoint_files`' rule) says it is a Q-network."""
    return checkpoint_format(path) == FORMAT


def save_qnet(path: str | Path, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
    """Write ``<stem>.safetensors`` then ``<stem>.json`` with the weights' SHA-256; return the JSON path."""
    json_path, weights_path = checkpoint_files(path)
    arrays = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}
    QCheckpoint.in_memory(arrays, metadata, str(json_path))
    return write_checkpoint(json_path, weights_path, arrays, metadata)


def load_qnet(path: str | Path, n_players: int | None = None) -> QCheckpoint:
    """Load and check a Q-network; ``n_players``: the table it must fit. Raises :class:`CheckpointError`."""
    json_path, weights_path = checkpoint_files(path)
    metadata = read_metadata(json_path)
    _check_metadata(metadata, str(json_path))
    check_table(str(json_path), metadata["rules"].get("n_players"), n_players)
    tensors = read_weights(json_path, weights_path, metadata, "the Q-network's tensors")
    checkpoint = QCheckpoint(tensors, metadata, str(weights_path))
    _check_tensors(checkpoint)
    return checkpoint


def _check(checkpoint: QCheckpoint) -> None:
    _check_metadata(checkpoint.metadata, checkpoint.source)
    _check_tensors(checkpoint)


def _check_metadata(metadata: dict[str, Any], source: str) -> None:
    """Refuse another format, encoding, action table, move features or an inconsistent shape."""
    if metadata.get("format") != FORMAT or metadata.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{source}: format {metadata.get('format')!r} version {metadata.get('format_version')!r}; "
            f"expected {FORMAT!r} version {FORMAT_VERSION}"
        )
    if metadata.get("encoding_version") != ENCODING_VERSION or metadata.get("n_actions") != N_ACTIONS:
        raise CheckpointError(
            f"{source}: made for observation encoding version {metadata.get('encoding_version')!r} with "
            f"{metadata.get('n_actions')!r} actions, but this sam-env encodes version {ENCODING_VERSION} with "
            f"{N_ACTIONS}; its inputs or actions would mean something else (retrain it)"
        )
    try:
        rules = RuleConfig.from_dict(metadata.get("rules"))
        arch = QArch.from_dict(metadata.get("network") or {})
    except (RuleConfigError, ValueError, KeyError, TypeError) as err:
        raise CheckpointError(f"{source}: bad rules or network in the metadata: {err}") from None
    expected = [observation_size(rules.n_players)]
    if metadata.get("observation_shape") != expected:
        raise CheckpointError(
            f"{source}: observation shape {metadata.get('observation_shape')!r}, but a {rules.n_players}-player "
            f"table observes {expected}"
        )
    if metadata.get("fingerprint") != encoding.fingerprint(rules.n_players):
        raise CheckpointError(
            f"{source}: trained on an encoding with fingerprint {metadata.get('fingerprint')!r}, which is not this "
            f"sam-env's for {rules.n_players} players; its inputs or actions would mean something else (retrain it)"
        )
    if arch.kind == "dmc":
        found = (metadata.get("move_features") or {}).get("fingerprint")
        if found != features.fingerprint():
            raise CheckpointError(
                f"{source}: its move features have fingerprint {found!r}, but this sam-env computes "
                f"{features.fingerprint()!r} (version {features.FEATURES_VERSION}); retrain it"
            )


def _check_tensors(checkpoint: QCheckpoint) -> None:
    check_tensor_shapes(checkpoint.tensors, checkpoint.arch.tensor_shapes(checkpoint.obs_size), checkpoint.source)
