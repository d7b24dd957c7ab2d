"""Q-networks: networks that value moves (DQN's, DouZero's Deep Monte-Carlo), played in numpy.

* :mod:`.checkpoint` — :class:`~.checkpoint.QArch` (kind, layers, activation) and
  :class:`~.checkpoint.QCheckpoint` (format ``sam-env-qnet``), in the networks' one file format;
* :mod:`.bot` — :class:`~.bot.QBot`, the greedy player, one decision or a batch;
* :mod:`.network` — :class:`~.network.QNetwork`, the same network in torch (training only).

A ``dmc`` network reads each legal move's features (:mod:`sam_env.move_features`) beside the observation.
``sam_env.load_bot(path)`` reads a checkpoint's format and builds a :class:`~.bot.QBot` for these.
"""
