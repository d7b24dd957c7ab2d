"""Move features: what a network that scores (state, move) pairs sees of a move, as DouZero encodes its actions.

They belong to the encoding layer, beside :mod:`sam_env.encoding`: the Q-networks of
:mod:`sam_env.agents.networks.qnet` read them, and so does the move-scoring head of a policy network
(:class:`sam_env.agents.networks.policy.checkpoint.PolicyArch`'s ``move_head``), in numpy, torch and compiled form.

DouZero's Q-network scores each legal move from the state's features and the move's own (the cards it
plays), so moves that share cards or structure share what is learned about them; a network with one
output per action id learns each of the 201 actions apart. Here a move (a combination id of
:mod:`sam_env.core.combos`) is described by:

* ``move`` — the ranks it plays, unary (13 ranks × 4: "plays at least 1, 2, 3, 4 of the rank"), as
  the observation's hand block;
* ``hand_after`` — the observer's hand once the move is played, unary (what the move does to the hand:
  the pairs, triples and straights it breaks or keeps);
* ``kind`` (one-hot over :class:`~sam_env.core.combos.Kind`), ``key`` (one-hot: the rank of a same-rank
  play, the highest line position of a straight), ``size`` (one-hot 0–10 cards) and ``cards_left``
  (one-hot 0–10 cards in hand after it).

Everything is computed from the observation's own ``hand`` block and the fixed combination table, so
a bot needs nothing the environment does not already give it (the hand block is the first block of every
encoding version). Checkpoints of networks that read these features record :func:`fingerprint` and are
refused when it differs.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from .core.cards import N_RANKS, N_SUITS
from .core.combos import COMBOS, LINE_RANKS, N_COMBOS, Kind
from .core.rules import CARDS_PER_HAND
from .encoding import UNARY, observation_layout

FEATURES_VERSION = 1
MAX_KEY = len(LINE_RANKS)
"""Keys run over ranks (0–12) and straight-line positions (2–13): one-hot over 0–13."""


def feature_layout() -> list[tuple[str, int]]:
    """Named blocks of a move's feature vector, in order, with their sizes."""
    return [
        ("move", UNARY),
        ("hand_after", UNARY),
        ("kind", len(Kind)),
        ("key", MAX_KEY),
        ("size", CARDS_PER_HAND + 1),
        ("cards_left", CARDS_PER_HAND + 1),
    ]


N_FEATURES = sum(size for _, size in feature_layout())


def fingerprint() -> str:
    """SHA-256 of the feature layout, its version and the combination table it is read from."""
    facts = {
        "version": FEATURES_VERSION,
        "layout": feature_layout(),
        "combos": [(c.name, int(c.kind), c.key, list(c.needs)) for c in COMBOS],
    }
    return hashlib.sha256(json.dumps(facts, separators=(",", ":")).encode()).hexdigest()


def _combo_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per combination: rank counts it needs ``int[201, 13]``, its fixed features ``float32[201, F]``
    (the hand-dependent blocks left zero) and its size."""
    needs = np.zeros((N_COMBOS, N_RANKS), dtype=np.int64)
    for combo in COMBOS:
        for rank, count in combo.needs:
            needs[combo.id, rank] = count
    offsets = _offsets()
    fixed = np.zeros((N_COMBOS, N_FEATURES), dtype=np.float32)
    fixed[:, offsets["move"] : offsets["move"] + UNARY] = unary(needs)
    rows = np.arange(N_COMBOS)
    fixed[rows, offsets["kind"] + np.array([int(c.kind) for c in COMBOS])] = 1.0
    fixed[rows, offsets["key"] + np.array([c.key for c in COMBOS])] = 1.0
    size = needs.sum(axis=1)
    fixed[rows, offsets["size"] + size] = 1.0
    return needs, fixed, size


def _offsets() -> dict[str, int]:
    offsets, at = {}, 0
    for name, size in feature_layout():
        offsets[name] = at
        at += size
    return offsets


def _block_start(layout: list[tuple[str, int]], block: str) -> int:
    names = [name for name, _ in layout]
    return sum(size for _, size in layout[: names.index(block)])


def unary(counts: np.ndarray) -> np.ndarray:
    """``float32[k, 52]``: rank counts ``int[k, 13]`` in the observation's unary code."""
    return (counts[:, :, None] > np.arange(N_SUITS)).reshape(len(counts), UNARY).astype(np.float32)


NEEDS, FIXED, SIZE = _combo_tables()
OFFSETS = _offsets()
HAND_AT = _block_start(observation_layout(2), "hand")
"""Where the observer's hand block starts in every observation (the first block, whatever the seat count)."""


def move_features(observations: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """``float32[k, N_FEATURES]``: the features of move ``actions[i]`` for the seat observing ``observations[i]``.

    ``actions`` must be legal for their rows (a move the hand cannot form would leave negative counts,
    which are refused).
    """
    actions = np.asarray(actions, dtype=np.int64)
    hand = np.asarray(observations)[:, HAND_AT : HAND_AT + UNARY].reshape(len(actions), N_RANKS, N_SUITS)
    after = hand.sum(axis=2).astype(np.int64) - NEEDS[actions]
    if np.any(after < 0):
        bad = int(np.flatnonzero((after < 0).any(axis=1))[0])
        raise ValueError(
            f"row {bad}: move {COMBOS[int(actions[bad])].name} plays cards the observed hand does not hold; "
            "move features are defined for legal moves only"
        )
    out = FIXED[actions].copy()
    out[:, OFFSETS["hand_after"] : OFFSETS["hand_after"] + UNARY] = unary(after)
    out[np.arange(len(actions)), OFFSETS["cards_left"] + after.sum(axis=1)] = 1.0
    return out


def legal_pairs(action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every legal (row, action) pair of a batch of masks, rows ascending: what a (state, move) network scores."""
    rows, actions = np.nonzero(np.asarray(action_masks))
    return rows.astype(np.int64), actions.astype(np.int64)
