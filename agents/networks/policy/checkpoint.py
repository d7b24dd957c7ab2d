"""Policy checkpoints: the actor-critic's architecture record and its files in the networks' one format.

The files, the checks on loading and the refusals are :mod:`..format`'s (shared with the Q-networks);
this module adds what is a policy's own: the ``sam-env-policy`` tag, :class:`PolicyArch` (the layer sizes,
tensor names and activation of sb3-contrib's MaskablePPO actor-critic, plus an optional move-scoring
head) and the migration of files saved before encoding fingerprints existed (:func:`add_fingerprint`).
A policy loads from any observation encoding version this sam-env encodes (it reads the prefix of a
later one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from sam_env import ENCODING_VERSION, N_ACTIONS, RuleConfig, encoding, move_features
from sam_env.encoding import ENCODING_VERSIONS

from ..format import (
    CheckpointError,
    NetworkCheckpoint,
    checkpoint_files,
    format_metadata,
    read_metadata,
    write_metadata,
)
from ..layers import ACTIVATIONS, Activation

FORMAT = "sam-env-policy"
FORMAT_VERSION = 1


class Head(NamedTuple):
    """One MLP head of SB3's actor-critic as its state dict names it: ``<hidden>.<2i>`` is hidden layer
    ``i`` (SB3 builds a head as ``nn.Sequential(Linear, activation, Linear, activation, …)``), then
    ``<out>`` maps the last hidden layer to the head's outputs."""

    sizes: str
    """The :class:`PolicyArch` field with the head's hidden layer sizes."""
    hidden: str
    out: str


MIGRATE = (
    "if it was made with this encoding version, migrate it with "
    "sam_env.agents.networks.policy.checkpoint.add_fingerprint(path)"
)


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

    @property
    def reads_move_features(self) -> bool:
        """Whether the network reads move features (its move-scoring head does)."""
        return self.move_head > 0

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
class PolicyCheckpoint(NetworkCheckpoint[PolicyArch]):
    """Validated weights and metadata of one policy (from files, or built in memory during training)."""

    FORMAT: ClassVar[str] = FORMAT
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    ARCH: ClassVar[type[PolicyArch]] = PolicyArch
    ARCH_KEY: ClassVar[str] = "policy"
    WHAT: ClassVar[str] = "policy"
    ENCODINGS: ClassVar[tuple[int, ...]] = tuple(ENCODING_VERSIONS)

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        return self.arch.tensor_shapes(self.obs_size, N_ACTIONS)

    @classmethod
    def missing_fingerprint_hint(cls, found: object) -> str:
        return "" if found is not None else f"; one saved before fingerprints existed: {MIGRATE}"


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
    trained_as = {"algorithm": "MaskablePPO", "class": "MaskableActorCriticPolicy"}
    return format_metadata(PolicyCheckpoint, rules, arch, trained_as, training, encoding_version, extra)


def load_policy(path: str | Path, n_players: int | None = None) -> PolicyCheckpoint:
    """Load and check a policy checkpoint (:meth:`~..format.NetworkCheckpoint.load`)."""
    return PolicyCheckpoint.load(path, n_players)


def save_policy(path: str | Path, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
    """Write a policy's two files; return the JSON path (:meth:`~..format.NetworkCheckpoint.save`)."""
    return PolicyCheckpoint.save(path, tensors, metadata)


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
    write_metadata(json_path, stamped)
    try:
        load_policy(json_path)
    except CheckpointError:
        write_metadata(json_path, metadata)
        raise
    return json_path
