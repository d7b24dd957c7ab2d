"""The trained network as a bot: the checkpoint format, the numpy player, the torch network and the SB3 policy.

* :mod:`.checkpoint` — ``policy.json`` + ``policy.safetensors``: metadata, fingerprint, the checks on
  load; :class:`~.checkpoint.PolicyArch`, the architecture record (layer sizes, tensor names, activation);
* :mod:`.bot` — :class:`~.bot.PPOBot`, the actor evaluated in numpy, and the shipped networks;
* :mod:`.network` — :class:`~.network.ActorCritic`, the one torch builder of the network (torch);
* :mod:`.sb3` — the sb3-contrib policy a checkpoint was trained as (``policy_kwargs``, ``build_policy``).
"""
