"""Progress of long computations on stderr (rich): the time and memory estimate, then a bar.

Used by the Monte Carlo backend (units: draws, the time estimated from the first chunk) and by
the exact backend of :func:`momentbound.estimators.estimator_moments` (units: estimated seconds of
its costly terms, known before the run). Nothing is ever written to stdout, so ``--json`` output
stays one document.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Hashable, Mapping
from typing import Any

from momentbound.errors import InvalidArgument

__all__ = ["PROGRESS_AFTER", "ProgressBar", "WorkMeter", "check_progress"]

#: with ``progress=None`` the bar appears when the run is estimated to take longer (seconds)
PROGRESS_AFTER = 2.0


def check_progress(progress: object) -> None:
    """Refuse anything but ``None`` (automatic), ``True`` or ``False`` before any work."""
    if not (progress is None or isinstance(progress, bool)):
        raise InvalidArgument(f"progress must be None (automatic), True or False, got {progress!r}")


class ProgressBar:
    """A rich progress bar on stderr.

    Parameters
    ----------
    total:
        Units of the whole run (draws, estimated seconds, ...).
    mode:
        ``None``: shown when stderr is a terminal and the run is estimated to take more than
        :data:`PROGRESS_AFTER` seconds; ``True`` always; ``False`` never.
    label:
        First words of the estimate line printed before the bar.
    memory:
        Estimated peak memory of the run (bytes), printed with the time.
    unit:
        Name of the units, shown in the estimate line and on the bar.
    seconds:
        The estimated seconds of the run when known beforehand: the decision (and the estimate
        line) comes at ``__enter__``. ``None``: the first advance only times the kernels' loading,
        the second one estimates the time of the rest.

    Attributes
    ----------
    done:
        Units advanced so far (the bar is complete when it equals ``total``).
    """

    def __init__(self, total: float, mode: bool | None, label: str, memory: float, *, unit: str = "draws",
                 seconds: float | None = None) -> None:
        self.total, self.mode, self.label, self.memory = total, mode, label, memory
        self.unit, self.seconds = unit, seconds
        self.done: float = 0
        self.bar: Any = None
        self.task: Any = None
        self.first: tuple[float, float] | None = None

    def __enter__(self) -> "ProgressBar":
        if self.seconds is not None:
            self._decide(self.seconds)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def _wanted(self, seconds: float) -> bool:
        if self.mode is not None:
            return bool(self.mode)
        return sys.stderr is not None and sys.stderr.isatty() and seconds > PROGRESS_AFTER

    def _decide(self, seconds: float) -> None:
        """Start the bar (after the estimate line) if it is wanted; otherwise never show it."""
        if not self._wanted(seconds):
            self.mode = False
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TimeRemainingColumn

        console = Console(file=sys.stderr)
        amount = f"{self.total:,} {self.unit}, " if self.seconds is None else ""
        mb = self.memory / 2**20
        console.print(f"{self.label}: {amount}about {seconds:.2g} s and {f'{mb:.0f}' if mb >= 1 else 'under 1'} MB")
        self.bar = Progress("{task.description}", BarColumn(), "{task.percentage:>3.0f}%",
                            TimeRemainingColumn(), console=console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task(self.unit, total=self.total, completed=self.done)

    def advance(self, amount: float) -> None:
        """Add ``amount`` units of finished work."""
        self.done += amount
        if self.bar is None:
            if self.mode is False or self.seconds is not None or self.done >= self.total:
                return
            if self.first is None:  # the first chunk pays for loading the compiled kernels
                self.first = (self.done, time.perf_counter())
                return
            n0, t0 = self.first
            self._decide((time.perf_counter() - t0) * (self.total - n0) / max(1, self.done - n0))
            return
        self.bar.update(self.task, completed=min(self.done, self.total))


class WorkMeter:
    """Advances a :class:`ProgressBar` by the planned units of named pieces of work.

    ``plan[key]`` units belong to the piece ``key``; :meth:`fraction` reports how much of it is
    done, so the bar receives exactly ``plan[key]`` units for a finished piece, and ``sum(plan)``
    for a finished run. Keys outside the plan are ignored.

    Examples
    --------
    >>> bar = ProgressBar(3.0, False, "demo", 0, unit="s", seconds=3.0)
    >>> meter = WorkMeter({"a": 1.0, "b": 2.0}, bar)
    >>> meter.fraction("a", 0.5); meter.fraction("a", 1.0); meter.fraction("b", 1.0); meter.fraction("c", 1.0)
    >>> bar.done
    3.0
    """

    def __init__(self, plan: Mapping[Hashable, float], bar: ProgressBar) -> None:
        self.plan = dict(plan)
        self.bar = bar
        self._done: dict[Hashable, float] = {}

    def fraction(self, key: Hashable, done: float) -> None:
        """Piece ``key`` is ``done`` (in [0, 1]) finished."""
        units = self.plan.get(key)
        if units is None:
            return
        target = units * min(max(float(done), 0.0), 1.0)
        step = target - self._done.get(key, 0.0)
        if step > 0:
            self._done[key] = target
            self.bar.advance(step)
