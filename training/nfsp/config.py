"""The NFSP trainer's config (``trainer: nfsp``): the shared fields and its own."""

from __future__ import annotations

from dataclasses import dataclass

from sam_env.agents.networks.qnet.checkpoint import QArch

from ..config import EvalRunConfig, require_field


@dataclass(frozen=True)
class NFSPConfig(EvalRunConfig):
    """Neural Fictitious Self-Play (:mod:`sam_env.training.nfsp`), as RLCard's ``NFSPAgent`` learns: every seat of
    ``num_tables`` tables is the one agent's; for each hand a seat plays its best response (epsilon-greedy on a
    Q-network) with chance ``anticipatory_param``, else its average policy (sampled). The Q-network learns by double
    DQN from every decision's transition (a circular buffer); the average policy by cross-entropy to the best
    response's moves (a reservoir of them, a uniform sample of every one played). The average policy is what is
    saved, evaluated and played.

    Fields of :class:`~sam_env.training.config.EvalRunConfig` with a meaning of their own here:
    ``total_timesteps`` counts every move at every table (every seat is the agent's), forced ones included, though
    only moves with a choice are learned from, and ``eval_every``, ``checkpoint_every`` and ``eps_decay_steps``
    count them too; ``pi_layers`` and ``activation`` are the average policy's (and the Q-network's activation);
    ``vf_layers`` is the average policy's critic, trained beside it (``policy.*`` is a whole actor-critic);
    ``reward_scale`` scales the money rewards.

    Attributes:
        num_tables: tables of the VectorEnv, all stepped at once.
        n_steps: table steps between updates.
        anticipatory_param: chance that a seat plays its best response for a hand (RLCard's and the paper's η);
            its moves are the average policy's training data.
        q_layers: hidden layer sizes of the Q-network (the best response).
        eps_start: exploration of the best response (chance of a uniformly random legal move) at the start.
        eps_end: its exploration after ``eps_decay_steps`` moves, and from then on.
        eps_decay_steps: moves over which the exploration falls linearly from ``eps_start`` to ``eps_end``.
        rl_learning_rate: Adam step size of the Q-network (and of the average policy's critic).
        sl_learning_rate: Adam step size of the average policy.
        rl_batch_size: transitions per gradient step of the Q-network.
        sl_batch_size: best-response moves per gradient step of the average policy.
        rl_replay_ratio: transitions the Q-network's gradient steps sample per decision collected (gradient
            steps = ratio x decisions / ``rl_batch_size``; RLCard takes a step of 32 per transition: 32).
        sl_replay_ratio: best-response moves the average policy's gradient steps sample per decision collected
            (RLCard: a step of 256 per transition, 256).
        rl_buffer_size: transitions the Q-network's circular buffer keeps (the newest).
        reservoir_size: best-response moves the reservoir keeps (a uniform sample of all those played).
        learning_starts: a network trains once its buffer holds this many entries (and a batch).
        target_update_every: the Q-network's gradient steps between copies of it into the target network.
        gamma: discount; 1.0: a hand lasts a handful of decisions and only its money matters.
        max_grad_norm: gradient clipping of every network.
    """

    trainer: str = "nfsp"
    activation: str = "relu"
    pi_layers: tuple[int, ...] = (256, 256)
    vf_layers: tuple[int, ...] = (64, 64)
    q_layers: tuple[int, ...] = (256, 256)
    num_tables: int = 1024
    n_steps: int = 16
    anticipatory_param: float = 0.1
    eps_start: float = 0.06
    eps_end: float = 0.0
    eps_decay_steps: int = 2_000_000
    rl_learning_rate: float = 1e-3
    sl_learning_rate: float = 1e-3
    rl_batch_size: int = 512
    sl_batch_size: int = 512
    rl_replay_ratio: float = 2.0
    sl_replay_ratio: float = 1.0
    rl_buffer_size: int = 100_000
    reservoir_size: int = 250_000
    learning_starts: int = 10_000
    target_update_every: int = 300
    gamma: float = 1.0
    max_grad_norm: float = 40.0
    eval_every: int = 2_000_000
    checkpoint_every: int = 5_000_000

    def check(self) -> None:
        super().check()
        for name in ("num_tables", "n_steps", "rl_batch_size", "sl_batch_size", "target_update_every"):
            self._require_int(name, 1, "an int > 0")
        for name in ("eps_decay_steps", "learning_starts"):
            self._require_int(name, 0, "an int >= 0")
        self._require_layers("q_layers")
        self._require_number(
            "anticipatory_param",
            lambda v: 0 < v <= 1,
            "a number in (0, 1]: with 0 no seat plays its best response, and the average policy learns from nothing",
        )
        for name in ("eps_start", "eps_end", "gamma"):
            self._require_number(name, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        for name in ("rl_learning_rate", "sl_learning_rate", "rl_replay_ratio", "sl_replay_ratio", "max_grad_norm"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        for buffer, batch in (("rl_buffer_size", "rl_batch_size"), ("reservoir_size", "sl_batch_size")):
            size = getattr(self, buffer)
            ok = isinstance(size, int) and not isinstance(size, bool) and size >= getattr(self, batch)
            require_field(buffer, size, ok, f"an int >= {batch} ({getattr(self, batch)}): a batch is drawn from it")

    @property
    def q_arch(self) -> QArch:
        """The best response's Q-network: observation -> one value per action id (a ``dqn`` Q-network)."""
        return QArch(kind="dqn", layers=self.q_layers, activation=self.activation)

    @property
    def policy_label(self) -> str:
        return f"nfsp[{self.name}]"

    def epsilon(self, step: int) -> float:
        """The best response's exploration at move ``step``: linear from ``eps_start`` to ``eps_end``, then flat."""
        progress = 1.0 if self.eps_decay_steps == 0 else min(1.0, step / self.eps_decay_steps)
        return self.eps_start + (self.eps_end - self.eps_start) * progress
