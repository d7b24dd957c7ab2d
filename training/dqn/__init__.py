"""DQN on the single-agent view (``trainer: dqn``), with Tianshou's algorithm as its authors ship it.

One learner seat per table of :class:`sam_env.SingleAgentEnv` (a different seat every hand), the other
seats drawn per hand from the rule bots; the legal moves travel in the observation
(:class:`sam_env.single_agent.MaskInObservation`), where Tianshou's ``DiscreteQLearningPolicy`` masks its
greedy moves, its exploration and its double-Q targets with them.

* :mod:`.config` — :class:`~.config.DQNConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls, and the checkpoints;
* :mod:`.trainer` — the loop around Tianshou's collector and update, evaluations, logs, the export;
* :mod:`.tables` — the learner's tables and their opponents.

The Q-network plays as a bot in numpy (:class:`sam_env.agents.qnet.bot.QBot`, ``load_bot(path)``).
"""

from .run import train

__all__ = ["train"]
