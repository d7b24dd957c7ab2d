"""Trained networks: one file format, two kinds of network, and the catalogue of the shipped ones.

* :mod:`.format` — the files every network is saved as (safetensors weights, JSON metadata with the
  weights' SHA-256 and the encoding's fingerprint), the checks on loading, and
  :class:`~.format.NetworkCheckpoint`, the one shape of a loaded checkpoint;
* :mod:`.layers` — the activations and the numpy forward pass both kinds play with;
* :mod:`.policy` — PPO policy networks (an actor-critic laid out as sb3-contrib's MaskablePPO):
  :class:`~.policy.bot.PPOBot` plays the policy's most probable legal move;
* :mod:`.qnet` — Q-networks (DQN's, and Deep Monte-Carlo's as DouZero trains it), which value moves:
  :class:`~.qnet.bot.QBot` plays the legal move of highest value;
* :mod:`.catalogue` — the shipped networks (``shipped/``), their names, families and the ``best``
  network for each table size.

The two kinds never import each other; both import :mod:`.format` and :mod:`.layers`. Bots are built
by name through :func:`sam_env.load_bot`, which reads the catalogue.
"""
