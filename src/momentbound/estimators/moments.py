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

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union

import numpy as np

from momentbound.errors import InvalidArgument, InvalidModel, UnknownMethod
from momentbound.splitters.basic import (  # KFold: used by the doctests
    Estimator,
    KFold,
    check_model_and_estimator,
)
from momentbound.intervals import (
    Interval,
    Value,
    clip_nonneg,
    partition_dot,
    ratio_like,
    sqrt_value,
)
from momentbound.estimators.symmetry import transpose, input_symmetries
from momentbound.model.cells import CellModel

__all__ = [
    "EstimatorMoments",
    "Interval",
    "MomentEngine",
    "estimator_moments",
    "make_engine",
    "COVARIANCE_RULES",
]

COVARIANCE_RULES = ("exact", "paper")

#: :func:`estimator_moments` refuses backends that estimate a longer computation (seconds)
MAX_SECONDS = 120.0


# ----------------------------------------------------------------------------- result
#: the numeric fields of :class:`EstimatorMoments`, in table order
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


@dataclass(frozen=True)
class EstimatorMoments:
    """Mean and variance of an error estimator (frozen result of :func:`estimator_moments`).

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
    """

    estimator: Estimator
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
        return row


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

    clf = as_classifier(_default_classifier() if classifier is None else classifier)
    form = clf.exact_form(model)
    if form is None:
        raise InvalidArgument(
            f"classifier {clf.describe()} has no exact prediction terms, which backend {backend_name!r} needs; "
            "use backend='montecarlo' (simulation of the count tables with confidence intervals)"
        )
    return form.model, form.classifier, clf


def _as_values(result: Any) -> list[Any]:
    """A backend's array (or ProbabilityInterval) as nested lists of numbers / Intervals."""
    lower = getattr(result, "lower", None)
    upper = getattr(result, "upper", None)
    if lower is not None and upper is not None:
        lo = np.asarray(lower).tolist()
        hi = np.asarray(upper).tolist()
        estimate = getattr(result, "estimate", None)
        est = None if estimate is None else np.asarray(estimate).tolist()
        return _zip_intervals(lo, hi, est)
    return np.asarray(result).tolist()


def _zip_intervals(lo: Any, hi: Any, est: Any) -> Any:
    if isinstance(lo, list):
        ests = est if est is not None else [None] * len(lo)
        return [_zip_intervals(a, b, e) for a, b, e in zip(lo, hi, ests)]
    return Interval(lo, hi, est)


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
        # w[x][y] = P[X = x, Y != y]
        self._w_exact = [
            [sum((row[k] for k in range(K) if k != y), 0 * row[0]) for y in range(K)] for row in self._p
        ]
        self._w_float = [[float(v) for v in row] for row in self._w_exact]
        self._p_float = [[float(v) for v in row] for row in self._p]
        self._maps = input_symmetries(m)

    # weights in the arithmetic of the backend's numbers
    def _w(self, exact: bool) -> list[list[Any]]:
        return self._w_exact if exact and self.model.is_exact else self._w_float

    def _pw(self, exact: bool) -> list[list[Any]]:
        return self._p if exact and self.model.is_exact else self._p_float

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
                for jx in range(ix, len(inputs)):
                    probs = self._pair(n, ix, jx)
                    w = self._w(_is_exact(probs))
                    term = partition_dot(
                        [v for row in probs for v in row], [a * b for a in w[ix] for b in w[jx]]
                    )
                    # pair(x, x') is pair(x', x) transposed: count off-diagonal input pairs twice
                    total = total + (term if jx == ix else term + term)
            self._ge2[n] = total
        return self._ge2[n]

    def test_second(self, n_train: int, n_test: int) -> Value:
        """``E[HE^2]`` for ``n_test`` test points of one classifier trained on ``n_train`` (Lemma 1)."""
        m1 = self.ge_first(n_train)
        if n_test == 1:
            return m1
        m2 = self.ge_second(n_train)
        return ratio_like(1, n_test, m1) * m1 + ratio_like(n_test - 1, n_test, m1) * m2

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
        points = [
            (ix, x, y)
            for ix, x in enumerate(self._inputs)
            for y in range(K)
            if self._p[ix][y] != 0
        ]
        total: Value = 0
        seen: dict[tuple[int, int, int, int], Any] = {}
        for a_pos, (ia, xa, ya) in enumerate(points):
            start = a_pos if s == t else 0
            for ib, xb, yb in points[start:]:
                # cross(sigma a, sigma b) = cross(a, b) for every symmetry sigma of the model
                ra, rb = min((m[ia], m[ib]) for m in self._maps)
                key = (ra, ya, rb, yb)
                if key not in seen:
                    pa, pb = (self._inputs[ra], ya), (self._inputs[rb], yb)
                    seen[key] = _as_values(
                        self.backend.cross(model, n_common, s - 1, t - 1, pa, pb, self.classifier)
                    )
                probs = seen[key]
                pw = self._pw(_is_exact(probs))
                # P[both test points misclassified] = sum over a != y_a, b != y_b
                err = partition_dot(
                    [v for row in probs for v in row],
                    [int(a != ya and b != yb) for a in range(K) for b in range(K)],
                )
                term = err * (pw[ia][ya] * pw[ib][yb])
                # equal fold sizes: cross(a, b) is cross(b, a) transposed, count a != b twice
                twice = s == t and (ib, yb) != (ia, ya)
                total = total + (term + term if twice else term)
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
def _check_args(model: object, estimator: object, covariance: object) -> None:
    check_model_and_estimator(model, estimator)
    if covariance not in COVARIANCE_RULES:
        raise UnknownMethod(
            f"covariance must be one of {', '.join(map(repr, COVARIANCE_RULES))}, got {covariance!r}"
        )


