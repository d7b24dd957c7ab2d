"""Expert iteration on :class:`sam_env.VectorEnv` (``trainer: expert``): a determinized search over the
network teaches it, and each new network is the next search's rollout policy (docs/expert_iteration.md).

* :mod:`.config` — :class:`~.config.ExpertConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls;
* :mod:`.trainer` — the loop: iterations, evaluations, checkpoints, logs;
* :mod:`.generate` — an iteration's games: the network's decisions searched in one batch per step;
* :mod:`.workers` — the search, in this process or shared with worker processes;
* :mod:`.distill` — the targets, the replay buffer and the loss (cross-entropy to the search's
  move, squared error to its value);
* :mod:`.state` — checkpoints and ``--resume``.
"""

from .run import train

__all__ = ["train"]
