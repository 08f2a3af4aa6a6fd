"""The error estimators (splitters) whose moments momentbound computes: the plug-in point.

An estimator is a small frozen, validated dataclass following the :class:`Splitter` protocol:
it knows how it splits ``N`` points (:meth:`Splitter.split`), how its moments are assembled from a
moment engine's exact terms (:meth:`Splitter.assemble`), and how its data are simulated for the
Monte Carlo backend (:meth:`Splitter.simulate`). The backends ask the object; adding a splitter is
one module and one line in :data:`SPLITTERS` (``docs/extending.md``). The ones here:

* :class:`GE` -- the generalization error of the classifier trained on all ``N`` points;
* :class:`HoldOut` -- train on ``N - Ns`` points, test on ``Ns`` (``test_size`` or ``test_fraction``,
  the latter rounded up like scikit-learn's ``ShuffleSplit``);
* :class:`KFold` -- ``v``-fold cross-validation with scikit-learn's fold sizes (the first ``N % v``
  folds have ``N // v + 1`` points, the others ``N // v``);
* :class:`LeaveOneOut` -- ``KFold(N)``.

``split(N)`` validates the estimator against a dataset size and returns a :class:`Split` describing
the training and test sizes; impossible splits raise :class:`~momentbound.errors.ImpossibleSplit`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.intervals import Interval, Value, clip_nonneg, ratio_like

__all__ = [
    "AVERAGES",
    "GE",
    "HoldOut",
    "KFold",
    "LeaveOneOut",
    "Estimator",
    "ExactParts",
    "SimulatedParts",
    "Split",
    "Splitter",
    "check_average",
    "check_model_and_estimator",
    "check_size",
    "kfold_sizes",
]


#: the statistic of a cross-validation splitter: the mean of the fold error rates (what
#: ``1 - cross_val_score(...).mean()`` gives) or the pooled error (misclassified test points over ``N``)
AVERAGES = ("folds", "pooled")


def check_average(value: object) -> str:
    """Validate ``average``: ``"folds"`` (the mean of the fold errors) or ``"pooled"``."""
    if value not in AVERAGES:
        raise InvalidArgument(
            f"average must be 'folds' (the mean of the fold error rates, as cross_val_score gives) or 'pooled' "
            f"(misclassified test points over N), got {value!r}"
        )
    return str(value)


def fold_weight(average: str, s: int, N: int, v: int) -> tuple[int, int]:
    """The weight ``w_i`` of a fold of ``s`` test points in ``CE = sum_i w_i HE_i`` as a fraction
    ``(numerator, denominator)``: ``s / N`` pooled, ``1 / v`` for the mean of the fold errors."""
    return (s, N) if average == "pooled" else (1, v)


def check_size(N: object, *, name: str = "N", minimum: int = 1) -> int:
    """Validate a dataset size: an integer (not a bool) at least ``minimum``."""
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer number of data points, got {N!r}")
    n = int(N)
    if n < minimum:
        raise InvalidArgument(f"{name} must be at least {minimum}, got {n}")
    return n


@dataclass(frozen=True)
class Split:
    """How an estimator splits ``N`` points.

    Attributes
    ----------
    N:
        Dataset size.
    fold_sizes:
        Test-set sizes, one per classifier that is trained (``()`` for :class:`GE`, one entry for
        :class:`HoldOut`, ``v`` entries for cross-validation, largest first as in scikit-learn).
    """

    N: int
    fold_sizes: tuple[int, ...]

    @property
    def train_sizes(self) -> tuple[int, ...]:
        """Training size of each classifier (``(N,)`` for :class:`GE`)."""
        if not self.fold_sizes:
            return (self.N,)
        return tuple(self.N - s for s in self.fold_sizes)

    def size_counts(self) -> dict[int, int]:
        """Distinct fold sizes and how many folds have each size."""
        out: dict[int, int] = {}
        for s in self.fold_sizes:
            out[s] = out.get(s, 0) + 1
        return out


def kfold_sizes(N: int, v: int) -> tuple[int, ...]:
    """scikit-learn's fold sizes: the first ``N % v`` folds have ``N // v + 1`` points, the others ``N // v``."""
    q, r = divmod(N, v)
    return tuple([q + 1] * r + [q] * (v - r))


