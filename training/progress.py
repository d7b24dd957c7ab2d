"""The trainers' progress bar: one rate, and a total that the bar reaches exactly, ending at 100 %.

A trainer learns in whole rollouts (or iterations), so its last one usually ends a little past
``total_timesteps``. tqdm drops the percentage and the bar once its count passes the total; so
:func:`advance` makes the steps the run really took the total when that happens, and the bar ends
full, at 100 %, on the run's true count. The rate is tqdm's alone, averaged over the whole run
(``smoothing=0``, evaluations and checkpoints included), so the estimate of the time left is the
run's own pace; the trainers' postfixes carry no second one.
"""

from __future__ import annotations

from typing import TextIO

from tqdm import tqdm


def bar(total: int, initial: int, unit: str, show: bool, file: TextIO | None = None) -> tqdm:
    """A bar from ``initial`` (a resumed run's steps) to ``total`` learner steps, on ``file`` (stderr)."""
    return tqdm(total=total, initial=initial, unit=unit, disable=not show, dynamic_ncols=True, smoothing=0, file=file)


def advance(bar: tqdm, done: int) -> None:
    """Move ``bar`` to ``done`` steps; past its total, ``done`` becomes the total (the run's true count). A count
    below the bar's (a library's metric that was revised down) leaves it where it is: a bar never goes back."""
    if done > bar.total:
        bar.total = done
    bar.update(max(done - bar.n, 0))
