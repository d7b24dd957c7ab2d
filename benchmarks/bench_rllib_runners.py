"""Could RLlib's own env runners step the compiled tables fast enough? Two designs that would keep them, measured.

``trainer: ray`` plays the batched trainer's rollouts in Ray actors (``sam_env.training.ray_actors``). Before that
choice, two ways to keep RLlib's env runners were measured against the local batched trainer, all
with the self-play recipe's network (256x256 tanh, separate heads), tables and PPO settings
(``configs/self_play.yaml``, the default config when this was measured: 512 tables, 4 epochs of 512-sample
minibatches):

* **single-agent env runner over the gymnasium vector adapter**: RLlib PPO with one
  ``SingleAgentEnvRunner`` whose env is :class:`sam_env.vector.gym_adapter.GymVectorEnv` (one
  learner seat per table, the opponents played inside the env in one batched call; RLlib's
  ``gym_env_vectorize_mode="vector_entry_point"``), the action mask carried in a dict observation
  for :mod:`sam_env.training.rllib.module`. With snapshots as opponents a callback would push weights into
  the env; the heuristic needs none, so this measures the runner at its cheapest.
  Rows: learner steps/s of whole PPO iterations (after one warm-up iteration) and of sampling alone.
  A throughput probe, not a trainer: RLlib 2.60's runner expects gymnasium's next-step autoreset,
  so the adapter's same-step reset costs it the first learner move of each hand.
* **multi-agent env runner over a vectorized multi-agent env**: RLlib's ``MultiAgentEnvRunner``
  builds its vector env from a list of per-table ``MultiAgentEnv`` objects and keeps a
  ``MultiAgentEpisode`` per table, stepped one table at a time through its connector pipeline,
  however the tables themselves are stepped. Rows: its CPU time per environment step *outside* the
  environment (the env's own ``step`` timed and subtracted) at 8 and 64 tables per runner — the
  cost no compiled environment can remove.

Wall clock, this process and its Ray actors on the machine's cores (shared with other jobs, so only
the ratios within one run mean something).

    python benchmarks/bench_rllib_runners.py [--tables 512] [--iterations 3] \
        [--markdown docs/results/bench_rllib_runners.md]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import ray
import torch
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from sam_env import N_ACTIONS, RuleConfig
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.trainers import load_config
from sam_env.vector.gym_adapter import GymVectorEnv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class MaskInObservation(gym.vector.VectorWrapper):
    """The adapter's mask moved from ``infos`` into a dict observation (what the masking RLModule reads)."""

    def __init__(self, env: GymVectorEnv) -> None:
        super().__init__(env)
        self.single_observation_space = spaces.Dict(
            {
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
                "observation": env.single_observation_space,
            }
        )
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return {"action_mask": info["action_mask"].astype(np.int8), "observation": obs}, {}

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        return (
            {"action_mask": info["action_mask"].astype(np.int8), "observation": obs},
            rewards,
            terminated,
            truncated,
            {},
        )


def vector_env(context: dict[str, Any]) -> gym.vector.VectorEnv:
    rules = RuleConfig.from_dict(context.get("rules") or {})
    env = GymVectorEnv(int(context["num_envs"]), rules, opponent=BatchedHeuristic(rules), seed=int(context["seed"]))
    return MaskInObservation(env)


