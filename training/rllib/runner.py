"""An RLlib run from start to finish: start or join Ray, build PPO, train with self-play, export, evaluate.

``python train.py --config configs/rllib_smoke.yaml`` lands in :func:`main` when the config says
``backend: rllib``. Ray is started locally on ``num_cpus`` CPUs, or joined at ``--address`` /
``RAY_ADDRESS`` (a cluster made with ``ray start --head``, see docs/rllib.md), and always shut down,
also on an error, so no Ray process outlives the run.

The run writes ``runs/<name>__s<seed>__<time>/``: ``config.yaml``, ``progress.jsonl`` (one line of
learner steps, speed and losses per training iteration), ``final/policy.{json,safetensors}`` (our
checkpoint format: ``load_bot(path)``, ``sam-eval --candidates path``, ``sam-play``) and, when
``final_eval_deals`` > 0, ``evaluation.md`` / ``evaluation.json``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ray
import torch
import yaml
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    LEARNER_RESULTS,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    TIMERS,
)
from tqdm import tqdm

from agents.ppo.checkpoint import load_policy
from training.config import ConfigError
from training.evaluate import final_evaluation

from .config import RLlibConfig, config_from_dict
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


def start_ray(config: RLlibConfig, address: str | None) -> None:
    """Join the cluster at ``address`` (or ``RAY_ADDRESS``), else start a local Ray on ``num_cpus`` CPUs."""
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=config.num_cpus, include_dashboard=False)


def learner_steps(result: Mapping[str, Any]) -> int:
    """The learner's decisions sampled so far (what ``total_timesteps`` counts)."""
    return int(result[ENV_RUNNER_RESULTS].get(DECISIONS, {}).get(LEARNER, 0))


def train(config: RLlibConfig, run_dir: Path, run_name: str, address: str | None) -> tuple[Path, dict[str, Any]]:
    """Train until ``total_timesteps`` learner steps; export the learner; return its JSON path and the speed."""
    torch.set_num_threads(config.torch_threads)  # 2 threads on 2 busy cores spin-wait (see configs/default.yaml)
    start_ray(config, address)
    algorithm = None
    try:
        algorithm = ppo_config(config).build_algo()
        pool = SnapshotPool(config.pool_size)
        copy_learner_into(algorithm, pool.ids)  # the pool starts as copies of the initial policy
        next_snapshot = config.snapshot_every
        steps = env_steps = 0
        decisions: dict[str, Any] = {}
        first: tuple[int, float] | None = None  # learner steps and time after the first iteration (warm-up)
        started = time.perf_counter()
        bar = tqdm(total=config.total_timesteps, unit="step", disable=not config.progress_bar, dynamic_ncols=True)
        with (run_dir / "progress.jsonl").open("w", encoding="utf-8") as log, bar:
            while steps < config.total_timesteps:
                result = algorithm.train()
                now = learner_steps(result)
                bar.update(min(now, bar.total) - min(steps, bar.total))  # the last iteration overshoots the total
                steps = now
                env_steps = int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
                decisions = result[ENV_RUNNER_RESULTS].get(DECISIONS, {})
                if steps >= next_snapshot:
                    copy_learner_into(algorithm, [pool.take(steps)])
                    next_snapshot = (steps // config.snapshot_every + 1) * config.snapshot_every
                log.write(json.dumps(_progress_line(result, steps, env_steps, time.perf_counter() - started)) + "\n")
                log.flush()  # a line per iteration, readable while the run goes on
                first = first or (steps, time.perf_counter())
        seconds = time.perf_counter() - started
        steady = (steps - first[0]) / max(time.perf_counter() - first[1], 1e-9)
        state = learner_module_state(algorithm)
    finally:
        if algorithm is not None:
            algorithm.stop()
        ray.shutdown()
    training = {**config.to_dict(), "ray_version": ray.__version__}
    final = export_policy(
        run_dir / "final", state, config.rule_config, config.arch, training, run_name=run_name, num_timesteps=steps
    )
    speed = {
        "learner_steps": steps,
        "env_steps": env_steps,
        "seconds": round(seconds, 1),
        "learner_steps_per_second": round(steps / seconds, 1),
        "learner_steps_per_second_after_first_iteration": round(steady, 1),
        "env_steps_per_second": round(env_steps / seconds, 1),
        "decisions_by_module": {k: int(v) for k, v in decisions.items()},
        "num_env_runners": config.num_env_runners,
        "snapshot_steps": pool.steps,
    }
    return final, speed


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


def main(data: Mapping[str, Any], address: str | None = None) -> int:
    """Run the config ``data`` (YAML already read, ``--set`` overrides applied); the process exit code."""
    try:
        config = config_from_dict(data)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    cluster = address or os.environ.get("RAY_ADDRESS")
    if not cluster and config.num_env_runners > config.num_cpus:
        # Ray would wait forever for the CPUs of the missing actors.
        print(
            f"error: {config.num_env_runners} env runners need {config.num_env_runners} CPUs of the local Ray, "
            f"but num_cpus = {config.num_cpus}; add --set num_cpus={config.num_env_runners}, or join a cluster "
            "with --address",
            file=sys.stderr,
        )
        return 2
    run_name = f"{config.name}__s{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = Path(config.run_dir) / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    where = cluster or f"a local Ray on {config.num_cpus} CPUs"
    runners = f"{config.num_env_runners} env runner(s)"
    print(f"run {run_name}: RLlib PPO, {config.total_timesteps:,} learner steps, {runners} on {where}")
    final, speed = train(config, run_dir, run_name, address)
    (run_dir / "speed.json").write_text(json.dumps(speed, indent=2) + "\n", encoding="utf-8")
    print(
        f"trained {speed['learner_steps']:,} learner steps ({speed['env_steps']:,} env steps) in {speed['seconds']} s: "
        f"{speed['learner_steps_per_second']} learner steps/s "
        f"({speed['learner_steps_per_second_after_first_iteration']} after the first iteration); final policy: {final}"
    )
    if config.final_eval_deals and config.final_eval_opponents:
        report = {"run": run_name, "steps": speed["learner_steps"], "train_seconds": speed["seconds"]}
        label = f"rllib[{config.name}]"
        opponents, deals = config.final_eval_opponents, config.final_eval_deals
        final_evaluation(load_policy(final), label, opponents, deals, config.eval_seed, run_dir, report)
    return 0
