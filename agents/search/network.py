"""A network's most probable legal move for a batch of rows, compiled: the search's model of a seat.

Why not :meth:`sam_env.agents.networks.policy.bot.PPOBot.best_actions` (numpy matrix products): in a search's
rollouts the network's forward pass is most of the cost, and two things make most of it waste.
An observation is about 90 % zeros (unary card counts), and only the legal moves' logits matter
(about 7 of 201 where there is a choice). Here the first layer adds up the weights of the non-zero
inputs only and the output layer computes the legal moves' logits only: about a third of the
arithmetic.

And why compiled rows rather than BLAS: a row's result must not depend on the batch it comes in.
BLAS picks its kernels by the matrix's size, so the same observation can come out 1e-6 apart in a
batch of 300 and of 3,000 rows — enough, at a near tie, to change a rollout's move, and then the
batched search (hundreds of decisions per batch) and the search of one decision would disagree.
Each row here is computed by the same code in the same order whatever the batch: the same row
gives the same bits. Reductions may be reordered by the compiler (``fastmath``), which is fixed at
compile time and the same for every row; so the logits differ from numpy's in the last bits, and
the tests check that the moves are the same as :class:`~sam_env.agents.networks.policy.bot.PPOBot`'s.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sam_env.core.rules import CARDS_PER_HAND
from sam_env.encoding import UNARY, readable_rows
from sam_env.move_features import FIXED, HAND_AT, NEEDS, OFFSETS

from ..networks.policy.checkpoint import PolicyArch, PolicyCheckpoint

ROW_BLOCK = 4
"""Rows of :func:`dense_layer`'s block (the hidden activations are padded to a multiple of it)."""
GROUP = 4
"""Inputs per group of the first layer: a rank's unary count in the observation (``1, 1, 0, 0`` for a
pair) is one group, and a group whose inputs are ones then zeros adds one precomputed sum."""
FASTMATH = {"reassoc", "contract", "nsz"}
"""Floating-point freedoms given to the compiler: reorder sums (so it can vectorize them) and fuse
multiply-adds; no assumption that values are finite (the masked logits are ``-inf``)."""
RELU, TANH, LINEAR = 0, 1, 2
"""The activations :func:`activate` applies (``LINEAR``: none, for a first layer whose activation comes later)."""


@njit(cache=True, error_model="numpy", fastmath=FASTMATH, inline="always")
def tanh(x):
    """tanh by Eigen's rational approximation (within 3e-7 of tanh): compiled without a library call,
    so that a loop of it vectorizes."""
    c = np.float32(7.90531110763549805)
    x = min(max(x, -c), c)
    x2 = x * x
    p = x2 * np.float32(-2.76076847742355e-16) + np.float32(2.00018790482477e-13)
    p = p * x2 + np.float32(-8.60467152213735e-11)
    p = p * x2 + np.float32(5.12229709037114e-08)
    p = p * x2 + np.float32(1.48572235717979e-05)
    p = p * x2 + np.float32(6.37261928875436e-04)
    p = p * x2 + np.float32(4.89352455891786e-03)
    q = x2 * np.float32(1.19825839466702e-06) + np.float32(1.18534705686654e-04)
    q = q * x2 + np.float32(2.26843463243900e-03)
    q = q * x2 + np.float32(4.89352518554385e-03)
    return p * x / q


@njit(cache=True, error_model="numpy", fastmath=FASTMATH, inline="always")
def activate(row, kind):
    """The activation of a row in place (one loop per kind, so that each vectorizes)."""
    if kind == TANH:
        for k in range(row.shape[0]):
            row[k] = tanh(row[k])
    elif kind == RELU:
        for k in range(row.shape[0]):
            row[k] = max(row[k], np.float32(0.0))


@njit(cache=True, error_model="numpy", fastmath=FASTMATH, inline="always")
def add_row(acc, w, v):
    for k in range(acc.shape[0]):
        acc[k] += v * w[k]


