"""The RLlib run's configuration: a validated dataclass read from the YAML of ``configs/rllib*.yaml``.

``train.py`` reads the YAML and applies ``--set`` overrides exactly as for the SB3 path
(:func:`training.config.load_config_data`), then hands the plain mapping here when it says
``backend: rllib``. A bad field is reported as :class:`~training.config.TrainConfig`'s are, with
the same :class:`~training.config.ConfigError`. Field names follow train.py's where the meaning is
the same (``total_timesteps``, ``pi_layers`` …) and RLlib's where they are RLlib's settings
(``num_env_runners``, ``train_batch_size`` …).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from sam_env.core.fields import is_int as _is_int
from sam_env.core.fields import is_number as _is_number
from training.config import ConfigError, SharedRunFields, float_or_same, require_field


@dataclass(frozen=True)
class RLlibConfig(SharedRunFields):
    """Everything an RLlib run depends on.

    Attributes:
        backend: ``rllib`` (what makes ``train.py`` hand the config to this package).
        name: the config's name; run folders are ``<name>__s<seed>__<time>``.
        seed: seeds RLlib (env runners, modules) and the environments' deals.
        total_timesteps: learner decisions to train on (the learner module's steps; the snapshots'
            moves are not counted), as in train.py.
        rules: RuleConfig options; empty for the defaults.
        reward_scale: money in X times this is the reward (see train.py's TrainConfig).
        num_env_runners: Ray actors that play hands; 0 plays them in the driver process.
        num_envs_per_env_runner: tables each env runner steps together (one batched forward pass).
        rollout_fragment_length: steps of each table per ``sample()`` call of an env runner. Small
            on purpose: in RLlib 2.60 a multi-agent env runner converts every hand finished in the
            current call again at each step, so a call's cost grows with the square of its hands
            (measured: 1.84 ms CPU per step in calls of 4,096 steps, 0.73 ms in calls of 512).
        num_cpus: CPUs of the local Ray instance this run starts (ignored when joining a cluster).
        torch_threads: torch threads of the driver, which runs the learner (and the env runner when
            ``num_env_runners`` is 0); Ray gives each env runner actor one thread per CPU it holds.
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
        pi_layers: hidden layer sizes of the policy MLP (the exported checkpoint's net_arch.pi).
        vf_layers: hidden layer sizes of the value MLP.
        activation: ``tanh`` or ``relu``.
        pool_size: frozen snapshots of the learner that fill the other seats.
        snapshot_every: learner steps between snapshots (the oldest slot is overwritten).
        final_eval_deals: deals of the duplicate evaluation of the exported policy; 0: skip.
        final_eval_opponents: registry names it meets (n-1 copies each).
        eval_seed: seed of those deals.
        run_dir: the folder that holds run folders.
        progress_bar: show a tqdm progress bar.
    """

    backend: str = "rllib"
    name: str = "rllib"
    seed: int = 1
    total_timesteps: int = 200_000
    rules: dict[str, Any] = field(default_factory=dict)
    reward_scale: float = 0.1
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 4
    rollout_fragment_length: int = 64
    num_cpus: int = 2
    torch_threads: int = 1
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
    pi_layers: tuple[int, ...] = (256, 256)
    vf_layers: tuple[int, ...] = (256, 256)
    activation: str = "tanh"
    pool_size: int = 4
    snapshot_every: int = 50_000
    final_eval_deals: int = 500
    final_eval_opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    eval_seed: int = 12345
    run_dir: str = "runs"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        require_field("backend", self.backend, self.backend == "rllib", "'rllib'")
        checks = (
            (("num_env_runners",), _is_int, 0, "an int >= 0"),
            (("num_envs_per_env_runner", "num_cpus"), _is_int, 1, "an int > 0"),
            (("train_batch_size", "rollout_fragment_length"), _is_int, 1, "an int > 0"),
            (("minibatch_size", "num_epochs", "pool_size", "snapshot_every"), _is_int, 1, "an int > 0"),
        )
        for names, kind, least, allowed in checks:
            for name in names:
                value = getattr(self, name)
                require_field(name, value, kind(value) and value >= least, allowed)
        for name in ("lr", "clip_param", "grad_clip"):
            value = getattr(self, name)
            require_field(name, value, _is_number(value) and value > 0, "a number > 0")
        for name in ("entropy_coeff", "vf_loss_coeff"):
            value = getattr(self, name)
            require_field(name, value, _is_number(value) and value >= 0, "a number >= 0")
        for name in ("gamma", "lambda_"):
            value = getattr(self, name)
            require_field(name, value, _is_number(value) and 0 < value <= 1, "a number in (0, 1]")
        self.check_shared_fields()


def config_from_dict(data: Mapping[str, Any]) -> RLlibConfig:
    """Build an :class:`RLlibConfig`; unknown fields are an error naming the allowed ones.

    Numbers written like ``3e-4`` are accepted for float fields although YAML 1.1 reads them as strings.
    """
    known = [f.name for f in fields(RLlibConfig)]
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise ConfigError(f"unknown config field(s) {unknown} for backend rllib; allowed: {', '.join(known)}")
    floats = {f.name for f in fields(RLlibConfig) if f.type == "float"}
    return RLlibConfig(**{k: float_or_same(v) if k in floats else v for k, v in data.items()})
