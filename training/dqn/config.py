"""The DQN trainer's config (``trainer: dqn``): the shared fields and its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from sam_env.agents.networks.qnet.checkpoint import QArch

from ..config import EvalRunConfig, OpponentMix, require_field


@dataclass(frozen=True)
class DQNConfig(EvalRunConfig):
    """Tianshou's DQN (:mod:`sam_env.training.dqn`) on the single-agent view: one learner seat per table
    (:class:`sam_env.SingleAgentEnv`, the legal moves in the observation as Tianshou's masked DQN reads
    them), the other seats drawn per hand from the rule bots; Tianshou's collector, replay buffer,
    epsilon-greedy exploration, double-Q targets and update.

    Fields of :class:`~sam_env.training.config.EvalRunConfig` with a meaning of their own here:
    ``total_timesteps`` counts the learner's moves collected, and ``eval_every`` and ``checkpoint_every``
    count them too; ``pi_layers`` and ``activation`` are the
    Q-network's hidden layers and activation (``vf_layers`` has no use: there is no critic);
    ``reward_scale`` scales the money rewards.

    Attributes:
        opponents: weights of the rule bots (``random``, ``greedy``, ``heuristic``) drawn per hand and
            seat; ``self_play`` must be 0 (the pool of the PPO trainers holds policy networks).
        n_envs: tables collected from together (Tianshou's ``DummyVectorEnv``).
        step_per_collect: learner moves collected between two rounds of updates (over all tables).
        update_per_step: gradient steps per learner move collected.
        batch_size: transitions sampled from the replay buffer per gradient step.
        buffer_size: transitions the replay buffer keeps.
        learning_starts: moves collected with uniformly random legal actions before the first update.
        learning_rate: Adam step size.
        gamma: discount; 1.0: a hand lasts a handful of decisions and only the money of the hand matters.
        n_step_return: Tianshou's n-step return horizon (1: one-step TD targets).
        target_update_freq: gradient steps between copies of the network into the target network.
        eps_start: exploration rate (chance of a uniformly random legal move) when learning starts.
        eps_end: exploration rate after ``eps_fraction`` of ``total_timesteps``, and from then on.
        eps_fraction: share of the run over which the rate falls linearly from ``eps_start`` to ``eps_end``.
    """

    trainer: str = "dqn"
    activation: str = "relu"
    opponents: OpponentMix = field(default_factory=lambda: OpponentMix(self_play=0.0, greedy=0.2, heuristic=0.8))
    n_envs: int = 16
    step_per_collect: int = 64
    update_per_step: float = 0.125
    batch_size: int = 128
    buffer_size: int = 200_000
    learning_starts: int = 2_000
    learning_rate: float = 3e-4
    gamma: float = 1.0
    n_step_return: int = 1
    target_update_freq: int = 500
    eps_start: float = 0.5
    eps_end: float = 0.05
    eps_fraction: float = 0.3

    def check(self) -> None:
        super().check()
        for name in ("n_envs", "step_per_collect", "batch_size", "buffer_size", "n_step_return"):
            self._require_int(name, 1, "an int > 0")
        for name in ("learning_starts", "target_update_freq"):
            self._require_int(name, 0, "an int >= 0")
        for name in ("update_per_step", "learning_rate"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        for name in ("gamma", "eps_start", "eps_end", "eps_fraction"):
            self._require_number(name, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        mix = self.opponents
        require_field("opponents", mix, isinstance(mix, OpponentMix), "a mapping of weights")
        require_field(
            "opponents.self_play",
            mix.self_play,
            mix.self_play == 0,
            "0: trainer: dqn seats rule bots (random, greedy, heuristic) only",
        )

    @property
    def q_arch(self) -> QArch:
        return QArch(kind="dqn", layers=self.pi_layers, activation=self.activation)

    @property
    def policy_label(self) -> str:
        return f"dqn[{self.name}]"

    def epsilon(self, step: int) -> float:
        """The exploration rate at learner move ``step``: linear from ``eps_start`` to ``eps_end``, then flat."""
        span = self.eps_fraction * self.total_timesteps
        progress = 1.0 if span <= 0 else min(1.0, step / span)
        return self.eps_start + (self.eps_end - self.eps_start) * progress
