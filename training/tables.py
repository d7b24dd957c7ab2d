"""Where a trainer's :class:`sam_env.VectorEnv` tables play: in the training process (``tables: local``), or in Ray
actors on this machine or a cluster's nodes (``tables: ray``), each holding its share of the tables and a copy of the
network while one learner fits what they play.

It is a setting of its own, the same for every trainer that plays ``VectorEnv`` tables — Deep Monte-Carlo
(``trainer: dmc``, :mod:`.dmc.ray_tables`) and batched PPO (``trainer: batched``, :mod:`.ray_actors`) — so a recipe
moves to Ray with ``--set tables=ray`` and nothing else. Ray is joined at ``RAY_ADDRESS`` (``train.py --address``)
as Ray users expect, or started locally on ``num_cpus`` CPUs. ``trainer: ray``, the name batched PPO on Ray had
before this setting, still reads as ``trainer: batched`` with ``tables: ray`` (:func:`alias_of_trainer_ray`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sam_env.utils.deprecation import warn_deprecated

from .config import ConfigError, require_field

TABLES = ("local", "ray")


@dataclass(frozen=True)
class TablesFields:
    """The fields of where the tables play (see the module docstring), shared by the trainers that take them.

    Attributes:
        tables: ``local`` (the training process) or ``ray`` (Ray actors).
        table_workers: with ``tables: ray``, the actors, one CPU each, spread over the cluster's nodes; each plays
            the config's ``num_tables`` tables, so a worker more is more moves per update, as a machine more should.
        num_cpus: CPUs of the local Ray a ``tables: ray`` run starts (none when it joins a cluster); at least
            ``table_workers``. The learner runs in the driver process and holds none.
    """

    tables: str = "local"
    table_workers: int = 1
    num_cpus: int = 2

    def check_tables(self) -> None:
        require_field("tables", self.tables, self.tables in TABLES, f"one of {list(TABLES)}")
        self._require_int("table_workers", 1, "an int > 0")  # type: ignore[attr-defined]
        self._require_int("num_cpus", 1, "an int > 0")  # type: ignore[attr-defined]


def uses_ray(config: object) -> bool:
    """Whether a config's run is on Ray (``train.py --address`` names a cluster for it)."""
    return getattr(config, "trainer", "") == "rllib" or getattr(config, "tables", "local") == "ray"


def alias_of_trainer_ray(data: dict[str, Any]) -> dict[str, Any]:
    """A config that says ``trainer: ray`` (0.3's batched PPO on Ray) as it reads now — ``trainer: batched`` with
    ``tables: ray``, its ``num_env_runners`` as ``table_workers`` — with a ``DeprecationWarning``."""
    warn_deprecated("config key 'trainer: ray'", "'trainer: batched' with 'tables: ray'")
    data = {**data, "trainer": "batched"}
    if data.setdefault("tables", "ray") != "ray":
        raise ConfigError(f"trainer: ray plays its tables on Ray; tables: {data['tables']} contradicts it")
    if "num_env_runners" in data:
        runners = data.pop("num_env_runners")
        if data.setdefault("table_workers", runners) != runners:
            raise ConfigError("num_env_runners (trainer: ray's name) and table_workers disagree; keep table_workers")
    return data


def trainer_that_wrote(name: str) -> str:
    """A checkpoint's ``trainer`` as it reads now: ``ray`` (0.3's batched PPO on Ray) is ``batched``."""
    return "batched" if name == "ray" else name
