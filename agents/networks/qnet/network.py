"""The Q-network in torch: the trainers' copy of what :class:`~.bot.QBot` evaluates in numpy.

Its state dict holds exactly the checkpoint's tensors (``hidden.<i>`` then ``out``), so a trained
network is saved with :func:`~.checkpoint.save_qnet` as it is; ``tests/agents/test_qnet.py`` holds the
numpy bot to this module's outputs. torch is imported here; playing bots never import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

import numpy as np
import torch
from torch import nn

from ..layers import ACTIVATIONS
from .checkpoint import QArch, QCheckpoint


class QNetwork(nn.Module):
    """An MLP from the observation (``dqn``) or the observation and a move's features (``dmc``) to Q-values.

    For ``dmc`` the first layer's observation columns are applied once per decision and its move columns
    once per legal move (:meth:`move_values`), as the numpy bot does.
    """

    def __init__(self, arch: QArch, obs_size: int) -> None:
        super().__init__()
        self.arch = arch
        self.obs_size = obs_size
        sizes = [arch.input_size(obs_size), *arch.layers]
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in pairwise(sizes))
        self.out = nn.Linear(sizes[-1], arch.output_size)
        self.activation = getattr(nn, ACTIVATIONS[arch.activation].torch)()

    @classmethod
    def of(cls, checkpoint: QCheckpoint) -> QNetwork:
        """The network of a checkpoint, its weights loaded."""
        net = cls(checkpoint.arch, checkpoint.obs_size)
        net.load_tensors(checkpoint.tensors)
        return net

    def load_tensors(self, tensors: Mapping[str, np.ndarray]) -> None:
        self.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in tensors.items()})

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights as numpy arrays under the checkpoint's names."""
        return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.state_dict().items()}

    def _rest(self, h: torch.Tensor) -> torch.Tensor:
        h = self.activation(h + self.hidden[0].bias)
        for layer in self.hidden[1:]:
            h = self.activation(layer(h))
        return self.out(h)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``[k, 201]`` (``dqn``): every action's value."""
        return self._rest(observations @ self.hidden[0].weight.T)

    def move_values(self, observations: torch.Tensor, rows: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
        """``[p]`` (``dmc``): the value of the move with features ``moves[i]`` for the seat observing
        ``observations[rows[i]]``."""
        weight = self.hidden[0].weight
        state_part = observations @ weight[:, : self.obs_size].T
        return self._rest(state_part[rows] + moves @ weight[:, self.obs_size :].T).squeeze(-1)
