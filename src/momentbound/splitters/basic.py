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
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from numbers import Real
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.intervals import Interval, Value, clip_nonneg, ratio_like

__all__ = [
    "AVERAGES",
    "CLASS_COUNT_ROUTES",
    "GE",
    "HoldOut",
    "KFold",
    "LeaveOneOut",
    "ExactParts",
    "ENGINE_TERMS",
    "ProgressPlan",
    "SimulatedParts",
    "Split",
    "Splitter",
    "SplitterDefaults",
    "folds_full_product",
    "splitter_member",
    "table_law",
    "check_average",
    "check_model_and_estimator",
    "check_size",
    "kfold_sizes",
]


#: the statistic of a cross-validation splitter: the mean of the fold error rates (what
#: ``1 - cross_val_score(...).mean()`` gives) or the pooled error (misclassified test points over ``N``)
AVERAGES = ("folds", "pooled")
#: the help of the ``average`` field of the cross-validation splitters
AVERAGE_HELP = ("Statistic: folds (the mean of the fold error rates, what cross_val_score gives) or pooled "
                "(misclassified test points over N); they differ only when v does not divide N")


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
    #: which exact sums computed it, where a splitter has several (e.g. ``"count-tables"``, ``"rows"``)
    route: str | None = None


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


@dataclass(frozen=True)
class ProgressPlan:
    """How the exact backend's progress bar counts a splitter's work.

    ``plan`` maps the keys the splitter's terms report through ``engine.progress_hook(key)`` to
    their units; ``plan=None`` (:data:`ENGINE_TERMS`) means the engine's own terms (``ge_first``,
    ``ge_second``, ``test_second`` at the split's training sizes and ``fold_pair`` at
    :meth:`SplitterDefaults.cross_folds`), planned and timed by the backend. ``memory`` (bytes) is
    shown beside the bar.
    """

    plan: dict[Any, float] | None = None
    unit: str = "exact terms"
    memory: float = 0.0


#: the default progress plan: the engine's own terms
ENGINE_TERMS = ProgressPlan()


