"""The trained network as a bot: the checkpoint format, the numpy player and the SB3 policy, side by side.

* :mod:`.checkpoint` — ``policy.json`` + ``policy.safetensors``: metadata, fingerprint, the checks on load;
* :mod:`.bot` — :class:`~.bot.PPOBot`, the actor evaluated in numpy, and the shipped networks;
* :mod:`.sb3` — the sb3-contrib policy a checkpoint was trained as (``policy_kwargs``, ``build_policy``).
"""
