"""Moments of GE, hold-out, v-fold CV and leave-one-out from prediction probabilities
(docs/mathematics.md).

Everything here is assembled from three prediction-probability terms of a backend
(``momentbound.probability``): ``single`` (one prediction), ``pair`` (two predictions of the
same classifier) and ``cross`` (one prediction of each of two cross-validation classifiers whose
training sets contain each other's test point). With ``w[x][y] = P[X = x, Y != y]``:

* ``E[GE_n]   = sum_{x,y} single(n, x)[y] w[x][y]``
* ``E[GE_n^2] = sum_{x,x',y,y'} pair(n, x, x')[y, y'] w[x][y] w[x'][y']``
* hold-out (``Nt + Ns = N``): ``E[HE] = E[GE_Nt]``,
  ``E[HE^2] = E[GE_Nt]/Ns + (Ns - 1)/Ns E[GE_Nt^2]`` (Lemma 1: two test points of one classifier
  err independently given its training set);
* cross-validation, folds of sizes ``s_i``: ``E[HE_i^2]`` as hold-out with ``Nt = N - s_i``, and for
  ``i != j`` the exact ``E[HE_i HE_j] = E[err(a) err(b)]`` for a test point ``a`` of fold ``i`` and
  ``b`` of fold ``j``: ``sum_{a, b} p[a] p[b] sum_{y != y_a, y' != y_b} cross(N - s_i - s_j, s_i - 1,
  s_j - 1, a, b)[y, y']``. ``CE = sum_i (s_i / N) HE_i``, so
  ``E[CE^2] = sum_i (s_i/N)^2 E[HE_i^2] + sum_{i != j} (s_i s_j / N^2) E[HE_i HE_j]``.

Arithmetic is generic: exact ``Fraction`` when the backend returns rationals, floats otherwise,
and sound interval arithmetic (:class:`Interval`) when the backend returns guaranteed intervals.
"""

from __future__ import annotations

from momentbound.errors import WorkLimitExceeded
from momentbound.guard import check, option, seconds_limit
import math

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union

import numpy as np

from momentbound.errors import InvalidArgument, InvalidModel, UnknownMethod
from momentbound.splitters.basic import (  # KFold: used by the doctests
    KFold,
    Splitter,
    check_model_and_estimator,
    splitter_member,
)
from momentbound.splitters.stratified import STRATIFIED_UNITS  # noqa: F401 - re-exported (the bar of StratifiedKFold)
from momentbound.estimators.results import MOMENT_FIELDS, ErrorMoments
from momentbound.intervals import (
    Enclosure,
    Interval,
    Value,
    clip_nonneg,
    partition_dot,
    ratio_like,
    sqrt_value,
)
from momentbound.estimators.symmetry import transpose, input_symmetries
from momentbound.model.cells import CellModel
from momentbound.progress import ProgressBar, WorkMeter, check_progress
from momentbound.probability.exact_backend import call_sample_size

__all__ = [
    "EstimatorMoments",
    "MOMENT_FIELDS",
    "Interval",
    "MomentEngine",
    "estimator_moments",
    "make_engine",
    "COVARIANCE_RULES",
]

COVARIANCE_RULES = ("exact", "paper")

#: :func:`estimator_moments` refuses backends that estimate a longer computation (seconds)
MAX_SECONDS = 120.0

#: with a progress bar on the exact backend, every planned term counts at least this (seconds)
MIN_TERM_SECONDS = 0.01



# ----------------------------------------------------------------------------- result
@dataclass(frozen=True, kw_only=True)
class EstimatorMoments(ErrorMoments):
    """Mean and variance of an error estimator from prediction probabilities (frozen result of
    :func:`estimator_moments`); the fields are those of :class:`~momentbound.estimators.results.ErrorMoments`.

    ``mean``, ``variance`` and the other moments are ``Fraction`` when computed in exact rationals,
    ``float`` otherwise, :class:`Interval` for interval backends. ``metric`` names the statistic
    (``"error"``, or a :class:`~momentbound.estimators.metrics.LinearMetric`'s name: then ``ge_mean`` and
    ``ge_variance`` are its population counterpart's).
    """

    metric: str = "error"


# ----------------------------------------------------------------------------- backend access
def resolve_backend(backend: object) -> Any:
    """The prediction-probability backend for a name or object (unknown names list every choice)."""
    if isinstance(backend, str):
        from momentbound.probability.registry import backend_names, get_backend

        if backend == "montecarlo":
            raise InvalidArgument("backend 'montecarlo' estimates the estimator's moments directly and has "
                                  "no prediction probabilities; pass it to estimator_moments")
        try:
            return get_backend(backend)
        except UnknownMethod:
            if backend.partition(":")[0] == "bound" and backend != "bound":
                raise  # the message of the cdf-method registry lists the methods
            raise UnknownMethod(
                f"unknown backend {backend!r}; choose one of {', '.join(backend_names())}, montecarlo"
            ) from None
    for attr in ("single", "pair", "cross", "kind", "name"):
        if not hasattr(backend, attr):
            raise InvalidArgument(
                f"backend must be a registered backend name (e.g. 'exact') or a PredictionBackend "
                f"object; {backend!r} has no attribute {attr!r}"
            )
    return backend


def _default_classifier() -> Any:
    from momentbound.classifiers.naive_bayes import NaiveBayes

    return NaiveBayes()


