"""Behaviour cloning (``trainer: bc``): a policy network learns a bot's moves from its hand records, by
cross-entropy over the legal moves, and plays as a policy bot (docs/training.md#behaviour-cloning-trainer-bc).

* :mod:`.config` — :class:`~.config.BCConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls, and the checkpoints;
* :mod:`.data` — the datasets read, checked against the config, filtered and split by hand;
* :mod:`.trainer` — the loop: epochs of minibatches, validation, evaluations, logs.
"""

from .run import train

__all__ = ["train"]
