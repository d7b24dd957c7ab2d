"""A Q-network's values of the legal moves for a batch of rows, compiled: the search's model of a seat.

Why: a search over a Q-network (``dmc_search``, the search probe of a ``dmc`` network) spends most of its time
in the network's forward pass in its rollouts, and :class:`~sam_env.agents.networks.qnet.bot.QBot` (numpy
matrix products) spends much of that on work that is not needed: the observation is mostly zeros, yet its columns
of the first layer are multiplied in full; every legal move's features are built as a dense row; and a rollout
step's few hundred rows pay numpy's per-call costs several times.

So, as :class:`~.network.CompiledNetwork` does for a policy's move-scoring head, the first layer is split:

* the observation's part is computed once per row from its non-zero inputs only (:func:`~.network.first_layer`,
  without its activation);
* a move's part is its fixed columns (what the combination is: the cards it plays, its kind, key and size —
  precomputed per action id) plus the rows of the hand it leaves (its unary bits) and of the cards left, added
  one by one (:func:`~.network.add_hand_after`) — no feature vector is built;

then the sum is activated and the remaining layers are :func:`~.network.dense_layer`, row by row. As for the
policy, a row's values do not depend on the batch it comes in (the same row gives the same bits in a batch of
one or of thousands), so the batched search and the search of one decision agree; they differ from QBot's
numpy values in the last bits (``fastmath``), and ``tests/agents/test_search_engine.py`` holds the values
to QBot's and the moves to QBot's where no two legal moves are near a tie.

Only ``dmc`` networks (a state and a move in, one value out) are compiled; a ``dqn`` network (one value per
action id) stays with QBot (:func:`~.models.network_policy`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sam_env.core.rules import CARDS_PER_HAND
from sam_env.encoding import UNARY, readable_rows
from sam_env.move_features import FIXED, N_FEATURES, NEEDS, OFFSETS

from ..networks.qnet.checkpoint import QCheckpoint
from .network import (
    ACTIVATION_CODES,
    FASTMATH,
    LINEAR,
    ROW_BLOCK,
    activate,
    add_hand_after,
    dense_layer,
    first_layer,
    hand_counts,
    illegal_move,
    prefix_sums,
)


@njit(cache=True, error_model="numpy", fastmath=FASTMATH)
def move_layer(x, rows, state, masks, fixed, moved, needs, kind, out, pair_row, pair_move):
    """The first layer's activations of every legal (row, move) pair, rows in order, moves ascending.

    ``state[i]``: the observation's part of ``x[rows[i]]`` (bias included); a pair adds its move's ``fixed``
    row, then ``moved``'s rows of the hand the move leaves (:func:`~.network.add_hand_after`). Writes ``out[p]``,
    ``pair_row[p]`` (the index into ``rows``) and ``pair_move[p]``; returns the number of pairs, or ``-1 - i`` if
    the mask of ``rows[i]`` allows a move its hand cannot play."""
    width = state.shape[1]
    counts = np.empty(13, dtype=np.int64)
    p = 0
    for i in range(rows.shape[0]):
        xr, mask = x[rows[i]], masks[rows[i]]
        hand_counts(xr, counts)
        for a in range(mask.shape[0]):
            if not mask[a]:
                continue
            acc = out[p]
            for k in range(width):
                acc[k] = state[i, k] + fixed[a, k]
            if not add_hand_after(acc, counts, needs[a], moved):
                return -1 - i
            activate(acc, kind)
            pair_row[p] = i
            pair_move[p] = a
            p += 1
    return p


@njit(cache=True, error_model="numpy", fastmath=FASTMATH)
def output_values(h, weight, bias, n, pair_row, pair_move, out):
    """``out[pair_row[p], pair_move[p]] = weight · h[p] + bias`` for the first ``n`` pairs."""
    for p in range(n):
        hr = h[p]
        s = np.float32(0.0)
        for j in range(hr.shape[0]):
            s += hr[j] * weight[j]
        out[pair_row[p], pair_move[p]] = s + bias


class CompiledQNetwork:
    """A ``dmc`` Q-network checkpoint, compiled (module docstring).

    A *batched policy* (:class:`sam_env.bot.BatchedPolicy`): ``network(observations, masks)`` is each row's legal
    move of highest value (the first of equals, as ``np.argmax``). ``rows`` restricts either method to some rows
    of the arrays given, without copying them out first.
    """

    def __init__(self, checkpoint: QCheckpoint) -> None:
        if not isinstance(checkpoint, QCheckpoint) or checkpoint.arch.kind != "dmc":
            raise TypeError(f"expected a dmc QCheckpoint, got {checkpoint!r}")
        arch, tensors = checkpoint.arch, checkpoint.tensors
        self.source = checkpoint.source
        self.obs_size = checkpoint.obs_size
        self.n_players = checkpoint.rules.n_players
        self.encoding_version = checkpoint.encoding_version
        weight = np.asarray(tensors["hidden.0.weight"], dtype=np.float32)
        if weight.shape[1] != self.obs_size + N_FEATURES:
            raise ValueError(
                f"{self.source}: its first layer reads {weight.shape[1]} inputs, expected the observation's "
                f"{self.obs_size} and a move's {N_FEATURES} features"
            )
        weight_t = np.ascontiguousarray(weight[:, : self.obs_size].T)
        self._first = (weight_t, prefix_sums(weight_t), np.asarray(tensors["hidden.0.bias"], dtype=np.float32))
        from_move = weight[:, self.obs_size :]
        self._fixed = np.ascontiguousarray(FIXED @ from_move.T, dtype=np.float32)
        after, left = OFFSETS["hand_after"], OFFSETS["cards_left"]
        self._moved = np.ascontiguousarray(
            np.concatenate([from_move[:, after : after + UNARY].T, from_move[:, left : left + CARDS_PER_HAND + 1].T]),
            dtype=np.float32,
        )
        self._hidden = [
            (
                np.ascontiguousarray(tensors[f"hidden.{i}.weight"], dtype=np.float32),
                np.ascontiguousarray(tensors[f"hidden.{i}.bias"], dtype=np.float32),
            )
            for i in range(1, len(arch.layers))
        ]
        self._out = (
            np.ascontiguousarray(tensors["out.weight"][0], dtype=np.float32),
            np.float32(tensors["out.bias"][0]),
        )
        self._activation = ACTIVATION_CODES[arch.activation]

    def legal_values(self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``float32[k, 201]``: the values of the legal moves of each row (``-inf`` at the others)."""
        observations = readable_rows(observations, self.n_players, self.encoding_version, self.source)
        masks = np.asarray(masks, dtype=bool)
        rows = np.arange(len(observations)) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        weight_t, prefix, bias = self._first
        state = np.empty((len(rows), weight_t.shape[1]), dtype=np.float32)
        first_layer(observations, rows, weight_t, prefix, bias, LINEAR, state)  # activated with the move's part
        pairs = int(masks[rows].sum())
        padded = -(-pairs // ROW_BLOCK) * ROW_BLOCK
        h = np.zeros((padded, weight_t.shape[1]), dtype=np.float32)
        pair_row = np.empty(pairs, dtype=np.int64)
        pair_move = np.empty(pairs, dtype=np.int64)
        found = move_layer(
            observations, rows, state, masks, self._fixed, self._moved, NEEDS, self._activation, h, pair_row, pair_move
        )
        if found < 0:
            raise illegal_move(self.source, int(rows[-1 - found]))
        for weight, bias in self._hidden:
            nxt = np.empty((padded, weight.shape[0]), dtype=np.float32)
            dense_layer(h, weight, bias, self._activation, nxt)
            h = nxt
        out = np.full((len(rows), masks.shape[1]), -np.inf, dtype=np.float32)
        output_values(h, *self._out, pairs, pair_row, pair_move, out)
        return out

    def best_actions(self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``int64[k]``: each row's legal move of highest value (the first of equals, as ``np.argmax``)."""
        return np.argmax(self.legal_values(observations, masks, rows), axis=1)

    __call__ = best_actions