def _compute(
    engine: MomentEngine, N: int, estimator: Estimator, covariance: str
) -> EstimatorMoments:
    start = time.perf_counter()
    parts = estimator.assemble(engine, N, covariance)
    mean, second, train = parts.mean, parts.second, parts.train_size
    ge_mean = engine.ge_first(train)
    if isinstance(ge_mean, Interval):  # error rates lie in [0, 1]
        ge_mean = ge_mean.clip(0, 1)
    ge_variance = clip_nonneg(engine.ge_second(train) - ge_mean * ge_mean)
    if isinstance(mean, Interval):
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
    )


def estimator_moments(
    model: CellModel,
    N: int,
    estimator: Estimator,
    *,
    classifier: Any = None,
    backend: Any = "exact",
    covariance: str = "exact",
    engine: MomentEngine | None = None,
    max_seconds: float | None = MAX_SECONDS,
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
    **montecarlo:
        With ``backend="montecarlo"`` only: ``draws``, ``confidence``, ``rng`` and ``progress`` of
        :func:`~momentbound.estimators.montecarlo.monte_carlo_moments`, which computes the
        result (a :class:`~momentbound.estimators.montecarlo.MonteCarloMoments` of
        confidence intervals).

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

    estimator = as_splitter(estimator)
    _check_args(model, estimator, covariance)
    if isinstance(backend, str) and backend == "montecarlo":
        from momentbound.estimators.montecarlo import monte_carlo_moments

        if covariance != "exact" or engine is not None:
            raise InvalidArgument("backend='montecarlo' simulates the real procedure: use covariance='exact' "
                                  "and engine=None")
        from momentbound._validate import as_seed

        unknown = sorted(set(montecarlo) - {"draws", "confidence", "rng", "progress"})  # max_seconds is ours
        if unknown:
            raise InvalidArgument(f"unknown option(s) {unknown} for backend='montecarlo'; "
                                  "it takes draws, confidence, rng and progress")
        options = dict(montecarlo, rng=as_seed(montecarlo.get("rng"), "rng"), max_seconds=max_seconds)
        return monte_carlo_moments(model, N, estimator, classifier=classifier, **options)  # type: ignore[return-value]
    if montecarlo:
        raise InvalidArgument(f"options {sorted(montecarlo)} only apply to backend='montecarlo'")
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
    split = estimator.split(N)
    estimate = getattr(engine.backend, "estimated_seconds", None)
    if max_seconds is not None and estimate is not None:
        n = max(split.train_sizes)
        seconds = estimate(engine.model, n, engine.classifier)
        if seconds > max_seconds:
            raise InvalidArgument(
                f"the {engine.backend.name} backend would take about {seconds:.2g} s at training size {n} "
                f"(limit {max_seconds:g} s); use backend='montecarlo' (conditional Monte Carlo, "
                f"confidence intervals), a smaller N, or max_seconds=None to run it anyway"
            )
    return _compute(engine, split.N, estimator, covariance)


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
