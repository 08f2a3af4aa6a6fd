"""Module-level task functions for Dask sweeps (picklable by reference on any worker)."""

from __future__ import annotations

from typing import Any

__all__ = ["estimator_task"]


def estimator_task(
    model: Any,
    N: int,
    estimator: Any,
    classifier: Any = None,
    backend: str = "exact",
    covariance: str = "exact",
) -> Any:
    """One :func:`~momentbound.estimators.estimator_moments` evaluation (a sweep row).

    Examples
    --------
    >>> from momentbound.model import independent_1d_model
    >>> from momentbound.estimators import KFold
    >>> configs = [{"model": independent_1d_model("2/5"), "N": 20, "estimator": KFold(v)} for v in (2, 5)]
    >>> from momentbound.studies import run_sweep
    >>> df = run_sweep(configs, estimator_task)  # doctest: +SKIP
    """
    from momentbound.estimators import estimator_moments

    return estimator_moments(model, N, estimator, classifier=classifier, backend=backend, covariance=covariance)
