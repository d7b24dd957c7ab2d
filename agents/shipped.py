"""The networks shipped with sam-env, of both kinds, by name: what the registry seats as ``"ppo"`` or ``"dmc"``.

``agents/pretrained/<name>.json`` + ``<name>.safetensors`` hold either a policy network (format
``sam-env-policy``, played by :class:`~.ppo.bot.PPOBot`) or a Q-network (format ``sam-env-qnet``, played
by :class:`~.qnet.bot.QBot`). The metadata says which, so a name alone is enough to load and play one.
A *family* is a name with its seat-count variants (``ppo``, ``ppo_2p``, ``ppo_3p`` …): a network plays
only the seat count it was trained for, and :func:`shipped_network_for` picks the member that fits a table.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from sam_env.bot import Bot
from sam_env.core import RuleConfig

from .ppo.bot import PRETRAINED_DIR, PPOBot, pretrained_checkpoint, pretrained_names
from .ppo.checkpoint import CheckpointError, PolicyCheckpoint, copy_policy
from .qnet.bot import QBot
from .qnet.checkpoint import QCheckpoint, is_qnet_checkpoint, load_qnet, save_qnet


def shipped_names() -> list[str]:
    """Names of every network shipped in ``agents/pretrained`` (their file stems), sorted."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.json"))


@cache
def shipped_checkpoint(name: str) -> PolicyCheckpoint | QCheckpoint:
    """A shipped network's checkpoint, read and checked once per process, of whichever kind it is."""
    if name in pretrained_names():
        return pretrained_checkpoint(name)
    if name not in shipped_names():
        raise CheckpointError(
            f"no pretrained bot {name!r} in {PRETRAINED_DIR}; shipped: {', '.join(shipped_names()) or 'none'}"
        )
    return load_qnet(PRETRAINED_DIR / f"{name}.json")


def shipped_bot(name: str, seed: int | None = None, *, label: str | None = None) -> Bot:
    """The bot that plays the shipped network ``name`` (``label``: its name in reports, default ``name``)."""
    checkpoint = shipped_checkpoint(name)
    if isinstance(checkpoint, QCheckpoint):
        return QBot(checkpoint, seed=seed, name=label or name)
    return PPOBot(checkpoint, seed=seed, name=label or name)


def shipped_network_for(name: str, rules: RuleConfig) -> str:
    """The shipped network of family ``name`` (``name`` itself or ``name_<k>p``) that fits ``rules``.

    A network trained on exactly these rules is preferred; any network for this seat count fits
    (the rules change what is legal, which the action mask carries, not the observation layout).
    """
    family = [p for p in shipped_names() if p == name or re.fullmatch(rf"{re.escape(name)}_[0-9]+p", p)]
    seats = {p: shipped_checkpoint(p).rules.n_players for p in family}
    exact = [p for p in family if shipped_checkpoint(p).rules == rules]
    fitting = exact or [p for p in family if seats[p] == rules.n_players]
    if not fitting:
        made_for = ", ".join(f"{p} ({seats[p]} players)" for p in family)
        raise CheckpointError(
            f"no shipped {name!r} network plays a {rules.n_players}-player table; shipped: {made_for}. "
            "Rule-based bots (random, greedy, heuristic) play every table, or train one with train.py "
            f"--set rules.n_players={rules.n_players}"
        )
    return fitting[0]


def copy_network(source: str | Path, destination: str | Path) -> Path:
    """Check a checkpoint of either kind and write it under a new stem (how a network is shipped:
    ``copy_network("runs/<run>/final", "agents/pretrained/dmc")``); return the new JSON path.

    Renaming the files by hand would leave the metadata naming the old weights file; this rewrites it.
    """
    if not is_qnet_checkpoint(source):
        return copy_policy(source, destination)
    checkpoint = load_qnet(source)
    metadata = {k: v for k, v in checkpoint.metadata.items() if k != "weights"}
    return save_qnet(destination, checkpoint.tensors, metadata)