class SplitterDefaults:
    """The optional members of the :class:`Splitter` protocol and their defaults.

    The backends ask a splitter through :func:`splitter_member`: a member the splitter defines is
    used, a missing one takes the default below. A splitter may inherit this class to show the
    defaults (the built-in ones do); it does not have to.
    """

    #: its folds keep the class proportions of the data (interval coverage simulates scikit-learn's folds)
    stratified: ClassVar[bool] = False
    #: the Monte Carlo backend draws its datasets point by point, ``(draws, N)`` arrays (its work and
    #: memory estimates count them); ``False``: fold count tables only
    pointwise: ClassVar[bool] = True
    #: bootstrap samples per simulated dataset (the Monte Carlo work and memory estimates count them)
    B: ClassVar[int | None] = None
    #: its estimate is a hold-out: the accuracy report also compares it with the GE of the classifier
    #: trained on its training part
    single_training_set: ClassVar[bool] = False
    #: ``score_folds(p, K, N, r, rng) -> (test, train, full)``: ``r`` draws of the fold test and training
    #: count tables ``(r, folds, cells)`` and the full table ``(r, cells)`` of ``N`` i.i.d. points (the
    #: Monte Carlo ``scoring=`` route); ``None``: the splitter offers no such sampler
    score_folds: ClassVar[Any] = None
    #: ``assemble`` and ``full_product`` use only the moment engine's weighted terms (``ge_first``,
    #: ``ge_second``, ``test_second``, ``fold_pair``, :func:`folds_full_product`), so every linear
    #: statistic of the confusion matrix (a loss matrix on the engine) has exact moments
    linear_metrics: ClassVar[bool] = False
    #: its statistic is a population rate of the classifier trained on all ``N`` points (GE): statistics
    #: weighted by the class priors (recall, balanced error) stay linear
    population: ClassVar[bool] = False
    #: its exact route fixes the class counts of every test set (it conditions on them), so statistics
    #: that divide by them (a test set's recall, balanced error) are linear given them and exact
    class_rates: ClassVar[bool] = False
    #: the confidence intervals of its estimate whose coverage :func:`~momentbound.estimators.coverage.interval_coverage`
    #: measures: ``"holdout"`` (binomial intervals of one test set's error count), ``"folds"`` (the naive
    #: CV interval of k fold errors), ``"splits"`` (Nadeau and Bengio's corrected interval of random
    #: splits), or ``None``
    interval_kind: ClassVar[str | None] = None

    def metric_refusal(self, metric: Any) -> str | None:
        """Why the exact route cannot weigh ``metric`` (a
        :class:`~momentbound.estimators.metrics.LinearMetric` other than the 0-1 error), or ``None`` when it
        can. Default, from the flags above: no exact route unless ``linear_metrics``; the rates weighted by
        the class priors (recall, balanced error) need ``population`` or ``class_rates``. A splitter whose
        route depends on the metric in another way overrides it; the message names the reason, the caller
        adds the fixes."""
        if not self.linear_metrics:
            return "its exact moments are the 0-1 error's own sums"
        if getattr(metric, "prior_weighted", False) and not (self.population or self.class_rates):
            return ("it divides by the random number of test points of a class, a ratio that is not linear in "
                    "the confusion counts")
        return None

    def exact_route(self, engine: Any) -> Any:
        """The splitter whose exact route computes the engine's statistic (its ``metric``): the backends
        ask it for the time and memory estimates before any work. Default: the splitter itself."""
        return self

    def cross_folds(self, N: int, covariance: str) -> tuple[int, ...]:
        """Test-set sizes of the folds whose exact cross terms (``engine.fold_pair``) ``assemble`` asks
        for; the backends check their time and memory before any work. Default: none."""
        return ()

    def estimated_seconds(self, model: Any, N: int) -> float | None:
        """Seconds of the splitter's own exact route (beyond the engine's terms); default ``None``."""
        return None

    def exact_progress(self, engine: Any, N: int, covariance: str) -> ProgressPlan | None:
        """The exact backend's progress plan (:class:`ProgressPlan`); ``None``: no progress bar with
        ``backend="exact"``. Default: the engine's own terms (:data:`ENGINE_TERMS`), right for any
        splitter whose ``assemble`` uses only ``ge_first``, ``ge_second``, ``test_second`` and ``fold_pair``."""
        return ENGINE_TERMS

    def full_product(self, engine: Any, N: int) -> Any:
        """``E[est GE_N]``, the joint term with the error of the classifier trained on all ``N`` points
        (:func:`~momentbound.estimators.estimator_accuracy`); :func:`folds_full_product` gives it for
        fold estimators. Default: none (``InvalidArgument``; the Monte Carlo backend has it for every
        splitter)."""
        raise InvalidArgument(f"{self.describe()} has no exact joint term with GE_N; "  # type: ignore[attr-defined]
                              "use backend='montecarlo'")

    def ge_terms(self, engine: Any, N: int) -> tuple[Any, Any, Any]:
        """``(E[est GE_N], E[GE_N], E[GE_N^2])``. Default: :meth:`full_product` and the engine's
        unconditional ``GE_N`` moments; splitters that can refuse a dataset condition on a split."""
        joint = splitter_member(self, "full_product")(engine, N)  # first: refuses intractable sums early
        return joint, engine.ge_first(N), engine.ge_second(N)

    def split_ge_mean(self, engine: Any, N: int) -> float | None:
        """``E[GE_N]`` given a dataset the splitter can split, as a float; ``None`` (default): the
        unconditional mean (the engine's)."""
        return None

    def approximation(self, engine: Any, N: int) -> tuple[Any, Any] | None:
        """An approximate ``(mean, variance)`` reported beside the exact ones; default ``None``."""
        return None


