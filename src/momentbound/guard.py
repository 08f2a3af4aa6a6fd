"""Work and memory limits: one estimate before every allocation that grows with a user number.

Every computation whose time or memory grows with a number the user chose (draws, splits,
bootstraps, points, ``N``, the order, a support's size) estimates both *before* any work and
calls :func:`check`, which refuses (:class:`~momentbound.errors.WorkLimitExceeded` or
:class:`~momentbound.errors.MemoryLimitExceeded`) with the cheaper route named.

The limits are the function's ``max_seconds`` argument (120 s by default where a function has
one) and ``max_memory`` (80% of this machine's memory by default); ``None`` lifts a limit.
Inside ``with limits(max_seconds=..., max_memory=...)`` those values replace every limit that
was not lifted, which is how the command line's ``--max-seconds`` and ``--max-memory`` reach
each guard. Messages name keyword arguments (``max_seconds=None``) in Python and
the options (``--max-seconds none``) on the command line.

Example
-------
>>> from momentbound.guard import check
>>> check("1e9 draws", seconds=1e3, max_seconds=120.0, fix="use fewer draws")
Traceback (most recent call last):
    ...
momentbound.errors.WorkLimitExceeded: 1e9 draws would take about 1e+03 s (limit 120 s, max_seconds=120); use fewer draws, or max_seconds=None to run it anyway
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from momentbound.errors import InvalidArgument, MemoryLimitExceeded, WorkLimitExceeded

__all__ = ["DEFAULT_SECONDS", "Limits", "limits", "active", "cli_mode", "default_memory", "physical_memory", "seconds_limit", "memory_limit", "check", "option",
           "size_text", "parse_size"]

#: the default time limit of a guarded call, in seconds
DEFAULT_SECONDS = 120.0
#: the default memory limit as a share of this machine's memory
MEMORY_SHARE = 0.8
_UNSET: Any = object()


@dataclass(frozen=True)
class Limits:
    """The limits in force inside :func:`limits` (``None``: no limit; ``cli``: messages name options)."""

    max_seconds: float | None
    max_memory: float | None
    cli: bool = False


_ACTIVE: ContextVar[Limits | None] = ContextVar("momentbound_limits", default=None)


def _check_limit(value: Any, name: str, unit: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value > 0):
        raise InvalidArgument(f"{name} must be a positive number of {unit} or None (no limit), got {value!r}")
    return None if math.isinf(value) else float(value)


@contextmanager
def limits(max_seconds: float | None = DEFAULT_SECONDS, max_memory: float | None = _UNSET, *,
           cli: bool = False) -> Iterator[Limits]:
    """Apply ``max_seconds`` and ``max_memory`` (bytes) to every guard inside the block.

    ``None`` lifts a limit; ``max_memory`` left out keeps 80% of this machine's memory. ``cli``
    makes refusals name the command-line options instead of the keyword arguments.
    """
    seconds = _check_limit(max_seconds, "max_seconds", "seconds")
    memory = default_memory() if max_memory is _UNSET else _check_limit(max_memory, "max_memory", "bytes")
    token = _ACTIVE.set(Limits(seconds, memory, cli))
    try:
        yield _ACTIVE.get()  # type: ignore[misc]
    finally:
        _ACTIVE.reset(token)


def active() -> Limits | None:
    """The limits of the innermost :func:`limits` block, or ``None`` outside any."""
    return _ACTIVE.get()


def default_memory() -> float:
    """80% of :func:`physical_memory` (``inf`` where it is unknown)."""
    total = physical_memory()
    return math.inf if math.isinf(total) else MEMORY_SHARE * total


def physical_memory() -> float:
    """Bytes this process may use: the machine's physical memory, or the cgroup (container) limit
    where that is lower; ``inf`` where neither is known."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        total = float(pages * size) if pages > 0 and size > 0 else math.inf
    except (ValueError, OSError, AttributeError):
        total = math.inf
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = float(int(text))
    return total



def seconds_limit(given: float | None) -> float | None:
    """The time limit in force: ``None`` when the caller lifted it (``given`` is ``None``), else
    that of an enclosing :func:`limits` block, else ``given``."""
    lim = _ACTIVE.get()
    return given if lim is None or given is None else lim.max_seconds


def block_seconds() -> float | None:
    """The time limit of an enclosing :func:`limits` block, ``None`` outside any: for work that is
    unlimited unless its caller sets a limit (the paper's studies behind ``momentbound reproduce``)."""
    lim = _ACTIVE.get()
    return None if lim is None else lim.max_seconds


