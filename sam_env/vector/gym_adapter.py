"""The single-learner view as a gymnasium ``VectorEnv`` (same-step autoreset).

Each of the ``num_envs`` sub-environments is one table of a :class:`~.learner_tables.LearnerTables`: the
learner acts at every table at once, the opponents (a batched policy) play in between, and a
table whose hand ended is already playing its next hand in the returned observation
(``metadata["autoreset_mode"]`` is ``SAME_STEP``). ``infos["action_mask"]`` and
:meth:`GymVectorEnv.action_masks` give the learner's legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymnasiumVectorEnv
from gymnasium.vector.utils import batch_space

from ..bot import BatchedPolicy
from ..core.combos import N_COMBOS
from ..core.rules import RuleConfig
from .learner_tables import LearnerTables


class GymVectorEnv(GymnasiumVectorEnv):
    """``num_envs`` tables, one learner seat each, as a gymnasium vector environment.

    Args are those of :class:`~.learner_tables.LearnerTables`. Rewards are the learner seat's money in X.
    Tables that finished a hand carry ``infos["final_obs"]`` and ``infos["final_info"]`` in gymnasium's
    same-step format (an object array, ``None`` at the other tables, with the ``_final_obs`` /
    ``_final_info`` masks; built by gymnasium's own ``_add_info``, as ``SyncVectorEnv`` does). The
    final observation is the learner's at its last decision of that hand: the compiled engine deals the
    next hand within the step and keeps no observation of a finished one (no hand is ever truncated,
    so nothing bootstraps from it).
    """

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        rules: RuleConfig | None = None,
        opponent: BatchedPolicy | None = None,
        learner_seats: int | Sequence[int] | None = None,
        seed: int | None = None,
        parallel: bool = False,
    ) -> None:
        self.tables = LearnerTables(num_envs, rules, opponent, learner_seats, seed, parallel)
        self.num_envs = self.tables.num_tables
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.tables.observation_size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_COMBOS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._observations = np.zeros((self.num_envs, self.tables.observation_size), dtype=np.float32)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options:
            raise ValueError(f"reset options are not supported by the single-learner view, got {options!r}")
        self._observations, masks = self.tables.reset(seed=seed)
        return self._observations, {"action_mask": masks}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        last = self._observations
        self._observations, masks, rewards, terminated = self.tables.step(actions)
        infos: dict[str, Any] = {"action_mask": masks}
        for table in np.flatnonzero(terminated).tolist():
            infos = self._add_info(infos, {"final_obs": last[table].copy(), "final_info": {}}, table)
        return self._observations, rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 201]``: the learner's legal actions at every table."""
        return self.tables.action_masks()