def exact_form_of(model: CellModel, classifier: Any, backend_name: str) -> tuple[CellModel, Any, Any]:
    """``(model', naive Bayes, original classifier)``: the classifier's exact form for the exact,
    bound and series backends (see :mod:`momentbound.classifiers`)."""
    from momentbound.classifiers import as_classifier

    clf = as_classifier(_default_classifier() if classifier is None else classifier, model)
    form = clf.exact_form(model)
    if form is None:
        raise InvalidArgument(
            f"classifier {clf.describe()} has no exact prediction terms, which backend {backend_name!r} needs; "
            "use backend='montecarlo' (simulation of the count tables with confidence intervals)"
        )
    return form.model, form.classifier, clf


def _as_values(result: Any) -> list[Any]:
    """A backend's array (or :class:`~momentbound.probability.ProbabilityInterval`) as nested lists
    of numbers / Intervals."""
    if isinstance(result, Enclosure):
        return result.intervals()
    arr = np.asarray(result)
    if arr.ndim == 0:
        raise InvalidArgument(
            f"a prediction backend must return an array of probabilities or a ProbabilityInterval, "
            f"got {type(result).__name__}; wrap interval ends in momentbound.probability.ProbabilityInterval"
        )
    return arr.tolist()


def _is_exact(values: Sequence[Any]) -> bool:
    first = values[0]
    while isinstance(first, list):
        first = first[0]
    if isinstance(first, Interval):
        first = first.lower
    return isinstance(first, (Fraction, int))