def folds_and_training(test: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(test, train, full)`` from the fold test tables ``(r, v, cells)`` of a partition: each
    fold is trained on the other folds."""
    full = test.sum(axis=1)
    return test, full[:, None, :] - test, full


def splitter_member(splitter: Any, name: str) -> Any:
    """The member ``name`` of a splitter, or its documented default (:class:`SplitterDefaults`)."""
    if not hasattr(SplitterDefaults, name):
        raise AttributeError(f"{name!r} is not a member of the Splitter protocol")
    try:
        return getattr(splitter, name)
    except AttributeError:
        default = getattr(SplitterDefaults, name)
        return default.__get__(splitter) if callable(default) else default


def table_law(engine: Any, N: int) -> Any:
    """The :class:`~momentbound.exact.tables.TableLaw` of an engine's model and classifier, in the
    arithmetic of the engine's backend at size ``N`` (cached on the engine)."""
    from momentbound.exact.tables import TableLaw

    backend = engine.backend
    if str(getattr(backend, "name", "")) != "exact":
        raise InvalidArgument(
            f"resubstitution, the bootstrap family and the joint terms with GE_N are summed over count tables "
            f"with backend='exact' "
            f"(or simulated with backend='montecarlo'), not {getattr(backend, 'name', backend)!r}"
        )
    mode = getattr(backend, "mode", None)
    exact = bool(engine.model.is_exact and (mode is None or mode(engine.model, N) == "rational"))
    laws = engine.__dict__.setdefault("_table_laws", {})
    if exact not in laws:
        laws[exact] = TableLaw(engine.model, engine.classifier, exact)
    return laws[exact]


def folds_full_product(engine: Any, N: int, sizes: tuple[int, ...], weights: tuple[Any, ...]) -> Any:
    """``E[est GE_N]`` of ``est = sum_i w_i HE_i`` over folds of test sizes ``sizes`` (each trained on
    the other ``N - s_i`` points): ``sum_i w_i E[HE_i GE_N]`` from sums over the full count table
    (``docs/mathematics.md``, "Accuracy against GE_N"); ``weights`` are Fractions or integers."""
    law = table_law(engine, N)
    loss = getattr(engine, "loss", None)  # a linear statistic's loss matrix (None: the 0-1 error)
    weight: dict[int, Fraction] = {}
    for s, w in zip(sizes, weights, strict=True):
        weight[s] = weight.get(s, Fraction(0)) + Fraction(w)
    total: Any = 0
    for s, w in weight.items():
        joint = law.full_product(N, s, loss)
        total = total + ratio_like(w.numerator, w.denominator, joint) * joint
    return total


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
class GE(SplitterDefaults):
    """Generalization error of the classifier trained on all ``N`` points.

    Examples
    --------
    >>> GE().split(10).train_sizes
    (10,)
    """

    name: ClassVar[str] = "ge"
    pointwise: ClassVar[bool] = False
    linear_metrics: ClassVar[bool] = True
    population: ClassVar[bool] = True

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

    def full_product(self, engine: Any, N: int) -> Any:
        return engine.ge_second(N)

    def simulate(self, sim: Any, N: int) -> Any:
        return sim.generalization(N)


@dataclass(frozen=True)
class HoldOut(SplitterDefaults):
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

    test_size: int | None = field(default=None, metadata={"help": "Test points", "flags": ('--test-size',)})
    test_fraction: float | None = field(default=None, metadata={"help": "Test share in (0, 1), rounded up like scikit-learn", "flags": ('--test-fraction',)})
    name: ClassVar[str] = "holdout"
    pointwise: ClassVar[bool] = False
    single_training_set: ClassVar[bool] = True
    linear_metrics: ClassVar[bool] = True
    interval_kind: ClassVar[str | None] = "holdout"

    def __post_init__(self) -> None:
        if (self.test_size is None) == (self.test_fraction is None):
            raise InvalidArgument(
                "HoldOut needs exactly one of test_size (a number of points) or test_fraction "
                f"(a share in (0, 1)); got {'neither' if self.test_size is None else 'both'}"
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

    def full_product(self, engine: Any, N: int) -> Any:
        return folds_full_product(engine, N, self.split(N).fold_sizes, (1,))

    def simulate(self, sim: Any, N: int) -> Any:
        (ns,) = self.split(N).fold_sizes
        return sim.holdout(N - ns, ns)

    def score_folds(self, p: np.ndarray, K: int, N: int, r: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``r`` draws of (test tables ``(r, 1, cells)``, training tables ``(r, 1, cells)``, full
        tables ``(r, cells)``) of ``N`` i.i.d. points with flat cell probabilities ``p``."""
        (ns,) = self.split(N).fold_sizes
        test = rng.multinomial(ns, p, size=(r, 1))
        train = rng.multinomial(N - ns, p, size=(r, 1))
        return test, train, (test + train)[:, 0]


#: the splitter whose exact route computes a family's rates that divide by a fold's class counts:
#: ``"kfold"`` -> ``factory(v, average)``, ``RepeatedKFold(v, 1)``, registered by
#: :mod:`momentbound.splitters.repeated` (a module above this one, which it never imports)
CLASS_COUNT_ROUTES: dict[str, Any] = {}


@dataclass(frozen=True)
class KFold(SplitterDefaults):
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

    v: int = field(metadata={"help": "Number of folds v (2 <= v <= N)", "flags": ('--folds',)})
    average: str = field(default="folds", metadata={"help": AVERAGE_HELP, "flags": ('--average',)})
    name: ClassVar[str] = "cv"
    pointwise: ClassVar[bool] = False
    linear_metrics: ClassVar[bool] = True
    #: recall, class error rates and the balanced error divide by each fold's class counts: one
    #: partition of i.i.d. points has the law of one shuffled partition, whose class-count route
    #: (``RepeatedKFold(v, 1)``) conditions on them
    class_rates: ClassVar[bool] = True
    interval_kind: ClassVar[str | None] = "folds"

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
            from momentbound.guard import cli_mode

            if cli_mode():
                raise ImpossibleSplit(f"--folds {self.v} is more folds than points (--N {n}); choose --folds <= {n}")
            raise ImpossibleSplit(
                f"KFold has more folds (v={self.v}) than points (N={n}); choose v <= {n} "
                "(v = N is leave-one-out)"
            )
        return Split(n, kfold_sizes(n, self.v))

    def describe(self) -> str:
        return f"KFold(v={self.v}{average_note(self.average)})"

    def params(self) -> dict[str, Any]:
        return {"folds": self.v, "average": self.average}

    def exact_route(self, engine: Any) -> Any:
        """``RepeatedKFold(v, 1)`` when the engine's statistic divides by a fold's class counts (recall,
        class error rate, balanced error): one partition of i.i.d. points has the law of one shuffled
        partition, and that route conditions on the class counts of every fold. Else the KFold itself."""
        if not getattr(getattr(engine, "metric", None), "prior_weighted", False):
            return self
        if getattr(engine.backend, "name", None) != "exact":
            raise InvalidArgument(
                f"metric {engine.metric.name} of {self.describe()} divides by each fold's class counts: its exact "
                f"route sums over them with backend='exact', not {getattr(engine.backend, 'name', engine.backend)!r}")
        return CLASS_COUNT_ROUTES["kfold"](self.v, self.average)

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        route = self.exact_route(engine)
        if route is not self:
            if covariance != "exact":
                raise InvalidArgument(f"metric {engine.metric.name} of {self.describe()} has the exact covariance "
                                      f"only (covariance='exact'), not covariance={covariance!r}")
            p = route.assemble(engine, N, covariance)
            return ExactParts(p.mean, p.second, p.train_size, None, p.folds, p.fold_sizes, p.fold_variance,
                              p.fold_covariance, route="class-counts")
        return _assemble_folds(engine, N, self.split(N).fold_sizes, covariance, self.average)

    def ge_terms(self, engine: Any, N: int) -> tuple[Any, Any, Any]:
        route = self.exact_route(engine)
        return super().ge_terms(engine, N) if route is self else route.ge_terms(engine, N)

    def exact_progress(self, engine: Any, N: int, covariance: str) -> ProgressPlan | None:
        route = self.exact_route(engine)
        return super().exact_progress(engine, N, covariance) if route is self else None

    def cross_folds(self, N: int, covariance: str) -> tuple[int, ...]:
        return self.split(N).fold_sizes if covariance == "exact" else ()

    def full_product(self, engine: Any, N: int) -> Any:
        sizes = self.split(N).fold_sizes
        return folds_full_product(engine, N, sizes,
                                  tuple(Fraction(*fold_weight(self.average, s, N, len(sizes))) for s in sizes))

    def simulate(self, sim: Any, N: int) -> Any:
        sizes = self.split(N).fold_sizes
        return sim.folds(sizes, sim.iid_folds(sizes), average=self.average)

    def score_folds(self, p: np.ndarray, K: int, N: int, r: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``r`` draws of (test tables ``(r, v, cells)``, training tables ``(r, v, cells)``, full
        tables ``(r, cells)``) of ``N`` i.i.d. points (scikit-learn's unshuffled folds: independent
        multinomial fold tables)."""
        test = np.stack([rng.multinomial(s, p, size=r) for s in self.split(N).fold_sizes], axis=1)
        return folds_and_training(test)


@dataclass(frozen=True)
class LeaveOneOut(SplitterDefaults):
    """Leave-one-out cross-validation, ``KFold(N)``.

    Examples
    --------
    >>> LeaveOneOut().split(4).fold_sizes
    (1, 1, 1, 1)
    """

    name: ClassVar[str] = "loo"
    pointwise: ClassVar[bool] = False
    linear_metrics: ClassVar[bool] = True

    def split(self, N: int) -> Split:
        n = check_size(N)
        if n < 2:
            raise ImpossibleSplit(f"leave-one-out needs N >= 2 points, got N={n}")
        return KFold(n).split(n)

    def describe(self) -> str:
        return "LeaveOneOut()"

    def score_folds(self, p: np.ndarray, K: int, N: int, r: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``r`` draws of (test tables ``(r, N, cells)``: one point each, training tables ``(r, N, cells)``,
        full tables ``(r, cells)``) of ``N`` i.i.d. points."""
        cells = rng.choice(p.size, size=(r, N), p=p)
        test = np.zeros((r, N, p.size), dtype=np.int64)
        np.put_along_axis(test, cells[:, :, None], 1, axis=2)
        return folds_and_training(test)

    def params(self) -> dict[str, Any]:
        return {}

    def assemble(self, engine: Any, N: int, covariance: str) -> ExactParts:
        return _assemble_folds(engine, N, self.split(N).fold_sizes, covariance)

    def cross_folds(self, N: int, covariance: str) -> tuple[int, ...]:
        return KFold(self.split(N).N).cross_folds(N, covariance)

    def full_product(self, engine: Any, N: int) -> Any:
        return KFold(self.split(N).N).full_product(engine, N)

    def simulate(self, sim: Any, N: int) -> Any:
        return KFold(self.split(N).N).simulate(sim, N)


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
