"""The training configuration: a validated dataclass, read from YAML, with ``--set`` overrides.

Every field is documented on :class:`TrainConfig`; the files in ``configs/`` set them. A config is
checked as a whole when it is built, so a bad value stops a run before anything is written, with a
message naming the field and what it may hold (the same form as a bad rule option's).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from agents.panel import PANEL, is_panel_bot
from agents.ppo.checkpoint import ACTIVATIONS, PolicyArch
from agents.registry import available
from sam_env import RuleConfig, RuleConfigError
from sam_env.config_files import read_mapping
from sam_env.core.fields import is_int as _is_int
from sam_env.core.fields import is_number as _is_number
from sam_env.core.fields import require

BASELINES = ("random", "greedy", "heuristic")
OPPONENT_KINDS = ("self_play", *BASELINES)
TRAINERS = ("sb3", "batched")
BATCHED_OPPONENTS = ("self_play", "random", "heuristic")
"""The opponents the batched trainer can seat: networks and random in batch; the heuristic bot
(Python, one table at a time) reads its view from the observation — keep its weight small."""
DEVICES = ("cpu", "cuda", "auto")
CRITICS = ("observation", "oracle")


class ConfigError(ValueError):
    """A training configuration that names an unknown key or holds a value that is not allowed."""


def refuse_panel_bots(field_name: str, names: Iterable[object]) -> None:
    """Raise :class:`ConfigError` if ``names`` (what a config field seats at the learner's tables) holds a
    held-out panel bot (:mod:`agents.panel`).

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


class SharedRunFields:
    """The fields every backend's run config shares, checked and used the same way on each backend.

    :class:`TrainConfig` (SB3) and ``training.rllib``'s ``RLlibConfig`` are frozen dataclasses that
    declare these fields and call :meth:`check_shared_fields` from their ``__post_init__``: the
    run's name and seeds, its length, the table's rules and reward scale, the policy network (it is
    exported in one checkpoint format), the final evaluation, the folder of run folders and the bar.
    """

    name: str
    seed: int
    eval_seed: int
    total_timesteps: int
    rules: dict[str, Any]
    reward_scale: float
    torch_threads: int
    pi_layers: tuple[int, ...]
    vf_layers: tuple[int, ...]
    activation: str
    final_eval_deals: int
    final_eval_opponents: tuple[str, ...]
    run_dir: str
    progress_bar: bool

    def check_shared_fields(self) -> None:
        """Raise :class:`ConfigError` for a bad shared field; lists become tuples (the config is frozen)."""
        name_ok = isinstance(self.name, str) and self.name.isidentifier()
        require_field("name", self.name, name_ok, "a name like 'default' (letters, digits, _)")
        for name in ("seed", "eval_seed", "final_eval_deals"):
            value = getattr(self, name)
            require_field(name, value, _is_int(value) and value >= 0, "an int >= 0")
        for name in ("total_timesteps", "torch_threads"):
            value = getattr(self, name)
            require_field(name, value, _is_int(value) and value > 0, "an int > 0")
        value = self.reward_scale
        require_field("reward_scale", value, _is_number(value) and value > 0, "a number > 0")
        require_field("progress_bar", self.progress_bar, isinstance(self.progress_bar, bool), "true or false")
        try:
            RuleConfig.from_dict(self.rules)
        except RuleConfigError as err:
            raise ConfigError(f"rules: {err}") from None
        require_field("activation", self.activation, self.activation in ACTIVATIONS, f"one of {list(ACTIVATIONS)}")
        for name in ("pi_layers", "vf_layers"):
            value = getattr(self, name)
            ok = isinstance(value, (list, tuple)) and len(value) > 0 and all(_is_int(s) and s > 0 for s in value)
            require_field(name, value, ok, "a non-empty list of layer sizes > 0, e.g. [256, 256]")
            object.__setattr__(self, name, tuple(value))
        opponents = self.final_eval_opponents
        ok = isinstance(opponents, (list, tuple)) and all(isinstance(o, str) and o in available() for o in opponents)
        require_field("final_eval_opponents", opponents, ok, f"a list drawn from {available()}")
        object.__setattr__(self, "final_eval_opponents", tuple(opponents))
        require_field("run_dir", self.run_dir, isinstance(self.run_dir, str) and self.run_dir != "", "a folder path")

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
            require_field(f"opponents.{f.name}", value, _is_number(value) and value >= 0, "a weight >= 0")
        total = sum(getattr(self, k) for k in OPPONENT_KINDS)
        require_field("opponents", self.weights(), total > 0, "at least one weight > 0")

    def weights(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in OPPONENT_KINDS}


@dataclass(frozen=True)
class TrainConfig(SharedRunFields):
    """Everything a training run depends on; the YAML files in ``configs/`` set these fields.

    Attributes:
        trainer: ``sb3`` — sb3-contrib's MaskablePPO, one learner seat per table against the
            opponent mix (Python bots, one table at a time); ``batched`` — our masked PPO on
            :class:`sam_env.VectorEnv` (``training.batched``): ``num_tables`` tables, the learner in
            a share of the seats with one network shared by all of them, snapshots and the random
            policy evaluated in batch. Fields marked (sb3) or (batched) apply to one trainer only.
        name: the config's name; run folders are ``<name>__s<seed>__<time>``.
        seed: seeds python, numpy, torch, the environments, the opponent draws and the bots.
        total_timesteps: moves of the learner's seats (SB3 "timesteps"; opponents' moves not counted;
            batched: every move of any learner seat counts, forced ones included, though only moves
            with a choice are trained on).
        rules: RuleConfig options (RULES.md); empty for the defaults. Checkpoints record them.
        reward_scale: money (in X) is multiplied by this to make the reward. Payouts are mostly a
            few X but a Sâm is ±20X per seat (a blocked one −60X), so 0.1 keeps typical returns near
            ±1 without clipping the outliers the policy must learn to respect. A fixed scale (not
            VecNormalize) keeps the value function in money units and needs no statistics in the
            checkpoint.
        n_envs: (sb3) environments stepped together; SB3's forward pass is batched over them.
        vec_env: (sb3) ``dummy`` (all environments in this process) or ``subproc`` (one process each).
        num_tables: (batched) tables of the VectorEnv, all stepped at once.
        learner_share: (batched) chance that a seat is the learner's for a hand (at least one seat
            per table always is); the other seats are drawn from ``opponents``.
        device: (batched) ``cpu``, ``cuda`` or ``auto`` (cuda when available) for the networks.
        critic: (batched) what the value estimates behind the advantages see. ``observation``: the
            seat's observation (SB3's critic). ``oracle``: the observation and the other seats'
            hands (a perfect-information critic, training only, as PerfectDou's): most of a hand's
            money is decided by the deal, and a critic that sees the deal takes that luck out of
            the advantages. The policy still sees only its observation, and the observation critic
            is trained beside it so that the saved policy stays a complete SB3 actor-critic.
        torch_threads: threads torch may use for the network (the machine's other cores run opponents).
        learning_rate: Adam step size at the start.
        learning_rate_end: if set, the step size decays linearly to this value at ``total_timesteps``
            (the schedule follows the global step, so a resumed run continues it); null: constant.
        n_steps: steps per environment between updates (rollout length = n_steps × n_envs); batched:
            table steps per rollout (every table plays n_steps decisions, the learner's and others').
        batch_size: minibatch size; (sb3) must divide n_steps × n_envs.
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
        opponents: the opponent mix (:class:`OpponentMix`); batched: ``self_play``, ``random`` and
            ``heuristic`` (compiled and batched: :class:`agents.batched_heuristic.BatchedHeuristic`).
        snapshot_every: steps between snapshots of the learner added to the self-play pool.
        pool_size: snapshots kept (the oldest is dropped).
        fixed_opponents: (batched) network bots (shipped names or checkpoint paths) that stay in the
            self-play pool for the whole run beside the snapshots, e.g. ``[ppo_v1]``.
        init_from: (batched) a network bot (shipped name or checkpoint path) whose weights the learner
            starts from; null: a fresh network. Its layers are the config's, or as many and each as
            wide or narrower: then it is widened first, playing exactly as before (``training.widen``).
        snapshot_deterministic: snapshots play their most probable move (True) or sample (False).
        eval_every: steps between duplicate evaluations against the heuristic bot; 0: never.
        eval_deals: deals of those evaluations (each played once per seat rotation).
        eval_seed: seed of the evaluation deals (the same deals every time, so curves compare).
        eval_opponents: bots the policy meets (n−1 copies each) in those evaluations; the first
            one's result is shown on the progress bar.
        checkpoint_every: steps between checkpoints; 0: only the final one.
        final_eval_deals: deals of the evaluation against each baseline when training ends; 0: skip.
        final_eval_opponents: registry names the final policy meets (three copies each).
        run_dir: the folder that holds run folders.
        progress_bar: show a tqdm progress bar.
    """

    trainer: str = "sb3"
    name: str = "run"
    seed: int = 1
    total_timesteps: int = 200_000
    rules: dict[str, Any] = field(default_factory=dict)
    reward_scale: float = 0.1
    n_envs: int = 8
    vec_env: str = "dummy"
    num_tables: int = 512
    learner_share: float = 1.0
    device: str = "cpu"
    critic: str = "observation"
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
    fixed_opponents: tuple[str, ...] = ()
    init_from: str | None = None
    snapshot_deterministic: bool = False
    eval_every: int = 50_000
    eval_deals: int = 200
    eval_seed: int = 12345
    eval_opponents: tuple[str, ...] = ("heuristic",)
    checkpoint_every: int = 100_000
    final_eval_deals: int = 500
    final_eval_opponents: tuple[str, ...] = BASELINES
    run_dir: str = "runs"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        self.check_shared_fields()
        require_field("trainer", self.trainer, self.trainer in TRAINERS, f"one of {list(TRAINERS)}")
        require_field("device", self.device, self.device in DEVICES, f"one of {list(DEVICES)}")
        require_field("critic", self.critic, self.critic in CRITICS, f"one of {list(CRITICS)}")
        oracle_ok = self.critic == "observation" or self.trainer == "batched"
        require_field(
            "critic", self.critic, oracle_ok, "'observation' with trainer: sb3 (the oracle is the batched trainer's)"
        )
        share = self.learner_share
        require_field("learner_share", share, _is_number(share) and 0 <= share <= 1, "a number in [0, 1]")
        positive_ints = ("n_envs", "num_tables", "n_steps", "batch_size")
        positive_ints += ("n_epochs",)
        positive_ints += ("snapshot_every", "pool_size", "eval_deals")
        for name in positive_ints:
            value = getattr(self, name)
            require_field(name, value, _is_int(value) and value > 0, "an int > 0")
        for name in ("eval_every", "checkpoint_every"):
            value = getattr(self, name)
            require_field(name, value, _is_int(value) and value >= 0, "an int >= 0 (0: never)")
        for name in ("learning_rate", "clip_range", "max_grad_norm"):
            value = getattr(self, name)
            require_field(name, value, _is_number(value) and value > 0, "a number > 0")
        for name in ("learning_rate_end", "target_kl"):
            value = getattr(self, name)
            require_field(name, value, value is None or (_is_number(value) and value > 0), "null or a number > 0")
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            require_field(name, value, _is_number(value) and 0 < value <= 1, "a number in (0, 1]")
        for name in ("ent_coef", "vf_coef"):
            value = getattr(self, name)
            require_field(name, value, _is_number(value) and value >= 0, "a number >= 0")
        require_field("vec_env", self.vec_env, self.vec_env in ("dummy", "subproc"), "'dummy' or 'subproc'")
        rollout = self.n_steps * self.n_envs
        require_field(
            "batch_size",
            self.batch_size,
            self.trainer != "sb3" or rollout % self.batch_size == 0,
            f"a divisor of n_steps × n_envs = {rollout}, so that every minibatch is full",
        )
        require_field("opponents", self.opponents, isinstance(self.opponents, OpponentMix), "a mapping of weights")
        weights = self.opponents.weights()
        batched_ok = self.trainer != "batched" or not any(
            weights[k] for k in OPPONENT_KINDS if k not in BATCHED_OPPONENTS
        )
        allowed = f"with trainer: batched, weights for {list(BATCHED_OPPONENTS)} only"
        require_field("opponents", weights, batched_ok, allowed)
        require_field(
            "snapshot_deterministic",
            self.snapshot_deterministic,
            isinstance(self.snapshot_deterministic, bool),
            "true or false",
        )
        fixed = self.fixed_opponents
        ok = isinstance(fixed, (list, tuple)) and all(isinstance(o, str) and o for o in fixed)
        require_field("fixed_opponents", fixed, ok, "a list of network bots (shipped names or checkpoint paths)")
        refuse_panel_bots("fixed_opponents", fixed)
        object.__setattr__(self, "fixed_opponents", tuple(fixed))
        init = self.init_from
        ok = init is None or (isinstance(init, str) and init != "")
        require_field("init_from", init, ok, "null or a network bot")
        opponents = self.eval_opponents
        ok = isinstance(opponents, (list, tuple)) and len(opponents) > 0
        ok = ok and all(isinstance(o, str) and o in available() for o in opponents)
        require_field("eval_opponents", opponents, ok, f"a non-empty list drawn from {available()}")
        object.__setattr__(self, "eval_opponents", tuple(opponents))

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML/JSON data (lists, not tuples) that :func:`config_from_dict` reads back."""
        out = super().to_dict()
        for name in ("eval_opponents", "fixed_opponents"):
            out[name] = list(out[name])
        return out


def require_field(name: str, value: object, ok: bool, allowed: str) -> None:
    """Raise :class:`ConfigError` naming the field, its value and what is allowed, unless ``ok``."""
    require(ok, ConfigError, f"config field {name}", value, allowed)


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
    values = {k: float_or_same(v) if k in FLOAT_FIELDS else v for k, v in data.items()}
    if "opponents" in values:
        mix = values["opponents"]
        if not isinstance(mix, Mapping):
            raise ConfigError(f"config field opponents = {mix!r} is not allowed; expected a mapping of weights")
        refuse_panel_bots("opponents", mix)
        unknown = sorted(str(k) for k in mix if k not in OPPONENT_KINDS)
        if unknown:
            raise ConfigError(f"unknown opponent kind(s) {unknown}; allowed: {', '.join(OPPONENT_KINDS)}")
        values["opponents"] = OpponentMix(**{k: float_or_same(mix.get(k, 0.0)) for k in OPPONENT_KINDS})
    return TrainConfig(**values)


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
    """A YAML config file as plain data with ``--set`` overrides applied, before a backend reads it.

    ``train.py`` looks at its ``backend`` first: ``rllib`` hands it to :mod:`training.rllib`.
    """
    data = read_mapping(path, "config file", ConfigError)
    try:
        return apply_overrides(data, overrides)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def load_config(path: Path, overrides: Sequence[str] = (), address: str | None = None) -> TrainConfig:
    """Read a YAML config file and apply ``--set`` overrides.

    ``address`` (``train.py --address``, a Ray cluster) is refused: it is for ``backend: rllib`` configs.
    """
    if address is not None:
        raise ConfigError("--address is for configs with backend: rllib (a Ray cluster)")
    data = load_config_data(path, overrides)
    if data.get("backend") == "rllib":
        raise ConfigError(
            f"{path} is a backend: rllib config; run it with train.py --config (train.py --resume continues "
            "SB3 runs only: the RLlib backend has no resume yet, docs/rllib.md)"
        )
    try:
        return config_from_dict(data)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
