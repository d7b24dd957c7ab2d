"""An RLlib run: start or join Ray, build PPO, train with self-play, export the learner.

``train.py`` calls :func:`train` for configs with ``trainer: rllib``. Ray is started locally on
``num_cpus`` CPUs, or joined at ``train.py --address`` / ``RAY_ADDRESS`` (a cluster made with
``ray start --head``, see docs/rllib.md), and always shut down, also on an error, so no Ray process
outlives the run.

Besides what every run writes, an RLlib run writes ``progress.jsonl`` (one line of learner steps,
speed and losses per training iteration) and ``speed.json``; ``final/policy.{json,safetensors}`` is
our checkpoint format (``load_bot(path)``, ``sam-eval --candidates path``, ``sam-play``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    LEARNER_RESULTS,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    TIMERS,
)

from .. import progress
from ..config import ConfigError, TrainResult
from ..schedule import next_due
from ..speed import SpeedMeter
from .config import RLlibConfig
from .env import SamMultiAgentEnv
from .export import export_policy
from .module import module_spec
from .selfplay import (
    DECISIONS,
    LEARNER,
    CountDecisions,
    SeatMapping,
    SnapshotPool,
    copy_learner_into,
    learner_module_state,
    snapshot_ids,
)


def ppo_config(config: RLlibConfig) -> PPOConfig:
    """RLlib's PPO on its current API stack (RLModule, Learner, EnvRunner), multi-agent, from our config."""
    env_config = {"rules": config.rules, "reward_scale": config.reward_scale}
    probe = SamMultiAgentEnv(env_config)
    seat = probe.possible_agents[0]
    spec = module_spec(probe.observation_spaces[seat], probe.action_spaces[seat], config.arch)
    modules = [LEARNER, *snapshot_ids(config.pool_size)]
    return (
        PPOConfig()
        # RLlib's env check steps a random action without its mask, which the engine refuses with
        # IllegalMoveError; the adapter is checked by tests/training/test_rllib_env.py instead.
        .environment(SamMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
            rollout_fragment_length=config.rollout_fragment_length,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)  # the update runs in the driver: one CPU learner, as SB3's
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=SeatMapping(config.rule_config.n_players, config.pool_size),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        .training(
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
            lr=config.lr,
            gamma=config.gamma,
            lambda_=config.lambda_,
            clip_param=config.clip_param,
            entropy_coeff=config.entropy_coeff,
            vf_loss_coeff=config.vf_loss_coeff,
            grad_clip=config.grad_clip,
            use_kl_loss=False,  # SB3's MaskablePPO has no KL penalty either: the clip alone bounds each update
            # nor a clipped value loss: RLlib's default cut at 10 would hide a blocked Sâm's error (-6 squared)
            vf_clip_param=float("inf"),
        )
        .callbacks(CountDecisions)
        .debugging(seed=config.seed)
    )


def start_ray(config: RLlibConfig) -> None:
    """Join the cluster at ``RAY_ADDRESS`` (``train.py --address`` sets it), else start a local Ray on
    ``num_cpus`` CPUs."""
    address = os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address)
    else:
        # "local": a new Ray even where a `ray start` cluster runs on this machine (None would join it).
        ray.init(address="local", num_cpus=config.num_cpus, include_dashboard=False)


def learner_steps(result: Mapping[str, Any]) -> int:
    """The learner's decisions sampled so far (what ``total_timesteps`` counts)."""
    return int(result[ENV_RUNNER_RESULTS].get(DECISIONS, {}).get(LEARNER, 0))


