"""Train a Sâm Lốc bot by self-play, then evaluate it in duplicate against the baselines.

    python train.py                                     # configs/default.yaml: Deep Monte-Carlo, 40M moves
    python train.py --config sb3                        # a recipe by name: sb3-contrib MaskablePPO against Python bots
    python train.py --config path/to/my_run.yaml        # a config file
    python train.py --set total_timesteps=2000000 --set rules.n_players=3
    python train.py --resume runs/<run> [--set total_timesteps=400000]   # its last whole checkpoint

The trainers, chosen by the config's ``trainer:`` key, are each a folder of ``training/`` with one entry
point, ``train(config, run_dir, resume)`` (``sam_env.training.trainers``):

* ``dmc`` (the default recipe's, ``sam_env.training.dmc``): Deep Monte-Carlo as DouZero trains — one Q-network
  plays every seat of thousands of :class:`sam_env.VectorEnv` tables epsilon-greedily and each decision is
  fitted to the money its seat received from it to the end of the hand; ``dqn`` (``sam_env.training.dqn``, the
  ``clients`` extra) is Tianshou's DQN on :class:`sam_env.SingleAgentEnv` (docs/standard_algorithms.md).
* ``batched`` (the self-play recipe's, ``sam_env.training.batched``): thousands of tables of :class:`sam_env.VectorEnv`
  at once; the learner holds a share of the seats with one network for all of them, frozen
  snapshots of it and compiled bots the others; every step is one forward pass per network; masked
  PPO along each seat's trajectory.
* ``sb3`` (``sam_env.training.sb3``): one learner seat (a different one every hand) plays
  :class:`sam_env.SingleAgentEnv` with sb3-contrib's MaskablePPO against opponents drawn per hand and
  seat from snapshots and the ``random``, ``greedy`` and ``heuristic`` bots.
* ``ray`` (``sam_env.training.ray_actors``, the ``rllib`` extra): the batched trainer on Ray, its tables in env runner
  actors on one machine or a cluster (``--address``, docs/rllib.md); the same configs and checkpoints.
* ``rllib`` (``sam_env.training.rllib``, the ``rllib`` extra): multi-agent PPO on Ray RLlib, every seat a
  module, on one machine or a cluster (``--address``, docs/rllib.md).
* ``expert`` (``sam_env.training.expert``): expert iteration — a determinized search over the network, batched
  over the decisions of many ``VectorEnv`` tables, is distilled into it (cross-entropy to the search's
  move, squared error to its value), and the new network plays the next search's rollouts
  (docs/expert_iteration.md).

Along the way a run evaluates the policy in small duplicate tournaments (``evaluation``); at the end
it is evaluated against every baseline and the table, with 95 % confidence intervals, is printed.
A run writes to ``runs/<name>__s<seed>__<time>/``: ``config.yaml``, the trainer's logs (TensorBoard
events: ``charts/``, ``train/``, ``eval/``, ``perf/`` — where the time went), ``checkpoints/step_N/``
and ``final/`` (``policy.*`` for ``load_bot(path)``, ``trainer.*`` for ``--resume``, ``config.yaml``),
``learning_curve.png`` and ``evaluation.md`` / ``.json``. Nothing is pickled. This file is the story
of a run; its steps, in order, are ``sam_env.training.run_script.main``, and its machinery is the
``training`` package.
"""

import sys

from sam_env.training.run_script import main

if __name__ == "__main__":
    sys.exit(main())