# ----------------------------------------------------------------------------- engine
@dataclass
class MomentEngine:
    """Caches the GE, within-fold and cross-fold moments of one (model, classifier, backend).

    :func:`estimator_moments` builds one per call; :func:`momentbound.estimators.sweep.sweep`
    shares one across a sweep, so repeated training sizes and fold-size pairs are computed once.
    """

    model: CellModel
    classifier: Any
    backend: Any
    #: the model and classifier the user asked about, when ``model``/``classifier`` are their
    #: naive Bayes form (:func:`exact_form_of`); ``None`` means the same as ``model``/``classifier``
    source_model: CellModel | None = None
    source_classifier: Any = None
    _ge1: dict[int, Value] = field(default_factory=dict, repr=False)
    _ge2: dict[int, Value] = field(default_factory=dict, repr=False)
    _joint: dict[tuple[str, int, int, int], Value] = field(default_factory=dict, repr=False)
    _pairs: dict[tuple[int, int, int], Any] = field(default_factory=dict, repr=False)
    _singles: dict[tuple[int, int], Any] = field(default_factory=dict, repr=False)
    #: receives ``fraction(key, done)`` while a costly term (a key of ``ExactBackend.work_plan``) runs
    meter: Any = field(default=None, repr=False, compare=False)
    #: the ``K x K`` loss matrix of a linear statistic (:class:`~momentbound.estimators.metrics.LinearMetric`,
    #: rows: true class); ``None``: the 0-1 error
    loss: Any = field(default=None, repr=False)
    #: cross-validation cross probabilities kept across calls and shared by :meth:`with_loss` engines;
    #: ``None``: kept for one cross term only
    _crosses: dict[Any, Any] | None = field(default=None, repr=False)
    _point2: dict[int, Value] = field(default_factory=dict, repr=False)
    #: the :class:`~momentbound.estimators.metrics.LinearMetric` behind ``loss`` when there is one: the
    #: splitters whose routes fix the class counts of their test sets (``class_rates``) divide by them
    metric: Any = field(default=None, repr=False)

    def _advance(self, key: tuple[Any, ...], done: float) -> None:
        if self.meter is not None:
            self.meter.fraction(key, done)

    def progress_hook(self, key: tuple[Any, ...]) -> Callable[[float], None] | None:
        """``on_progress(fraction)`` for the term ``key`` while a bar runs, else ``None``."""
        if self.meter is None:
            return None
        return lambda done: self._advance(key, done)

    def __post_init__(self) -> None:
        m = self.model
        # An exact backend's pair(x, x) rows sum to single(x): sum_y' E[g_x(y) g_x(y')] = E[g_x(y)].
        # When pair(x, x) is already cached (second moments are computed first), single is
        # derived from it instead of calling the backend; approximate or interval backends are
        # always asked for single directly (their marginals need not agree).
        kind = getattr(self.backend, "kind", None)
        self._single_from_pair = str(getattr(kind, "name", kind)).upper() == "EXACT"
        self._inputs = list(m.inputs())
        K = m.n_classes
        self._p = [[m.p(x, k) for k in range(K)] for x in self._inputs]
        if self.loss is None:
            # w[x][y] = P[X = x, Y != y]
            self._w_exact = [
                [sum((row[k] for k in range(K) if k != y), 0 * row[0]) for y in range(K)] for row in self._p
            ]
            self._w2_exact = self._w_exact
        else:
            # w[x][k] = sum_a P[X = x, Y = a] L[a, k]; one test point with itself: L[a, k]^2
            L = self.loss
            self._w_exact = [[sum((row[a] * L[a][k] for a in range(K)), 0 * row[0]) for k in range(K)]
                             for row in self._p]
            self._w2_exact = [[sum((row[a] * L[a][k] ** 2 for a in range(K)), 0 * row[0]) for k in range(K)]
                              for row in self._p]
        self._w_float = [[float(v) for v in row] for row in self._w_exact]
        self._w2_float = [[float(v) for v in row] for row in self._w2_exact]
        self._p_float = [[float(v) for v in row] for row in self._p]
        self._maps = input_symmetries(m)

    # weights in the arithmetic of the backend's numbers
    def _w(self, exact: bool) -> list[list[Any]]:
        return self._w_exact if exact and self.model.is_exact else self._w_float

    def _pw(self, exact: bool) -> list[list[Any]]:
        return self._p if exact and self.model.is_exact else self._p_float

    def with_loss(self, loss: Any, metric: Any = None) -> MomentEngine:
        """An engine for the linear statistic of loss matrix ``loss`` (``None``: the 0-1 error) sharing
        this engine's prediction probabilities (singles, pairs, count-table laws; and the cross
        probabilities, which this engine keeps from now on): the probabilities do not depend on the weights.
        ``metric``: the :class:`~momentbound.estimators.metrics.LinearMetric` whose loss ``loss`` is."""
        if self._crosses is None:
            self._crosses = {}
        other = MomentEngine(self.model, self.classifier, self.backend, self.source_model, self.source_classifier,
                             _pairs=self._pairs, _singles=self._singles, loss=loss, _crosses=self._crosses,
                             metric=metric)
        other.__dict__["_table_laws"] = self.__dict__.setdefault("_table_laws", {})
        return other

    # -- generalization error -------------------------------------------------------------
    def ge_first(self, n: int) -> Value:
        """``E[GE]`` of the classifier trained on ``n`` points."""
        if n not in self._ge1:
            total: Value = 0
            for ix, x in enumerate(self._inputs):
                if self._single_from_pair and self._pair_key(n, ix, ix)[0] in self._pairs:
                    rows = self._pair(n, ix, ix)
                    probs = [sum(row[1:], row[0]) for row in rows]
                else:
                    probs = self._single(n, ix)
                total = total + partition_dot(probs, self._w(_is_exact(probs))[ix])
            self._ge1[n] = total
        return self._ge1[n]

    def _single(self, n: int, ix: int) -> Any:
        rep = min(m[ix] for m in self._maps)
        key = (n, rep)
        if key not in self._singles:
            x = self._inputs[rep]
            self._singles[key] = _as_values(self.backend.single(self.model, n, x, self.classifier))
        return self._singles[key]

    def _pair_key(self, n: int, ix: int, jx: int) -> tuple[tuple[int, int, int], bool]:
        # one backend call per orbit of input pairs under the model's symmetries and swapping
        candidates = [((m[ix], m[jx]), False) for m in self._maps]
        if ix != jx:  # pair(x', x) is pair(x, x') transposed
            candidates += [((m[jx], m[ix]), True) for m in self._maps]
        rep, swapped = min(candidates)
        return (n, *rep), swapped

    def _pair(self, n: int, ix: int, jx: int) -> Any:
        key, swapped = self._pair_key(n, ix, jx)
        rep = key[1:]
        if key not in self._pairs:
            x, x2 = self._inputs[rep[0]], self._inputs[rep[1]]
            self._pairs[key] = _as_values(self.backend.pair(self.model, n, x, x2, self.classifier))
        value = self._pairs[key]
        return transpose(value) if swapped else value

    def ge_second(self, n: int) -> Value:
        """``E[GE^2]`` of the classifier trained on ``n`` points (pairs of inputs, same training set)."""
        if n not in self._ge2:
            total: Value = 0
            inputs = self._inputs
            for ix, x in enumerate(inputs):
                self._advance(("pair", n), ix / len(inputs))
                for jx in range(ix, len(inputs)):
                    probs = self._pair(n, ix, jx)
                    w = self._w(_is_exact(probs))
                    term = partition_dot(
                        [v for row in probs for v in row], [a * b for a in w[ix] for b in w[jx]]
                    )
                    # pair(x, x') is pair(x', x) transposed: count off-diagonal input pairs twice
                    total = total + (term if jx == ix else term + term)
            self._ge2[n] = total
            self._advance(("pair", n), 1.0)
        return self._ge2[n]

    def point_second(self, n: int) -> Value:
        """``E[L_i^2]`` of one test point of the classifier trained on ``n`` points: ``E[GE]`` for a
        0/1 statistic (the error, a confusion entry), else weighted by ``sum_a P[x, a] L[a, k]^2``."""
        if self._w2_exact is self._w_exact or all(v in (0, 1) for row in self.loss for v in row):
            return self.ge_first(n)
        if n not in self._point2:
            self.ge_first(n)  # fills the singles (or the pairs they come from)
            total: Value = 0
            for ix in range(len(self._inputs)):
                if self._single_from_pair and self._pair_key(n, ix, ix)[0] in self._pairs:
                    probs = [sum(row[1:], row[0]) for row in self._pair(n, ix, ix)]
                else:
                    probs = self._single(n, ix)
                exact = _is_exact(probs) and self.model.is_exact
                total = total + partition_dot(probs, (self._w2_exact if exact else self._w2_float)[ix])
            self._point2[n] = total
        return self._point2[n]

    def test_second(self, n_train: int, n_test: int) -> Value:
        """``E[HE^2]`` for ``n_test`` test points of one classifier trained on ``n_train`` (Lemma 1:
        given the training set, two test points are independent; one point with itself is
        :meth:`point_second`)."""
        m1 = self.ge_first(n_train)
        if n_test == 1:
            return self.point_second(n_train)
        m2 = self.ge_second(n_train)
        q1 = self.point_second(n_train)
        return ratio_like(1, n_test, q1) * q1 + ratio_like(n_test - 1, n_test, m1) * m2

    # -- cross-validation: two different folds --------------------------------------------
    def fold_pair(self, N: int, s: int, t: int, rule: str) -> Value:
        """``E[HE_i HE_j]`` for folds ``i != j`` of sizes ``s`` and ``t`` out of ``N`` points."""
        if s < t:
            s, t = t, s  # symmetric in the two folds
        key = (rule, N, s, t)
        if key not in self._joint:
            if rule == "exact":
                self._joint[key] = self._cross_errors(N - s - t, s, t)
            else:
                self._joint[key] = self._paper_errors(N - s - t, s, t)
        return self._joint[key]

    def _cross_errors(self, n_common: int, s: int, t: int) -> Value:
        model, K = self.model, self.model.n_classes
        piece = ("cross", n_common, s, t)
        # backends that compute every pair of test points at once (reduced-state kernels)
        # (the 0-1 error only: other statistics take the per-pair cross probabilities below)
        matrix = getattr(self.backend, "cross_error_matrix", None) if self.loss is None else None
        if matrix is not None:
            extra = {} if self.meter is None else {"on_progress": self.progress_hook(piece)}
            M = matrix(model, n_common, s - 1, t - 1, self.classifier, **extra)
            if M is not None:
                p = np.array([v for row in self._p_float for v in row])
                return float(p @ np.asarray(M, dtype=float) @ p)
        points = [
            (ix, x, y)
            for ix, x in enumerate(self._inputs)
            for y in range(K)
            if self._p[ix][y] != 0
        ]
        total: Value = 0
        seen: dict[Any, Any] = {} if self._crosses is None else self._crosses
        L = self.loss
        for a_pos, (ia, xa, ya) in enumerate(points):
            self._advance(piece, a_pos / len(points))
            start = a_pos if s == t else 0
            for ib, xb, yb in points[start:]:
                # cross(sigma a, sigma b) = cross(a, b) for every symmetry sigma of the model
                ra, rb = min((m[ia], m[ib]) for m in self._maps)
                key = (ra, ya, rb, yb) if self._crosses is None else (n_common, s, t, ra, ya, rb, yb)
                if key not in seen:
                    pa, pb = (self._inputs[ra], ya), (self._inputs[rb], yb)
                    seen[key] = _as_values(
                        self.backend.cross(model, n_common, s - 1, t - 1, pa, pb, self.classifier)
                    )
                probs = seen[key]
                pw = self._pw(_is_exact(probs))
                # P[both test points misclassified] = sum over a != y_a, b != y_b (E[L_a L_b] for a loss L)
                err = partition_dot(
                    [v for row in probs for v in row],
                    [int(a != ya and b != yb) for a in range(K) for b in range(K)] if L is None
                    else [L[ya][a] * L[yb][b] for a in range(K) for b in range(K)],
                )
                term = err * (pw[ia][ya] * pw[ib][yb])
                # equal fold sizes: cross(a, b) is cross(b, a) transposed, count a != b twice
                twice = s == t and (ib, yb) != (ia, ya)
                total = total + (term + term if twice else term)
        self._advance(piece, 1.0)
        return total

    def _paper_errors(self, n_common: int, s: int, t: int) -> Value:
        """The printed Lemma 2: ``E[GE(zeta_i) GE(zeta_j)]`` (incorrect; docs/mathematics.md,
        section 'Cross-validation')."""
        if n_common == 0:
            # 2-fold CV: the two classifiers are trained on disjoint, independent folds
            return self.ge_first(t) * self.ge_first(s)
        overlap = getattr(self.backend, "overlap", None)
        if overlap is None:
            raise InvalidArgument(
                f"covariance='paper' needs E[GE(zeta_i) GE(zeta_j)] for classifiers sharing "
                f"{n_common} training points, which backend {self.backend.name!r} does not provide "
                "(no 'overlap' term); use covariance='exact' (the correct formula) or 2-fold CV"
            )
        total: Value = 0
        inputs = self._inputs
        for ix, x in enumerate(inputs):
            for jx, x2 in enumerate(inputs):
                # fold i's classifier (trained on C + fold j, t points) predicts at x,
                # fold j's classifier (trained on C + fold i, s points) predicts at x2
                probs = _as_values(overlap(self.model, n_common, s, t, x, x2, self.classifier))
                w = self._w(_is_exact(probs))
                total = total + partition_dot(
                    [v for row in probs for v in row], [a * b for a in w[ix] for b in w[jx]]
                )
        return total


