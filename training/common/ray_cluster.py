"""Ray for the trainers whose tables play in Ray actors (``tables: ray``, :mod:`sam_env.training.tables`): joining a
cluster or starting a local Ray, the CPUs it needs, and each actor's seed. Imports Ray: only a ``tables: ray`` run
imports this module.
"""

from __future__ import annotations

import os

import numpy as np
import ray

from ..config import ConfigError

MIN_OBJECT_STORE = 200 * 1024**2
MAX_OBJECT_STORE = 2 * 1024**3


def runner_seed(seed: int, index: int) -> int:
    """The seed actor ``index`` plays with: the run's own for actor 0 (so one actor plays the local trainer's
    tables), one derived from ``(seed, index)`` for the others."""
    return seed if index == 0 else int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def start_ray(num_cpus: int, store_bytes: int) -> str:
    """Join the cluster at ``RAY_ADDRESS`` (``train.py --address`` sets it), else start a local Ray on ``num_cpus``
    CPUs with an object store of ``store_bytes`` (clamped to 200 MiB … 2 GiB); return where the run is."""
    address = os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address)
        return f"the Ray cluster at {address}"
    # "local": a new Ray even where a `ray start` cluster runs on this machine (None would join it).
    ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        object_store_memory=int(min(MAX_OBJECT_STORE, max(MIN_OBJECT_STORE, store_bytes))),
    )
    return f"a local Ray on {num_cpus} CPUs"


def check_cpus(workers: int, num_cpus: int) -> None:
    """Refuse a local Ray with fewer CPUs than actors, each of which holds one: Ray would wait for them forever."""
    if not os.environ.get("RAY_ADDRESS") and workers > num_cpus:
        raise ConfigError(
            f"{workers} table workers need {workers} CPUs of the local Ray, but num_cpus = {num_cpus}; add "
            f"--set num_cpus={workers}, or join a cluster with --address"
        )
