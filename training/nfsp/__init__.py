"""Neural Fictitious Self-Play (``trainer: nfsp``; Heinrich & Silver 2016), as RLCard's ``NFSPAgent`` learns, on
:class:`sam_env.VectorEnv`.

One agent holds every seat of thousands of tables. For each hand a seat plays its *best response* (epsilon-greedy
on a Q-network) with chance η (``anticipatory_param``, 0.1), else its *average policy*. The Q-network learns by
double DQN from every decision's transition; the average policy learns, by cross-entropy, to play the moves the
best responses played, drawn from a reservoir that keeps a uniform sample of all of them — so it tends to the
average of the best responses of the whole run, which in two-player zero-sum games approaches a Nash equilibrium.
The average policy is what is saved and evaluated, as RLCard evaluates NFSP; where RLCard samples its moves, the
bot that plays it here (as every policy network in protocol v1) plays its most probable legal move.

* :mod:`.config` — :class:`~.config.NFSPConfig`, the fields this trainer reads;
* :mod:`.run` — :func:`train`, the entry point ``train.py`` calls, and the checkpoints;
* :mod:`.trainer` — the loop: collect, the networks' gradient steps, evaluate, checkpoint, log;
* :mod:`.selfplay` — the tables, the modes drawn per hand and seat, the moves of each mode;
* :mod:`.transitions` — each seat's transitions (its money between its own decisions);
* :mod:`.buffers` — the circular buffer of transitions and the reservoir of best-response moves;
* :mod:`.targets` — the double-DQN targets, and the TD(0) targets of the average policy's critic.

The average policy plays as a bot in numpy (:class:`sam_env.agents.networks.policy.bot.PPOBot`, ``load_bot(path)``):
a checkpoint's ``policy.*`` is an actor-critic in the layout of every policy network, its critic trained beside it.
"""

from .run import train

__all__ = ["train"]
