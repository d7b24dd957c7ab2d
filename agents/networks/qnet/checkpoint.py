"""Q-network checkpoints: weights as safetensors, facts about them as JSON, checked on loading like a policy's.

A Q-network estimates the money a move is worth rather than how likely it should be played, so it
does not fit the actor-critic layout of a policy (:mod:`..policy.checkpoint`); it has its own ``format``
tag (``"sam-env-qnet"``) and architecture record in the networks' one file format (:mod:`..format`): the
same two files, path rule, SHA-256 of the weights and refusals (another encoding, action table or seat
count). Two kinds of Q-network, both an MLP whose tensors are ``hidden.<i>.weight/bias`` then
``out.weight/bias``:

* ``dqn`` — observation → one Q-value per action id (DQN's network);
* ``dmc`` — observation followed by a move's features (:mod:`sam_env.move_features`) → the Q-value of that move
  (DouZero's Deep Monte-Carlo network); its metadata records the features' fingerprint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from sam_env import ENCODING_VERSION, N_ACTIONS, RuleConfig, move_features

from ..format import NetworkCheckpoint, checkpoint_format, format_metadata
from ..layers import ACTIVATIONS

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
        return obs_size + (move_features.N_FEATURES if self.kind == "dmc" else 0)

    @property
    def reads_move_features(self) -> bool:
        """``dmc`` networks read each move's features beside the observation."""
        return self.kind == "dmc"

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
class QCheckpoint(NetworkCheckpoint[QArch]):
    """Validated weights and metadata of one Q-network (from files, or built in memory during training)."""

    FORMAT: ClassVar[str] = FORMAT
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    ARCH: ClassVar[type[QArch]] = QArch
    ARCH_KEY: ClassVar[str] = "network"
    WHAT: ClassVar[str] = "Q-network"
    ENCODINGS: ClassVar[tuple[int, ...]] = (ENCODING_VERSION,)

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        return self.arch.tensor_shapes(self.obs_size)


def qnet_metadata(
    rules: RuleConfig, arch: QArch, algorithm: str, training: Mapping[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """The metadata of a Q-network for ``rules``; ``algorithm`` names what trained it (``extra``: run name, steps)."""
    return format_metadata(QCheckpoint, rules, arch, {"algorithm": algorithm}, training, ENCODING_VERSION, extra)


def is_qnet_checkpoint(path: str | Path) -> bool:
    """Whether the checkpoint that ``path`` names (by the format's path rule) says it is a Q-network."""
    return checkpoint_format(path) == FORMAT


def save_qnet(path: str | Path, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
    """Write a Q-network's two files; return the JSON path (:meth:`~..format.NetworkCheckpoint.save`)."""
    return QCheckpoint.save(path, tensors, metadata)


def load_qnet(path: str | Path, n_players: int | None = None) -> QCheckpoint:
    """Load and check a Q-network (:meth:`~..format.NetworkCheckpoint.load`)."""
    return QCheckpoint.load(path, n_players)
