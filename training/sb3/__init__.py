"""sb3-contrib's MaskablePPO (``trainer: sb3``): one learner seat per table against Python bots and snapshots.

Kept beside the batched trainer because researchers use SB3's own API; its rollouts and update are
SB3's own.

* :mod:`.config` — :class:`~.config.SB3Config`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls;
* :mod:`.opponents` — the learner's tables (:class:`sam_env.SingleAgentEnv`), opponents drawn per
  hand and seat from the bots and the self-play pool;
* :mod:`.callback` — snapshots, evaluations, checkpoints and logs between SB3's rollouts;
* :mod:`.checkpoints` — SB3's policy, optimizer, pool and RNG states on disk, and ``--resume``.
"""

from .run import train

__all__ = ["train"]
