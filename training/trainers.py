"""The trainers by name: the config's ``trainer:`` key picks one, and with it a config class and a ``train``.

Every trainer is a folder of ``training/`` that exposes ``train(config, run_dir, resume) ->
TrainResult`` and reads a config class built on :class:`~sam_env.training.config.RunConfig`; adding one is
a folder and a line in :data:`TRAINERS`. ``train.py`` tells the story of a run around that call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sam_env.utils.deprecation import warn_deprecated

from . import batched, bc, dmc, dqn, expert, nfsp, ray_actors, rllib, rollout_advantage, sb3
from .batched.config import BatchedConfig
from .bc.config import BCConfig
from .config import ConfigError, RunConfig, TrainResult, load_config_data
from .dmc.config import DMCConfig
from .dqn.config import DQNConfig
from .expert.config import ExpertConfig
from .nfsp.config import NFSPConfig
from .recipes import config_path
from .rllib.config import RLlibConfig
from .rollout_advantage.config import RolloutAdvantageConfig
from .sb3.config import SB3Config
from .tables import alias_of_trainer_ray


@dataclass(frozen=True)
class Trainer:
    """A trainer: the config class it reads, its entry point, and whether ``--resume`` continues its runs. (Which
    runs are on Ray, where ``--address`` names a cluster: :func:`.tables.uses_ray`.)"""

    config: type[RunConfig]
    train: Callable[[Any, Path, Path | None], TrainResult]
    resumes: bool = True


def train_batched(config: BatchedConfig, run_dir: Path, resume: Path | None) -> TrainResult:
    """``trainer: batched``: its tables in this process, or with ``tables: ray`` in Ray actors (:mod:`.ray_actors`,
    the same trainer run differently)."""
    return (ray_actors.train if config.tables == "ray" else batched.train)(config, run_dir, resume)


TRAINERS: dict[str, Trainer] = {
    "batched": Trainer(BatchedConfig, train_batched),
    "sb3": Trainer(SB3Config, sb3.train),
    "rllib": Trainer(RLlibConfig, rllib.train, resumes=False),
    "expert": Trainer(ExpertConfig, expert.train),
    "dmc": Trainer(DMCConfig, dmc.train),
    "rollout_advantage": Trainer(RolloutAdvantageConfig, rollout_advantage.train),
    "dqn": Trainer(DQNConfig, dqn.train, resumes=False),
    "nfsp": Trainer(NFSPConfig, nfsp.train, resumes=False),
    "bc": Trainer(BCConfig, bc.train, resumes=False),
}


DEFAULT_TRAINER = "batched"
SAVED_DEFAULT_TRAINER = "sb3"
"""The trainer of a saved config without the key: ``sb3``, the only one before the key existed."""
SINGLE_CLASS_FIELDS = {f.name for cls in (SB3Config, BatchedConfig) for f in fields(cls)}
"""The fields of the one config class that served ``sb3`` and ``batched`` before 0.2.0: configs it
saved hold the other trainer's fields too (without effect on the run)."""


def config_from_dict(data: Mapping[str, Any], *, saved: bool = False) -> RunConfig:
    """The config ``data`` describes, of the class its ``trainer`` names (default ``batched``).

    A field of another trainer is refused naming that trainer. The ``backend: rllib`` key of
    earlier releases still reads as ``trainer: rllib``, with a ``DeprecationWarning``. ``saved``:
    ``data`` is a run's own ``config.yaml`` (``--resume``): one written before 0.2.0 may lack
    ``trainer`` (then it is ``sb3``) and hold the other masked-PPO trainer's fields (dropped).
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"a training config must be a mapping of field names to values, got {data!r}")
    data = dict(data)
    if "backend" in data:
        backend = data.pop("backend")
        warn_deprecated(f"config key 'backend: {backend}'", f"'trainer: {backend}'")
        if data.setdefault("trainer", backend) != backend:
            raise ConfigError(f"config keys backend: {backend} and trainer: {data['trainer']} disagree; keep trainer")
    if data.get("trainer") == "ray":  # batched PPO on Ray, before tables: ray
        data = alias_of_trainer_ray(data)
    name = data.get("trainer", SAVED_DEFAULT_TRAINER if saved else DEFAULT_TRAINER)
    if not isinstance(name, str) or name not in TRAINERS:
        raise ConfigError(f"config field trainer = {name!r} is not allowed; expected one of {list(TRAINERS)}")
    cls = TRAINERS[name].config
    own = {f.name for f in fields(cls)}
    if saved:
        data = {k: v for k, v in data.items() if k in own or k not in SINGLE_CLASS_FIELDS}
    owners = {k: [o for o, t in TRAINERS.items() if k in _field_names(t)] for k in data if k not in own}
    foreign = {k: found[0] for k, found in owners.items() if found}
    if foreign:
        listed = ", ".join(f"{k} ({other})" for k, other in sorted(foreign.items()))
        raise ConfigError(f"config field(s) of another trainer with trainer: {name}: {listed}")
    return cls.from_dict({**data, "trainer": name})


def load_config(path: str | Path, overrides: Sequence[str] = (), *, saved: bool = False) -> RunConfig:
    """Read a YAML config file, apply ``--set`` overrides and build its trainer's config (:func:`config_from_dict`).

    ``path``: a file, or the name of a shipped recipe (``"default"``, :mod:`.recipes`); ``saved``: a run's
    own ``config.yaml`` (``--resume``), always a file.
    """
    data = load_config_data(Path(path) if saved else config_path(path), overrides)
    try:
        return config_from_dict(data, saved=saved)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def _field_names(trainer: Trainer) -> set[str]:
    return {f.name for f in fields(trainer.config)}
