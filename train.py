"""Train a Sâm Lốc bot with MaskablePPO and self-play, then evaluate it in duplicate against the baselines.

    python train.py                                     # configs/default.yaml: ~10 minutes on 2 CPU cores
    python train.py --config configs/shipped.yaml       # the run that made agents/pretrained/ppo.*
    python train.py --set total_timesteps=20000 --set opponents.heuristic=0.5
    python train.py --resume runs/<run>/checkpoints/step_000200000 [--set total_timesteps=400000]

One learner seat (a different seat every hand) plays :class:`sam_env.SingleAgentEnv` against three
opponents drawn afresh for every hand and every seat from a mix set by the config: frozen snapshots
of the learner itself (a pool refreshed every ``snapshot_every`` steps, at most ``pool_size`` kept)
and the baseline bots ``random``, ``greedy`` and ``heuristic``. Every ``eval_every`` steps the current
policy plays a small duplicate tournament against the heuristic bot (``evaluation``). At the end the
final policy is evaluated against every baseline and the table, with 95 % confidence intervals, is
printed.

Everything a run writes goes to ``runs/<name>__s<seed>__<time>/``:

* ``events.out.tfevents.*`` — TensorBoard: ``charts/…`` (money per hand in X, pool, speed),
  ``train/…`` (SB3's losses, entropy, KL, clip fraction, learning rate), ``rollout/…`` (SB3's episode
  stats, in scaled reward), ``eval/…`` (duplicate X per hand against the heuristic, with its CI),
  ``perf/…`` (seconds spent in rollouts, updates, evaluations and in each kind of opponent);
* ``checkpoints/step_N/`` and ``final/`` — ``policy.safetensors`` + ``policy.json`` (what
  ``agents.ppo_bot.PPOAgent`` loads), ``trainer.safetensors`` + ``trainer.json`` (optimizer moments,
  self-play pool and RNG states, for ``--resume``) and ``config.yaml``;
* ``learning_curve.png`` and ``evaluation.md`` / ``evaluation.json`` (the final evaluation).

Nothing is pickled: weights and optimizer state are safetensors, everything else JSON or YAML.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import yaml
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import ConstantSchedule, LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
from tqdm import tqdm

from agents.base import Agent
from agents.checkpoint import ACTIVATIONS, PolicyArch, PolicyCheckpoint, load_policy, policy_metadata, save_policy
from agents.ppo_bot import PPOAgent, policy_kwargs
from agents.registry import available, make_agent, register
from evaluation.report import markdown_table, text_table
from evaluation.stats import Summary
from evaluation.tournament import Match, run_matches
from sam_env import RuleConfig, RuleConfigError, SingleAgentEnv
from sam_env.core import SeatView

BASELINES = ("random", "greedy", "heuristic")
OPPONENT_KINDS = ("self_play", *BASELINES)

# ---------------------------------------------------------------------------------------------------
# 1. Configuration: a validated dataclass, loaded from YAML, with --set overrides
# ---------------------------------------------------------------------------------------------------


class ConfigError(ValueError):
    """A training configuration that names an unknown key or holds a value that is not allowed."""


@dataclass(frozen=True)
class OpponentMix:
    """How often each kind of opponent fills a seat: relative weights, drawn per hand and per seat.

    A kind that a config's ``opponents`` mapping leaves out gets weight 0; the defaults below apply
    only when a config has no ``opponents`` at all.

    Attributes:
        self_play: a frozen snapshot of the learner, drawn uniformly from the pool.
        random: uniform over the legal moves (it declares Sâm half the time, and pays for it).
        greedy: always sheds its lowest combination.
        heuristic: the rule-based bot that plays like a decent human; the one to beat.
    """

    self_play: float = 0.5
    random: float = 0.0
    greedy: float = 0.1
    heuristic: float = 0.4

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            _require(f"opponents.{f.name}", value, _is_number(value) and value >= 0, "a weight >= 0")
        total = sum(getattr(self, k) for k in OPPONENT_KINDS)
        _require("opponents", self.weights(), total > 0, "at least one weight > 0")

    def weights(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in OPPONENT_KINDS}


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on; the YAML files in ``configs/`` set these fields.

    Attributes:
        name: the config's name; run folders are ``<name>__s<seed>__<time>``.
        seed: seeds python, numpy, torch, the environments, the opponent draws and the bots.
        total_timesteps: learner decisions to train on (SB3 "timesteps"; opponents' moves not counted).
        rules: RuleConfig options (RULES.md); empty for the defaults. Checkpoints record them.
        reward_scale: money (in X) is multiplied by this to make the reward. Payouts are mostly a
            few X but a Sâm is ±20X per seat (a blocked one −60X), so 0.1 keeps typical returns near
            ±1 without clipping the outliers the policy must learn to respect. A fixed scale (not
            VecNormalize) keeps the value function in money units and needs no statistics in the
            checkpoint.
        n_envs: environments stepped together; SB3's forward pass is batched over them.
        vec_env: ``dummy`` (all environments in this process) or ``subproc`` (one process each).
        torch_threads: threads torch may use for the network (the machine's other cores run opponents).
        learning_rate: Adam step size at the start.
        learning_rate_end: if set, the step size decays linearly to this value at ``total_timesteps``
            (the schedule follows the global step, so a resumed run continues it); null: constant.
        n_steps: steps per environment between updates (rollout length = n_steps × n_envs).
        batch_size: minibatch size; must divide n_steps × n_envs.
        n_epochs: passes over each rollout.
        gamma: discount. 1.0: a hand lasts a handful of decisions and only money at its end matters.
        gae_lambda: GAE λ.
        clip_range: PPO ratio clip.
        ent_coef: entropy bonus (keeps exploring alternatives to the opponents' habits).
        vf_coef: value-loss weight.
        max_grad_norm: gradient clipping.
        target_kl: stop an update's epochs early past this KL; null: never.
        pi_layers: hidden layer sizes of the policy head.
        vf_layers: hidden layer sizes of the value head (separate network, no shared layers).
        activation: ``tanh`` or ``relu``.
        opponents: the opponent mix (:class:`OpponentMix`).
        snapshot_every: steps between snapshots of the learner added to the self-play pool.
        pool_size: snapshots kept (the oldest is dropped).
        snapshot_deterministic: snapshots play their most probable move (True) or sample (False).
        eval_every: steps between duplicate evaluations against the heuristic bot; 0: never.
        eval_deals: deals of those evaluations (each played once per seat rotation).
        eval_seed: seed of the evaluation deals (the same deals every time, so curves compare).
        checkpoint_every: steps between checkpoints; 0: only the final one.
        final_eval_deals: deals of the evaluation against each baseline when training ends; 0: skip.
        final_eval_opponents: registry names the final policy meets (three copies each).
        run_dir: the folder that holds run folders.
        progress_bar: show a tqdm progress bar.
    """

    name: str = "run"
    seed: int = 1
    total_timesteps: int = 200_000
    rules: dict[str, Any] = field(default_factory=dict)
    reward_scale: float = 0.1
    n_envs: int = 8
    vec_env: str = "dummy"
    torch_threads: int = 1
    learning_rate: float = 3e-4
    learning_rate_end: float | None = None
    n_steps: int = 256
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    pi_layers: tuple[int, ...] = (256, 256)
    vf_layers: tuple[int, ...] = (256, 256)
    activation: str = "tanh"
    opponents: OpponentMix = field(default_factory=OpponentMix)
    snapshot_every: int = 50_000
    pool_size: int = 10
    snapshot_deterministic: bool = False
    eval_every: int = 50_000
    eval_deals: int = 200
    eval_seed: int = 12345
    checkpoint_every: int = 100_000
    final_eval_deals: int = 500
    final_eval_opponents: tuple[str, ...] = BASELINES
    run_dir: str = "runs"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        _require("name", self.name, isinstance(self.name, str) and self.name.isidentifier(), "a name like 'default'")
        for name in ("seed", "eval_seed"):
            value = getattr(self, name)
            _require(name, value, _is_int(value) and value >= 0, "an int >= 0")
        positive_ints = ("total_timesteps", "n_envs", "torch_threads", "n_steps", "batch_size", "n_epochs")
        positive_ints += ("snapshot_every", "pool_size", "eval_deals")
        for name in positive_ints:
            value = getattr(self, name)
            _require(name, value, _is_int(value) and value > 0, "an int > 0")
        for name in ("eval_every", "checkpoint_every", "final_eval_deals"):
            value = getattr(self, name)
            _require(name, value, _is_int(value) and value >= 0, "an int >= 0 (0: never)")
        try:
            RuleConfig.from_dict(self.rules)
        except RuleConfigError as err:
            raise ConfigError(f"rules: {err}") from None
        for name in ("reward_scale", "learning_rate", "clip_range", "max_grad_norm"):
            value = getattr(self, name)
            _require(name, value, _is_number(value) and value > 0, "a number > 0")
        for name in ("learning_rate_end", "target_kl"):
            value = getattr(self, name)
            _require(name, value, value is None or (_is_number(value) and value > 0), "null or a number > 0")
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            _require(name, value, _is_number(value) and 0 < value <= 1, "a number in (0, 1]")
        for name in ("ent_coef", "vf_coef"):
            value = getattr(self, name)
            _require(name, value, _is_number(value) and value >= 0, "a number >= 0")
        _require("vec_env", self.vec_env, self.vec_env in ("dummy", "subproc"), "'dummy' or 'subproc'")
        _require("activation", self.activation, self.activation in ACTIVATIONS, f"one of {list(ACTIVATIONS)}")
        for name in ("pi_layers", "vf_layers"):
            value = getattr(self, name)
            ok = isinstance(value, (list, tuple)) and len(value) > 0 and all(_is_int(s) and s > 0 for s in value)
            _require(name, value, ok, "a non-empty list of layer sizes > 0, e.g. [256, 256]")
            object.__setattr__(self, name, tuple(value))
        rollout = self.n_steps * self.n_envs
        _require(
            "batch_size",
            self.batch_size,
            rollout % self.batch_size == 0,
            f"a divisor of n_steps × n_envs = {rollout}, so that every minibatch is full",
        )
        _require("opponents", self.opponents, isinstance(self.opponents, OpponentMix), "a mapping of weights")
        for name in ("snapshot_deterministic", "progress_bar"):
            _require(name, getattr(self, name), isinstance(getattr(self, name), bool), "true or false")
        opponents = self.final_eval_opponents
        ok = isinstance(opponents, (list, tuple)) and all(isinstance(o, str) and o in available() for o in opponents)
        _require("final_eval_opponents", opponents, ok, f"a list drawn from {available()}")
        object.__setattr__(self, "final_eval_opponents", tuple(opponents))
        _require("run_dir", self.run_dir, isinstance(self.run_dir, str) and self.run_dir != "", "a folder path")

    @property
    def rule_config(self) -> RuleConfig:
        return RuleConfig.from_dict(self.rules)

    @property
    def arch(self) -> PolicyArch:
        return PolicyArch(pi=self.pi_layers, vf=self.vf_layers, activation=self.activation)

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML/JSON data (lists, not tuples) that :func:`config_from_dict` reads back."""
        out = dataclasses.asdict(self)
        for name in ("pi_layers", "vf_layers", "final_eval_opponents"):
            out[name] = list(out[name])
        return out


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value)


def _require(name: str, value: object, ok: bool, allowed: str) -> None:
    if not ok:
        raise ConfigError(f"config field {name} = {value!r} is not allowed; expected {allowed}")


FLOAT_FIELDS = {f.name for f in fields(TrainConfig) if "float" in str(f.type)}


def config_from_dict(data: Mapping[str, Any]) -> TrainConfig:
    """Build a :class:`TrainConfig`; unknown keys (also inside ``opponents``) are an error.

    Numbers written like ``3e-4`` are accepted for float fields although YAML 1.1 reads them as
    strings (it wants ``3.0e-4``).
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"a training config must be a mapping of field names to values, got {data!r}")
    known = [f.name for f in fields(TrainConfig)]
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise ConfigError(f"unknown config field(s) {unknown}; allowed: {', '.join(known)}")
    values = {k: _float_or_same(v) if k in FLOAT_FIELDS else v for k, v in data.items()}
    if "opponents" in values:
        mix = values["opponents"]
        if not isinstance(mix, Mapping):
            raise ConfigError(f"config field opponents = {mix!r} is not allowed; expected a mapping of weights")
        unknown = sorted(str(k) for k in mix if k not in OPPONENT_KINDS)
        if unknown:
            raise ConfigError(f"unknown opponent kind(s) {unknown}; allowed: {', '.join(OPPONENT_KINDS)}")
        values["opponents"] = OpponentMix(**{k: _float_or_same(mix.get(k, 0.0)) for k in OPPONENT_KINDS})
    return TrainConfig(**values)