# ----------------------------------------------------------------------------- public entry
def check_arguments(model: object, estimator: object, covariance: object) -> None:
    """Refuse a bad model, estimator or covariance rule before any work (``InvalidArgument``, ``UnknownMethod``)."""
    check_model_and_estimator(model, estimator)
    if covariance not in COVARIANCE_RULES:
        raise UnknownMethod(
            f"covariance must be one of {', '.join(map(repr, COVARIANCE_RULES))}, got {covariance!r}"
        )


#: below this probability that scikit-learn can split the data, the conditional moments come with a
#: warning (the conditioning is no longer a detail of rare datasets)
CONDITIONING_WARNING = 0.95


def _warn_conditioning(estimator: Splitter, N: int, split_probability: Any) -> None:
    """Warn when the moments are conditional on an event of probability below
    :data:`CONDITIONING_WARNING`: scikit-learn raises ``ValueError`` on the other datasets."""
    if split_probability is None:
        return
    p = float(split_probability.estimate if isinstance(split_probability, Interval) else split_probability)
    if p < CONDITIONING_WARNING:
        warnings.warn(
            f"{estimator.describe()} at N={N}: scikit-learn cannot split {1 - p:.3g} of the datasets "
            f"(it raises ValueError); the moments are conditional on the split being possible "
            f"(split_probability {p:.4g}). A larger N or fewer folds (or a larger test part) makes the "
            "split possible almost surely.", UserWarning, stacklevel=4)


