"""Q-network bots: networks that value moves (DQN's, DouZero's Deep Monte-Carlo) playing in numpy.

* :mod:`.checkpoint` — ``policy.json`` + ``policy.safetensors`` of format ``sam-env-qnet``: metadata,
  checks on load, :class:`~.checkpoint.QArch` (kind, layers, activation);
* :mod:`.features` — a move's features (what it plays, what it leaves in hand, its kind, rank and size);
* :mod:`.bot` — :class:`~.bot.QBot`, the greedy player, one decision or a batch;
* :mod:`.network` — :class:`~.network.QNetwork`, the same network in torch (training only).

``sam_env.load_bot(path)`` reads a checkpoint's format and builds a :class:`~.bot.QBot` for these.
"""
