"""A checkpoint's lineage: the checkpoints it grew from, each with its weights' fingerprint, steps and config.

A run longer than one sitting is a chain of chunks, each resumed from the last checkpoint of the one
before (``train.py --resume``); a run may also start from another network (``init_from``). The policy's
metadata (``policy.json``, beside the safetensors) then carries ``lineage``: one record per ancestor,
the oldest first, so that a checkpoint says what it was trained from however many chunks made it:

``weights_sha256``
    the parent's weights file's SHA-256 (its fingerprint: :func:`sam_env.agents.networks.policy.checkpoint.load_policy`
    checks it against the file, so a record names exactly one set of weights);
``steps``
    the parent's ``num_timesteps`` (what its trainer's ``total_timesteps`` counts);
``run_name`` and ``config``
    the run that wrote it and that run's config (``training`` in its metadata);
``how``
    ``resume`` (a chunk of the same run went on from it) or ``init_from`` (a new run started from its weights).

Nothing here reads or writes weights: the records come from the parent's metadata, which
``load_policy`` has checked against its weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, load_policy

LINEAGE = "lineage"
"""The metadata key of the lineage list."""
HOW = ("resume", "init_from")


def parent_record(parent: PolicyCheckpoint, how: str) -> dict[str, Any]:
    """The lineage record of ``parent`` (a checkpoint loaded from files, so its weights' SHA-256 is known)."""
    if how not in HOW:
        raise ValueError(f"how must be one of {HOW}, got {how!r}")
    weights = parent.metadata.get("weights")
    digest = weights.get("sha256") if isinstance(weights, dict) else None
    if not isinstance(digest, str):
        raise ValueError(f"{parent.source}: no weights SHA-256 in its metadata; a lineage names saved checkpoints only")
    return {
        "weights_sha256": digest,
        "steps": int(parent.metadata.get("num_timesteps", 0)),
        "run_name": parent.metadata.get("run_name"),
        "config": parent.metadata.get("training", {}),
        "source": parent.source,
        "how": how,
    }


def lineage_of(parent: PolicyCheckpoint) -> list[dict[str, Any]]:
    """The ancestors ``parent`` itself records (none for a checkpoint written before lineages existed)."""
    found = parent.metadata.get(LINEAGE, [])
    return list(found) if isinstance(found, list) else []


def grown_from(parent: PolicyCheckpoint, how: str) -> list[dict[str, Any]]:
    """The lineage of a checkpoint grown from ``parent``: ``parent``'s lineage, then ``parent`` itself."""
    return [*lineage_of(parent), parent_record(parent, how)]


def resumed_lineage(checkpoint_folder: Path, n_players: int) -> list[dict[str, Any]]:
    """The lineage of what a run resumed from ``checkpoint_folder`` (its ``policy.*``) will save."""
    return grown_from(load_policy(checkpoint_folder / "policy", n_players=n_players), "resume")


def fingerprints(lineage: Sequence[dict[str, Any]]) -> list[str]:
    """The ancestors' weights fingerprints, the oldest first."""
    return [record["weights_sha256"] for record in lineage]