def memory_limit(given: float | None = _UNSET) -> float | None:
    """The memory limit in force (bytes): ``None`` when the caller lifted it (``given`` is
    ``None``), else an enclosing :func:`limits` block's, else ``given``, else 80% of this
    machine's memory."""
    if given is None:
        return None
    lim = _ACTIVE.get()
    if lim is not None:
        return lim.max_memory
    return default_memory() if given is _UNSET else given


#: keyword argument -> command-line option, for hints in messages
_OPTIONS = {"max_seconds": "--max-seconds", "max_memory": "--max-memory", "draws": "--draws",
            "backend": "--backend", "points": "--points", "order": "--order", "N": "--N",
            "splits": "--splits", "bootstraps": "--bootstraps", "B": "--bootstraps", "method": "--method",
            "solver": "--solver"}


def option(name: str, value: Any = _UNSET) -> str:
    """``name=value`` in Python, ``--name value`` on the command line (inside ``limits(cli=True)``).

    >>> option("max_seconds", None)
    'max_seconds=None'
    """
    lim = _ACTIVE.get()
    if lim is not None and lim.cli:
        flag = _OPTIONS.get(name, "--" + name.replace("_", "-"))
        if value is _UNSET:
            return flag
        text = "none" if value is None else str(value).strip("'\"")
        return f"{flag} {text}"
    if value is _UNSET:
        return name
    return f"{name}={value!r}" if isinstance(value, str) else f"{name}={value}"


def size_text(nbytes: float) -> str:
    """Bytes as ``"512 MiB"`` / ``"2.2 PiB"``."""
    if not math.isfinite(nbytes):
        return "unbounded memory"
    for unit, scale in (("EiB", 2**60), ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def parse_size(text: str) -> float | None:
    """``"2G"``, ``"500MB"``, ``"1.5GiB"``, ``"1000000"`` (bytes) as bytes; ``"none"``/``"0"``/``"inf"``
    as ``None`` (no limit). Raises ``ValueError`` for anything else."""
    t = text.strip().lower().replace(" ", "")
    if t in ("none", "0", "inf", "infinity", "unlimited"):
        return None
    scale = 1.0
    for suffix, factor in (("kib", 2**10), ("mib", 2**20), ("gib", 2**30), ("tib", 2**40),
                           ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("tb", 1e12),
                           ("k", 2**10), ("m", 2**20), ("g", 2**30), ("t", 2**40), ("b", 1)):
        if t.endswith(suffix):
            t, scale = t[: -len(suffix)], float(factor)
            break
    value = float(t) * scale
    if not math.isfinite(value) or value <= 0:
        raise ValueError(text)
    return value


def check(what: str, *, seconds: float | None = None, memory: float | None = None,
          max_seconds: float | None = DEFAULT_SECONDS, max_memory: float | None = _UNSET,
          fix: str = "", memory_fix: str | None = None) -> None:
    """Refuse before any work when ``what`` would exceed the time or memory limit in force.

    ``seconds`` and ``memory`` (bytes) are the estimates (``None``: not estimated); ``max_seconds``
    and ``max_memory`` the caller's limits (an enclosing :func:`limits` block replaces them).
    ``fix`` names the cheaper route; ``memory_fix`` (default ``fix``) the route for memory.
    The message ends with how to lift the limit.
    """
    sec_lim = seconds_limit(max_seconds)
    mem_lim = memory_limit(max_memory)
    if memory is not None and mem_lim is not None and (math.isnan(memory) or memory > mem_lim):
        route = fix if memory_fix is None else memory_fix
        raise MemoryLimitExceeded(
            f"{what} would hold about {size_text(memory)} (limit {size_text(mem_lim)}); "
            f"{route + ', or ' if route else ''}{'--max-memory SIZE' if cli_mode() else 'max_memory=... (bytes)'} "
            "on a machine with that much memory"
        )
    if seconds is not None and sec_lim is not None and (math.isnan(seconds) or seconds > sec_lim):
        raise WorkLimitExceeded(
            f"{what} would take about {seconds:.2g} s (limit {sec_lim:g} s, {option('max_seconds', _num(sec_lim))}); "
            f"{fix + ', or ' if fix else ''}{option('max_seconds', None)} to run it anyway"
        )


def _num(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def cli_mode() -> bool:
    lim = _ACTIVE.get()
    return lim is not None and lim.cli
