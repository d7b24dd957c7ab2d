"""Widen a trained network without changing what it plays: ``init_from`` a narrower network.

A run that wants more capacity than the bot it starts from (``pi_layers: [512, 512]`` from a
256×256 bot) would otherwise start from scratch and lose everything the bot learned. Widening
keeps the function exactly, as Net2Net's "wider" operator does in its simplest form: every old unit
keeps its weights, every new unit gets random incoming weights and *zero* outgoing weights, so the
logits and values are unchanged until training gives the new units a say (their outgoing weights
receive gradients from the first update on). Depth and activation must stay the same.

The same holds for what a network reads and how it scores: a later observation encoding (its new inputs
get zero weight, so the network ignores the hand's history until it learns to use it) and a move-scoring
head (its output weights are zero, so every move's score is 0 until trained).
"""

from __future__ import annotations

import numpy as np

from sam_env.agents.networks.policy.checkpoint import PolicyArch, PolicyCheckpoint, policy_metadata
from sam_env.move_features import N_FEATURES

from .config import ConfigError


def can_widen(source: PolicyArch, target: PolicyArch) -> bool:
    """Whether ``target`` is ``source`` with every hidden layer as wide or wider."""
    return (
        source.activation == target.activation
        and len(source.pi) == len(target.pi)
        and len(source.vf) == len(target.vf)
        and all(a <= b for a, b in zip(source.pi + source.vf, target.pi + target.vf, strict=True))
        and source.move_head <= target.move_head
    )


def widen(
    checkpoint: PolicyCheckpoint, arch: PolicyArch, seed: int = 0, encoding_version: int | None = None
) -> PolicyCheckpoint:
    """``checkpoint``'s network with the hidden layers (and move head) of ``arch``, reading observations of
    ``encoding_version`` (default: its own), playing exactly as it did.

    New units' incoming weights are drawn from N(0, 1/fan_in) with ``seed``; their biases and
    outgoing weights are zero, as are the weights of new inputs. Raises :class:`ConfigError` when
    ``arch`` is not a widening or the version is older than the network's.
    """
    source = checkpoint.arch
    version = checkpoint.encoding_version if encoding_version is None else encoding_version
    if not can_widen(source, arch) or version < checkpoint.encoding_version:
        raise ConfigError(
            f"{checkpoint.source}: layers {source} (encoding version {checkpoint.encoding_version}) cannot be "
            f"widened to {arch} (version {version}); a network widens to the same depth and activation with every "
            "layer as wide or wider, a move head as wide or wider, and the same or a later encoding version"
        )
    rng = np.random.default_rng(seed)
    old, new = checkpoint.tensors, {}
    metadata = policy_metadata(
        checkpoint.rules, arch, checkpoint.metadata.get("training"), encoding_version=version
    )  # the version's and the head's records
    obs_size = metadata["observation_shape"][0]
    for head in PolicyArch.HEADS:
        old_in, new_in = checkpoint.obs_size, obs_size
        layers = zip(arch.hidden_layers(head), getattr(source, head.sizes), getattr(arch, head.sizes), strict=True)
        for name, before, after in layers:
            weight = np.zeros((after, new_in), dtype=np.float32)
            weight[:before, :old_in] = old[f"{name}.weight"]
            weight[before:] = rng.normal(0.0, 1.0 / np.sqrt(new_in), (after - before, new_in))
            bias = np.zeros(after, dtype=np.float32)
            bias[:before] = old[f"{name}.bias"]
            new[f"{name}.weight"], new[f"{name}.bias"] = weight, bias
            old_in, new_in = before, after
        out = old[f"{head.out}.weight"]
        weight = np.zeros((out.shape[0], new_in), dtype=np.float32)
        weight[:, :old_in] = out
        new[f"{head.out}.weight"], new[f"{head.out}.bias"] = weight, old[f"{head.out}.bias"].copy()
    if arch.move_head:
        new.update(_widened_move_head(old, source, arch, rng))
    metadata = {**checkpoint.metadata, **{k: v for k, v in metadata.items() if k != "training"}}
    metadata.pop("weights", None)
    metadata["widened_from"] = {
        "source": checkpoint.source,
        "layers": source.to_dict(),
        "encoding_version": checkpoint.encoding_version,
    }
    return PolicyCheckpoint.in_memory(new, metadata, f"{checkpoint.source} widened to {arch}")


def _widened_move_head(
    old: dict[str, np.ndarray], source: PolicyArch, arch: PolicyArch, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """The move head of ``arch`` (its input: the last hidden layer, then the move's features), keeping the
    units of ``source``'s head where it had one; new units score 0 until trained."""
    m0, m1, h0, h1 = source.move_head, arch.move_head, source.pi[-1], arch.pi[-1]
    fan_in = h1 + N_FEATURES
    weight = rng.normal(0.0, 1.0 / np.sqrt(fan_in), (m1, fan_in)).astype(np.float32)
    weight[:m0] = 0.0
    out = np.zeros((1, m1), dtype=np.float32)
    bias, out_bias = np.zeros(m1, dtype=np.float32), np.zeros(1, dtype=np.float32)
    if m0:
        before = old[f"{PolicyArch.MOVE_NET}.weight"]
        weight[:m0, :h0], weight[:m0, h1:] = before[:, :h0], before[:, h0:]
        bias[:m0] = old[f"{PolicyArch.MOVE_NET}.bias"]
        out[:, :m0], out_bias[:] = old[f"{PolicyArch.MOVE_OUT}.weight"], old[f"{PolicyArch.MOVE_OUT}.bias"]
    return {
        f"{PolicyArch.MOVE_NET}.weight": weight,
        f"{PolicyArch.MOVE_NET}.bias": bias,
        f"{PolicyArch.MOVE_OUT}.weight": out,
        f"{PolicyArch.MOVE_OUT}.bias": out_bias,
    }


def fitted_to(
    start: PolicyCheckpoint, arch: PolicyArch, init_from: str, seed: int, encoding_version: int | None = None
) -> PolicyCheckpoint:
    """``start`` (the network named by ``init_from``) as a run of layers ``arch`` on observations of
    ``encoding_version`` (default: ``start``'s) begins from it: itself, or widened when narrower or of an
    earlier version; any other shape is a :class:`ConfigError` naming ``init_from``."""
    version = start.encoding_version if encoding_version is None else encoding_version
    if start.arch == arch and start.encoding_version == version:
        return start
    if not can_widen(start.arch, arch) or version < start.encoding_version:
        raise ConfigError(
            f"init_from: {init_from!r} has layers {start.arch} (encoding version {start.encoding_version}), the "
            f"config {arch} (version {version}) (a narrower network, one of an earlier encoding version or one with "
            "a narrower move head starts a run widened: the same depth and activation, no later encoding version, "
            "no layer wider than the config's)"
        )
    return widen(start, arch, seed=seed, encoding_version=version)
