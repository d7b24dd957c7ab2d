"""PPO policy networks: the architecture record and checkpoint, the numpy player, the torch network and SB3's policy.

* :mod:`.checkpoint` — :class:`~.checkpoint.PolicyArch` (layer sizes, tensor names, activation, an optional
  move-scoring head) and :class:`~.checkpoint.PolicyCheckpoint`, in the networks' one file format;
* :mod:`.bot` — :class:`~.bot.PPOBot`, the actor evaluated in numpy, one decision or a batch;
* :mod:`.network` — :class:`~.network.ActorCritic`, the one torch builder of the network (training; torch);
* :mod:`.sb3` — the sb3-contrib policy a checkpoint was trained as (``policy_kwargs``, ``build_policy``).
"""