@njit(cache=True, error_model="numpy", fastmath=FASTMATH)
def first_layer(x, rows, weight_t, prefix, bias, kind, out):
    """``out[i] = activation(bias + weight @ x[rows[i]])``, adding only the weights of non-zero inputs.

    ``weight_t``: the weight transposed (one row per input); ``prefix[g, c]``: the sum of the rows of
    the first ``c`` inputs of group ``g``. A group of ones then zeros adds its prefix sum; any other
    group with non-zero inputs adds their rows one by one."""
    width = weight_t.shape[1]
    for i in range(rows.shape[0]):
        xr = x[rows[i]]
        acc = out[i]
        for k in range(width):
            acc[k] = bias[k]
        for g in range(prefix.shape[0]):
            j = GROUP * g
            a, b, c, d = xr[j], xr[j + 1], xr[j + 2], xr[j + 3]
            if a == 0.0 and b == 0.0 and c == 0.0 and d == 0.0:
                continue
            ones = 0
            if a == 1.0:
                ones = 1
                if b == 1.0:
                    ones = 2
                    if c == 1.0:
                        ones = 3
                        if d == 1.0:
                            ones = 4
            rest = True
            for m in range(ones, GROUP):
                rest = rest and xr[j + m] == 0.0
            if ones > 0 and rest:
                add_row(acc, prefix[g, ones], np.float32(1.0))
            else:
                for m in range(GROUP):
                    if xr[j + m] != 0.0:
                        add_row(acc, weight_t[j + m], xr[j + m])
        for j in range(GROUP * prefix.shape[0], weight_t.shape[0]):  # a later encoding's extra inputs: not read
            if xr[j] != 0.0:
                add_row(acc, weight_t[j], xr[j])
        activate(acc, kind)


@njit(cache=True, error_model="numpy", fastmath=FASTMATH)
def dense_layer(x, weight, bias, kind, out):
    """``out[r] = activation(weight @ x[r] + bias)``: a dot product per output, for four rows and two
    outputs at a time, so that each input is loaded once for two outputs and each weight once for
    four rows (``x`` has a multiple of four rows; every row takes the same path)."""
    n_out = weight.shape[0]
    for r in range(0, x.shape[0], ROW_BLOCK):
        x0, x1, x2, x3 = x[r], x[r + 1], x[r + 2], x[r + 3]
        for k in range(0, n_out - 1, 2):
            u, v = weight[k], weight[k + 1]
            a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = np.float32(0.0)
            for j in range(u.shape[0]):
                a0 += x0[j] * u[j]
                a1 += x1[j] * u[j]
                a2 += x2[j] * u[j]
                a3 += x3[j] * u[j]
                b0 += x0[j] * v[j]
                b1 += x1[j] * v[j]
                b2 += x2[j] * v[j]
                b3 += x3[j] * v[j]
            out[r, k], out[r + 1, k], out[r + 2, k], out[r + 3, k] = a0, a1, a2, a3
            out[r, k + 1], out[r + 1, k + 1], out[r + 2, k + 1], out[r + 3, k + 1] = b0, b1, b2, b3
        if n_out % 2:
            u = weight[n_out - 1]
            a0 = a1 = a2 = a3 = np.float32(0.0)
            for j in range(u.shape[0]):
                a0 += x0[j] * u[j]
                a1 += x1[j] * u[j]
                a2 += x2[j] * u[j]
                a3 += x3[j] * u[j]
            out[r, n_out - 1], out[r + 1, n_out - 1], out[r + 2, n_out - 1], out[r + 3, n_out - 1] = a0, a1, a2, a3
        for q in range(r, r + ROW_BLOCK):
            o = out[q]
            for k in range(n_out):
                o[k] += bias[k]
            activate(o, kind)


@njit(cache=True, error_model="numpy", fastmath=FASTMATH)
def legal_logits(x, weight, bias, masks, rows, out):
    """The output layer at the legal moves of ``masks[rows[i]]`` only; ``-inf`` elsewhere."""
    for i in range(rows.shape[0]):
        xr = x[i]
        mask = masks[rows[i]]
        for a in range(weight.shape[0]):
            if not mask[a]:
                out[i, a] = -np.inf
                continue
            wa = weight[a]
            s = np.float32(0.0)
            for j in range(xr.shape[0]):
                s += xr[j] * wa[j]
            out[i, a] = s + bias[a]


