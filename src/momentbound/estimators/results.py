"""The result type shared by every estimator-moment computation: :class:`ErrorMoments`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from momentbound.intervals import Interval, Value
from momentbound.splitters.basic import Splitter

__all__ = ["ErrorMoments", "MOMENT_FIELDS"]

#: the numeric fields of :class:`ErrorMoments`, in table order
MOMENT_FIELDS = (
    "mean",
    "variance",
    "std",
    "mean_plus_std",
    "fold_variance",
    "fold_covariance",
    "ge_mean",
    "ge_variance",
)


@dataclass(frozen=True, kw_only=True)
class ErrorMoments:
    """Mean and variance of an error estimator: the fields every estimator-moment result has.

    Subclassed by :class:`~momentbound.estimators.EstimatorMoments` (moments from prediction
    probabilities, :func:`~momentbound.estimators.estimator_moments`) and
    :class:`~momentbound.estimators.MonteCarloMoments` (simulation,
    :func:`~momentbound.estimators.monte_carlo_moments`); fields are keyword-only.

    Attributes
    ----------
    estimator:
        The estimator object (``GE()``, ``HoldOut(...)``, ``KFold(v)``, ``LeaveOneOut()``).
    N:
        Dataset size.
    mean, variance:
        ``E`` and ``Var`` of the estimator. ``Fraction`` when computed in exact rationals, ``float``
        otherwise, :class:`Interval` for interval backends.
    std, mean_plus_std:
        ``sqrt(variance)`` and ``mean + std`` (floats, or intervals).
    train_size:
        Training size of the classifier(s): ``N`` for GE, ``N - Ns`` for hold-out, and for
        cross-validation ``N - N // v`` (the training size of the folds with ``N // v`` points).
    test_size:
        Hold-out test size ``Ns``; ``None`` otherwise.
    folds, fold_sizes:
        Number of folds and their sizes (cross-validation); ``None`` / ``()`` otherwise.
    fold_variance:
        ``Var(HE_i)`` (mean over folds when their sizes differ); ``None`` unless cross-validation.
    fold_covariance:
        ``Cov(HE_i, HE_j)``, ``i != j`` (mean over ordered pairs of folds); ``None`` unless CV.
    ge_mean, ge_variance:
        Moments of the generalization error of the classifier trained on ``train_size`` points.
    backend, kind:
        Name of the prediction-probability backend and what its numbers are (``Kind``).
    covariance:
        ``"exact"`` or ``"paper"`` (the printed, incorrect Lemma 2; docs/mathematics.md, section
        'Cross-validation').
    classifier:
        The classifier whose errors are analysed.
    seconds:
        Wall-clock time of the computation (cached sub-results make later sweep rows faster).
    single_variance, repetition_covariance:
        Repeated splitters: ``Var`` of one partition's estimate, and the covariance of the estimates of
        two independent partitions of the same data (what repetition cannot remove); else ``None``.
    split_probability:
        Splitters scikit-learn may refuse (stratified): the probability that it can split the data; the
        moments are conditional on it. ``None`` for splitters that split every dataset.
    route:
        Which exact sums computed the moments where a splitter has several: ``"count-tables"`` (every
        count table), ``"rows"`` or ``"class-states"`` (sums over sufficient statistics,
        :mod:`momentbound.exact.resub_states`), ``"row-halves"`` (.632+ on pairs of half tables,
        :mod:`momentbound.exact.row_halves`); ``None`` otherwise.
    auto_reason:
        ``backend="auto"`` only: why the exact sums were not used (their refusal, before any work) when
        it simulated (``backend`` is then ``"montecarlo"``); ``None`` when they were.
    """

    estimator: Splitter
    N: int
    mean: Value
    variance: Value
    std: Union[float, Interval]
    mean_plus_std: Union[float, Interval]
    train_size: int
    test_size: int | None
    folds: int | None
    fold_sizes: tuple[int, ...]
    fold_variance: Value | None
    fold_covariance: Value | None
    ge_mean: Value
    ge_variance: Value
    backend: str
    kind: Any
    covariance: str
    classifier: Any
    seconds: float
    single_variance: Value | None = None
    repetition_covariance: Value | None = None
    split_probability: Value | None = None
    route: str | None = None
    auto_reason: str | None = None

    @property
    def is_interval(self) -> bool:
        return isinstance(self.mean, Interval)

    def as_row(self) -> dict[str, Any]:
        """A flat row (estimator name, sizes and every moment as float or lower/upper floats)."""
        row: dict[str, Any] = {
            "estimator": self.estimator.name,
            "N": self.N,
            "train_size": self.train_size,
            "test_size": self.test_size,
            "folds": self.folds,
        }
        for name in MOMENT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, Interval):
                row[f"{name}_lower"] = float(value.lower)
                row[f"{name}_upper"] = float(value.upper)
            else:
                row[name] = None if value is None else float(value)
        row.update(
            {
                "backend": self.backend,
                "kind": getattr(self.kind, "value", str(self.kind)),
                "covariance": self.covariance,
                "seconds": self.seconds,
            }
        )
        if self.route is not None:
            row["route"] = self.route
        if self.auto_reason is not None:
            row["auto_reason"] = self.auto_reason
        return row
