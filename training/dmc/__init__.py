"""Deep Monte-Carlo (``trainer: dmc``), as DouZero trains its Dou Dizhu bots, on :class:`sam_env.VectorEnv`.

One Q-network scores (state, move) pairs — the observation and the move's features
(:mod:`sam_env.move_features`) — and every seat of thousands of tables plays it epsilon-greedily;
each decision is fitted, by squared error, to the money its seat received from that decision to the end
of the hand. No critic, no bootstrapping, no importance weights: DouZero's point is that with cheap
self-play, plain Monte-Carlo targets are enough.

* :mod:`.config` — :class:`~.config.DMCConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls, and the checkpoints;
* :mod:`.trainer` — the loop: collect, fit, evaluate, checkpoint, log;
* :mod:`.selfplay` — the tables, batched inference over every legal move, money credited per seat;
* :mod:`.targets` — the Monte-Carlo targets and the decisions waiting for their hand to end.

The network plays as a bot in numpy (:class:`sam_env.agents.networks.qnet.bot.QBot`, ``load_bot(path)``).
"""

from .run import train

__all__ = ["train"]
