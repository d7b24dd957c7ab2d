"""What several trainers share, so that no trainer's folder imports another's (the registry,
:mod:`sam_env.training.trainers`, is the one place that names them all).

* :mod:`.seating` — :class:`~.seating.Seating`: who sits where at each table of a ``VectorEnv`` for a hand
  (the learner, frozen networks, the compiled heuristic, the random player), and its occupant codes;
* :mod:`.trajectories` — :class:`~.trajectories.SeatTrajectories`: each learner seat's decisions linked in
  order and credited with the money its seat receives;
* :mod:`.masking` — :func:`~.masking.masked`: logits with the illegal actions pushed out of the softmax;
* :mod:`.logs` — :func:`~.logs.tensorboard_logger`: a run's TensorBoard log, under the tags
  :mod:`sam_env.training.curves` plots.
"""
