"""Widen a trained network without changing what it plays: ``init_from`` a narrower network.

A run that wants more capacity than the bot it starts from (``pi_layers: [512, 512]`` from a
256×256 bot) would otherwise start from scratch and lose everything the bot learned. Widening
keeps the function exactly, as Net2Net's "wider" operator does in its simplest form: every old unit
keeps its weights, every new unit gets random incoming weights and *zero* outgoing weights, so the
logits and values are unchanged until training gives the new units a say (their outgoing weights
receive gradients from the first update on). Depth and activation must stay the same.
"""

from __future__ import annotations

import numpy as np
from sam_env.agents.ppo.checkpoint import PolicyArch, PolicyCheckpoint

from .config import ConfigError


def can_widen(source: PolicyArch, target: PolicyArch) -> bool:
    """Whether ``target`` is ``source`` with every hidden layer as wide or wider."""
    return (
        source.activation == target.activation
        and len(source.pi) == len(target.pi)
        and len(source.vf) == len(target.vf)
        and all(a <= b for a, b in zip(source.pi + source.vf, target.pi + target.vf, strict=True))
    )


def widen(checkpoint: PolicyCheckpoint, arch: PolicyArch, seed: int = 0) -> PolicyCheckpoint:
    """``checkpoint``'s network with the hidden layers of ``arch``, playing exactly as it did.

    New units' incoming weights are drawn from N(0, 1/fan_in) with ``seed``; their biases and
    outgoing weights are zero. Raises :class:`ConfigError` when ``arch`` is not a widening.
    """
    source = checkpoint.arch
    if not can_widen(source, arch):
        raise ConfigError(
            f"{checkpoint.source}: layers {source} cannot be widened to {arch}; a network widens to the same "
            "depth and activation with every layer as wide or wider"
        )
    rng = np.random.default_rng(seed)
    old, new = checkpoint.tensors, {}
    for head in PolicyArch.HEADS:
        old_in = new_in = checkpoint.obs_size
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
    metadata = dict(checkpoint.metadata)
    metadata["policy"] = {**metadata["policy"], **arch.to_dict()}
    metadata["widened_from"] = {"source": checkpoint.source, "layers": source.to_dict()}
    return PolicyCheckpoint.in_memory(new, metadata, f"{checkpoint.source} widened to {arch}")


def fitted_to(start: PolicyCheckpoint, arch: PolicyArch, init_from: str, seed: int) -> PolicyCheckpoint:
    """``start`` (the network named by ``init_from``) as a run of layers ``arch`` begins from it: itself, or
    widened when narrower; any other shape is a :class:`ConfigError` naming ``init_from``."""
    if start.arch == arch:
        return start
    if not can_widen(start.arch, arch):
        raise ConfigError(
            f"init_from: {init_from!r} has layers {start.arch}, the config {arch} "
            "(a narrower network starts a run widened: the same depth and activation, "
            "no layer wider than the config's)"
        )
    return widen(start, arch, seed=seed)
