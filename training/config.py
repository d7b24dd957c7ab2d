"""What every trainer reads and returns: the shared config fields, validated, and the result of a run.

A run's config is a frozen dataclass of its trainer (``training/<trainer>/config.py``), built on
:class:`RunConfig` (the fields every trainer reads the same way) and, for the two masked-PPO
trainers with a self-play pool, :class:`MaskedPPOConfig`. A config is checked as a whole when it is
built, so a bad value stops a run before anything is written, with a message naming the field and
what it may hold (the same form as a bad rule option's). :mod:`sam_env.training.trainers` reads YAML into
the right class by the config's ``trainer:`` key.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import yaml

from sam_env import RuleConfig, RuleConfigError
from sam_env.agents.networks.layers import ACTIVATIONS
from sam_env.agents.networks.policy.checkpoint import PolicyArch
from sam_env.agents.panel import PANEL, is_panel_bot
from sam_env.agents.registry import available
from sam_env.core.fields import is_int, is_number, require
from sam_env.evaluation.suites import TRAINING_BASELINES, TRAINING_EVAL_OPPONENTS
from sam_env.utils.config_files import read_mapping

BASELINES = TRAINING_BASELINES
"""The rule bots a config may mix into the opponents and the final evaluation's default opponents, read from
:data:`sam_env.evaluation.suites.TRAINING_BASELINES` (the one place line-ups of opponents are defined)."""
OPPONENT_KINDS = ("self_play", *BASELINES)
IN_TRAINING_SEEDS = 1 << 40
"""Where the deal seeds of evaluations during a run start (``eval_seed`` is below it): see :class:`RunConfig`."""

Config = TypeVar("Config", bound="RunConfig")


class ConfigError(ValueError):
    """A training configuration that names an unknown key or holds a value that is not allowed."""


def refuse_panel_bots(field_name: str, names: Iterable[object]) -> None:
    """Raise :class:`ConfigError` if ``names`` (what a config field seats at the learner's tables) holds a
    held-out panel bot (:mod:`sam_env.agents.panel`).

    The panel measures how a network plays against styles it never met, which holds only while no
    run learns from them. Every field that puts bots at the learner's tables calls this; evaluation
    fields (``eval_opponents``, ``final_eval_opponents``) may name panel bots: evaluating trains nothing.
    """
    seated = [str(n) for n in names if is_panel_bot(n)]
    if seated:
        raise ConfigError(
            f"config field {field_name} names {', '.join(seated)}: the held-out panel ({', '.join(PANEL)}) "
            "never plays at a learner's table, so that it measures play against styles no run has seen "
            "(docs/panel.md); evaluate against it with eval_opponents, final_eval_opponents or sam-eval --panel"
        )


class TrainResult(NamedTuple):
    """What every trainer's ``train(config, run_dir, resume)`` returns."""

    policy: Path
    """The final policy's ``policy.json`` (``load_bot``, ``sam-eval``, ``sam-play`` take it)."""
    steps: int
    """Learner steps trained, counted as the config's ``total_timesteps``."""
    seconds: float
    """Wall seconds of training (this process, since start or resume)."""


def require_field(name: str, value: object, ok: bool, allowed: str) -> None:
    """Raise :class:`ConfigError` naming the field, its value and what is allowed, unless ``ok``."""
    require(ok, ConfigError, f"config field {name}", value, allowed)


@dataclass(frozen=True)
class RunConfig:
    """The fields every trainer reads, checked and used the same way by each.

    Attributes:
        trainer: which trainer runs the config (``batched``, ``sb3``, ``rllib``: a folder of
            ``training/``); each trainer's config class accepts only its own name.
        name: the config's name; run folders are ``<name>__s<seed>__<time>``.
        seed: seeds python, numpy, torch, the environments, the opponent draws and the bots.
        total_timesteps: moves of the learner's seats (opponents' moves not counted).
        rules: RuleConfig options (docs/rules.md); empty for the defaults. Checkpoints record them.
        reward_scale: money (in X) is multiplied by this to make the reward. Payouts are mostly a
            few X but a Sâm is ±20X per seat (a blocked one −60X), so 0.1 keeps typical returns near
            ±1 without clipping the outliers the policy must learn to respect. A fixed scale (not
            VecNormalize) keeps the value function in money units and needs no statistics in the
            checkpoint.
        torch_threads: threads torch may use for the network (the machine's other cores run opponents).
        pi_layers: hidden layer sizes of the policy head.
        vf_layers: hidden layer sizes of the value head (separate network, no shared layers).
        activation: ``tanh`` or ``relu``.
        eval_seed: seed of the evaluation deals (the same deals every time, so curves compare). The final
            evaluation plays the deals of ``eval_seed`` itself; the evaluations during the run play those
            of ``IN_TRAINING_SEEDS + eval_seed``, a range of their own, so a checkpoint chosen by its curve
            is not judged on the deals that chose it (nor on ``sam-eval``'s default seed, 0).
        final_eval_deals: deals of the evaluation against each baseline when training ends; 0: skip.
        final_eval_opponents: registry names the final policy meets (n − 1 copies each).
        run_dir: the folder that holds run folders.
        keep_checkpoints: the newest ``checkpoints/step_N`` folders kept: once a new one is whole, older
            ones beyond this many are removed (``final/`` always stays); 0: keep every one.
        progress_bar: show a tqdm progress bar.
    """

    trainer: str = ""
    name: str = "run"
    seed: int = 1
    total_timesteps: int = 200_000
    rules: dict[str, Any] = field(default_factory=dict)
    reward_scale: float = 0.1
    torch_threads: int = 1
    pi_layers: tuple[int, ...] = (256, 256)
    vf_layers: tuple[int, ...] = (256, 256)
    activation: str = "tanh"
    eval_seed: int = 12345
    final_eval_deals: int = 500
    final_eval_opponents: tuple[str, ...] = BASELINES
    run_dir: str = "runs"
    keep_checkpoints: int = 5
    progress_bar: bool = True

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Raise :class:`ConfigError` for a bad field; lists become tuples (the config is frozen).

        A trainer's config class extends it with its own fields' checks.
        """
        own = type(self).trainer_name()
        require_field("trainer", self.trainer, self.trainer == own, repr(own))
        name_ok = isinstance(self.name, str) and self.name.isidentifier()
        require_field("name", self.name, name_ok, "a name like 'default' (letters, digits, _)")
        for name in ("seed", "eval_seed", "final_eval_deals"):
            self._require_int(name, 0, "an int >= 0")
        below = self.eval_seed < IN_TRAINING_SEEDS
        require_field("eval_seed", self.eval_seed, below, f"an int below {IN_TRAINING_SEEDS} (2**40)")
        self._require_int("keep_checkpoints", 0, "an int >= 0 (0: keep every checkpoint)")
        for name in ("total_timesteps", "torch_threads"):
            self._require_int(name, 1, "an int > 0")
        value = self.reward_scale
        require_field("reward_scale", value, is_number(value) and value > 0, "a number > 0")
        require_field("progress_bar", self.progress_bar, isinstance(self.progress_bar, bool), "true or false")
        try:
            RuleConfig.from_dict(self.rules)
        except RuleConfigError as err:
            raise ConfigError(f"rules: {err}") from None
        require_field("activation", self.activation, self.activation in ACTIVATIONS, f"one of {list(ACTIVATIONS)}")
        for name in ("pi_layers", "vf_layers"):
            self._require_layers(name)
        self._require_bots("final_eval_opponents", allow_empty=True)
        require_field("run_dir", self.run_dir, isinstance(self.run_dir, str) and self.run_dir != "", "a folder path")

    def _require_int(self, name: str, least: int, allowed: str) -> None:
        value = getattr(self, name)
        require_field(name, value, is_int(value) and value >= least, allowed)

    def _require_number(self, name: str, ok: Any, allowed: str) -> None:
        value = getattr(self, name)
        require_field(name, value, is_number(value) and ok(value), allowed)

    def _require_layers(self, name: str) -> None:
        """A non-empty list of hidden layer sizes; it becomes a tuple."""
        value = getattr(self, name)
        ok = isinstance(value, (list, tuple)) and len(value) > 0 and all(is_int(s) and s > 0 for s in value)
        require_field(name, value, ok, "a non-empty list of layer sizes > 0, e.g. [256, 256]")
        object.__setattr__(self, name, tuple(value))

    def _require_bots(self, name: str, allow_empty: bool) -> None:
        """A list of registry names; it becomes a tuple."""
        bots = getattr(self, name)
        ok = isinstance(bots, (list, tuple)) and (allow_empty or len(bots) > 0)
        ok = ok and all(isinstance(o, str) and o in available() for o in bots)
        require_field(name, bots, ok, f"a {'' if allow_empty else 'non-empty '}list drawn from {available()}")
        object.__setattr__(self, name, tuple(bots))

    @classmethod
    def trainer_name(cls) -> str:
        """The ``trainer:`` value this class reads (its field's default)."""
        return next(f.default for f in fields(cls) if f.name == "trainer")

    @property
    def rule_config(self) -> RuleConfig:
        return RuleConfig.from_dict(self.rules)

    @property
    def arch(self) -> PolicyArch:
        return PolicyArch(pi=self.pi_layers, vf=self.vf_layers, activation=self.activation)

    @property
    def policy_label(self) -> str:
        """How the policy being trained is named in evaluations."""
        return f"ppo[{self.name}]"

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML/JSON data (lists, not tuples), as :func:`~sam_env.training.trainers.config_from_dict` reads it."""
        out = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}

    @classmethod
    def from_dict(cls: type[Config], data: Mapping[str, Any]) -> Config:
        """Build the config; a key that is none of its fields is an error naming the allowed ones.

        Numbers written like ``3e-4`` are accepted for float fields although YAML 1.1 reads them as
        strings (it wants ``3.0e-4``).
        """
        known = [f.name for f in fields(cls)]
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise ConfigError(f"unknown config field(s) {unknown}; allowed: {', '.join(known)}")
        if "opponents" in data:  # a trainer's opponent mix (:class:`OpponentMix`), given as a mapping of weights
            data = {**data, "opponents": OpponentMix.from_mapping(data["opponents"])}
        floats = {f.name for f in fields(cls) if "float" in str(f.type)}
        return cls(**{k: float_or_same(v) if k in floats else v for k, v in data.items()})


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
            require_field(f"opponents.{f.name}", value, is_number(value) and value >= 0, "a weight >= 0")
        total = sum(getattr(self, k) for k in OPPONENT_KINDS)
        require_field("opponents", self.weights(), total > 0, "at least one weight > 0")

    def weights(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in OPPONENT_KINDS}

    @classmethod
    def from_mapping(cls, mix: object) -> OpponentMix:
        if not isinstance(mix, Mapping):
            raise ConfigError(f"config field opponents = {mix!r} is not allowed; expected a mapping of weights")
        refuse_panel_bots("opponents", mix)
        unknown = sorted(str(k) for k in mix if k not in OPPONENT_KINDS)
        if unknown:
            raise ConfigError(f"unknown opponent kind(s) {unknown}; allowed: {', '.join(OPPONENT_KINDS)}")
        return cls(**{k: float_or_same(mix.get(k, 0.0)) for k in OPPONENT_KINDS})


@dataclass(frozen=True)
class EvalRunConfig(RunConfig):
    """The fields of the trainers that evaluate against bots the config names and keep checkpoints on the way
    (``dmc``, ``dqn``, ``rollout_advantage``, ``expert``), each counted in the trainer's own steps (its
    ``total_timesteps``' unit, or iterations where its config says so). A trainer's class may give them other
    defaults.

    Attributes:
        eval_every: steps between duplicate evaluations against ``eval_opponents``; 0: never.
        eval_deals: deals of those evaluations (each played once per seat rotation).
        eval_opponents: bots the policy meets (n−1 copies each) in those evaluations; the first one's result
            is shown on the progress bar.
        checkpoint_every: steps between checkpoints; 0: only the final one.
    """

    eval_every: int = 50_000
    eval_deals: int = 200
    eval_opponents: tuple[str, ...] = TRAINING_EVAL_OPPONENTS
    checkpoint_every: int = 100_000

    def check(self) -> None:
        super().check()
        self._require_int("eval_deals", 1, "an int > 0")
        for name in ("eval_every", "checkpoint_every"):
            self._require_int(name, 0, "an int >= 0 (0: never)")
        self._require_bots("eval_opponents", allow_empty=False)


@dataclass(frozen=True)
class MaskedPPOConfig(RunConfig):
    """The fields of the two masked-PPO trainers that keep a self-play pool (``sb3``, ``batched``).

    Attributes:
        learning_rate: Adam step size at the start.
        learning_rate_end: if set, the step size decays linearly to this value at ``total_timesteps``
            (the schedule follows the global step, so a resumed run continues it); null: constant.
        n_steps: steps per environment (``sb3``) or per table (``batched``) between updates.
        batch_size: minibatch size.
        n_epochs: passes over each rollout.
        gamma: discount. 1.0: a hand lasts a handful of decisions and only money at its end matters.
        gae_lambda: GAE λ.
        clip_range: PPO ratio clip.
        ent_coef: entropy bonus (keeps exploring alternatives to the opponents' habits).
        vf_coef: value-loss weight.
        max_grad_norm: gradient clipping.
        target_kl: stop an update's epochs early past this KL; null: never.
        opponents: the opponent mix (:class:`OpponentMix`).
        snapshot_every: steps between snapshots of the learner added to the self-play pool.
        pool_size: snapshots kept (the oldest is dropped).
        snapshot_deterministic: snapshots play their most probable move (True) or sample (False).
        eval_every: steps between duplicate evaluations against the heuristic bot; 0: never.
        eval_deals: deals of those evaluations (each played once per seat rotation).
        checkpoint_every: steps between checkpoints; 0: only the final one.
    """

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
    opponents: OpponentMix = field(default_factory=OpponentMix)
    snapshot_every: int = 50_000
    pool_size: int = 10
    snapshot_deterministic: bool = False
    eval_every: int = 50_000
    eval_deals: int = 200
    checkpoint_every: int = 100_000

    def check(self) -> None:
        super().check()
        for name in ("n_steps", "batch_size", "n_epochs", "snapshot_every", "pool_size", "eval_deals"):
            self._require_int(name, 1, "an int > 0")
        for name in ("eval_every", "checkpoint_every"):
            self._require_int(name, 0, "an int >= 0 (0: never)")
        for name in ("learning_rate", "clip_range", "max_grad_norm"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        for name in ("learning_rate_end", "target_kl"):
            value = getattr(self, name)
            require_field(name, value, value is None or (is_number(value) and value > 0), "null or a number > 0")
        for name in ("gamma", "gae_lambda"):
            self._require_number(name, lambda v: 0 < v <= 1, "a number in (0, 1]")
        for name in ("ent_coef", "vf_coef"):
            self._require_number(name, lambda v: v >= 0, "a number >= 0")
        require_field("opponents", self.opponents, isinstance(self.opponents, OpponentMix), "a mapping of weights")
        value = self.snapshot_deterministic
        require_field("snapshot_deterministic", value, isinstance(value, bool), "true or false")


def float_or_same(value: object) -> object:
    """``value`` as a float if it is a string that reads as one (YAML 1.1 reads ``3e-4`` as a string)."""
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


def load_config_data(path: Path, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """A YAML config file as plain data with ``--set`` overrides applied, before a config class reads it."""
    data = read_mapping(path, "config file", ConfigError)
    try:
        return apply_overrides(data, overrides)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