@dataclass(frozen=True)
class ExactParts:
    """What a splitter assembles from a moment engine: ``E[est]``, ``E[est^2]`` and the split.

    ``train_size`` is the training size whose GE moments are reported beside the estimator's.
    Repeated splitters add the variance of one partition and the covariance of two;
    ``split_probability`` is the probability that scikit-learn can split the data (the moments
    are conditional on it) for splitters that can refuse a dataset.
    """

    mean: Value
    second: Value
    train_size: int
    test_size: int | None = None
    folds: int | None = None
    fold_sizes: tuple[int, ...] = ()
    fold_variance: Value | None = None
    fold_covariance: Value | None = None
    single_variance: Value | None = None
    repetition_covariance: Value | None = None
    split_probability: Value | None = None


@dataclass(frozen=True)
class SimulatedParts:
    """What a splitter's ``simulate`` returns (the Monte Carlo counterpart of :class:`ExactParts`):
    interval moments and the split."""

    mean: Interval
    variance: Interval
    ge_mean: Interval
    ge_variance: Interval
    train_size: int
    test_size: int | None = None
    folds: int | None = None
    fold_sizes: tuple[int, ...] = ()
    fold_variance: Interval | None = None
    fold_covariance: Interval | None = None
    single_variance: Interval | None = None
    repetition_covariance: Interval | None = None


@runtime_checkable
class Splitter(Protocol):
    """What momentbound needs from an error estimator (see the module docstring).

    ``assemble(engine, N, covariance)`` gets a
    :class:`~momentbound.estimators.from_predictions.MomentEngine` (exact, bound and series backends) and
    returns :class:`ExactParts`; ``simulate(sim, N)`` gets a
    :class:`~momentbound.estimators.simulation.Simulation` (Monte Carlo backend) and returns its
    parts. A splitter without exact terms raises ``InvalidArgument`` in ``assemble`` naming
    ``backend="montecarlo"``.
    """

    name: ClassVar[str]

    def describe(self) -> str: ...

    def params(self) -> dict[str, Any]: ...

    def split(self, N: int) -> Split: ...

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts: ...

    def simulate(self, sim: Any, N: int) -> Any: ...


def average_note(average: str) -> str:
    """``describe()`` names the statistic only when it is not the default mean of the fold errors."""
    return "" if average == "folds" else f", average={average!r}"