def _compute(
    engine: MomentEngine, N: int, estimator: Splitter, covariance: str, metric: str = "error"
) -> EstimatorMoments:
    start = time.perf_counter()
    parts = estimator.assemble(engine, N, covariance)
    _warn_conditioning(estimator, N, parts.split_probability)
    mean, second, train = parts.mean, parts.second, parts.train_size
    ge_mean = engine.ge_first(train)
    rate = engine.loss is None  # error rates lie in [0, 1]; other losses have their own range
    if isinstance(ge_mean, Interval) and rate:
        ge_mean = ge_mean.clip(0, 1)
    ge_variance = clip_nonneg(engine.ge_second(train) - ge_mean * ge_mean)
    if isinstance(mean, Interval) and rate:
        mean = mean.clip(0, 1)
    variance = clip_nonneg(second - mean * mean)
    std = sqrt_value(variance)
    mean_plus_std: Union[float, Interval]
    if isinstance(mean, Interval) and isinstance(std, Interval):
        mean_plus_std = Interval(float(mean.lower), float(mean.upper), mean.estimate) + std
    else:
        mean_plus_std = float(mean) + float(std)  # type: ignore[arg-type]
    return EstimatorMoments(
        estimator=estimator,
        N=N,
        mean=mean,
        variance=variance,
        std=std,
        mean_plus_std=mean_plus_std,
        train_size=train,
        test_size=parts.test_size,
        folds=parts.folds,
        fold_sizes=parts.fold_sizes,
        fold_variance=parts.fold_variance,
        fold_covariance=parts.fold_covariance,
        ge_mean=ge_mean,
        ge_variance=ge_variance,
        backend=str(getattr(engine.backend, "label", engine.backend.name)),
        kind=engine.backend.kind,
        covariance=covariance,
        classifier=engine.source_classifier or engine.classifier,
        seconds=time.perf_counter() - start,
        single_variance=parts.single_variance,
        repetition_covariance=parts.repetition_covariance,
        split_probability=parts.split_probability,
        route=parts.route,
        metric=metric,
    )


def check_cross_memory(engine: MomentEngine, split: Any, estimator: Splitter, covariance: str) -> None:
    """Refuse (``MemoryLimitExceeded``) before any work when the exact cross terms of k-fold or
    leave-one-out CV (computed for ``covariance="exact"`` only) would exceed the backend's
    ``max_memory``."""
    check = getattr(engine.backend, "check_cross_memory", None)
    folds = splitter_member(estimator, "cross_folds")(split.N, covariance)
    if check is not None and folds:
        check(engine.model, split.N, folds, engine.classifier)


