"""Training throughput, end to end: the SB3 path and the batched trainer, in the same run.

A *learner step* is one decision the update trains on. SB3 path (``trainer: sb3``): one learner seat
per table, so one learner step per learner decision (the opponents' decisions in between are not
counted). Batched trainer (``trainer: batched``): the learner holds a share of the seats
(``learner_share``) with one network shared by all of them, so every decision of a learner seat at
any table is a learner step; the frozen snapshots' decisions are not counted (they are reported as
"all decisions").

Both paths run the config they are given (default: ``configs/sb3.yaml`` and ``configs/self_play.yaml``)
with evaluations and checkpoints off, after a warm-up (numba's cached compile, the first rollout):

* SB3: sb3-contrib's MaskablePPO on ``sam_env.training.sb3.opponents.make_vec_env`` (what ``train.py`` builds),
  time split into rollout (environments, opponents and SB3's forward pass) and update;
* SB3 on the VectorEnv: sb3-contrib's MaskablePPO on ``sam_env.vector.sb3_adapter.Sb3VecEnv`` (one
  learner seat per table, the other seats a frozen copy of the learner in one batched forward pass),
  with the batched config's network, tables, rollout length, minibatch and epochs;
* batched: :class:`sam_env.training.batched.trainer.BatchedTrainer`, time split into env (VectorEnv steps and
  finished-hand results), inference (learner and snapshot forward passes, sampling), bookkeeping
  (buffers, money attribution) and update.

Rates are per wall-clock second and per CPU-second of this process (on a shared machine the wall
clock also counts time other programs had the cores; both are printed).

    python benchmarks/bench_training.py [--sb3-steps 16384] [--batched-rollouts 4] [--markdown docs/speed.md]

``--markdown PAGE`` writes the table, with this command line, as the ``bench_training`` section of the page
(between its ``<!-- bench_training:start -->`` / ``<!-- bench_training:end -->`` markers), leaving the rest
of the page alone, as the other benchmark scripts do on docs/speed.md.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import torch
from common import command_line, write_section
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from sam_env.agents.networks.policy.sb3 import policy_kwargs
from sam_env.training.batched.config import BatchedConfig
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.config import MaskedPPOConfig
from sam_env.training.sb3.checkpoints import snapshot_of
from sam_env.training.sb3.config import SB3Config
from sam_env.training.sb3.opponents import make_vec_env
from sam_env.training.trainers import load_config

ROOT = Path(__file__).resolve().parent.parent


class _Clock(BaseCallback):
    """Wall seconds in SB3's rollouts and updates."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = {"rollout": 0.0, "update": 0.0}
        self._mark = time.perf_counter()

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        self.seconds["update"] += now - self._mark
        self._mark = now

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self.seconds["rollout"] += now - self._mark
        self._mark = now

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self.seconds["update"] += time.perf_counter() - self._mark


def bench_sb3(config: SB3Config, steps: int) -> dict[str, object]:
    vec_env = make_vec_env(config, 0)
    hyper = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef")
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=config.learning_rate,
        policy_kwargs=policy_kwargs(config.arch),
        device="cpu",
        seed=config.seed,
        **{k: getattr(config, k) for k in hyper},
    )
    vec_env.env_method("add_snapshot", snapshot_of(model, config, 0))
    result = _timed_learn(model, config.n_steps * config.n_envs, steps)
    vec_env.close()
    return result