def rllib_single_agent(config: Any, tables: int, iterations: int) -> tuple[float, float]:
    """Learner steps/s of RLlib PPO iterations and of sampling alone, one env runner actor."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    from sam_env.training.rllib.module import module_spec

    register_env("sam_vector_tables", vector_env)

    probe = vector_env({"num_envs": 1, "seed": 0, "rules": config.rules})
    spec = module_spec(probe.single_observation_space, probe.single_action_space, config.arch)
    fragment = config.n_steps // 4  # one learner seat of four: the batched rollout's learner steps per table
    ppo = (
        PPOConfig()
        .environment(
            "sam_vector_tables", env_config={"seed": config.seed, "rules": config.rules}, disable_env_checking=True
        )
        .env_runners(
            num_env_runners=1,
            num_envs_per_env_runner=tables,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length=fragment,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .rl_module(rl_module_spec=spec)
        .training(
            train_batch_size_per_learner=tables * fragment,
            minibatch_size=config.batch_size,
            num_epochs=config.n_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_range,
            entropy_coeff=config.ent_coef,
            vf_loss_coeff=config.vf_coef,
            grad_clip=config.max_grad_norm,
            use_kl_loss=False,
            vf_clip_param=float("inf"),
        )
        .debugging(seed=config.seed)
    )
    algorithm = ppo.build_algo()
    try:
        algorithm.train()  # warm-up: actor start, compiled kernels, first update
        steps = lambda r: r["env_runners"]["num_env_steps_sampled_lifetime"]  # noqa: E731 - a one-line reader
        start = steps(algorithm.train())
        clock = time.perf_counter()
        for _ in range(iterations):
            result = algorithm.train()
        train_rate = (steps(result) - start) / (time.perf_counter() - clock)
        runner = algorithm.env_runner_group.healthy_env_runner_ids()[0]
        clock = time.perf_counter()
        sampled = algorithm.env_runner_group.foreach_env_runner(
            lambda r: sum(len(e) for e in r.sample(num_timesteps=tables * fragment)),
            remote_worker_ids=[runner],
            local_env_runner=False,
        )
        sample_rate = sum(sampled) / (time.perf_counter() - clock)
    finally:
        algorithm.stop()
    return train_rate, sample_rate


def rllib_multi_agent_overhead(tables: int, steps: int) -> float:
    """CPU seconds per environment step of a ``MultiAgentEnvRunner`` outside the environment's own ``step``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from sam_env.training.rllib.config import RLlibConfig
    from sam_env.training.rllib.env import SamMultiAgentEnv
    from sam_env.training.rllib.run import ppo_config

    in_env = [0.0]

    class TimedEnv(SamMultiAgentEnv):
        def step(self, action_dict: dict) -> tuple:
            clock = time.process_time()
            try:
                return super().step(action_dict)
            finally:
                in_env[0] += time.process_time() - clock

    config = RLlibConfig(num_env_runners=0, num_envs_per_env_runner=tables, rollout_fragment_length=steps)
    ppo: PPOConfig = ppo_config(config).environment(TimedEnv, env_config={"rules": {}, "reward_scale": 0.1})
    runner = MultiAgentEnvRunner(config=ppo)
    runner.sample(num_timesteps=tables * 8)  # warm-up
    in_env[0] = 0.0
    clock = time.process_time()
    done = sum(e.env_steps() for e in runner.sample(num_timesteps=tables * steps))
    total = time.process_time() - clock
    runner.stop()
    return (total - in_env[0]) / max(done, 1)


def local_batched(config: Any, rollouts: int) -> float:
    trainer = BatchedTrainer(config)
    trainer.learn(1, progress_bar=False)  # warm-up
    start, clock = trainer.num_timesteps, time.perf_counter()
    for _ in range(rollouts):
        trainer.learn(trainer.num_timesteps + 1, progress_bar=False)
    return (trainer.num_timesteps - start) / (time.perf_counter() - clock)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=512, help="tables per env runner (default 512)")
    parser.add_argument("--iterations", type=int, default=3, help="timed iterations of each trainer (default 3)")
    parser.add_argument("--markdown", type=Path, help="also write the table as this docs page")
    args = parser.parse_args()
    off = ["eval_every=0", "checkpoint_every=0", "progress_bar=false", f"num_tables={args.tables}"]
    config = load_config(os.path.join(ROOT, "configs", "self_play.yaml"), off)
    torch.set_num_threads(config.torch_threads)
    load = os.getloadavg()[0]
    header = f"{os.cpu_count()} cores, load average {load:.1f} before the run; {args.tables} tables, wall clock"
    print(header)
    rows = [("local batched trainer (training/batched)", f"{local_batched(config, args.iterations):,.0f}", "")]
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=500 * 1024**2)
    try:
        train_rate, sample_rate = rllib_single_agent(config, args.tables, args.iterations)
        label = "RLlib PPO, 1 single-agent env runner over GymVectorEnv"
        rows.append((label, f"{train_rate:,.0f}", f"sampling alone: {sample_rate:,.0f} learner steps/s"))
    finally:
        ray.shutdown()
    for tables in (8, 64):
        cost = rllib_multi_agent_overhead(tables, 32)
        label = f"RLlib MultiAgentEnvRunner, {tables} tables: CPU per env step outside the env"
        rows.append((label, "-", f"{1e3 * cost:.2f} ms: at most {1 / cost / 4:,.0f} learner steps/s per core"))
    lines = ["| option | learner steps/s (PPO iterations) | note |", "|---|---:|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    after = f"load average {os.getloadavg()[0]:.1f} after the run"
    print("\n".join([*lines, after]))
    if args.markdown is not None:
        args.markdown.write_text(page(header, lines, after, args), encoding="utf-8")
        print(f"wrote {args.markdown}")


def page(header: str, lines: list[str], after: str, args: argparse.Namespace) -> str:
    command = (
        f"nice -n 10 python benchmarks/bench_rllib_runners.py --tables {args.tables} --iterations {args.iterations}"
    )
    return "\n".join(
        [
            "# Could RLlib's own env runners step the compiled tables? Two designs, measured",
            "",
            f"Written by `{command} --markdown docs/results/bench_rllib_runners.md` (what each row measures: the "
            "script's docstring). Why `trainer: ray` plays the batched trainer's rollouts in Ray Core actors instead: "
            "[rllib.md](../rllib.md).",
            "",
            f"{header}; {after}. **The machine is shared** (2 cores, other people's jobs running): compare the rows "
            "of this run with each other, not with other pages.",
            "",
            *lines,
            "",
        ]
    )


if __name__ == "__main__":
    main()