@njit(cache=True, error_model="numpy", fastmath=FASTMATH, inline="always")
def hand_counts(xr, counts):
    """``counts[r]``: how many cards of rank ``r`` the observation row ``xr`` says its seat holds (its hand block's
    unary bits)."""
    for r in range(13):
        c = 0
        for j in range(GROUP):
            c += xr[HAND_AT + GROUP * r + j] > 0.5
        counts[r] = c


@njit(cache=True, error_model="numpy", fastmath=FASTMATH, inline="always")
def add_hand_after(acc, counts, needs, moved):
    """Add to ``acc`` the first-layer rows (``moved``) of what a move leaves: the unary bits of the hand after it, then
    the one-hot of the cards left. False, leaving ``acc`` part-way, if the move (``needs``: its rank counts) plays
    cards the hand does not hold — a move the mask should not have allowed."""
    left = 0
    for r in range(13):
        c = counts[r] - needs[r]
        if c < 0:
            return False
        left += c
        for j in range(c):
            add_row(acc, moved[GROUP * r + j], np.float32(1.0))
    add_row(acc, moved[GROUP * 13 + left], np.float32(1.0))
    return True


@njit(cache=True, error_model="numpy", fastmath=FASTMATH)
def add_move_scores(x, h, masks, rows, head, fixed, moved, needs, kind, out):
    """Add the move-scoring head's score to each legal move's logit (``out``, from :func:`legal_logits`).

    ``head = (from_hidden, bias, out_weight, out_bias)``: the head's first layer on the policy's last hidden
    layer ``h``, and its output. A move's features are fixed columns (what the combination is: ``fixed[a]``,
    that part of the first layer precomputed per action) and the hand after it (``moved``: the first layer's
    rows of the ``hand_after`` unary bits, then of the ``cards_left`` one-hot), added row by row. Returns the
    index into ``rows`` of the first row whose mask allows a move its hand cannot play, or -1.
    """
    from_hidden, bias, out_weight, out_bias = head
    m = bias.shape[0]
    state = np.empty(m, dtype=np.float32)
    acc = np.empty(m, dtype=np.float32)
    counts = np.empty(13, dtype=np.int64)
    for i in range(rows.shape[0]):
        xr, hr, mask = x[rows[i]], h[i], masks[rows[i]]
        for k in range(m):
            s = np.float32(0.0)
            for j in range(hr.shape[0]):
                s += from_hidden[k, j] * hr[j]
            state[k] = s + bias[k]
        hand_counts(xr, counts)
        for a in range(mask.shape[0]):
            if not mask[a]:
                continue
            for k in range(m):
                acc[k] = state[k] + fixed[a, k]
            if not add_hand_after(acc, counts, needs[a], moved):
                return i
            activate(acc, kind)
            s = np.float32(0.0)
            for k in range(m):
                s += acc[k] * out_weight[k]
            out[i, a] += s + out_bias
    return -1


def prefix_sums(weight_t: np.ndarray) -> np.ndarray:
    """``float32[groups, GROUP + 1, width]``: per group of inputs, the sums of its first 0 … GROUP rows."""
    groups = weight_t.shape[0] // GROUP
    blocks = weight_t[: groups * GROUP].reshape(groups, GROUP, -1)
    out = np.zeros((groups, GROUP + 1, weight_t.shape[1]), dtype=np.float32)
    for c in range(1, GROUP + 1):
        out[:, c] = out[:, c - 1] + blocks[:, c - 1]
    return out


ACTIVATION_CODES = {"relu": RELU, "tanh": TANH}
"""A checkpoint's activation by name, as :func:`activate` takes it."""


def illegal_move(source: str, row: int) -> ValueError:
    """The error of a mask that allows a move the observed hand cannot play."""
    return ValueError(
        f"{source}: row {row}'s action mask allows a move that plays cards its observed hand does not hold; "
        "the masks must be the environment's legal moves for those observations"
    )


