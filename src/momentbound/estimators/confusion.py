"""Exact moments of the confusion matrix of an estimator and of its population counterpart
(docs/mathematics.md, "Linear statistics of the confusion matrix").

Entry ``(a, b)`` of the estimator's confusion matrix is the splitter's average of the indicators
``[y_i = a, prediction_i = b]`` over its test points (hold-out: over its ``Ns`` test points;
cross-validation: the pooled count over ``N``, or the mean of the fold rates; the pooled counts are
``N`` times the pooled rates); its ``GE_N`` counterpart is the population rate
``P[Y = a, g_N(X) = b]`` of the classifier trained on all ``N`` points. Every entry is a linear
statistic (:class:`~momentbound.estimators.metrics.LinearMetric.confusion_entry`), so its moments come
from the moment engine with the entry's weights; the second moment ``Q(A, B) = E[S_A S_B]`` is a
symmetric bilinear form of the loss matrices and the cross moments follow from
``Q(A, B) = (Q(A + B, A + B) - Q(A, A) - Q(B, B)) / 2``, each term a statistic with a 0/1 loss
(no signed weights). Every engine shares one set of prediction probabilities.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from momentbound.estimators.from_predictions import (
    MAX_SECONDS,
    check_arguments,
    check_work,
    make_engine,
)
from momentbound.estimators.metrics import LinearMetric, check_metric
from momentbound.splitters.basic import Splitter, splitter_member

__all__ = ["ConfusionMoments", "confusion_moments"]


@dataclass(frozen=True, kw_only=True)
class ConfusionMoments:
    """Moments of the ``K x K`` confusion matrix of an estimator (frozen result of :func:`confusion_moments`).

    Entries are ``Fraction`` for exact models with the exact backend, ``float`` otherwise. Index
    ``a * K + b`` of the covariance matrices is entry ``(a, b)`` (true class ``a``, prediction ``b``).

    Attributes
    ----------
    estimator, N, n_classes:
        What was analysed.
    mean:
        ``E[C[a][b]]``, the estimator's entries as shares of its test points (``K x K``).
    covariance:
        ``Cov(C[a][b], C[c][d])`` (``K^2 x K^2``).
    ge_mean, ge_covariance:
        The same for the population rates ``P[Y = a, g_N(X) = b]`` of the classifier trained on all
        ``N`` points.
    covariance_with_ge:
        ``Cov(C[a][b], P[Y = a, g_N(X) = b])`` for each entry (``K x K``); ``None`` for backends other
        than ``"exact"`` (the joint term is a sum over count tables).
    backend, kind, seconds:
        The prediction backend, the kind of the numbers and the wall-clock time.
    """

    estimator: Splitter
    N: int
    n_classes: int
    mean: tuple[tuple[Any, ...], ...]
    covariance: tuple[tuple[Any, ...], ...]
    ge_mean: tuple[tuple[Any, ...], ...]
    ge_covariance: tuple[tuple[Any, ...], ...]
    covariance_with_ge: tuple[tuple[Any, ...], ...] | None
    backend: str
    kind: Any
    seconds: float

    @property
    def variance(self) -> tuple[tuple[Any, ...], ...]:
        """``Var(C[a][b])`` (``K x K``), the diagonal of :attr:`covariance`."""
        K = self.n_classes
        return tuple(tuple(self.covariance[a * K + b][a * K + b] for b in range(K)) for a in range(K))


def _entry_loss(K: int, cells: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The 0/1 loss matrix that counts the confusion entries of flat indices ``cells``."""
    return tuple(tuple(int(a * K + k in cells) for k in range(K)) for a in range(K))


def confusion_moments(
    model: Any,
    N: int,
    estimator: Any,
    *,
    classifier: Any = None,
    backend: Any = "exact",
    covariance: str = "exact",
    max_seconds: float | None = MAX_SECONDS,
) -> ConfusionMoments:
    """Means and covariances of the pooled confusion matrix of an estimator, exactly.

    Parameters
    ----------
    model, N, estimator, classifier, backend, covariance, max_seconds:
        As :func:`~momentbound.estimators.estimator_moments`; the splitters whose exact terms are the
        engine's: ``GE()``, ``HoldOut(...)``, ``KFold(v)`` (``average="pooled"`` for the pooled matrix
        over ``N``), ``LeaveOneOut()``, ``Resubstitution()`` (the full-data classifier on its own points),
        and the class-count routes of ``StratifiedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``
        and ``StratifiedShuffleSplit`` (``backend="exact"``; conditional on a dataset scikit-learn can
        split). Others raise ``InvalidArgument`` naming ``backend="montecarlo"``.

    Returns
    -------
    ConfusionMoments

    Examples
    --------
    >>> from momentbound import independent_1d_model
    >>> from momentbound.estimators import KFold, estimator_moments
    >>> model = independent_1d_model("2/5")
    >>> r = confusion_moments(model, 6, KFold(2))
    >>> r.mean[0][1] + r.mean[1][0] == estimator_moments(model, 6, KFold(2)).mean
    True
    """
    from momentbound.splitters.registry import as_splitter

    start = time.perf_counter()
    estimator = as_splitter(estimator)
    check_arguments(model, estimator, covariance)
    K = model.n_classes
    check_metric(LinearMetric.confusion_entry(0, 1), estimator, backend)  # refuses before any work
    engine = make_engine(model, classifier=classifier, backend=backend)
    split = check_work(engine, estimator, N, covariance, max_seconds)
    N = split.N
    cells = K * K
    with_ge = str(getattr(engine.backend, "name", "")) == "exact"
    mean: dict[int, Any] = {}
    second: dict[tuple[int, int], Any] = {}
    ge1: dict[int, Any] = {}
    ge2: dict[tuple[int, int], Any] = {}
    joint: dict[int, Any] = {}
    ge_split: dict[int, Any] = {}
    for i in range(cells):
        e = engine.with_loss(_entry_loss(K, (i,)))
        parts = estimator.assemble(e, N, covariance)
        mean[i], second[i, i] = parts.mean, parts.second
        ge1[i], ge2[i, i] = e.ge_first(N), e.ge_second(N)
        if with_ge:  # splitters that can refuse a dataset give the joint term given a split, with its E[GE_N]
            joint[i], ge_split[i], _ = splitter_member(estimator, "ge_terms")(e, N)
    for i in range(cells):
        for j in range(i + 1, cells):
            e = engine.with_loss(_entry_loss(K, (i, j)))
            both = estimator.assemble(e, N, covariance).second
            second[i, j] = second[j, i] = (both - second[i, i] - second[j, j]) / 2
            g = e.ge_second(N)
            ge2[i, j] = ge2[j, i] = (g - ge2[i, i] - ge2[j, j]) / 2

    def matrix(values: dict[int, Any]) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(values[a * K + b] for b in range(K)) for a in range(K))

    def cov(m2: dict[tuple[int, int], Any], m1: dict[int, Any]) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(m2[i, j] - m1[i] * m1[j] for j in range(cells)) for i in range(cells))

    return ConfusionMoments(
        estimator=estimator,
        N=N,
        n_classes=K,
        mean=matrix(mean),
        covariance=cov(second, mean),
        ge_mean=matrix(ge1),
        ge_covariance=cov(ge2, ge1),
        covariance_with_ge=matrix({i: joint[i] - mean[i] * ge_split[i] for i in range(cells)}) if with_ge else None,
        backend=str(getattr(engine.backend, "label", engine.backend.name)),
        kind=engine.backend.kind,
        seconds=time.perf_counter() - start,
    )