def estimator_moments(
    model: CellModel,
    N: int,
    estimator: Splitter,
    *,
    classifier: Any = None,
    backend: Any = "exact",
    covariance: str = "exact",
    engine: MomentEngine | None = None,
    max_seconds: float | None = MAX_SECONDS,
    scoring: str | None = None,
    metric: Any = None,
    **montecarlo: Any,
) -> EstimatorMoments:
    """Mean and variance of an error estimator of a classifier, without simulation.

    Parameters
    ----------
    model:
        The data distribution (a :class:`~momentbound.CellModel`).
    N:
        Dataset size.
    estimator:
        ``GE()``, ``HoldOut(test_size=... | test_fraction=...)``, ``KFold(v)`` or ``LeaveOneOut()``.
    classifier:
        The classifier (default ``NaiveBayes()``: paper tie rule ``"random"``, ``alpha = 0``).
    backend:
        Prediction-probability backend: a registered name (``"exact"``, ``"sampling"``,
        ``"bound:<method>"``, ``"series"``) or a backend object. Its ``kind`` is the result's kind.
        ``"auto"``: the exact moments where the exact route accepts the work (its time, memory and
        table limits, checked before any work), otherwise ``"montecarlo"`` with the given Monte Carlo
        options; the result's ``backend`` says which, and ``auto_reason`` holds the exact route's refusal.
    covariance:
        ``"exact"`` (default) or ``"paper"``: the printed Lemma 2,
        ``E[HE_i HE_j] = E[GE(zeta_i) GE(zeta_j)]``, which ignores that each fold's test points
        train the other fold's classifier. It is **incorrect** (for 2-fold CV it gives a zero
        covariance where the real one is positive) and is offered only to show the difference.
    engine:
        A :class:`MomentEngine` (from :func:`make_engine`) to reuse cached terms across calls
        (sweeps). It must have been built for the same model and classifier, and ``backend`` must
        name its backend (or be ``engine.backend``); a mismatch raises ``InvalidArgument``.
    max_seconds:
        Refuse (``InvalidArgument``, naming ``backend="montecarlo"``) when the backend
        estimates a longer computation (``backend.estimated_seconds``); ``None`` disables it.
    metric:
        The statistic: ``None`` or ``"error"`` (the 0-1 error), or a
        :class:`~momentbound.estimators.metrics.LinearMetric` (a loss matrix: a confusion entry, the errors
        on one class, costs) for the splitters whose exact terms are the engine's (``GE``, ``HoldOut``,
        ``KFold``, ``LeaveOneOut``), for the count-table sums of ``Resubstitution``, the ideal ``Bootstrap()``
        and ``Point632()``, and for the class-count routes of ``StratifiedKFold``, ``RepeatedKFold`` (``KFold`` takes that of
        ``RepeatedKFold(v, 1)`` for the rates below),
        ``RepeatedStratifiedKFold``, ``ShuffleSplit`` and ``StratifiedShuffleSplit``. The rates that divide
        by class counts (recall, class error rate, balanced error) are population rates for ``GE()``,
        scikit-learn's fold scores (``recall_score``, ``1 - balanced_accuracy_score``) for the class-count
        routes, which fix the class counts of every test set (``class_rates``), and rates over the data's
        class counts for resubstitution and the ideal bootstrap. The splitter says why it refuses a metric
        (``metric_refusal``); the refusal raises
        ``InvalidArgument`` naming ``backend="montecarlo"`` and ``scoring=`` (docs/mathematics.md, "Linear
        statistics of the confusion matrix" and "Stratified cross-validation").
    **montecarlo:
        ``progress`` (``None``, ``True`` or ``False``) with ``backend="exact"``: a progress bar on
        stderr (never stdout) that advances through the costly terms (pair terms of each training
        size, cross-validation cross terms of each pair of fold sizes) in units of their estimated
        seconds, after a line with the estimated time and peak memory
        (:meth:`~momentbound.probability.exact_backend.ExactBackend.work_plan`). ``None`` (default) shows
        it when stderr is a terminal and the estimate exceeds 2 s; ``True`` always, ``False`` never.
        GE, hold-out, k-fold and leave-one-out have it; ``StratifiedKFold`` too, in units of its
        class-count work, its time measured on its first steps (``progress=True`` with another
        splitter raises ``InvalidArgument``).
        With ``backend="montecarlo"`` only: ``draws``, ``confidence``, ``rng``, ``scheduler``, ``timeout``,
        ``workers`` and ``progress`` of
        :func:`~momentbound.estimators.montecarlo.monte_carlo_moments`, which computes the
        result (a :class:`~momentbound.estimators.montecarlo.MonteCarloMoments` of
        confidence intervals).

    scoring:
        ``None`` (default): the error rate. A scikit-learn scorer name (``"accuracy"``,
        ``"balanced_accuracy"``, ``"recall"``, ``"precision"``, ``"f1"``, their ``"_macro"`` forms,
        ``"roc_auc"``, ``"roc_auc_ovr"``): the moments of ``cross_val_score(..., scoring=...).mean()``
        with ``backend="montecarlo"`` and ``KFold``, ``StratifiedKFold`` or ``HoldOut``
        (:func:`~momentbound.estimators.scoring.monte_carlo_scores`, a
        :class:`~momentbound.estimators.scoring.ScoreMoments`; options ``draws``, ``confidence``, ``rng``).

    Returns
    -------
    EstimatorMoments

    Raises
    ------
    ImpossibleSplit
        When the estimator cannot split ``N`` points (e.g. ``KFold(v)`` with ``v > N``).
    UnknownMethod
        For an unknown backend name or covariance rule.
    InvalidArgument, InvalidModel
        For arguments of the wrong type.

    Examples
    --------
    >>> from momentbound import independent_1d_model
    >>> r = estimator_moments(independent_1d_model("2/5"), 6, KFold(2))
    >>> r.mean, r.fold_covariance > 0
    (Fraction(4813, 10000), True)

    References
    ----------
    Dhurandhar & Dobra, Section 4 (Theorems 1-3); docs/mathematics.md, section 'Cross-validation'
    (exact covariance).
    """
    from momentbound.splitters.registry import as_splitter

    from momentbound.estimators.metrics import check_metric, metric_engine

    estimator = as_splitter(estimator)
    check_arguments(model, estimator, covariance)
    if isinstance(backend, str) and backend == "auto":
        return _auto_moments(model, N, estimator, classifier=classifier, covariance=covariance, engine=engine,
                             max_seconds=max_seconds, scoring=scoring, metric=metric, options=montecarlo)
    if scoring is not None:
        if metric is not None:
            raise InvalidArgument("give scoring= (a scikit-learn scorer, by simulation) or metric= (an exact linear "
                                  "statistic), not both")
        from momentbound.estimators.scoring import scored_moments

        return scored_moments(model, N, estimator, scoring, classifier=classifier, backend=backend,  # type: ignore[return-value]
                              covariance=covariance, engine=engine, max_seconds=max_seconds, options=montecarlo)
    chosen = check_metric(metric, estimator, backend)
    if isinstance(backend, str) and backend == "montecarlo":
        from momentbound.estimators.montecarlo import monte_carlo_moments

        if covariance != "exact" or engine is not None:
            raise InvalidArgument("backend='montecarlo' simulates the real procedure: use covariance='exact' "
                                  "and engine=None")
        from momentbound._validate import as_seed

        unknown = sorted(set(montecarlo) - {"draws", "confidence", "rng", "scheduler", "workers", "timeout",
                                            "progress"})
        if unknown:  # max_seconds is ours
            raise InvalidArgument(f"unknown option(s) {unknown} for backend='montecarlo'; "
                                  "it takes draws, confidence, rng, scheduler, workers, timeout and progress")
        options = dict(montecarlo, rng=as_seed(montecarlo.get("rng"), "rng"), max_seconds=max_seconds)
        return monte_carlo_moments(model, N, estimator, classifier=classifier, **options)  # type: ignore[return-value]
    progress = montecarlo.pop("progress", None)
    if montecarlo:
        raise InvalidArgument(f"options {sorted(montecarlo)} only apply to backend='montecarlo'")
    check_progress(progress)
    if engine is None:
        engine = make_engine(model, classifier=classifier, backend=backend)
    else:
        if (engine.source_model or engine.model) != model:
            raise InvalidArgument("engine was built for a different model; pass engine=None")
        if classifier is not None and classifier != (engine.source_classifier or engine.classifier):
            raise InvalidArgument("engine was built for a different classifier; pass engine=None")
        label = str(getattr(engine.backend, "label", engine.backend.name))
        same = backend is engine.backend or (
            isinstance(backend, str) and backend in (label, engine.backend.name)
        )
        if not same:
            raise InvalidArgument(
                f"engine was built for backend {label!r} but backend={backend!r} was given; pass "
                "the engine's backend (engine.backend) or engine=None"
            )
    engine = metric_engine(engine, chosen)
    with call_sample_size(estimator.split(N).N):  # one arithmetic for every term of the call
        return _exact_moments(engine, estimator, N, covariance, max_seconds, progress, chosen)


