"""The decisions a clone learns from: dataset files read, checked against the config, filtered and split by hand.

A dataset (:mod:`sam_env.evaluation.dataset`) holds one row per decision of a table size, an observation encoding
and a set of bots, each row tagged with its hand (the record's line among the files it was made from). This module
reads the config's files, refuses any whose rules, encoding, arrays or moves do not fit (with the file and what
differs), keeps the rows the config asks for and holds out whole hands for validation: the decisions of one hand
are correlated (the same cards, the same opponents), so a split by row would judge the network on hands it has
half learned.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from sam_env import N_ACTIONS, RuleConfig, RuleConfigError
from sam_env.encoding import ENCODING_VERSIONS, observation_size
from sam_env.evaluation.dataset import DatasetError, read_dataset
from sam_env.utils.files import file_sha256

from ..config import ConfigError, refuse_panel_bots
from .config import BCConfig

SPLIT = 1
"""Spawn key of the validation split's generator (after the run's seed)."""


@dataclass(frozen=True, eq=False)
class Decisions:
    """Rows to learn from or to judge on, one per decision.

    Attributes:
        obs: ``float32[k, obs]``: the seat's observation.
        mask: ``bool[k, 201]``: its legal moves.
        action: ``int64[k]``: the move the bot played.
        money: ``float32[k]``: the seat's money from the decision to the end of the hand, in X.
        hand: ``int64[k]``: the hand, numbered across the files (each file's hands after the previous file's).
    """

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    money: np.ndarray
    hand: np.ndarray

    @property
    def size(self) -> int:
        return int(self.action.shape[0])

    @classmethod
    def concat(cls, parts: list[Decisions]) -> Decisions:
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})

    def take(self, rows: np.ndarray) -> Decisions:
        return Decisions(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    def chance_accuracy(self) -> float:
        """The accuracy of a uniformly random legal move (the mean of 1 / legal moves): the trivial baseline."""
        return float(np.mean(1.0 / self.mask.sum(axis=1))) if self.size else float("nan")


@dataclass(frozen=True)
class TrainingData:
    """The training and validation rows of a run, the encoding they were made in and how they were chosen."""

    train: Decisions
    val: Decisions
    encoding_version: int
    report: dict[str, Any]
    """What went in (files with their SHA-256, rows kept and dropped, hands on each side): the checkpoint's
    ``bc_data`` metadata and the run's log."""


def resolve(path: str) -> Path:
    """A ``data`` entry as a file: relative paths are read from the current folder (``train.py``'s)."""
    return Path(path).expanduser().resolve()


def read_file(path: Path, rules: RuleConfig) -> tuple[dict[str, Any], int]:
    """One dataset file, checked against ``rules``: its arrays and metadata, and its encoding version."""
    if not path.is_file():
        raise ConfigError(
            f"config field data: {path} does not exist (relative paths are read from the folder train.py runs in); "
            "make one with python -m sam_env.evaluation.dataset RECORDS --out FILE.npz"
        )
    try:
        data = read_dataset(path)
    except DatasetError as err:
        raise ConfigError(f"config field data: {err}") from None
    meta = data["metadata"]
    try:
        own = RuleConfig.from_dict(meta.get("rules"))
    except (RuleConfigError, TypeError) as err:
        raise ConfigError(f"config field data: {path}: its metadata holds no valid rules ({err})") from None
    if own.n_players != rules.n_players:
        raise ConfigError(
            f"config field data: {path} holds decisions of a {own.n_players}-seat table, but the config's rules are "
            f"a {rules.n_players}-seat table (the observation's length depends on it); set rules.n_players="
            f"{own.n_players}, or name datasets of {rules.n_players}-seat tables"
        )
    if own != rules:
        ours, theirs = rules.to_dict(), own.to_dict()
        differ = ", ".join(f"{k}: {theirs[k]!r} (config {ours[k]!r})" for k in theirs if theirs[k] != ours.get(k))
        raise ConfigError(
            f"config field data: {path} was played under other rules than the config's: {differ}; set the config's "
            "rules to the dataset's (a clone learns the moves of those rules)"
        )
    version = meta.get("encoding_version")
    if isinstance(version, bool) or version not in ENCODING_VERSIONS:
        raise ConfigError(
            f"config field data: {path} was encoded with observation encoding version {version!r}, which this "
            f"sam-env does not encode (it knows {list(ENCODING_VERSIONS)}); make the dataset again with this sam-env"
        )
    refuse_panel_bots(f"data ({path}: its bots)", meta.get("bots") or ())
    check_arrays(path, data, observation_size(rules.n_players, version))
    return data, int(version)


