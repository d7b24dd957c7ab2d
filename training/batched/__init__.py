"""Masked PPO at batch speed on :class:`sam_env.VectorEnv` (``trainer: batched``, the default): the
learner's seats against snapshots of itself, fixed networks and compiled rule bots.

* :mod:`.config` — :class:`~.config.BatchedConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls;
* :mod:`.trainer` — the loop: snapshots, evaluations, checkpoints, logs;
* :mod:`.rollout` — seats drawn per hand, batched inference, money credited to each seat's trajectory;
* :mod:`.ppo` — advantages along each seat's trajectory and the masked PPO update (the loss);
* :mod:`.network` — the actor-critic (:mod:`sam_env.agents.networks.policy.network`'s) and the oracle critic;
* :mod:`.state` — checkpoints and ``--resume``.
"""

from .run import train

__all__ = ["train"]