def _timed_learn(model: MaskablePPO, warm_up: int, steps: int) -> dict[str, object]:
    """``model.learn`` for ``steps`` learner steps after ``warm_up`` untimed ones (one rollout and update)."""
    model.learn(warm_up)
    clock = _Clock()
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(steps, callback=clock, reset_num_timesteps=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    done = model.num_timesteps - warm_up
    return {"learner_steps": done, "decisions": None, "wall": wall, "cpu": cpu, "split": clock.seconds}


def bench_sb3_vector(config: BatchedConfig, steps: int) -> dict[str, object]:
    """sb3-contrib MaskablePPO on the VectorEnv's SB3 adapter: one learner seat per table, the other
    seats one batched forward pass of a frozen copy of the learner; the batched default's network,
    epochs, minibatch and rollout size, so the difference is the trainer."""
    import numpy as np

    from sam_env.training.batched.network import frozen_actor, sample
    from sam_env.vector.sb3_adapter import Sb3VecEnv

    rules = config.rule_config
    env = Sb3VecEnv(num_envs=config.num_tables, rules=rules, seed=config.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        policy_kwargs=policy_kwargs(config.arch),
        device="cpu",
        seed=config.seed,
    )
    frozen = frozen_actor(snapshot_of(model, config, 0), torch.device("cpu"))

    def opponent(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            actions, _ = sample(frozen.logits(torch.from_numpy(observations)), torch.from_numpy(masks))
        return actions.numpy()

    env.tables.opponent = opponent
    return _timed_learn(model, config.n_steps * config.num_tables, steps)


def bench_batched(config: BatchedConfig, rollouts: int) -> dict[str, object]:
    trainer = BatchedTrainer(config)
    trainer.learn(1, progress_bar=False)  # warm-up: the compiled engine's cache, one rollout and update
    trainer.seconds = dict.fromkeys(trainer.seconds, 0.0)
    start = trainer.num_timesteps
    per_rollout = config.num_tables * config.n_steps
    wall, cpu = time.perf_counter(), time.process_time()
    trainer.learn(start + 1, progress_bar=False)
    for _ in range(rollouts - 1):
        trainer.learn(trainer.num_timesteps + 1, progress_bar=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    split = {k: v for k, v in trainer.seconds.items() if k != "eval"}
    return {
        "learner_steps": trainer.num_timesteps - start,
        "decisions": rollouts * per_rollout,
        "wall": wall,
        "cpu": cpu,
        "split": split,
    }


def describe(name: str, config: MaskedPPOConfig, r: dict[str, object]) -> str:
    steps = r["learner_steps"]
    split = r["split"]
    total = sum(split.values())
    parts = ", ".join(f"{k} {v:.1f} s ({100 * v / total:.0f}%)" for k, v in split.items())
    line = (
        f"| {name} | {config.pi_layers} x{config.n_epochs} epochs | {steps:,} | {r['wall']:.1f} | "
        f"{steps / r['wall']:,.0f} | {steps / r['cpu']:,.0f} | "
        + (f"{r['decisions'] / r['wall']:,.0f}" if r["decisions"] else "-")
        + f" | {parts} |"
    )
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sb3-config", type=Path, default=ROOT / "configs" / "sb3.yaml")
    parser.add_argument("--batched-config", type=Path, default=ROOT / "configs" / "self_play.yaml")
    parser.add_argument("--sb3-steps", type=int, default=16384, help="learner steps of the SB3 path (after warm-up)")
    parser.add_argument("--batched-rollouts", type=int, default=4, help="rollouts of the batched trainer")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="override a batched field")
    parser.add_argument("--markdown", type=Path, help="also write the table as a section of this Markdown page")
    args = parser.parse_args()
    off = ["eval_every=0", "checkpoint_every=0", "progress_bar=false"]
    sb3 = load_config(args.sb3_config, off)
    batched = load_config(args.batched_config, [*off, *args.overrides])
    torch.set_num_threads(batched.torch_threads)
    machine = f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} before the run"
    machine += f", torch threads {batched.torch_threads}, wall and CPU time of this process"
    print(machine)
    results = [("SB3 MaskablePPO (old path)", sb3, bench_sb3(sb3, args.sb3_steps))]
    per_rollout = batched.n_steps * batched.num_tables
    adapter = bench_sb3_vector(batched, args.batched_rollouts * per_rollout)
    results.append(("SB3 MaskablePPO on VectorEnv's SB3 adapter", batched, adapter))
    results.append(("batched PPO on VectorEnv", batched, bench_batched(batched, args.batched_rollouts)))
    header = [
        "| path | network | learner steps | wall s | learner steps/s (wall) | per CPU-s | all decisions/s | split |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines = [machine, "", *header, *(describe(name, c, r) for name, c, r in results)]
    old, new = (r["learner_steps"] / r["wall"] for _, _, r in (results[0], results[-1]))
    summary = (
        f"\nbatched / SB3: {new / old:.1f}x learner steps per wall second; "
        f"load average {os.getloadavg()[0]:.1f} after the run ({os.cpu_count()} cores shared with other jobs)"
    )
    text = "\n".join(lines) + summary
    print("\n".join(lines[2:]) + summary)
    if args.markdown:
        write_section(str(args.markdown), "bench_training", f"## Training speed\n\n{text}\n\n`{command_line()}`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