def _exact_moments(engine: MomentEngine, estimator: Splitter, N: int, covariance: str, max_seconds: float | None,
                   progress: Any, chosen: Any) -> EstimatorMoments:
    """:func:`estimator_moments` past its argument checks: the guard, then the terms."""
    split = check_work(engine, estimator, N, covariance, max_seconds)
    has_plan = getattr(engine.backend, "work_plan", None) is not None
    if progress and not has_plan:
        raise InvalidArgument(
            f"progress applies to backend='exact' and backend='montecarlo', not {engine.backend.name!r}; "
            "drop progress"
        )
    work = (None if progress is False or not has_plan
            else splitter_member(estimator, "exact_progress")(engine, split.N, covariance))
    if progress and work is None:
        raise InvalidArgument(
            f"progress with backend='exact' is available for the splitters whose terms report it (GE, HoldOut, "
            f"KFold, StratifiedKFold, LeaveOneOut, ...), not {estimator.describe()}; drop progress (or use "
            "backend='montecarlo', which has it for every splitter)"
        )
    if work is None:
        return _compute(engine, split.N, estimator, covariance, chosen.name)
    label = f"exact {estimator.describe()}, N={split.N}"
    if work.plan is not None:  # the splitter's own units; their time is measured as they run
        plan = dict(work.plan)
        total = sum(plan.values())
        bar = ProgressBar(int(total) if float(total).is_integer() else total, progress, label, work.memory,
                          unit=work.unit)
    else:
        items = _work_plan(engine, split, estimator, covariance)
        plan = {item.key: max(item.seconds, MIN_TERM_SECONDS) for item in items}
        total = sum(plan.values())
        bar = ProgressBar(total, progress, label, max((item.memory for item in items), default=0.0),
                          unit=work.unit, seconds=total)
    with bar:
        engine.meter = WorkMeter(plan, bar)
        try:
            return _compute(engine, split.N, estimator, covariance, chosen.name)
        finally:
            engine.meter = None


def auto_fallback(error: InvalidArgument, metric: Any = None) -> bool:
    """Whether ``backend="auto"`` simulates after this refusal of the exact route: the refusals of
    intractable or unavailable exact sums name ``backend='montecarlo'`` as their fix, and the simulation
    computes the statistic (the 0-1 error: ``metric`` ``None`` or the error)."""
    from momentbound.estimators.metrics import as_metric

    return "montecarlo" in str(error) and (metric is None or as_metric(metric).is_error)


def _auto_moments(model: CellModel, N: int, estimator: Splitter, *, classifier: Any, covariance: str,
                  engine: MomentEngine | None, max_seconds: float | None, scoring: str | None, metric: Any,
                  options: dict[str, Any]) -> Any:
    """``backend="auto"``: the exact moments where the exact route accepts the work (its limits are
    checked before any work), otherwise the Monte Carlo ones with ``auto_reason`` the refusal."""
    import dataclasses

    exact_options = {k: v for k, v in options.items() if k == "progress"}
    try:
        return estimator_moments(model, N, estimator, classifier=classifier, backend="exact", covariance=covariance,
                                 engine=engine, max_seconds=max_seconds, scoring=scoring, metric=metric,
                                 **exact_options)
    except InvalidArgument as error:
        if not auto_fallback(error, metric):
            raise
        reason = str(error)
    result = estimator_moments(model, N, estimator, classifier=classifier, backend="montecarlo",
                               covariance=covariance, max_seconds=max_seconds, scoring=scoring, metric=metric,
                               **options)
    if "auto_reason" in getattr(type(result), "__dataclass_fields__", {}):
        result = dataclasses.replace(result, auto_reason=reason)
    return result


