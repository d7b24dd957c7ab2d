"""The trainer's machinery behind ``train.py`` (which reads as the story of a run).

* :mod:`.config` — :class:`~.config.TrainConfig`, validated, read from YAML with ``--set`` overrides;
* :mod:`.opponents` — the learner's tables, opponents drawn per hand from bots and self-play snapshots;
* :mod:`.checkpoints` — policy and trainer state on disk, and ``--resume``;
* :mod:`.schedule` — the callback: snapshots, evaluations, checkpoints, logs, progress bar;
* :mod:`.evaluate` — duplicate evaluations during and after training;
* :mod:`.curves` — the learning-curve figure from the TensorBoard events.
"""