def train(config: RLlibConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """Train until ``total_timesteps`` learner steps, export the learner, write ``speed.json``."""
    if resume is not None:
        raise ConfigError("trainer: rllib has no --resume yet (docs/rllib.md); start a new run with --config")
    cluster = os.environ.get("RAY_ADDRESS")
    if not cluster and config.num_env_runners > config.num_cpus:
        # Ray would wait forever for the CPUs of the missing actors.
        raise ConfigError(
            f"{config.num_env_runners} env runners need {config.num_env_runners} CPUs of the local Ray, "
            f"but num_cpus = {config.num_cpus}; add --set num_cpus={config.num_env_runners}, or join a cluster "
            "with --address"
        )
    run_name = run_dir.name
    where = cluster or f"a local Ray on {config.num_cpus} CPUs"
    runners = f"{config.num_env_runners} env runner(s)"
    print(f"run {run_name}: RLlib PPO, {config.total_timesteps:,} learner steps, {runners} on {where}")
    start_ray(config)
    algorithm = None
    try:
        algorithm = ppo_config(config).build_algo()
        pool = SnapshotPool(config.pool_size)
        copy_learner_into(algorithm, pool.ids)  # the pool starts as copies of the initial policy
        next_snapshot = config.snapshot_every
        steps = env_steps = 0
        decisions: dict[str, Any] = {}
        meter = SpeedMeter()
        meter.mark(0)
        started = time.perf_counter()
        bar = progress.bar(config.total_timesteps, 0, "step", config.progress_bar)
        with (run_dir / "progress.jsonl").open("w", encoding="utf-8") as log, bar:
            while steps < config.total_timesteps:
                result = algorithm.train()
                steps = learner_steps(result)
                progress.advance(bar, steps)
                env_steps = int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
                decisions = result[ENV_RUNNER_RESULTS].get(DECISIONS, {})
                if steps >= next_snapshot:
                    copy_learner_into(algorithm, [pool.take(steps)])
                    next_snapshot = next_due(steps, config.snapshot_every)
                log.write(json.dumps(_progress_line(result, steps, env_steps, time.perf_counter() - started)) + "\n")
                log.flush()  # a line per iteration, readable while the run goes on
                meter.mark(steps)
        seconds = time.perf_counter() - started
        state = learner_module_state(algorithm)
    finally:
        if algorithm is not None:
            algorithm.stop()
        ray.shutdown()
    training = {**config.to_dict(), "ray_version": ray.__version__}
    final = export_policy(
        run_dir / "final", state, config.rule_config, config.arch, training, run_name=run_name, num_timesteps=steps
    )
    speed = meter.write(
        run_dir,
        config.trainer,
        env_steps=env_steps,
        env_steps_per_second=round(env_steps / seconds, 1),
        decisions_by_module={k: int(v) for k, v in decisions.items()},
        num_env_runners=config.num_env_runners,
        snapshot_steps=pool.steps,
    )
    print(
        f"{env_steps:,} env steps; {speed['learner_steps_per_second']} learner steps/s "
        f"({speed['learner_steps_per_second_after_warm_up']} after the first iteration; speed.json)"
    )
    return TrainResult(final, steps, seconds)


def _progress_line(result: Mapping[str, Any], steps: int, env_steps: int, seconds: float) -> dict[str, Any]:
    learner = result.get(LEARNER_RESULTS, {}).get(LEARNER, {})
    losses = {k: float(v) for k, v in learner.items() if k.endswith(("loss", "entropy")) and _is_scalar(v)}
    timers = result.get(TIMERS, {})
    for name, key in (("sample_seconds", "env_runner_sampling_timer"), ("update_seconds", "learner_update_timer")):
        if _is_scalar(timers.get(key)):
            losses[name] = round(float(timers[key]), 3)  # RLlib's timers: moving averages over iterations
    returns = result[ENV_RUNNER_RESULTS].get("module_episode_returns_mean", {})
    if _is_scalar(returns.get(LEARNER)):
        losses["learner_return_mean"] = float(returns[LEARNER])  # scaled money per hand (x reward_scale)
    return {"learner_steps": steps, "env_steps": env_steps, "seconds": round(seconds, 2), **losses}


def _is_scalar(value: object) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True