def check_work(engine: MomentEngine, estimator: Splitter, N: int, covariance: str,
               max_seconds: float | None) -> Any:
    """Refuse before any work what the backend or the splitter's own route estimates longer than
    ``max_seconds`` (``WorkLimitExceeded``/``InvalidArgument`` naming ``backend="montecarlo"``) or larger
    than the backend's memory; returns the split."""
    split = estimator.split(N)
    route = splitter_member(estimator, "exact_route")(engine)  # the splitter whose route computes the statistic
    memory = getattr(route, "estimated_memory", None)  # its own route's caches and worker processes, before its dry run
    if memory is not None and getattr(engine.backend, "name", None) == "exact":
        check(f"the exact {estimator.describe()} at N={split.N}", memory=memory(engine.model, split.N),
              fix=f"use {option('backend', 'montecarlo')} or a smaller {option('N')}")
    estimate = getattr(engine.backend, "estimated_seconds", None)
    max_seconds = seconds_limit(max_seconds)
    if max_seconds is not None and estimate is not None:
        n = max(split.train_sizes)
        seconds = estimate(engine.model, n, engine.classifier)
        if seconds > max_seconds:
            raise WorkLimitExceeded(
                f"the {engine.backend.name} backend would take about {seconds:.2g} s at training size {n} "
                f"(limit {max_seconds:g} s, {option('max_seconds', int(max_seconds) if float(max_seconds).is_integer() else max_seconds)}); use {option('backend', 'montecarlo')} (conditional Monte Carlo, "
                f"confidence intervals), a smaller N, or {option('max_seconds', None)} to run it anyway"
            )
        cross = getattr(engine.backend, "estimated_cross_seconds", None)
        cross_folds = splitter_member(route, "cross_folds")(split.N, covariance)
        if cross is not None and cross_folds:
            seconds = cross(engine.model, split.N, cross_folds, engine.classifier)
            if seconds > max_seconds:
                cost = "need more memory than their limit" if math.isinf(seconds) else f"would take about {seconds:.2g} s"
                raise WorkLimitExceeded(
                    f"the {engine.backend.name} backend's cross-validation cross terms {cost} "
                    f"(limit {max_seconds:g} s, {option('max_seconds', int(max_seconds) if float(max_seconds).is_integer() else max_seconds)}); use {option('backend', 'montecarlo')} (conditional Monte "
                    f"Carlo, confidence intervals), a smaller N, or {option('max_seconds', None)} to run it anyway"
                )
    if max_seconds is not None and getattr(engine.backend, "name", None) == "exact":
        from momentbound.exact.stratified import AtLeast, dry_run_budget

        with dry_run_budget(max_seconds):  # a dry run of the route stops once past the limit
            seconds = splitter_member(route, "estimated_seconds")(engine.model, split.N)  # its own route
        if seconds is not None and seconds > max_seconds:
            about = "more than" if isinstance(seconds, AtLeast) else "about"
            raise InvalidArgument(
                f"the exact {estimator.describe()} at N={split.N} would take {about} {seconds:.2g} s (limit "
                f"{max_seconds:g} s); use {option('backend', 'montecarlo')} (conditional Monte Carlo, confidence "
                f"intervals), a smaller {option('N')}, or {option('max_seconds', None)} to run it anyway"
            )
    check_cross_memory(engine, split, route, covariance)  # before any work
    return split


def _work_plan(engine: MomentEngine, split: Any, estimator: Splitter, covariance: str) -> list[Any]:
    """The backend's work items of the terms this call computes (those the engine holds left out)."""
    folds = splitter_member(estimator, "cross_folds")(split.N, covariance)
    items = []
    for item in engine.backend.work_plan(engine.model, split.N, split.train_sizes, folds, engine.classifier):
        kind, *rest = item.key
        cached = rest[0] in engine._ge2 if kind == "pair" else ("exact", split.N, *rest[1:]) in engine._joint
        if not cached:
            items.append(item)
    return items


def make_engine(model: CellModel, *, classifier: Any = None, backend: Any = "exact") -> MomentEngine:
    """A :class:`MomentEngine` for repeated :func:`estimator_moments` calls (shared caches).

    The engine works on the classifier's naive Bayes form (:func:`exact_form_of`); classifiers
    without one (scikit-learn estimators) need ``backend="montecarlo"``.
    """
    if not isinstance(model, CellModel):
        raise InvalidModel(f"model must be a momentbound.CellModel, got {type(model).__name__}")
    resolved = resolve_backend(backend)
    form_model, form_clf, clf = exact_form_of(model, classifier, str(resolved.name))
    same = form_model == model and form_clf == clf
    return MomentEngine(
        form_model, form_clf, resolved, None if same else model, None if same else clf
    )