def _float_or_same(value: object) -> object:
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def apply_overrides(data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Apply ``key=value`` overrides (``opponents.heuristic=0.5``); values are parsed as YAML."""
    data = json.loads(json.dumps(data))  # a deep copy of plain data
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE, e.g. --set total_timesteps=20000")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ConfigError(f"--set {item!r}: the value is not valid YAML ({err})") from None
        *parents, leaf = key.split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"--set {item!r}: {part} is not a mapping")
        node[leaf] = value
    return data


def load_config(path: Path, overrides: Sequence[str] = ()) -> TrainConfig:
    """Read a YAML config file and apply ``--set`` overrides."""
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of field names to values")
    try:
        return config_from_dict(apply_overrides(data, overrides))
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


# ---------------------------------------------------------------------------------------------------
# 2. Environments: the learner's table, with opponents drawn per hand and per seat
# ---------------------------------------------------------------------------------------------------


class SeatSlot:
    """An opponent seat whose occupant changes between hands; times every decision by kind."""

    def __init__(self, timings: dict[str, float]) -> None:
        self.kind = ""
        self.policy: Agent | None = None
        self._timings = timings

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        start = time.perf_counter()
        action = self.policy.act(observation, view)
        self._timings[self.kind] += time.perf_counter() - start
        return action


class OpponentDraw(gym.Wrapper):
    """Draws the occupant of every opponent seat before each hand, from the bots and the self-play pool.

    The pool lives in every environment (each one a copy, so that ``SubprocVecEnv`` workers have
    theirs); :meth:`add_snapshot` is called through ``VecEnv.env_method``. Every draw uses this
    environment's own generator, and every bot its own, all seeded from the run's seed.
    """

    def __init__(self, config: TrainConfig, index: int, seed_words: Sequence[int]) -> None:
        rules = config.rule_config
        self.timings = dict.fromkeys(OPPONENT_KINDS, 0.0)
        self.slots = [SeatSlot(self.timings) for _ in range(rules.n_players - 1)]
        super().__init__(SingleAgentEnv(opponents=self.slots, rules=rules, reward_scale=config.reward_scale))
        seeds = np.random.SeedSequence([*seed_words, index]).spawn(len(BASELINES) + 2)
        self.rng = np.random.default_rng(seeds[0])
        self.bots = {name: make_agent(name, s) for name, s in zip(BASELINES, seeds[1:-1], strict=True)}
        self._snapshot_seed = seeds[-1]
        kinds = config.opponents.weights()
        self.kinds = list(kinds)
        self.p = np.array(list(kinds.values())) / sum(kinds.values())
        self.pool: list[PPOAgent] = []
        self.pool_size = config.pool_size
        self.deterministic = config.snapshot_deterministic
        self.reward_scale = config.reward_scale
        self._money = 0.0

    def add_snapshot(self, snapshot: PolicyCheckpoint) -> None:
        """Add a frozen copy of the learner; the oldest is dropped beyond ``pool_size``."""
        seed = self._snapshot_seed.spawn(1)[0]
        self.pool.append(PPOAgent(snapshot, seed=seed, deterministic=self.deterministic, name="self_play"))
        del self.pool[: -self.pool_size]

    def pop_timings(self) -> dict[str, float]:
        """Seconds each kind of opponent spent deciding since the last call."""
        out = dict(self.timings)
        for k in self.timings:
            self.timings[k] = 0.0
        return out

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        for slot in self.slots:
            slot.kind = self.kinds[int(self.rng.choice(len(self.kinds), p=self.p))]
            if slot.kind == "self_play":
                if not self.pool:
                    raise RuntimeError("a self-play seat was drawn before the first snapshot reached the pool")
                slot.policy = self.pool[int(self.rng.integers(len(self.pool)))]
            else:
                slot.policy = self.bots[slot.kind]
        obs, info = self.env.reset(**kwargs)
        self._money = 0.0
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._money += reward / self.reward_scale
        if terminated:
            info["money"] = self._money  # the learner's net for the hand, in X
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


def make_vec_env(config: TrainConfig, start_step: int) -> VecEnv:
    """``n_envs`` monitored tables; ``start_step`` makes a resumed run draw fresh deals and opponents."""
    seed_words = [config.seed, start_step]

    def factory(index: int) -> gym.Env:
        return lambda: Monitor(OpponentDraw(config, index, seed_words))

    env_fns = [factory(i) for i in range(config.n_envs)]
    vec_env = SubprocVecEnv(env_fns) if config.vec_env == "subproc" else DummyVecEnv(env_fns)
    vec_env.seed(int(np.random.SeedSequence(seed_words).generate_state(1)[0]))
    return vec_env


# ---------------------------------------------------------------------------------------------------
# 3. Checkpoints: the policy (safetensors + JSON metadata) and the trainer state for --resume
# ---------------------------------------------------------------------------------------------------


def policy_tensors(model: MaskablePPO) -> dict[str, np.ndarray]:
    """The policy's state dict as float32 numpy arrays (detached copies)."""
    return {k: v.detach().cpu().numpy().astype(np.float32, copy=True) for k, v in model.policy.state_dict().items()}


def snapshot_of(model: MaskablePPO, config: TrainConfig, step: int) -> PolicyCheckpoint:
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), num_timesteps=step)
    return PolicyCheckpoint.in_memory(policy_tensors(model), meta, f"snapshot at step {step}")


