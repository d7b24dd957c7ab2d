"""The RLlib trainer's config (``trainer: rllib``): a validated dataclass read from ``configs/rllib*.yaml``.

It imports no Ray, so a config is checked (and its errors reported) without the ``rllib`` extra. A bad
field is reported as every trainer's are, with the same :class:`~sam_env.training.config.ConfigError`. Field
names follow the other trainers' where the meaning is the same (``total_timesteps``, ``pi_layers`` …)
and RLlib's where they are RLlib's settings (``num_env_runners``, ``train_batch_size`` …).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import RunConfig

INT_FIELDS = (
    (("num_env_runners",), 0, "an int >= 0"),
    (("num_envs_per_env_runner", "num_cpus", "train_batch_size", "rollout_fragment_length"), 1, "an int > 0"),
    (("minibatch_size", "num_epochs", "pool_size", "snapshot_every"), 1, "an int > 0"),
)


@dataclass(frozen=True)
class RLlibConfig(RunConfig):
    """Multi-agent PPO on Ray RLlib (:mod:`~sam_env.training.rllib`): every seat a module, self-play against snapshots.

    Every field of :class:`~sam_env.training.config.RunConfig`, with these meanings where the trainer gives
    them one: ``seed`` seeds RLlib (env runners, modules) and the environments' deals;
    ``total_timesteps`` counts the learner module's decisions (the snapshots' moves are not counted).

    Attributes:
        num_env_runners: Ray actors that play hands; 0 plays them in the driver process.
        num_envs_per_env_runner: tables each env runner steps together (one batched forward pass).
        rollout_fragment_length: steps of each table per ``sample()`` call of an env runner. Small
            on purpose: in RLlib 2.60 a multi-agent env runner converts every hand finished in the
            current call again at each step, so a call's cost grows with the square of its hands
            (measured in docs/rllib.md).
        num_cpus: CPUs of the local Ray instance this run starts (ignored when joining a cluster).
        torch_threads: (shared field) torch threads of the driver, which runs the learner (and the env
            runner when ``num_env_runners`` is 0); Ray gives each env runner actor one thread per CPU it holds.
        train_batch_size: environment steps (decisions of every seat) per update; the learner's
            share is about ``1 / n_players`` of them, the rest are the snapshots' moves.
        minibatch_size: learner samples per SGD minibatch.
        num_epochs: passes over each batch.
        lr: Adam step size.
        gamma: discount (1.0: only the money at the end of the hand matters).
        lambda_: GAE λ.
        clip_param: PPO ratio clip.
        entropy_coeff: entropy bonus.
        vf_loss_coeff: value-loss weight.
        grad_clip: gradient norm clip.
        pool_size: frozen snapshots of the learner that fill the other seats.
        snapshot_every: learner steps between snapshots (the oldest slot is overwritten).
    """

    trainer: str = "rllib"
    name: str = "rllib"
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 4
    rollout_fragment_length: int = 64
    num_cpus: int = 2
    train_batch_size: int = 8192
    minibatch_size: int = 512
    num_epochs: int = 10
    lr: float = 3e-4
    gamma: float = 1.0
    lambda_: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    grad_clip: float = 0.5
    pool_size: int = 4
    snapshot_every: int = 50_000

    def check(self) -> None:
        super().check()
        for names, least, allowed in INT_FIELDS:
            for name in names:
                self._require_int(name, least, allowed)
        for name in ("lr", "clip_param", "grad_clip"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        for name in ("entropy_coeff", "vf_loss_coeff"):
            self._require_number(name, lambda v: v >= 0, "a number >= 0")
        for name in ("gamma", "lambda_"):
            self._require_number(name, lambda v: 0 < v <= 1, "a number in (0, 1]")

    @property
    def policy_label(self) -> str:
        return f"rllib[{self.name}]"
