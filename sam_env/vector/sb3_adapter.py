"""The single-learner view as a Stable-Baselines3 ``VecEnv``, with ``action_masks()`` for MaskablePPO.

SB3 steps vectorized environments through ``step_async``/``step_wait`` and resets a sub-environment
itself when it reports ``done``; here every table is always playing (the next hand is dealt within
the step), which is exactly SB3's auto-reset contract. sb3-contrib's ``get_action_masks`` asks a
``VecEnv`` for ``env_method("action_masks")``; this class answers it from one batched array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from ..bot import BatchedPolicy
from ..core.combos import N_COMBOS
from ..core.rules import RuleConfig
from .learner_tables import LearnerTables


class Sb3VecEnv(VecEnv):
    """``num_envs`` tables, one learner seat each, for SB3 / sb3-contrib (e.g. ``MaskablePPO("MlpPolicy", env)``).

    Args are those of :class:`~.learner_tables.LearnerTables`. Rewards are the learner seat's money in X;
    ``infos[i]["terminal_observation"]`` is the learner's observation at its last decision of the
    hand that ended (the engine keeps no observation of a finished hand; SB3 reads it only for
    truncated episodes, and hands are never truncated); ``infos[i]["hands"]`` the finished hands.
    """

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
        self.render_mode = None
        observation_space = spaces.Box(0.0, 1.0, (self.tables.observation_size,), dtype=np.float32)
        super().__init__(self.tables.num_tables, observation_space, spaces.Discrete(N_COMBOS))
        self._actions: np.ndarray | None = None
        self._observations = np.zeros((self.num_envs, self.tables.observation_size), dtype=np.float32)

    def reset(self) -> VecEnvObs:
        seed = self._seeds[0]
        self._observations, _ = self.tables.reset(seed=seed)
        self._reset_seeds()
        return self._observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async(actions) must come before step_wait()")
        last = self._observations
        self._observations, _, rewards, terminated = self.tables.step(self._actions)
        self._actions = None
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for t in np.flatnonzero(terminated).tolist():
            infos[t] = {"terminal_observation": last[t], "hands": self.tables.last_hands.get(t, [])}
        return self._observations, rewards, terminated, infos

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 201]``: the learner's legal actions at every table (what MaskablePPO asks for)."""
        return self.tables.action_masks()

    def close(self) -> None:
        """Nothing to release: the tables are arrays in this process."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The adapter's own attribute, once per selected table (all tables share one engine)."""
        value = getattr(self, attr_name)
        return [value] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list:
        """``env_method("action_masks")`` gives each selected table's mask (sb3-contrib's call)."""
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self, method_name)(*method_args, **kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))