def _assemble_folds(engine: Any, N: int, sizes: tuple[int, ...], covariance: str,
                    average: str = "pooled") -> ExactParts:
    """Exact moments of ``CE = sum_i w_i HE_i`` (``w_i = s_i / N`` pooled, ``1 / v`` for the mean of
    the fold errors) for independent random folds of sizes ``s_i``
    (``docs/mathematics.md``, "Cross-validation"): fold variances from Lemma 1, fold covariances from
    the engine's exact cross term (or the printed Lemma 2 with ``covariance="paper"``)."""
    counts: dict[int, int] = {}
    for s in sizes:
        counts[s] = counts.get(s, 0) + 1
    v = len(sizes)
    for s in sorted(counts):  # second moments first: their pair(x, x) terms give the first moments
        engine.ge_second(N - s)
    m = {s: engine.ge_first(N - s) for s in counts}
    q = {s: engine.test_second(N - s, s) for s in counts}
    w = {s: fold_weight(average, s, N, v) for s in counts}
    mean = sum((c * ratio_like(*w[s], m[s]) * m[s] for s, c in counts.items()), 0)
    second = sum((c * ratio_like(w[s][0] ** 2, w[s][1] ** 2, q[s]) * q[s] for s, c in counts.items()), 0)
    fold_variance = sum((c * clip_nonneg(q[s] - m[s] * m[s]) for s, c in counts.items()), 0)
    fold_variance = fold_variance * ratio_like(1, v, fold_variance)
    cov_sum: Value = 0
    for s, cs in counts.items():
        for t, ct in counts.items():
            n_pairs = cs * (cs - 1) if s == t else cs * ct
            if n_pairs == 0:
                continue
            joint = engine.fold_pair(N, s, t, covariance)
            second = second + n_pairs * ratio_like(w[s][0] * w[t][0], w[s][1] * w[t][1], joint) * joint
            cov_sum = cov_sum + n_pairs * (joint - m[s] * m[t])
    fold_covariance = cov_sum * ratio_like(1, v * (v - 1), cov_sum)
    return ExactParts(mean, second, N - N // v, None, v, sizes, fold_variance, fold_covariance)


def _only_exact_covariance(splitter: Any, covariance: str) -> None:
    if covariance != "exact":
        raise InvalidArgument(
            f"covariance={covariance!r} (the printed Lemma 2) only concerns cross-validation; "
            f"{splitter.describe()} has no fold covariance: use covariance='exact'"
        )


@dataclass(frozen=True)
class GE:
    """Generalization error of the classifier trained on all ``N`` points.

    Examples
    --------
    >>> GE().split(10).train_sizes
    (10,)
    """

    name: ClassVar[str] = "ge"

    def split(self, N: int) -> Split:
        return Split(check_size(N), ())

    def describe(self) -> str:
        return "GE"

    def params(self) -> dict[str, Any]:
        return {}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        _only_exact_covariance(self, covariance)
        second = engine.ge_second(N)
        return ExactParts(engine.ge_first(N), second, N)

    def simulate(self, sim: Any, N: int) -> Any:
        return sim.generalization(N)


@dataclass(frozen=True)
class HoldOut:
    """Hold-out error: train on ``N - Ns`` points, count errors on the other ``Ns``.

    Parameters
    ----------
    test_size:
        Number of test points ``Ns`` (``1 <= Ns <= N - 1``).
    test_fraction:
        Share of test points in ``(0, 1)``; ``Ns = ceil(test_fraction * N)`` as in scikit-learn's
        ``ShuffleSplit``. Give exactly one of the two.

    Examples
    --------
    >>> HoldOut(test_fraction=0.25).split(10).fold_sizes
    (3,)
    """

    test_size: int | None = None
    test_fraction: float | None = None
    name: ClassVar[str] = "holdout"

    def __post_init__(self) -> None:
        if (self.test_size is None) == (self.test_fraction is None):
            raise InvalidArgument(
                "HoldOut needs exactly one of test_size (a number of points) or test_fraction "
                f"(a share in (0, 1)); got test_size={self.test_size!r}, "
                f"test_fraction={self.test_fraction!r}"
            )
        if self.test_size is not None:
            if isinstance(self.test_size, bool) or not isinstance(self.test_size, (int, np.integer)):
                raise InvalidArgument(
                    f"test_size must be an integer number of test points, got {self.test_size!r}"
                )
            object.__setattr__(self, "test_size", int(self.test_size))
            if self.test_size < 1:
                raise ImpossibleSplit(
                    f"test_size must be at least 1 test point, got {self.test_size}"
                )
        else:
            f = self.test_fraction
            if isinstance(f, bool) or not isinstance(f, (Real, Decimal, np.integer, np.floating)):
                raise InvalidArgument(f"test_fraction must be a number in (0, 1), got {f!r}")
            if not (math.isfinite(float(f)) and 0 < float(f) < 1):
                raise ImpossibleSplit(
                    f"test_fraction must be strictly between 0 and 1, got {f!r}; "
                    "use test_size for a number of points"
                )
            object.__setattr__(self, "test_fraction", float(f))

    def test_size_for(self, N: int) -> int:
        """The number of test points for a dataset of ``N`` points."""
        if self.test_size is not None:
            return self.test_size
        # the float product rounded up, as scikit-learn's ShuffleSplit does (same quirks)
        return math.ceil(float(self.test_fraction or 0.0) * N)

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"hold-out needs N >= 2 (one training and one test point), got N={n}")
        ns = self.test_size_for(n)
        if ns >= n:
            raise ImpossibleSplit(
                f"hold-out test size {ns} leaves no training point out of N={n}; "
                f"choose test_size <= {n - 1}"
            )
        return Split(n, (ns,))

    def describe(self) -> str:
        if self.test_size is not None:
            return f"HoldOut(test_size={self.test_size})"
        return f"HoldOut(test_fraction={self.test_fraction:g})"

    def params(self) -> dict[str, Any]:
        return {"test_size": self.test_size, "test_fraction": self.test_fraction}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        _only_exact_covariance(self, covariance)
        (ns,) = self.split(N).fold_sizes
        train = N - ns
        engine.ge_second(train)
        return ExactParts(engine.ge_first(train), engine.test_second(train, ns), train, ns)

    def simulate(self, sim: Any, N: int) -> Any:
        (ns,) = self.split(N).fold_sizes
        return sim.holdout(N - ns, ns)


