"""The trainers behind ``train.py`` (which reads as the story of a run), one folder each.

A config's ``trainer:`` key picks one (:mod:`.trainers`); each folder holds its config class and
``train(config, run_dir, resume) -> TrainResult``, so a new trainer is a new folder and a line in
:data:`.trainers.TRAINERS`. The trainers, by that key:

* ``batched`` (:mod:`.batched`) — masked PPO on :class:`sam_env.VectorEnv` (the ``self_play`` recipe), written out
  (the loss :mod:`.batched.ppo`, the rollouts :mod:`.batched.rollout`, opponents drawn per hand and seat, in batch);
  with ``tables: ray`` its tables play in Ray actors (:mod:`.ray_actors`, the ``rllib`` extra; :mod:`.tables`);
* ``sb3`` (:mod:`.sb3`) — sb3-contrib's MaskablePPO, one learner seat per table of :class:`sam_env.SingleAgentEnv`;
* ``rllib`` (:mod:`.rllib`) — multi-agent PPO on Ray RLlib against frozen snapshots (the ``rllib`` extra);
* ``expert`` (:mod:`.expert`) — expert iteration: a determinized search over the network teaches it;
* ``dmc`` (:mod:`.dmc`) — Deep Monte-Carlo, as DouZero trains (``python train.py``'s default recipe): a Q-network
  of (state, move), Monte-Carlo targets; with ``tables: ray`` its tables play in Ray actors (:mod:`.dmc.ray_tables`);
* ``dqn`` (:mod:`.dqn`) — Tianshou's masked double DQN on the single-agent view (the ``clients`` extra);
* ``rollout_advantage`` (:mod:`.rollout_advantage`) — every candidate move played out on copies of the real deal;
* ``nfsp`` (:mod:`.nfsp`) — Neural Fictitious Self-Play, as RLCard ships it: a best response (double DQN) and an
  average policy (cross-entropy to the best response's moves, from a reservoir) in every seat; the average policy
  is what it saves;
* ``bc`` (:mod:`.bc`) — behaviour cloning: a policy network learns a bot's moves from decision datasets made of hand
  records (cross-entropy over the legal moves), validated on held-out hands.

No trainer imports another's folder (:mod:`.ray_actors` runs ``batched``'s own loop); what they share is here:

* :mod:`.common` — the seating of learner and opponents at ``VectorEnv`` tables, each seat's trajectory of
  decisions and money, masked logits, the TensorBoard log;
* :mod:`.config` — the fields every trainer reads (:class:`~.config.RunConfig`), those of the two
  self-play PPO trainers (:class:`~.config.MaskedPPOConfig`), ``--set`` overrides, the result;
* :mod:`.trainers` — the trainers by name, and configs read from YAML into the right class;
* :mod:`.cli` — ``train.py``'s command line;
* :mod:`.run_script` — ``train.py``'s steps: config, run folder, the trainer's loop, final evaluation;
* :mod:`.recipes` — the shipped training configs by name;
* :mod:`.schedule` — when snapshots, evaluations and checkpoints are due;
* :mod:`.checkpoints` — finding and checking a checkpoint before ``--resume``;
* :mod:`.qnet_state` — the checkpoints of the Q-network trainers (``dmc``, ``dqn``);
* :mod:`.lineage` — the checkpoints a checkpoint grew from;
* :mod:`.evaluate` — duplicate evaluations during and after training;
* :mod:`.curves` — the learning-curve figures from the TensorBoard events;
* :mod:`.widen` — a narrower network widened, playing as before (``init_from``);
* :mod:`.progress`, :mod:`.speed` — the progress bar, and every run's ``speed.json``;
* :mod:`.algorithms` — the standard algorithms' table (``benchmarks/algorithms_table.py``).

The command lines that train (``sam-exploit``, a best response to a network bot) are in :mod:`sam_env.apps`.
"""

if __name__ == "training":  # imported by its pre-0.3 name from a source checkout: serve sam_env.training
    from sam_env.utils.deprecation import redirect_moved_package

    redirect_moved_package(__name__)
