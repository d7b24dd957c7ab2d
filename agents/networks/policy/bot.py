"""The PPO bot: a trained MaskablePPO policy playing through the :class:`sam_env.Bot` interface.

The actor is evaluated in numpy from the checkpoint's tensors (a few matrix-vector products), read by
the names and with the activation of its :class:`~.checkpoint.PolicyArch`: a single observation
costs a fraction of a pass through SB3's torch distribution, which matters because self-play and
evaluation ask it one seat at a time. :func:`.sb3.build_policy` rebuilds the full SB3 policy (actor
and critic, torch) from the same files, for fine-tuning or for anyone who wants SB3's own API, and
:class:`.network.ActorCritic` the torch network the trainers train; ``tests/agents/test_network.py``
checks that all three give the same outputs.

The shipped networks are loaded by name through the catalogue (:mod:`..catalogue`,
``sam_env.load_bot("ppo_v3")``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from sam_env.core import SeatView
from sam_env.move_features import legal_pairs, move_features

from ..layers import DenseStack
from ..player import NetworkBot
from .checkpoint import PolicyArch, PolicyCheckpoint, load_policy


class PPOBot(NetworkBot):
    """Plays the action its policy network prefers among the legal ones (or samples it).

    Args:
        checkpoint: validated weights and metadata (:func:`~.checkpoint.load_policy`).
        seed: seeds the generator used when ``deterministic`` is False.
        deterministic: play the most probable legal action (the strongest play, and reproducible
            without a seed); False samples from the policy's masked distribution, as in training.
        name: the agent's name in reports (default ``"ppo"``).
    """

    name = "ppo"
    CHECKPOINT = PolicyCheckpoint

    def __init__(
        self,
        checkpoint: PolicyCheckpoint,
        seed: int | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(checkpoint, seed)
        arch = checkpoint.arch
        t = checkpoint.tensors
        self.deterministic = deterministic
        # The actor, read by the names and with the activation the architecture record gives.
        self._actor = DenseStack(t, arch.hidden_layers(PolicyArch.POLICY), PolicyArch.POLICY.out, arch.activation)
        self._activation = arch.activation_fn.numpy
        self._move = None
        if arch.move_head:  # the move head's first layer split into its hidden-layer and move-feature columns
            weight = t[f"{PolicyArch.MOVE_NET}.weight"]
            width = arch.pi[-1]
            self._move = (
                np.ascontiguousarray(weight[:, :width]),
                np.ascontiguousarray(weight[:, width:]),
                t[f"{PolicyArch.MOVE_NET}.bias"],
                t[f"{PolicyArch.MOVE_OUT}.weight"][0],
                t[f"{PolicyArch.MOVE_OUT}.bias"][0],
            )
        if name is not None:
            self.name = name

    @classmethod
    def from_checkpoint(
        cls,
        path: str | Path,
        seed: int | None = None,
        deterministic: bool = True,
        n_players: int | None = None,
        name: str | None = None,
    ) -> PPOBot:
        """Load ``<stem>.json`` + ``<stem>.safetensors``; ``n_players``: refuse other table sizes."""
        return cls(load_policy(path, n_players=n_players), seed=seed, deterministic=deterministic, name=name)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """Unmasked action logits for one observation vector (the actor of the SB3 policy); with a
        move-scoring head, the legal moves' (``action_mask``) include their scores."""
        if self._move is not None:
            masks = None if action_mask is None else np.asarray(action_mask)[None, :]
            return self.batch_logits(np.asarray(observation)[None, :], masks)[0]
        return self._actor(np.asarray(observation, dtype=np.float32)[: self.obs_size])

    def batch_logits(self, observations: np.ndarray, action_masks: np.ndarray | None = None) -> np.ndarray:
        """``float[k, 201]``: :meth:`logits` of ``k`` observation rows in one pass of matrix products
        (what search rollouts need: one call for every table of a :class:`~sam_env.vector.VectorEnv`)."""
        observations = np.asarray(observations, dtype=np.float32)
        h = self._actor.features(observations[:, : self.obs_size])
        z = self._actor.output(h)
        if self._move is None:
            return z
        if action_masks is None:
            raise ValueError(f"{self.name}: a network with a move-scoring head needs the action masks")
        rows, actions = legal_pairs(action_masks)
        from_hidden, from_move, bias, out_weight, out_bias = self._move
        moves = move_features(observations[rows], actions)
        hidden = self._activation(h[rows] @ from_hidden.T + moves @ from_move.T + bias)
        z[rows, actions] += hidden @ out_weight + out_bias
        return z

    def best_actions(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``int64[k]``: each row's most probable legal action — the network as a deterministic
        batched policy (:mod:`sam_env.vector.learner_tables`)."""
        z = np.where(action_masks, self.batch_logits(observations, action_masks), -np.inf)
        return np.argmax(z, axis=1)

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        vector = self.observation_vector(observation)
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} was asked to act with an empty action mask")
        z = self.logits(vector, observation["action_mask"])[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        cumulative = np.cumsum(p)
        return int(legal[min(int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1])), legal.size - 1)])
