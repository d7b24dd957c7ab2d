"""Tasks on a Ray cluster instead of local worker processes (``sam-eval --ray``).

:func:`run_on_ray` runs any function over a list of tasks as Ray tasks, with data every task shares
sent once; the tournament (:func:`.tournament.run_matches`) hands it its chunks of deals and its
:func:`~.tournament.run_task`, so this module imports nothing of the tournament's. Every hand
reseeds its agents from ``(seed, deal, rotation, slot)``, so where a chunk runs changes nothing:
the numbers match the local pool's for the same seed, on any number of machines.

Every node must have this project installed (``pip install -e ".[rllib]"``), and checkpoint paths
named as bots must exist on every node at the same path. Needs the ``rllib`` extra (Ray); nothing
imports this module unless ``--ray`` is given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Task = TypeVar("Task")
Shared = TypeVar("Shared")
Result = TypeVar("Result")


def run_on_ray(
    function: Callable[[Task, Shared], Result],
    tasks: Sequence[Task],
    shared: Shared,
    address: str | None,
    num_cpus: int,
) -> Iterator[Result]:
    """Yield ``function(task, shared)`` for every task as Ray finishes them (in any order).

    ``shared`` (for the tournament: the matches, bot specs and in-memory checkpoints included) goes
    to Ray's object store once and every task reads it from there, as the local pool sends it once
    to each worker process. ``function`` must be importable on every node (a module-level function).

    Joins the cluster at ``address`` (or ``RAY_ADDRESS``); without either, starts a local Ray on
    ``num_cpus`` CPUs. A Ray started here is shut down when the tasks are done or on an error.
    """
    import ray  # the optional dependency, only for this path

    started_here = not ray.is_initialized()
    if started_here:
        address = address or os.environ.get("RAY_ADDRESS") or None
        if address:
            ray.init(address=address)
        else:
            # "local": a new Ray even where a `ray start` cluster runs on this machine (None would join it).
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False)
    try:
        play = ray.remote(num_cpus=1)(function)
        stored = ray.put(shared)
        pending = [play.remote(task, stored) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()
