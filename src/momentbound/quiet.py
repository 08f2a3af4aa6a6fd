"""Keep native solver libraries off the terminal.

HiGHS, Clarabel and the solvers behind cvxpy are C, C++ or Rust libraries that can write
straight to the process's file descriptors 1 and 2 (HiGHS 1.16 prints its banner when its
first ``Highs()`` object is built, whatever its options say). Such writes bypass
``sys.stdout``, so neither Python-level redirection nor pytest's ``capsys`` sees them, and
they would corrupt a ``--json`` document. Every call into a native solver therefore runs
inside :func:`quiet_native_output`, on top of each solver's own "no output" option.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_native_output"]

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int] | None = None
_LIBC: ctypes.CDLL | None = None


def _flush_python() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed or broken stream has nothing to flush
            pass


def _libc() -> ctypes.CDLL | None:
    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(None)
        except OSError:  # no C library to load: nothing can be buffered there
            return None
    return _LIBC


def _flush_c() -> None:
    """Flush the C library's stdio buffers (a pipe makes stdout fully buffered)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "fflush"):
        libc.fflush(None)


def _enter() -> None:
    global _depth, _saved
    with _lock:
        _depth += 1
        if _depth > 1:
            return
        _flush_python()
        _flush_c()
        try:
            saved = (os.dup(1), os.dup(2))
        except OSError:  # descriptors closed: nothing can reach a terminal anyway
            _saved = None
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            os.dup2(null, 2)
        finally:
            os.close(null)
        _saved = saved


def _exit() -> None:
    global _depth, _saved
    with _lock:
        _depth -= 1
        if _depth > 0 or _saved is None:
            return
        _flush_c()  # drop what the solver buffered while /dev/null was behind the descriptors
        _flush_python()
        out, err = _saved
        _saved = None
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)


@contextmanager
def quiet_native_output() -> Iterator[None]:
    """Send everything written to file descriptors 1 and 2 to ``os.devnull`` inside the block.

    Python's own buffers and the C library's stdio buffers are flushed on entry (so earlier
    output still reaches the terminal) and on exit (so the block's output cannot leak out
    later). Nested and concurrent uses share one redirection, which lasts until the last
    block ends.

    Yields
    ------
    None

    Examples
    --------
    >>> from momentbound.quiet import quiet_native_output
    >>> with quiet_native_output():
    ...     import highspy
    ...     h = highspy.Highs()  # the banner goes nowhere
    """
    _enter()
    try:
        yield
    finally:
        _exit()
