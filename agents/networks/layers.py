"""The numpy side of every network: its activations, and the one forward pass of a stack of dense layers.

Both kinds of network (:mod:`.policy`, :mod:`.qnet`) are MLPs played in numpy from their checkpoints:
a few matrix products per decision, far cheaper than a pass through torch, which matters because
evaluation and search ask one seat at a time. :class:`DenseStack` holds the layers as plain arrays and
computes them one way for both. Torch builds the same layers only for training (each kind's
``network`` module), from :data:`ACTIVATIONS`' names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


class Activation(NamedTuple):
    """An activation function, as the numpy player computes it and as torch builds it."""

    numpy: Callable[[np.ndarray], np.ndarray]
    torch: str
    """The name of its ``torch.nn`` module (torch is imported only where networks are built)."""


ACTIVATIONS: dict[str, Activation] = {"tanh": Activation(np.tanh, "Tanh"), "relu": Activation(_relu, "ReLU")}
"""Activation functions a checkpoint may name, by name: the one table every network is built from."""


class DenseStack:
    """Hidden layers (each ``activation(h @ W.T + b)``) then an output layer (``h @ W.T + b``), in numpy.

    The first layer can be applied by the caller (:meth:`from_first`): a Q-network that scores moves
    applies the observation's columns once per decision and each move's columns once per move, and a
    policy's move head reads a hidden layer; both then finish with the same code.
    """

    def __init__(self, tensors: Mapping[str, np.ndarray], hidden: Sequence[str], out: str, activation: str) -> None:
        self.hidden = [(tensors[f"{name}.weight"], tensors[f"{name}.bias"]) for name in hidden]
        self.out = (tensors[f"{out}.weight"], tensors[f"{out}.bias"])
        self.activation = ACTIVATIONS[activation].numpy

    def features(self, x: np.ndarray) -> np.ndarray:
        """The last hidden layer's output for rows ``x`` (``[k, inputs]``, or one vector)."""
        h = x
        for weight, bias in self.hidden:
            h = self.activation(_dense(weight, bias, h))
        return h

    def output(self, h: np.ndarray) -> np.ndarray:
        """The output layer applied to a last hidden layer's output."""
        return _dense(*self.out, h)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The whole stack on rows ``x``."""
        return self.output(self.features(x))

    def from_first(self, first: np.ndarray) -> np.ndarray:
        """The stack from the first layer's pre-activation without its bias (its weights already applied)."""
        h = self.activation(first + self.hidden[0][1])
        for weight, bias in self.hidden[1:]:
            h = self.activation(_dense(weight, bias, h))
        return self.output(h)


def _dense(weight: np.ndarray, bias: np.ndarray, h: np.ndarray) -> np.ndarray:
    """One layer: a matrix-vector product for one vector, a matrix product for rows (BLAS's own order for each)."""
    return weight @ h + bias if h.ndim == 1 else h @ weight.T + bias
