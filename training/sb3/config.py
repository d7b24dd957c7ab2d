"""The SB3 trainer's config (``trainer: sb3``): the shared masked-PPO fields and its own."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import MaskedPPOConfig, require_field

VEC_ENVS = ("dummy", "subproc")


@dataclass(frozen=True)
class SB3Config(MaskedPPOConfig):
    """sb3-contrib's MaskablePPO (:mod:`sam_env.training.sb3`): one learner seat per table against the
    opponent mix (Python bots and snapshots, one table at a time), SB3's rollouts and update.

    Every field of :class:`~sam_env.training.config.MaskedPPOConfig` and :class:`~sam_env.training.config.RunConfig`,
    with these meanings where the trainer gives them one: ``total_timesteps`` is SB3's timesteps
    (the learner's moves); a rollout is ``n_steps × n_envs`` steps, and ``batch_size`` must divide
    it; the evaluations every ``eval_every`` steps meet the heuristic bot.

    Attributes:
        n_envs: environments stepped together; SB3's forward pass is batched over them.
        vec_env: ``dummy`` (all environments in this process) or ``subproc`` (one process each).
    """

    trainer: str = "sb3"
    n_envs: int = 8
    vec_env: str = "dummy"

    def check(self) -> None:
        super().check()
        self._require_int("n_envs", 1, "an int > 0")
        require_field("vec_env", self.vec_env, self.vec_env in VEC_ENVS, "'dummy' or 'subproc'")
        rollout = self.n_steps * self.n_envs
        require_field(
            "batch_size",
            self.batch_size,
            rollout % self.batch_size == 0,
            f"a divisor of n_steps × n_envs = {rollout}, so that every minibatch is full",
        )
