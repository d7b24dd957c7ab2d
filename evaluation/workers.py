"""Worker processes that cannot hang a tournament: started fresh, one pipe each, watched for death.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: a worker that dies breaks the whole pool and
says neither which task it ran nor where in it, and with the ``fork`` start method a parent that had
built a torch bot hands its workers a thread pool that no longer exists (they wait forever).

* Workers start with ``spawn`` (a fresh interpreter; the default of no platform matters), so nothing
  the parent built or locked is inherited. Each receives the tournament once (``shared``), loads the
  bot files the parent loaded (:func:`sam_env.agents.code_specs.loaded_files`) and the bots registered
  at run time, then plays one task at a time.
* Every worker has its own pipe (no lock shared with the others, so a dying worker blocks nobody) and
  a few shared integers, :class:`Position`, where the tasks write the hand and seat being played:
  when a worker's process ends without a result, the parent reads where it was and reports it at once.
* Math libraries are held to one thread per worker (``OMP_NUM_THREADS`` and friends are set before
  anything can import torch, and torch itself after the bots are built, only if a bot imported it).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

START_METHOD = "spawn"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")
PROGRESS_EVERY_S = 0.25
"""How often a worker reports the hands it finished (the progress bar's resolution)."""


class Position:
    """Where a task is: match, deal, seating and deciding seat, and ``last_deal`` during one batched
    call that decides for the hands of several deals (else -1). In a worker the values live in
    shared memory the parent can read after the worker died; in this process, in a list."""

    FIELDS = ("match", "deal", "seating", "seat", "last_deal")

    def __init__(self, values: Any = None) -> None:
        self.values = [-1] * len(self.FIELDS) if values is None else values

    def at(self, match: int, deal: int, seating: int, seat: int = -1, last_deal: int = -1) -> None:
        v = self.values
        v[0], v[1], v[2], v[3], v[4] = match, deal, seating, seat, last_deal

    def deciding(self, seat: int) -> None:
        self.values[3] = seat

    def read(self) -> dict[str, int | None]:
        """The fields, None where not set."""
        return {k: (None if int(v) < 0 else int(v)) for k, v in zip(self.FIELDS, self.values, strict=True)}


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker receives once: the function that plays a task, the data every task shares,
    the bot files to load first (module name -> path) and the factories registered at run time, pickled one by one."""

    play: Callable[..., Any]
    shared: Any
    files: dict[str, str]
    registered: dict[str, bytes]


@dataclass(frozen=True)
class Progress:
    hands: int


@dataclass(frozen=True)
class Done:
    task: Any
    output: Any


@dataclass(frozen=True)
class Failed:
    task: Any
    failure: Any
    """A :class:`~.failures.HandFailure` made by the task, or by the parent from :class:`Position`."""


Event = Progress | Done | Failed


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    position: Position
    task: Any = None
    ready: bool = False
    """Whether it finished starting (a worker that dies before cannot run anything: see :class:`WorkerStartError`)."""


class WorkerStartError(RuntimeError):
    """A worker process died while starting, before it could play anything."""


class WorkerPool:
    """``workers`` fresh processes serving the tasks of one tournament (see the module docstring).

    ``describe(task, position, error)`` makes the failure reported for a task whose worker died while
    playing it, or raised something the task did not describe itself (the tournament knows what to call
    the match and its bots); ``position`` is the worker's last :class:`Position`.
    """

    def __init__(
        self, setup: WorkerSetup, workers: int, describe: Callable[[Any, dict[str, int | None], str], Any]
    ) -> None:
        self.context = multiprocessing.get_context(START_METHOD)
        self.payload = pickle.dumps(setup)
        self.describe = describe
        self.size = workers
        self.workers: list[_Worker] = []

    def _start(self) -> _Worker:
        parent, child = self.context.Pipe()
        position = Position(self.context.RawArray("q", [-1] * len(Position.FIELDS)))
        process = self.context.Process(target=serve, args=(child, position.values, self.payload), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent, position)

    def run(self, tasks: Sequence[Any], skip: Callable[[Any], bool] = lambda task: False) -> Iterator[Event]:
        """Play ``tasks``; yield progress, results and failures as they come. ``skip(task)`` is asked
        before a task is sent (the tournament drops the rest of a match that failed)."""
        pending = deque(tasks)
        try:
            while pending or any(w.task is not None for w in self.workers):
                self._assign(pending, skip)
                busy = [w for w in self.workers if w.task is not None]
                if not busy:
                    continue
                ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=1.0))
                for w in busy:
                    if w.conn in ready or w.process.sentinel in ready:
                        yield from self._collect(w)
        finally:
            self.close()

    def _assign(self, pending: deque, skip: Callable[[Any], bool]) -> None:
        for w in [w for w in self.workers if w.task is None]:
            while pending and skip(pending[0]):
                pending.popleft()
            if not pending:
                return
            task = pending.popleft()
            try:
                w.conn.send(task)
                w.task = task
            except (BrokenPipeError, ConnectionError, EOFError):  # died between tasks: it never started this one
                pending.appendleft(task)
                self._replace(w)
        while pending and len(self.workers) < self.size:
            self.workers.append(self._start())
            self._assign(pending, skip)

    def _collect(self, w: _Worker) -> Iterator[Event]:
        while w.task is not None:
            try:
                if not w.conn.poll():
                    break
                message = w.conn.recv()
            except (EOFError, ConnectionError, OSError):
                break
            kind = message[0]
            if kind == "ready":
                w.ready = True
            elif kind == "hands":
                yield Progress(message[1])
            elif kind == "done":
                w.task = None
                yield Done(message[1], message[2])
            else:
                w.task, failure = None, message[2]
                if isinstance(failure, str):  # a traceback the task could not place itself
                    failure = self.describe(message[1], w.position.read(), failure)
                yield Failed(message[1], failure)
        if w.task is not None and not w.process.is_alive():
            w.process.join(timeout=1)
            if not w.ready:
                raise WorkerStartError(
                    f"a worker process could not start (exit code {w.process.exitcode}; its error is printed above). "
                    "A script that evaluates on worker processes must keep its top-level code under "
                    "'if __name__ == \"__main__\":', because each worker imports the script afresh (multiprocessing's "
                    "spawn); or evaluate with workers=1"
                )
            task, w.task = w.task, None
            yield Failed(task, self.describe(task, w.position.read(), _exit_text(w.process.exitcode)))
            self._replace(w)

    def _replace(self, w: _Worker) -> None:
        w.conn.close()
        self.workers.remove(w)

    def close(self) -> None:
        """Stop every worker: an idle one on its pipe's end, a busy one (a run cut short) by terminate."""
        for w in self.workers:
            try:
                if w.task is None:
                    w.conn.send(None)
            except (BrokenPipeError, ConnectionError, OSError):
                pass
        deadline = time.monotonic() + 5
        for w in self.workers:
            if w.task is not None:
                w.process.terminate()
            w.process.join(timeout=max(0.1, deadline - time.monotonic()))
            if w.process.is_alive():
                w.process.kill()
                w.process.join(timeout=1)
            w.conn.close()
        self.workers = []


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"its worker process was killed by {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"its worker process died (exit code {code})"


def serve(conn: Connection, position_values: Any, payload: bytes) -> None:
    """A worker process: set up once, then play the tasks the parent sends until it sends None."""
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"
    position = Position(position_values)
    setup_error = None
    try:
        setup: WorkerSetup = pickle.loads(payload)
        _load_bots(setup)
    except Exception:  # reported with every task this worker is sent
        setup_error = traceback.format_exc()
    conn.send(("ready",))
    last = time.monotonic()
    done = 0

    def progress(hands: int) -> None:
        nonlocal last, done
        done += hands
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY_S:
            conn.send(("hands", done))
            last, done = now, 0

    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        if setup_error is not None:
            conn.send(("failed", task, setup_error))
            continue
        try:
            output = setup.play(task, setup.shared, watch=position, progress=progress)
        except Exception as err:  # the task's own HandError, or anything it did not catch
            failure = getattr(err, "failure", None) or traceback.format_exc()
            conn.send(("failed", task, failure))
            continue
        if done:
            conn.send(("hands", done))
            done = 0
        conn.send(("done", task, output))


def _load_bots(setup: WorkerSetup) -> None:
    """Load the parent's bot files, then register its run-time factories (each may fail alone: the
    matches that seat it then fail with the reason)."""
    from sam_env.agents.code_specs import BotSpecError, load_file_module
    from sam_env.agents.registry import FACTORIES

    for path in setup.files.values():
        load_file_module(path)
    for name, payload in setup.registered.items():
        try:
            FACTORIES[name] = pickle.loads(payload)
        except Exception as err:  # whatever unpickling raises, the fix is the same

            def refuse(seed: int | None = None, _name: str = name, _err: str = f"{type(err).__name__}: {err}") -> None:
                raise BotSpecError(
                    f"bot {_name!r} was registered in the parent process but cannot be rebuilt in a worker ({_err}); "
                    "name it by a spec ('package.module:attr' or 'path/to/file.py:attr') or use workers=1"
                )

            FACTORIES[name] = refuse


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Hold torch to one thread while bots play, if a bot imported it (never importing it here): a
    worker then uses one core, and a task played in this process computes exactly as in a worker."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