def save_checkpoint(
    folder: Path, model: MaskablePPO, config: TrainConfig, run_name: str, pool: list[tuple[int, PolicyCheckpoint]]
) -> Path:
    """Write policy, trainer state and config into ``folder``; return the policy's JSON path."""
    folder.mkdir(parents=True, exist_ok=True)
    step = int(model.num_timesteps)
    meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), run_name=run_name, num_timesteps=step)
    policy_json = save_policy(folder / "policy", policy_tensors(model), meta)
    optimizer = model.policy.optimizer.state_dict()
    _, mt_key, mt_pos, mt_has_gauss, mt_gauss = np.random.get_state()
    tensors = {"rng.torch": torch.get_rng_state(), "rng.numpy": torch.from_numpy(mt_key.copy())}
    for index, state in optimizer["state"].items():
        for key, value in state.items():
            tensors[f"optimizer.{index}.{key}"] = value.detach().clone()
    for i, (_, snap) in enumerate(pool):
        for key, value in snap.tensors.items():
            tensors[f"pool.{i}.{key}"] = torch.from_numpy(value.copy())
    save_file(tensors, str(folder / "trainer.safetensors"))
    trainer = {
        "num_timesteps": step,
        "n_updates": int(model._n_updates),
        "optimizer_param_groups": optimizer["param_groups"],
        "pool_steps": [s for s, _ in pool],
        "rng": {"python": random.getstate(), "numpy": [int(mt_pos), int(mt_has_gauss), float(mt_gauss)]},
        "run_name": run_name,
    }
    (folder / "trainer.json").write_text(json.dumps(trainer) + "\n", encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
    return policy_json


def read_trainer_state(folder: Path) -> dict[str, Any]:
    """The ``trainer.json`` of a checkpoint folder, checked before a resumed run writes anything."""
    try:
        trainer = json.loads((folder / "trainer.json").read_text(encoding="utf-8"))
        int(trainer["num_timesteps"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ConfigError(
            f"{folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: {err!r}; "
            "expected a folder checkpoints/step_N or final/ written by train.py"
        ) from None
    return trainer


def run_dir_of(checkpoint: Path) -> Path:
    """The run folder a checkpoint belongs to: ``<run>/checkpoints/step_N`` or ``<run>/final``."""
    folder = checkpoint.resolve()
    return folder.parent.parent if folder.parent.name == "checkpoints" else folder.parent


def restore_trainer(
    folder: Path, trainer: Mapping[str, Any], model: MaskablePPO, config: TrainConfig
) -> list[tuple[int, PolicyCheckpoint]]:
    """Load policy, optimizer, step count and RNG states into ``model``; return the self-play pool.

    ``trainer`` is the folder's ``trainer.json`` (:func:`read_trainer_state`).
    """
    policy = load_policy(folder / "policy", n_players=config.rule_config.n_players)
    if policy.arch != config.arch:
        raise ConfigError(f"{folder}: the checkpoint's network {policy.arch} differs from the config's {config.arch}")
    try:
        tensors = load_file(str(folder / "trainer.safetensors"))
    except (OSError, SafetensorError) as err:
        raise ConfigError(
            f"{folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: {err}"
        ) from None
    model.policy.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in policy.tensors.items()})
    state: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        if key.startswith("optimizer."):
            _, index, name = key.split(".", 2)
            state.setdefault(int(index), {})[name] = value
    model.policy.optimizer.load_state_dict({"state": state, "param_groups": trainer["optimizer_param_groups"]})
    model.num_timesteps = int(trainer["num_timesteps"])
    model._n_updates = int(trainer["n_updates"])
    torch.set_rng_state(tensors["rng.torch"])
    pos, has_gauss, gauss = trainer["rng"]["numpy"]
    np.random.set_state(("MT19937", tensors["rng.numpy"].numpy(), pos, has_gauss, gauss))
    version, internal, gauss_next = trainer["rng"]["python"]
    random.setstate((version, tuple(internal), gauss_next))
    pool = []
    for i, step in enumerate(trainer["pool_steps"]):
        prefix = f"pool.{i}."
        snap = {k[len(prefix) :]: v.numpy() for k, v in tensors.items() if k.startswith(prefix)}
        meta = policy_metadata(config.rule_config, config.arch, config.to_dict(), num_timesteps=step)
        pool.append((step, PolicyCheckpoint.in_memory(snap, meta, f"{folder} pool snapshot {i}")))
    return pool


# ---------------------------------------------------------------------------------------------------
# 4. Evaluation: duplicate matches from evaluation/, with the policy registered under a name
# ---------------------------------------------------------------------------------------------------


def evaluate(
    checkpoint: PolicyCheckpoint, label: str, opponents: Sequence[str], deals: int, seed: int
) -> list[Summary]:
    """Duplicate matches of the policy (greedy moves) against three copies of each opponent.

    Runs in this process (``workers=1``): the policy is registered here, and worker processes
    started another way than ``fork`` would not see it.
    """
    register(label, lambda s: PPOAgent(checkpoint, seed=s, name=label), replace=True)
    rules = checkpoint.rules
    matches = [Match(label, (o,) * (rules.n_players - 1)) for o in opponents]
    results = run_matches(matches, rules, deals, seed=seed, workers=1, progress=False)
    return [r.summary() for r in results]


# ---------------------------------------------------------------------------------------------------
# 5. The callback: self-play snapshots, evaluations, checkpoints, logging and the progress bar
# ---------------------------------------------------------------------------------------------------


def _next_due(step: int, every: int) -> int | float:
    return (step // every + 1) * every if every else float("inf")


class TrainingSchedule(BaseCallback):
    """Everything that happens on a step schedule, done between rollouts.

    Scheduled work runs at the *start* of a rollout, after the previous update, so a checkpoint
    at step N holds a policy trained on exactly N steps and resuming from it loses nothing.
    """

    def __init__(
        self, config: TrainConfig, run_dir: Path, run_name: str, pool: list[tuple[int, PolicyCheckpoint]]
    ) -> None:
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.run_name = run_name
        self.pool = pool
        self.money: list[float] = []
        self.bar: tqdm | None = None
        self.last_eval = ""
        self._clock = time.perf_counter()
        self._seconds = {"rollout": 0.0, "update": 0.0, "eval": 0.0, "checkpoint": 0.0}
        self._opponent_seconds = dict.fromkeys(OPPONENT_KINDS, 0.0)
        """Seconds spent in this run (since start or resume); the opponents' are summed over environments."""

    def _on_training_start(self) -> None:
        step, c = self.num_timesteps, self.config
        self.next_snapshot = _next_due(step, c.snapshot_every)
        self.next_eval = _next_due(step, c.eval_every) if step else 0
        self.next_checkpoint = _next_due(step, c.checkpoint_every)
        self.start_step, self.start_time = step, time.perf_counter()
        self.bar = tqdm(
            total=c.total_timesteps, initial=step, unit="step", disable=not c.progress_bar, dynamic_ncols=True
        )

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        self._seconds["update"] += now - self._clock
        step, c = self.num_timesteps, self.config
        if step >= self.next_snapshot:
            self.add_snapshot(step)
            self.next_snapshot = _next_due(step, c.snapshot_every)
        if step >= self.next_eval:
            self.run_eval(step)
            self.next_eval = _next_due(step, c.eval_every)
        if step >= self.next_checkpoint:
            started = time.perf_counter()
            save_checkpoint(self.run_dir / "checkpoints" / f"step_{step:09d}", self.model, c, self.run_name, self.pool)
            self._seconds["checkpoint"] += time.perf_counter() - started
            self.next_checkpoint = _next_due(step, c.checkpoint_every)
        self._clock = time.perf_counter()

    def add_snapshot(self, step: int) -> None:
        snapshot = snapshot_of(self.model, self.config, step)
        self.pool.append((step, snapshot))
        del self.pool[: -self.config.pool_size]
        self.training_env.env_method("add_snapshot", snapshot)
        self.logger.record("charts/pool_size", len(self.pool))

    def run_eval(self, step: int) -> None:
        started = time.perf_counter()
        label = f"ppo[{self.config.name}]"
        c = self.config
        [s] = evaluate(snapshot_of(self.model, c, step), label, ["heuristic"], c.eval_deals, c.eval_seed)
        self._seconds["eval"] += time.perf_counter() - started
        for key, value in (("x_per_hand", s.x_per_hand), ("ci_low", s.ci_low), ("ci_high", s.ci_high)):
            self.logger.record(f"eval/{key}_vs_heuristic", value)
        self.logger.record("eval/win_rate_vs_heuristic", s.win_rate)
        self.logger.dump(step)
        self.last_eval = f"{s.x_per_hand:+.2f} [{s.ci_low:+.2f}, {s.ci_high:+.2f}]"
        if self.bar is not None:
            self.bar.write(
                f"step {step:>9,}: vs heuristic x3, {s.deals} deals: {self.last_eval} X/hand, "
                f"win {100 * s.win_rate:.1f}%"
            )

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "money" in info:
                self.money.append(info["money"])
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self._seconds["rollout"] += now - self._clock
        self._clock = now
        if self.money:
            mean = float(np.mean(self.money))
            self.logger.record("charts/money_per_hand", mean)
            self.logger.record("charts/hands", len(self.money))
            self.bar.set_postfix_str(f"X/hand {mean:+.2f} | eval vs heuristic {self.last_eval or '-'}", refresh=False)
            self.money.clear()
        elapsed = now - self.start_time
        self.logger.record("charts/steps_per_second", (self.num_timesteps - self.start_step) / max(elapsed, 1e-9))
        for key, seconds in self._seconds.items():
            self.logger.record(f"perf/{key}_seconds", seconds)
        for timings in self.training_env.env_method("pop_timings"):
            for kind, seconds in timings.items():
                self._opponent_seconds[kind] += seconds
        for kind, seconds in self._opponent_seconds.items():
            self.logger.record(f"perf/opponent_{kind}_seconds", seconds)

    def _on_training_end(self) -> None:
        self._seconds["update"] += time.perf_counter() - self._clock
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------------------------------
# 6. Learning curves from the TensorBoard events
# ---------------------------------------------------------------------------------------------------


def plot_learning_curve(run_dir: Path, out: Path, title: str) -> None:
    """Evaluation against the heuristic (with its CI), training money per hand, entropy and value loss."""
    import matplotlib  # imported here: only the end of a run needs a plotting backend

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    tags = set(events.Tags()["scalars"])

    def series(tag: str) -> tuple[np.ndarray, np.ndarray]:
        if tag not in tags:
            return np.array([]), np.array([])
        points = {e.step: e.value for e in events.Scalars(tag)}  # a resumed run may repeat steps
        steps = np.array(sorted(points))
        return steps, np.array([points[s] for s in steps])

    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    ax = axes[0, 0]
    steps, mean = series("eval/x_per_hand_vs_heuristic")
    _, low = series("eval/ci_low_vs_heuristic")
    _, high = series("eval/ci_high_vs_heuristic")
    if steps.size:
        ax.plot(steps, mean, marker="o", color="tab:blue")
        ax.fill_between(steps, low, high, alpha=0.25, color="tab:blue", label="95% CI over deals")
        ax.legend(loc="lower right")
    if steps.size > 2:
        # The untrained policy declares Sâm every hand (about -60 X): keep it from flattening the rest.
        bottom, top = min(low[1:].min(), 0.0), max(high[1:].max(), 0.0)
        pad = 0.15 * (top - bottom) + 0.1
        ax.set_ylim(bottom - pad, top + pad)
        shown = (bottom - pad <= mean) & (mean <= top + pad)
        hidden = [f"step {s:,}: {m:+.1f}" for s, m in zip(steps[~shown], mean[~shown], strict=True)]
        if hidden:
            ax.text(0.02, 0.03, "off the scale: " + ", ".join(hidden), transform=ax.transAxes, fontsize=8)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_title("duplicate evaluation vs heuristic x3 (X/hand)")
    panels = (
        (axes[0, 1], "charts/money_per_hand", "training money per hand (X, mixed opponents)"),
        (axes[1, 0], "train/entropy_loss", "entropy loss (−entropy)"),
        (axes[1, 1], "train/value_loss", "value loss"),
    )
    for ax, tag, name in panels:
        steps, values = series(tag)
        if steps.size:
            ax.plot(steps, values, linewidth=0.8, alpha=0.5, color="tab:gray")
            window = max(1, steps.size // 30)
            smooth = np.convolve(values, np.ones(window) / window, mode="valid")
            ax.plot(steps[window - 1 :], smooth, color="tab:orange")
        ax.set_title(name)
    for ax in axes[1]:
        ax.set_xlabel("learner steps")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------------
# 7. Main: parse, seed, build, (resume,) learn, save, evaluate
# ---------------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train a Sâm Lốc bot: MaskablePPO with self-play against a mix of frozen snapshots and the "
        "baseline bots, then a duplicate evaluation against the baselines. Every config field is documented in "
        "the TrainConfig docstring of this file and in the comments of configs/*.yaml.",
        epilog="examples:\n"
        "  python train.py                                   # configs/default.yaml (~10 min on 2 cores)\n"
        "  python train.py --set total_timesteps=20000 --set opponents.heuristic=0.5\n"
        "  python train.py --set pi_layers=[128,128] --set learning_rate=1e-4\n"
        "  python train.py --resume runs/RUN/checkpoints/step_000100000 --set total_timesteps=400000\n\n"
        f"config fields: {', '.join(f.name for f in fields(TrainConfig))}; "
        f"opponents.{{{','.join(OPPONENT_KINDS)}}}; rules.<any RuleConfig option>",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config", type=Path, help="YAML training config (default: configs/default.yaml; not with --resume)"
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config field, the value parsed as YAML; dotted keys reach nested fields "
        "(opponents.heuristic=0.5, rules.bao1=forced); repeatable",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="CHECKPOINT_DIR",
        help="continue a run from checkpoints/step_N or final/ (its config.yaml, step count, learning-rate schedule, "
        "optimizer state, self-play pool and RNG states); --set may change e.g. total_timesteps",
    )
    args = parser.parse_args(argv)
    if args.resume is not None and args.config is not None:
        parser.error("--resume reads the config saved in the checkpoint; change fields with --set instead of --config")
    return args


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.resume is not None:
            config = load_config(args.resume / "config.yaml", args.overrides)
            trainer = read_trainer_state(args.resume)
        else:
            config = load_config(args.config or Path(__file__).parent / "configs" / "default.yaml", args.overrides)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    if args.resume is not None:
        run_dir = run_dir_of(args.resume)
        run_name = run_dir.name
    else:
        run_name = f"{config.name}__s{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(config.run_dir) / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")

    seed_everything(config.seed)
    torch.set_num_threads(config.torch_threads)
    learning_rate = (
        ConstantSchedule(config.learning_rate)
        if config.learning_rate_end is None
        else LinearSchedule(config.learning_rate, config.learning_rate_end, 1.0)
    )

    # Opponents and deals of a resumed run are seeded from the step it resumes at; so are fresh runs (step 0).
    start_step = 0 if args.resume is None else int(trainer["num_timesteps"])
    vec_env = make_vec_env(config, start_step)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        max_grad_norm=config.max_grad_norm,
        target_kl=config.target_kl,
        policy_kwargs=policy_kwargs(config.arch),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    model.set_logger(configure(str(run_dir), ["tensorboard"]))

    if args.resume is not None:
        try:
            pool = restore_trainer(args.resume, trainer, model, config)
        except (ConfigError, ValueError, KeyError) as err:
            print(f"error: cannot resume: {err!s}", file=sys.stderr)
            return 2
        print(f"resuming {run_name} at step {model.num_timesteps:,} with {len(pool)} snapshots in the pool")
    else:
        pool = [(0, snapshot_of(model, config, 0))]  # seats drawn as self-play before the first refresh
    for _, snapshot in pool:
        vec_env.env_method("add_snapshot", snapshot)

    envs = f"{config.n_envs} envs ({config.vec_env})"
    print(f"run {run_name}: {config.total_timesteps:,} steps, {envs}; logs in {run_dir}")
    schedule = TrainingSchedule(config, run_dir, run_name, pool)
    started = time.perf_counter()
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=schedule, reset_num_timesteps=args.resume is None)
    train_seconds = time.perf_counter() - started
    vec_env.close()

    final = save_checkpoint(run_dir / "final", model, config, run_name, pool)
    print(f"trained {model.num_timesteps:,} steps in {train_seconds / 60:.1f} min; final policy: {final}")
    plot_learning_curve(run_dir, run_dir / "learning_curve.png", f"{run_name}: {model.num_timesteps:,} steps")

    if config.final_eval_deals and config.final_eval_opponents:
        started = time.perf_counter()
        label = f"ppo[{config.name}]"
        summaries = evaluate(
            load_policy(final),
            label,
            config.final_eval_opponents,
            config.final_eval_deals,
            config.eval_seed,
        )
        eval_seconds = time.perf_counter() - started
        title = f"{label} after {model.num_timesteps:,} steps: {config.final_eval_deals} deals in duplicate"
        print(f"\n{title} (seed {config.eval_seed}, {eval_seconds:.0f} s)")
        print(text_table(summaries, []))
        (run_dir / "evaluation.md").write_text(f"{title}\n\n{markdown_table(summaries, [])}", encoding="utf-8")
        report = {
            "run": run_name,
            "steps": int(model.num_timesteps),
            "train_seconds": round(train_seconds, 1),
            "eval_seed": config.eval_seed,
            "matches": [s.to_dict() for s in summaries],
        }
        (run_dir / "evaluation.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nlearning curve: {run_dir / 'learning_curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
