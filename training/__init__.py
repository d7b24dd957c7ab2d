"""The trainers behind ``train.py`` (which reads as the story of a run), one folder each.

A config's ``trainer:`` key picks one (:mod:`.trainers`); each folder holds its config class and
``train(config, run_dir, resume) -> TrainResult``, so a new trainer is a new folder and a line in
:data:`.trainers.TRAINERS`.

* :mod:`.batched` — the default: masked PPO on :class:`sam_env.VectorEnv`, written out here.
  **The loss** (clipped surrogate, value loss, entropy, advantages along each seat's trajectory) is
  :mod:`.batched.ppo`; **the rollouts** are :mod:`.batched.rollout`; **the opponents** are drawn per
  hand and seat by its ``Seating`` (snapshots, fixed networks, the compiled heuristic, the random
  player), evaluated in batch;
* :mod:`.sb3` — sb3-contrib's MaskablePPO (SB3's loss and rollouts); its opponents are
  :mod:`.sb3.opponents` (Python bots and snapshots behind :class:`sam_env.SingleAgentEnv`);
* :mod:`.rllib` — multi-agent PPO on Ray RLlib (RLlib's loss and rollouts); its opponents are
  :mod:`.rllib.selfplay` (frozen snapshots in every other seat).

Shared by the trainers:

* :mod:`.config` — the fields every trainer reads (:class:`~.config.RunConfig`), those of the two
  self-play PPO trainers (:class:`~.config.MaskedPPOConfig`), ``--set`` overrides, the result;
* :mod:`.trainers` — the trainers by name, and configs read from YAML into the right class;
* :mod:`.cli` — ``train.py``'s command line;
* :mod:`.schedule` — when snapshots, evaluations and checkpoints are due;
* :mod:`.checkpoints` — finding and checking a checkpoint before ``--resume``;
* :mod:`.evaluate` — duplicate evaluations during and after training;
* :mod:`.curves` — the learning-curve figures from the TensorBoard events;
* :mod:`.widen` — a narrower network widened, playing as before (``init_from``);
* :mod:`.expert.search_targets` — expert iteration's search targets from ``VectorEnv`` self-play.

The command lines that train (``sam-exploit``, a best response to a network bot) are in :mod:`sam_env.apps`.
"""

if __name__ == "training":  # imported by its pre-0.3 name from a source checkout: serve sam_env.training
    from sam_env.utils.deprecation import redirect_moved_package

    redirect_moved_package(__name__)