def check_arrays(path: Path, data: dict[str, Any], width: int) -> None:
    """Refuse a file whose arrays disagree in length or shape, or whose recorded move was not legal."""
    rows = len(data["action"])
    if rows == 0:
        raise ConfigError(f"config field data: {path} holds no decision")
    shapes = {
        name: data[name].shape for name in ("observation", "action_mask", "seat", "hand", "money_after", "forced")
    }
    expected = {"observation": (rows, width), "action_mask": (rows, N_ACTIONS)}
    for name, shape in shapes.items():
        if shape != expected.get(name, (rows,)):
            raise ConfigError(
                f"config field data: {path}: {name} has shape {shape}, expected {expected.get(name, (rows,))} "
                f"({rows} decisions, observations of {width} numbers for its table and encoding)"
            )
    action = data["action"]
    legal = (action >= 0) & (action < N_ACTIONS)
    legal[legal] = data["action_mask"][np.flatnonzero(legal), action[legal]]
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        move = int(action[row])
        raise ConfigError(f"config field data: {path}: row {row}'s move {move} is not among its legal moves")
    if not np.isfinite(data["observation"]).all() or not np.isfinite(data["money_after"]).all():
        raise ConfigError(f"config field data: {path}: an observation or money_after is not a finite number")


def duplicate_rows(data: dict[str, Any]) -> np.ndarray:
    """``bool[rows]``: the rows of hands identical to an earlier hand of the file (every decision the same)."""
    hand = data["hand"]
    order = np.argsort(hand, kind="stable")
    starts = np.flatnonzero(np.r_[True, hand[order][1:] != hand[order][:-1]])
    seen: set[bytes] = set()
    duplicate = np.zeros(len(hand), dtype=bool)
    for rows in np.split(order, starts[1:]):
        digest = hashlib.blake2b(digest_size=16)
        for name in ("observation", "action_mask", "action", "seat"):
            digest.update(np.ascontiguousarray(data[name][rows]).tobytes())
        key = digest.digest()
        if key in seen:
            duplicate[rows] = True
        seen.add(key)
    return duplicate


def load_decisions(config: BCConfig) -> TrainingData:
    """The config's datasets, checked, filtered (forced moves, duplicate hands) and split by hand."""
    if not config.data:
        raise ConfigError(
            "config field data is empty: name the dataset files to learn from, e.g. --set data=[runs/heuristic.npz] "
            "(python -m sam_env.evaluation.dataset RECORDS --bots NAME --out FILE.npz makes one)"
        )
    rules = config.rule_config
    parts: list[Decisions] = []
    files: list[dict[str, Any]] = []
    versions: dict[int, Path] = {}
    offset, forced, duplicates = 0, 0, 0
    for entry in config.data:
        path = resolve(entry)
        data, version = read_file(path, rules)
        versions.setdefault(version, path)
        if len(versions) > 1:
            other = next(v for v in versions if v != version)
            raise ConfigError(
                f"config field data: {path} is of observation encoding version {version}, {versions[other]} of "
                f"version {other}: one network reads one encoding; make the datasets with one version"
            )
        keep = np.ones(len(data["action"]), dtype=bool)
        if config.drop_duplicate_hands:
            copies = duplicate_rows(data)
            duplicates += int(copies.sum())
            keep &= ~copies
        if not config.keep_forced:
            one_move = data["forced"].astype(bool)
            forced += int((keep & one_move).sum())
            keep &= ~one_move
        rows = np.flatnonzero(keep)
        hands = data["hand"].astype(np.int64)
        parts.append(
            Decisions(
                obs=np.ascontiguousarray(data["observation"][rows], dtype=np.float32),
                mask=np.ascontiguousarray(data["action_mask"][rows], dtype=bool),
                action=data["action"][rows].astype(np.int64),
                money=data["money_after"][rows].astype(np.float32),
                hand=hands[rows] + offset,
            )
        )
        offset += int(hands.max()) + 1
        meta = data["metadata"]
        files.append(
            {"path": str(path), "sha256": file_sha256(path), "decisions": len(data["action"]), "bots": meta.get("bots")}
        )
        del data  # the file's arrays, every row of them: only the rows kept stay in memory
    every = parts[0] if len(parts) == 1 else Decisions.concat(parts)
    del parts
    if every.size == 0:
        raise ConfigError(
            f"config field data: no decision left to learn from ({forced} forced, {duplicates} in duplicate hands "
            "dropped); set keep_forced: true, or name datasets with decisions that had a choice"
        )
    train_rows, val_rows = split_by_hand(every.hand, config.val_share, config.seed)
    train, val = every.take(train_rows), every.take(val_rows)
    report = {
        "files": files,
        "encoding_version": next(iter(versions)),
        "forced_dropped": forced,
        "duplicate_rows_dropped": duplicates,
        "train_rows": train.size,
        "val_rows": val.size,
        "train_hands": int(np.unique(train.hand).size),
        "val_hands": int(np.unique(val.hand).size),
    }
    return TrainingData(train, val, next(iter(versions)), report)


def split_by_hand(hand: np.ndarray, val_share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the training and validation sides: ``val_share`` of the hands (at least one when it is
    above 0), drawn by ``seed``, with every decision of a hand on the same side."""
    hands = np.unique(hand)
    n_val = 0 if val_share == 0 else max(1, round(val_share * hands.size))
    if n_val >= hands.size:
        raise ConfigError(
            f"config field val_share = {val_share}: {hands.size} hand(s) in the data leave none to train on once "
            f"{n_val} are held out; name more data or lower val_share"
        )
    rng = np.random.default_rng([seed, SPLIT])
    held = np.isin(hand, rng.choice(hands, size=n_val, replace=False))
    return np.flatnonzero(~held), np.flatnonzero(held)
