"""Duplicate-match tasks on a Ray cluster instead of local worker processes (``sam-eval --ray``).

The tasks are the same :class:`~.tournament.Task` chunks the local process pool plays, each run by
the same :func:`~.tournament.run_task` as a Ray task. Every hand reseeds its agents from
``(seed, deal, rotation, slot)``, so where a chunk runs changes nothing: the numbers match the
local pool's for the same seed, on any number of machines.

Every node must have this project installed (``pip install -e ".[rllib]"``), and checkpoint paths
named as bots must exist on every node at the same path. Needs the ``rllib`` extra (Ray);
nothing imports this module unless ``--ray`` is given.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from .tournament import Match, Task, TaskOutput, run_task


def run_tasks_on_ray(
    tasks: Sequence[Task], matches: Sequence[Match], address: str | None, num_cpus: int
) -> Iterator[TaskOutput]:
    """Yield ``run_task(task, matches)`` for every task as Ray finishes them (in any order).

    The matches (bot specs, in-memory checkpoints included) go to Ray's object store once and every
    task reads them from there, as the local pool sends them once to each worker process.

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
            ray.init(num_cpus=num_cpus, include_dashboard=False)
    try:
        play = ray.remote(num_cpus=1)(run_task)
        shared = ray.put(tuple(matches))
        pending = [play.remote(task, shared) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()
