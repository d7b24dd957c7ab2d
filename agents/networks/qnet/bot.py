"""The Q-network bot: plays the legal move its network values most, evaluated in numpy from the checkpoint.

Both kinds of :mod:`.checkpoint` play the same way — the greedy move among the legal ones — and
differ only in how a move's value is computed: a ``dqn`` network gives every action id a value from
the observation in one pass; a ``dmc`` network scores each legal move from the observation and the
move's features (:mod:`sam_env.move_features`). For ``dmc`` the first layer is split into its observation and
move columns, so the observation's part is computed once per decision and each move adds only its
own columns (a decision has a few to a few dozen legal moves).

:meth:`QBot.best_actions` is the batched policy (``(observations, masks) -> actions``) that
:class:`sam_env.VectorEnv` adapters and batched evaluations call for thousands of tables at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from sam_env.core import SeatView
from sam_env.encoding import network_input
from sam_env.move_features import legal_pairs, move_features

from ..layers import DenseStack
from ..player import NetworkBot
from .checkpoint import QCheckpoint, load_qnet


class QBot(NetworkBot):
    """Plays the legal action with the highest Q-value (deterministic: no exploration at play time).

    Args:
        checkpoint: validated weights and metadata (:func:`~.checkpoint.load_qnet`).
        seed: unused by the greedy play; accepted so that every bot is built the same way.
        name: the agent's name in reports (default: the network's kind, ``"dqn"`` or ``"dmc"``).
    """

    CHECKPOINT = QCheckpoint

    def __init__(self, checkpoint: QCheckpoint, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(checkpoint, seed)
        arch = checkpoint.arch
        t = checkpoint.tensors
        self.kind = arch.kind
        self._stack = DenseStack(t, [f"hidden.{i}" for i in range(len(arch.layers))], "out", arch.activation)
        self.name = name or arch.kind

    @classmethod
    def from_checkpoint(
        cls, path: str | Path, seed: int | None = None, n_players: int | None = None, name: str | None = None
    ) -> QBot:
        """Load ``<stem>.json`` + ``<stem>.safetensors``; ``n_players``: refuse other table sizes."""
        return cls(load_qnet(path, n_players=n_players), seed=seed, name=name)

    def action_values(self, observations: np.ndarray) -> np.ndarray:
        """``float32[k, 201]`` (``dqn`` only): every action's Q-value for ``k`` observation rows."""
        if self.kind != "dqn":
            raise ValueError("a dmc network values moves with their features: use move_values")
        return self._stack.from_first(self._own_prefix(observations) @ self._stack.hidden[0][0].T)

    def move_values(self, observations: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """``float32[p]``: the Q-value of move ``actions[i]`` for the seat observing ``observations[rows[i]]``."""
        obs = self._own_prefix(observations)
        if self.kind == "dqn":
            return self.action_values(obs)[rows, actions]
        weight = self._stack.hidden[0][0]
        state_part = obs @ weight[:, : self.obs_size].T
        move_part = move_features(obs[rows], actions) @ weight[:, self.obs_size :].T
        return self._stack.from_first(state_part[rows] + move_part)[:, 0]

    def legal_values(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``float32[k, 201]``: each row's legal moves' Q-values, ``-inf`` at the illegal ones (how a search
        ranks its candidates by this network, as it ranks them by a policy's logits)."""
        masks = np.asarray(action_masks, dtype=bool)
        if self.kind == "dqn":
            return np.where(masks, self.action_values(observations), -np.inf).astype(np.float32)
        rows, actions = legal_pairs(masks)
        values = np.full(masks.shape, -np.inf, dtype=np.float32)
        values[rows, actions] = self.move_values(observations, rows, actions)
        return values

    def best_actions(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``int64[k]``: each row's legal action of highest value — the network as a batched policy."""
        return np.argmax(self.legal_values(observations, action_masks), axis=1)

    __call__ = best_actions

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        vector = self.observation_vector(observation)
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError(f"seat {view.seat} was asked to act with an empty action mask")
        return int(self.best_actions(vector[None, :], mask[None, :])[0])

    def _own_prefix(self, observations: np.ndarray) -> np.ndarray:
        """The rows as the network reads them (their first ``obs_size`` numbers); rows of another table refused."""
        return network_input(observations, self.n_players, self.encoding_version, self.name)
