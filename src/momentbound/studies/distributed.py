"""Run grids of configurations on Dask: a local cluster by default, or an existing scheduler.

``run_sweep(configs, fn)`` evaluates ``fn(**config)`` for every configuration on a Dask
cluster and returns one pandas ``DataFrame`` row per configuration (configuration columns
first, then the flattened result). Without ``scheduler`` a ``LocalCluster`` of two workers
is started and closed again; ``scheduler="tcp://host:8786"`` uses an existing cluster (its
workers must have momentbound installed); a ``distributed.Client`` is used as it is.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from momentbound.errors import InvalidArgument
from momentbound.intervals import Enclosure
from momentbound.parallel import dask_client

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["run_sweep", "dask_map", "dask_sweep", "result_to_row", "dask_client"]


def _scalar(value: Any) -> Any:
    """A CSV-friendly scalar: Fractions to float, Enums to their value, others to str."""
    import numpy as np

    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, (int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Enum):
        return value.value
    return str(value)


def result_to_row(result: Any, *, prefix: str = "") -> dict[str, Any]:
    """Flatten one result into ``{column: scalar}``.

    Mappings and dataclasses give one column per key/field; values with ``lower`` and
    ``upper`` attributes (intervals) give ``<name>_lower`` and ``<name>_upper``; exact
    Fractions become floats; anything else becomes its string. A bare scalar gives the
    column ``value``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> result_to_row({"mean": Fraction(1, 4), "n": 3})
    {'mean': 0.25, 'n': 3}
    """
    if isinstance(result, Mapping):
        items: Iterable[tuple[str, Any]] = ((str(k), v) for k, v in result.items())
    elif dataclasses.is_dataclass(result) and not isinstance(result, type):
        items = ((f.name, getattr(result, f.name)) for f in dataclasses.fields(result))
    else:
        return {prefix + "value": _scalar(result)}
    row: dict[str, Any] = {}
    for key, value in items:
        name = prefix + key
        if isinstance(value, Enclosure):
            row[name + "_lower"] = _scalar(value.lower)
            row[name + "_upper"] = _scalar(value.upper)
        else:
            row[name] = _scalar(value)
    return row


def _timed_call(fn: Callable[..., Any], config: Mapping[str, Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn(**config)
    return value, time.perf_counter() - start


def run_sweep(
    configs: Sequence[Mapping[str, Any]],
    fn: Callable[..., Any],
    *,
    scheduler: Any = None,
    n_workers: int = 2,
    processes: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> "pd.DataFrame":
    """Evaluate ``fn(**config)`` for every configuration on Dask; one row per configuration.

    Parameters
    ----------
    configs:
        Keyword-argument mappings, e.g. ``[{"N": 10, "v": 2}, {"N": 10, "v": 5}]``. Every
        mapping must have the same keys (they become the first columns).
    fn:
        A picklable callable (module-level function) returning a mapping, a frozen dataclass
        such as ``EstimatorMoments``, or a scalar; flattened by :func:`result_to_row`.
    scheduler:
        ``None`` starts a ``LocalCluster`` of ``n_workers`` single-threaded workers (processes
        unless ``processes=False``) and closes it afterwards; a string is the address of an
        existing scheduler; a ``distributed.Client`` is used as is.
    progress:
        Called as ``progress(done, total)`` after each finished configuration.

    Returns
    -------
    pandas.DataFrame
        Configuration columns, then the result columns, then ``seconds`` (time of the call on
        its worker), in the order of ``configs``.

    Examples
    --------
    >>> def add(a, b):
    ...     return {"total": a + b}
    >>> df = run_sweep([{"a": 1, "b": 2}, {"a": 3, "b": 4}], add, processes=False)  # doctest: +SKIP
    >>> list(df["total"])  # doctest: +SKIP
    [3, 7]
    """
    import pandas as pd

    if not callable(fn):
        raise InvalidArgument(f"fn must be callable, got {type(fn).__name__}")
    configs = list(configs)
    if not configs:
        raise InvalidArgument("configs is empty; pass at least one configuration mapping")
    keys: tuple[str, ...] | None = None
    for i, c in enumerate(configs):
        if not isinstance(c, Mapping):
            raise InvalidArgument(
                f"configs[{i}] must be a mapping of keyword arguments, got {type(c).__name__}"
            )
        ck = tuple(c)
        if keys is None:
            keys = ck
        elif set(ck) != set(keys):
            raise InvalidArgument(
                f"configs[{i}] has keys {sorted(ck)}, but configs[0] has {sorted(keys)}; "
                f"every configuration must set the same parameters"
            )
    timed = dask_map(
        fn, configs, scheduler=scheduler, n_workers=n_workers, processes=processes, progress=progress, timed=True
    )
    rows = []
    for c, (value, seconds) in zip(configs, timed):
        row = {k: _scalar(v) for k, v in c.items()}
        for k, v in result_to_row(value).items():
            row[k if k not in row else f"result_{k}"] = v
        row["seconds"] = seconds if math.isfinite(seconds) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def dask_map(
    fn: Callable[..., Any],
    configs: Sequence[Mapping[str, Any]],
    *,
    scheduler: Any = None,
    n_workers: int = 2,
    processes: bool = True,
    progress: Callable[[int, int], None] | None = None,
    timed: bool = False,
    timeout: float = 5.0,
) -> list[Any]:
    """``[fn(**c) for c in configs]`` computed on Dask, in the order of ``configs``.

    The results are returned as objects (not flattened); with ``timed=True`` each entry is
    ``(result, seconds on the worker)``. ``scheduler``, ``n_workers``, ``processes`` and
    ``progress`` as in :func:`run_sweep`; an exception in a task is re-raised here. ``timeout``:
    seconds to wait for a scheduler at an address (:func:`momentbound.parallel.dask_client`).
    """
    from distributed import as_completed

    if not callable(fn):
        raise InvalidArgument(f"fn must be callable, got {type(fn).__name__}")
    configs = list(configs)
    total = len(configs)
    results: list[Any] = [None] * total
    with dask_client(scheduler, n_workers=n_workers, processes=processes, timeout=timeout) as client:
        futures = [client.submit(_timed_call, fn, dict(c), pure=False) for c in configs]
        index = {f.key: i for i, f in enumerate(futures)}
        done = 0
        try:
            for fut in as_completed(futures):
                results[index[fut.key]] = fut.result()
                done += 1
                if progress is not None:
                    progress(done, total)
        finally:
            for f in futures:
                f.release()
    return results if timed else [r[0] for r in results]


def dask_sweep(
    model: Any,
    over: str,
    values: Sequence[Any],
    *,
    N: int | None = None,
    estimator: Any = None,
    classifier: Any = None,
    backend: str = "exact",
    covariance: str = "exact",
    scheduler: Any = None,
    n_workers: int = 2,
    processes: bool = True,
    progress: Callable[[int, int], None] | None = None,
    timeout: float = 5.0,
) -> Any:
    """:func:`momentbound.estimators.sweep` with its rows computed on Dask.

    Same arguments and result (a ``SweepResult``, rows in the order of ``values``); each row
    runs as one task with its own moment engine. ``scheduler`` as in :func:`run_sweep`; ``timeout`` as
    in :func:`dask_map`.
    """
    from momentbound.estimators import SweepResult, sweep_estimators
    from momentbound.studies.tasks import estimator_task

    configs = [
        {"model": model, "N": n, "estimator": est, "classifier": classifier, "backend": backend,
         "covariance": covariance}
        for n, est in sweep_estimators(over, values, N=N, estimator=estimator)
    ]
    start = time.perf_counter()
    rows = dask_map(estimator_task, configs, scheduler=scheduler, n_workers=n_workers, processes=processes,
                    progress=progress, timeout=timeout)
    return SweepResult(over, tuple(values), tuple(rows), time.perf_counter() - start)
