"""Rollout advantages on the real deal (``trainer: rollout_advantage``): train with the hidden hands, play without.

At sampled decisions of the learner, the table is copied with its real hidden hands, each candidate move
is made on a copy, and every copy plays the hand to its end with the learner's current policy and the
table's real occupants, all copies under common random numbers. The differences between a decision's
labels are what the moves change, with the deal's luck cancelled; the policy improves towards them
with a KL penalty to the network that played, and the next iteration plays the new network
(Tesauro's rollouts, vine-style several actions from one state, PerfectDou's and Suphx's use of the
hidden information in training only). docs/rollout_training.md describes the method and its settings.

* :mod:`.config` — :class:`~.config.RolloutAdvantageConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls; checkpoints and ``--resume``;
* :mod:`.trainer` — the loop: labels, updates, snapshots, evaluations, logs;
* :mod:`.collect` — the real tables and the decisions picked for labels;
* :mod:`.labels` — the copies, the candidate moves and the rollouts to the end of the hand;
* :mod:`.players` — the occupants' moves from common random numbers;
* :mod:`.update` — the advantage head, the policy improvement and the critic.
"""

from .run import train

__all__ = ["train"]
