"""Dask clients for the parallel parts of momentbound (sweeps, studies, Monte Carlo fits).

:func:`dask_client` gives a ``distributed.Client`` for a local cluster, an address, or a client the
caller already has; a module of its own so that any layer can use it without importing the studies.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from momentbound.errors import InvalidArgument

__all__ = ["dask_client"]


@contextmanager
def dask_client(
    scheduler: Any = None, *, n_workers: int = 2, processes: bool = True, timeout: float = 10.0
) -> Iterator[Any]:
    """A ``distributed.Client`` for ``scheduler`` (see :func:`run_sweep`), closed on exit.

    A client passed in is yielded as is and left open (its owner closes it); connecting to an
    address gives up after ``timeout`` seconds with :class:`~momentbound.errors.InvalidArgument`.
    """
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is None:
        if int(n_workers) < 1:
            raise InvalidArgument(f"n_workers must be at least 1, got {n_workers}")
        cluster = LocalCluster(
            n_workers=int(n_workers),
            threads_per_worker=1,
            processes=bool(processes),
            dashboard_address=None,
            # a task's error comes back to the caller as one line; the workers' log of it would
            # repeat it on stderr with a traceback
            silence_logs=logging.CRITICAL,
        )
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise InvalidArgument(
            f"scheduler must be None (local cluster), an address like 'tcp://host:8786' or a "
            f"distributed.Client, got {scheduler!r}"
        )
    try:
        client = Client(scheduler.strip(), timeout=f"{float(timeout)}s")
    except OSError as exc:
        raise InvalidArgument(
            f"cannot connect to the Dask scheduler at {scheduler!r} ({exc}); start one with "
            f"`dask scheduler` or omit scheduler to use a local cluster"
        ) from exc
    try:
        yield client
    finally:
        client.close()