class CompiledNetwork:
    """The actor of a policy checkpoint (``net_arch.pi`` layers and the action head), compiled.

    A *batched policy* (:class:`sam_env.bot.BatchedPolicy`): ``network(observations, masks)`` is each row's
    most probable legal move. ``rows`` restricts either method to some rows of the arrays given,
    without copying them out first.
    """

    def __init__(self, checkpoint: PolicyCheckpoint) -> None:
        if not isinstance(checkpoint, PolicyCheckpoint):
            raise TypeError(f"checkpoint must be a PolicyCheckpoint, got {type(checkpoint).__name__}")
        arch, tensors = checkpoint.arch, checkpoint.tensors
        self.source = checkpoint.source
        self.obs_size = checkpoint.obs_size
        self.n_players = checkpoint.rules.n_players
        self.encoding_version = checkpoint.encoding_version
        layers = [
            (
                np.ascontiguousarray(tensors[f"mlp_extractor.policy_net.{2 * i}.weight"], dtype=np.float32),
                np.ascontiguousarray(tensors[f"mlp_extractor.policy_net.{2 * i}.bias"], dtype=np.float32),
            )
            for i in range(len(arch.pi))
        ]
        weight_t = np.ascontiguousarray(layers[0][0].T)
        self._first = (weight_t, prefix_sums(weight_t), layers[0][1])
        self._hidden = layers[1:]
        self._out = (
            np.ascontiguousarray(tensors["action_net.weight"], dtype=np.float32),
            np.ascontiguousarray(tensors["action_net.bias"], dtype=np.float32),
        )
        self._activation = ACTIVATION_CODES[arch.activation]
        self._move = _move_head(arch, tensors) if arch.move_head else None

    def logits(self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``float32[k, 201]``: the logits of the legal moves of each row (``-inf`` at the others)."""
        observations = readable_rows(observations, self.n_players, self.encoding_version, self.source)
        rows = np.arange(len(observations)) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        padded = -(-len(rows) // ROW_BLOCK) * ROW_BLOCK
        weight_t, prefix, bias = self._first
        h = np.zeros((padded, weight_t.shape[1]), dtype=np.float32)
        first_layer(observations, rows, weight_t, prefix, bias, self._activation, h)
        for weight, bias in self._hidden:
            nxt = np.empty((padded, weight.shape[0]), dtype=np.float32)
            dense_layer(h, weight, bias, self._activation, nxt)
            h = nxt
        weight, bias = self._out
        out = np.empty((len(rows), weight.shape[0]), dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        legal_logits(h, weight, bias, masks, rows, out)
        if self._move is not None:
            head, fixed, moved = self._move
            bad = add_move_scores(observations, h, masks, rows, head, fixed, moved, NEEDS, self._activation, out)
            if bad >= 0:
                raise illegal_move(self.source, int(rows[bad]))
        return out

    def best_actions(self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``int64[k]``: each row's most probable legal move (the first of equals, as ``np.argmax``)."""
        return np.argmax(self.logits(observations, masks, rows), axis=1)

    __call__ = best_actions


def _move_head(arch: PolicyArch, tensors: dict[str, np.ndarray]) -> tuple[tuple, np.ndarray, np.ndarray]:
    """The move-scoring head's weights as :func:`add_move_scores` reads them."""
    weight = np.asarray(tensors[f"{PolicyArch.MOVE_NET}.weight"], dtype=np.float32)
    width = arch.pi[-1]
    from_hidden, from_move = weight[:, :width], weight[:, width:]
    head = (
        np.ascontiguousarray(from_hidden),
        np.ascontiguousarray(tensors[f"{PolicyArch.MOVE_NET}.bias"], dtype=np.float32),
        np.ascontiguousarray(tensors[f"{PolicyArch.MOVE_OUT}.weight"][0], dtype=np.float32),
        np.float32(tensors[f"{PolicyArch.MOVE_OUT}.bias"][0]),
    )
    fixed = np.ascontiguousarray(FIXED @ from_move.T, dtype=np.float32)
    after, left = OFFSETS["hand_after"], OFFSETS["cards_left"]
    moved = np.ascontiguousarray(
        np.concatenate([from_move[:, after : after + UNARY].T, from_move[:, left : left + CARDS_PER_HAND + 1].T]),
        dtype=np.float32,
    )
    return head, fixed, moved
