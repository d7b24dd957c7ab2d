"""Hand records as a dataset: one row per decision, in arrays a learner reads (behaviour cloning, offline RL).

Hand records (:mod:`.replay`: ``sam-play --record``, ``sam-eval --record``, sam-web's) keep the deal and every move.
:func:`decisions` replays each record through the reference engine (:func:`.replay.replay`, which refuses a record
that does not replay) and writes, for every decision of a chosen set of bots, what that seat's environment
observation was, which moves were legal, which it chose, and the money that followed:

* ``observation``: ``float32[N, obs]``, the seat's observation (:class:`sam_env.encoding.Encoder`, the version in
  the metadata), exactly what the AEC environment gave that seat at that decision;
* ``action_mask``: ``bool[N, 201]``; ``action``: ``int64[N]``, the index of the move played (legal under the mask);
* ``seat``: ``int64[N]``; ``hand``: ``int64[N]``, the record's number (its line among the inputs, from 0);
* ``money_after``: ``float32[N]``, the seat's money from this decision to the end of the hand, in X (its net at
  the end less its net when it decided: what the decision and those after it earned, DMC's target);
* ``forced``: ``bool[N]``, the decision had one legal move.

:func:`write_dataset` saves them as one ``.npz`` (no pickle: :func:`read_dataset` loads with
``allow_pickle=False``), with a ``metadata`` entry: a JSON string naming the format, its version, the rules, the
encoding version, the bots kept and how many records and decisions went in. One table size per file: the
observation's length depends on it.

    python -m sam_env.evaluation.dataset hands.jsonl more.jsonl --bots heuristic --out heuristic.npz
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sam_env.core import combo_index
from sam_env.encoding import ENCODING_VERSION, N_ACTIONS, Encoder

from .replay import HandRecord, ReplayError, read_records, replay

FORMAT = "sam-env/decisions"
VERSION = 1
ARRAYS = ("observation", "action_mask", "action", "seat", "hand", "money_after", "forced")


class DatasetError(ValueError):
    """Records that make no dataset (mixed table sizes, no decision kept, a bad file): says what and where."""


def decisions(
    records: Iterable[HandRecord], bots: Sequence[str] | None = None, encoding_version: int = ENCODING_VERSION
) -> dict[str, Any]:
    """The decisions of ``records`` by the seats whose bot is in ``bots`` (all seats when None), as the arrays of the
    module docstring plus ``metadata``; :class:`DatasetError` for records of two table sizes or no decision kept."""
    rows: dict[str, list[Any]] = {name: [] for name in ARRAYS}
    rules, count = None, 0
    for index, record in enumerate(records):
        count += 1
        if rules is None:
            rules = record.rules
            encoder = Encoder(rules.n_players, encoding_version)
        elif record.rules.n_players != rules.n_players:
            raise DatasetError(
                f"record {index} is of a {record.rules.n_players}-seat table, the first of a {rules.n_players}-seat "
                "one: a dataset holds one table size (the observation's length depends on it)"
            )
        start = len(rows["seat"])
        states = replay(record)
        _, hand = next(states)
        for move in record.moves:
            seat = move.seat
            if bots is None or record.bots[seat] in bots:
                mask = hand.legal_mask().astype(bool)
                rows["observation"].append(encoder.observe(hand, seat))
                rows["action_mask"].append(mask)
                rows["action"].append(combo_index(move.action))
                rows["seat"].append(seat)
                rows["hand"].append(index)
                rows["money_after"].append(-float(hand.net()[seat]))  # the end's net is added below
                rows["forced"].append(int(mask.sum()) == 1)
            next(states)
        final = record.result.net
        for row in range(start, len(rows["seat"])):
            rows["money_after"][row] += float(final[rows["seat"][row]])
    if rules is None or not rows["seat"]:
        raise DatasetError(f"no decision to keep: {count} record(s), bots {list(bots) if bots else 'all'}")
    arrays = {
        "observation": np.asarray(rows["observation"], dtype=np.float32),
        "action_mask": np.asarray(rows["action_mask"], dtype=bool).reshape(-1, N_ACTIONS),
        "action": np.asarray(rows["action"], dtype=np.int64),
        "seat": np.asarray(rows["seat"], dtype=np.int64),
        "hand": np.asarray(rows["hand"], dtype=np.int64),
        "money_after": np.asarray(rows["money_after"], dtype=np.float32),
        "forced": np.asarray(rows["forced"], dtype=bool),
    }
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules.to_dict(),
        "encoding_version": encoding_version,
        "bots": None if bots is None else list(bots),
        "records": count,
        "decisions": len(arrays["action"]),
    }
    return {**arrays, "metadata": metadata}


def write_dataset(path: str | Path, dataset: dict[str, Any]) -> Path:
    """Save a :func:`decisions` dataset as one ``.npz`` (arrays, and the metadata as a JSON string)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {name: dataset[name] for name in ARRAYS}
    np.savez_compressed(path, **arrays, metadata=np.asarray(json.dumps(dataset["metadata"])))
    return path


def read_dataset(path: str | Path) -> dict[str, Any]:
    """A dataset :func:`write_dataset` saved (loaded without pickle); :class:`DatasetError` for another file."""
    try:
        with np.load(path, allow_pickle=False) as data:
            loaded = {name: data[name] for name in ARRAYS}
            metadata = json.loads(str(data["metadata"]))
    except (OSError, KeyError, ValueError) as err:
        raise DatasetError(f"{path} is not a sam-env decisions dataset ({type(err).__name__}: {err})") from None
    if metadata.get("format") != FORMAT or metadata.get("version") != VERSION:
        raise DatasetError(f"{path}: format {metadata.get('format')!r} v{metadata.get('version')}, not {FORMAT} v1")
    return {**loaded, "metadata": metadata}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sam_env.evaluation.dataset", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("records", nargs="+", type=Path, help="hand-record files (JSON Lines, sam-env/hand)")
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write")
    parser.add_argument("--bots", nargs="+", default=None, help="keep the decisions of these bots only")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.out.exists():
        parser.error(f"{args.out} exists already, and is kept; name another --out")
    try:
        records = [r for path in args.records for r in read_records(path)]
        dataset = decisions(records, args.bots)
    except (ReplayError, DatasetError, OSError) as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    write_dataset(args.out, dataset)
    m = dataset["metadata"]
    print(f"wrote {args.out}: {m['decisions']:,} decisions of {m['records']:,} hands ({m['rules']['n_players']} seats)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
