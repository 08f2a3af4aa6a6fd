"""Dask clients for the parallel parts of momentbound (sweeps, studies, Monte Carlo fits).

:func:`dask_client` gives a ``distributed.Client`` for a local cluster, an address, or a client the
caller already has; a module of its own so that any layer can use it without importing the studies.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from momentbound.errors import InvalidArgument

__all__ = ["dask_client"]


@contextmanager
def dask_client(
    scheduler: Any = None, *, n_workers: int = 2, processes: bool = True, timeout: float = 5.0
) -> Iterator[Any]:
    """A ``distributed.Client`` for ``scheduler`` (see :func:`run_sweep`), closed on exit.

    A client passed in is yielded as is and left open (its owner closes it); connecting to an
    address gives up after ``timeout`` seconds (default 5) with
    :class:`~momentbound.errors.InvalidArgument`: at once when the connection is refused, after
    ``timeout`` when nothing answers (also when a peer accepts the connection but never speaks
    Dask's protocol, which ``Client``'s own timeout does not cover).
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
            # the scheduler still serves /health and /metrics over HTTP, by default on port
            # 8787: a dashboard already open there (or a second cluster) must not stop this one
            scheduler_kwargs={"dashboard_address": ":0"},
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
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < math.inf:
        raise InvalidArgument(f"timeout must be a number of seconds > 0, got {timeout!r}")
    start = time.monotonic()
    _probe(scheduler.strip(), float(timeout))
    left = max(0.5, float(timeout) - (time.monotonic() - start))
    client = _connect(Client, scheduler.strip(), left, float(timeout))
    try:
        yield client
    finally:
        client.close()


def _connect(client_type: Any, address: str, left: float, timeout: float) -> Any:
    """``Client(address)`` within ``left`` seconds, else :class:`InvalidArgument`.

    ``Client``'s own ``timeout`` covers the TCP connection but not a peer that accepts it and then
    never speaks Dask's protocol (it waits forever), so the client is built in a daemon thread
    and given up on after ``left`` seconds.
    """
    import threading

    outcome: list[Any] = []

    def build() -> None:
        try:
            outcome.append((client_type(address, timeout=f"{left:.3f}s"), None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome.append((None, exc))

    worker = threading.Thread(target=build, name="momentbound-scheduler-connect", daemon=True)
    worker.start()
    worker.join(left + 0.5)
    if not outcome:
        raise InvalidArgument(
            f"the Dask scheduler at {address!r} did not answer within {timeout:g} s (something listens there "
            "but does not speak Dask's protocol); check the address, raise the timeout, or use a local scheduler"
        )
    client, error = outcome[0]
    if error is not None:
        raise InvalidArgument(
            f"cannot connect to the Dask scheduler at {address!r} within {timeout:g} s "
            f"({' '.join(str(error).split())}); start one with `dask scheduler`, raise the timeout, or "
            "use a local scheduler"
        ) from error
    return client


def _probe(address: str, timeout: float) -> None:
    """Fail fast, within ``timeout`` seconds, when nothing answers at a TCP scheduler address.

    ``distributed.Client`` retries a refused connection until its timeout runs out; one plain TCP
    connection tells a wrong address at once. The name lookup runs in a thread of its own, since a
    resolver can block longer than any socket timeout.
    """
    import socket
    import threading

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return  # other transports (inproc, ucx) are left to distributed
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(
            f"scheduler {address!r} is not a Dask scheduler address: write a host and an integer port, "
            "like tcp://host:8786"
        ) from exc
    outcome: list[BaseException | None] = []

    def connect() -> None:
        try:
            socket.create_connection((host, int(port)), timeout=timeout).close()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome.append(exc)

    worker = threading.Thread(target=connect, name="momentbound-scheduler-probe", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        raise InvalidArgument(
            f"the Dask scheduler at {address!r} did not answer within {timeout:g} s; check the address, "
            "raise the timeout, or use a local scheduler"
        )
    error = outcome[0]
    if error is None:
        return
    if isinstance(error, ConnectionRefusedError):
        reason = "connection refused: nothing listens there"
    elif isinstance(error, socket.gaierror):
        reason = f"unknown host {host!r}"
    elif isinstance(error, (TimeoutError, socket.timeout)):
        reason = f"no answer within {timeout:g} s"
    else:
        reason = " ".join(f"{type(error).__name__}: {error}".split())
    raise InvalidArgument(
        f"cannot connect to the Dask scheduler at {address!r} ({reason}); start one with `dask scheduler`, "
        "check the address, or use a local scheduler"
    ) from error
