"""What every network bot shares, whatever its kind: the checkpoint it plays, the one table size it fits, and the
observations it reads.

A network reads the observation layout of its encoding version and seat count. A later encoding version's
observation starts with that layout, so the network reads the prefix (:func:`sam_env.encoding.readable_sizes`).
:class:`NetworkBot` checks this once, in one place, for the policy player and the Q-network player.
"""

from __future__ import annotations

import numpy as np

from sam_env.bot import Bot
from sam_env.encoding import readable_sizes

from .format import NetworkCheckpoint


class NetworkBot(Bot):
    """A bot that plays a :class:`~.format.NetworkCheckpoint` of the kind ``CHECKPOINT``."""

    CHECKPOINT: type[NetworkCheckpoint] = NetworkCheckpoint
    """The checkpoint class a subclass plays; anything else is refused with a message naming the loader."""

    def __init__(self, checkpoint: NetworkCheckpoint, seed: int | None = None) -> None:
        if not isinstance(checkpoint, self.CHECKPOINT):
            raise TypeError(
                f"checkpoint must be a {self.CHECKPOINT.__name__}, got {type(checkpoint).__name__} {checkpoint!r}; "
                f"load files with {type(self).__name__}.from_checkpoint(path)"
            )
        super().__init__(seed)
        self.checkpoint = checkpoint
        self.obs_size = checkpoint.obs_size
        self.n_players = checkpoint.n_players
        """The only table size the network can play: its observation layout depends on it."""
        self.encoding_version = checkpoint.encoding_version
        """The observation encoding the network reads: a table must encode it or a later version."""
        self._readable = readable_sizes(self.n_players, self.encoding_version)

    def reads(self, size: int) -> bool:
        """Whether an observation vector of ``size`` numbers is one the network reads: of its encoding version,
        or of a later one, whose first numbers are its version's."""
        return size in self._readable

    def observation_vector(self, observation: dict) -> np.ndarray:
        """The observation's vector, refused unless the network reads it (another seat count or encoding)."""
        vector = observation["observation"]
        if vector.ndim != 1 or not self.reads(vector.shape[0]):
            raise ValueError(
                f"{self.name}: observation of shape {vector.shape}, but the network was trained on ({self.obs_size},) "
                f"— a {self.n_players}-player table, observation encoding version {self.encoding_version} — so it "
                f"reads ({self.obs_size},): encoding version {self.encoding_version} (or a later version) of a "
                f"{self.n_players}-player table"
            )
        return vector
