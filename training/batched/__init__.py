"""Masked PPO at batch speed on :class:`sam_env.VectorEnv` (``trainer: batched`` in a config): the
learner's seats against snapshots of itself, fixed networks and compiled rule bots.

* :mod:`.network` — the actor-critic, with SB3's tensor names (so checkpoints load everywhere);
* :mod:`.rollout` — seats drawn per hand, batched inference, money credited to each seat's trajectory;
* :mod:`.ppo` — advantages along each seat's trajectory and the masked PPO update;
* :mod:`.trainer` — the loop: snapshots, evaluations, checkpoints, logs;
* :mod:`.state` — checkpoints and ``--resume``; :mod:`.run` — what ``train.py`` calls.
"""