@dataclass(frozen=True)
class KFold:
    """``v``-fold cross-validation with scikit-learn's fold sizes.

    Parameters
    ----------
    v:
        Number of folds, ``2 <= v <= N``. When ``v`` does not divide ``N`` the first ``N % v``
        folds have ``N // v + 1`` points and the others ``N // v``.
    average:
        ``"folds"`` (default): the mean of the ``v`` fold error rates, ``1 - cross_val_score(...).mean()``;
        ``"pooled"``: misclassified test points over ``N`` (the paper's ``CE``). They differ only when
        the fold sizes differ (``docs/mathematics.md``, "Cross-validation").

    Examples
    --------
    >>> KFold(3).split(10).fold_sizes
    (4, 3, 3)
    """

    v: int
    average: str = "folds"
    name: ClassVar[str] = "cv"

    def __post_init__(self) -> None:
        if isinstance(self.v, bool) or not isinstance(self.v, (int, np.integer)):
            raise InvalidArgument(f"KFold v must be an integer number of folds, got {self.v!r}")
        object.__setattr__(self, "v", int(self.v))
        check_average(self.average)
        if self.v < 2:
            raise ImpossibleSplit(f"KFold needs at least 2 folds, got v={self.v}")

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"cross-validation needs N >= 2 points, got N={n}")
        if self.v > n:
            raise ImpossibleSplit(
                f"KFold has more folds (v={self.v}) than points (N={n}); choose v <= {n} "
                "(v = N is leave-one-out)"
            )
        return Split(n, kfold_sizes(n, self.v))

    def describe(self) -> str:
        return f"KFold(v={self.v}{average_note(self.average)})"

    def params(self) -> dict[str, Any]:
        return {"folds": self.v, "average": self.average}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        return _assemble_folds(engine, N, self.split(N).fold_sizes, covariance, self.average)

    def simulate(self, sim: Any, N: int) -> Any:
        sizes = self.split(N).fold_sizes
        return sim.folds(sizes, sim.iid_folds(sizes), average=self.average)


@dataclass(frozen=True)
class LeaveOneOut:
    """Leave-one-out cross-validation, ``KFold(N)``.

    Examples
    --------
    >>> LeaveOneOut().split(4).fold_sizes
    (1, 1, 1, 1)
    """

    name: ClassVar[str] = "loo"

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"leave-one-out needs N >= 2 points, got N={n}")
        return KFold(n).split(n)

    def describe(self) -> str:
        return "LeaveOneOut()"

    def params(self) -> dict[str, Any]:
        return {}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        return _assemble_folds(engine, N, self.split(N).fold_sizes, covariance)

    def simulate(self, sim: Any, N: int) -> Any:
        return KFold(self.split(N).N).simulate(sim, N)


#: an error estimator: any object following the :class:`Splitter` protocol
Estimator = Splitter


def check_model_and_estimator(model: object, estimator: object) -> None:
    """Raise a clear error unless ``model`` is a CellModel and ``estimator`` a :class:`Splitter`."""
    from momentbound.errors import InvalidModel
    from momentbound.model.cells import CellModel

    if not isinstance(model, CellModel):
        raise InvalidModel(
            f"model must be a momentbound.CellModel, got {type(model).__name__}; build one with "
            "CellModel(arities, cells)"
        )
    if not isinstance(estimator, Splitter):
        raise InvalidArgument(
            f"estimator must be a splitter such as GE(), HoldOut(...), KFold(v), StratifiedKFold(v), "
            f"LeaveOneOut() (or a scikit-learn splitter, see momentbound.estimators.as_splitter), got {estimator!r}"
        )
