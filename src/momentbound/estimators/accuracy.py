"""How well an error estimate tracks ``GE_N``, the error of the classifier trained on all ``N`` points.

For an estimator ``est`` computed on a dataset of ``N`` points, :func:`estimator_accuracy` reports
``E[GE_N]``, the bias ``E[est - GE_N]``, ``Var(est - GE_N) = Var(est) + Var(GE_N) - 2 Cov(est, GE_N)``,
``RMS = sqrt(E[(est - GE_N)^2])``, ``Cov(est, GE_N)`` and the correlation (``docs/mathematics.md``,
"Accuracy against GE_N"). Hold-out is also compared with the GE of the classifier trained on its
training part.

Exact (``backend="exact"``, naive Bayes and its exact forms: histogram and majority rules): the
estimate's moments come from the splitter, ``E[GE_N^2]`` from the moment engine, and the joint
term ``E[est GE_N]`` from sums over count tables:

* hold-out and cross-validation: ``E[HE_i GE_N] = E[err(a) GE_N]`` for a test point ``a`` of fold
  ``i`` (size ``s``): with ``T'`` the training table (``N - s`` points) and ``F'`` the other ``s - 1``
  test points, ``sum_c p_c E[e_c(T') E[GE(T' + delta_c + F') | T']]``;
* resubstitution and the ideal bootstrap family: functions of the full table, summed over it;
* ``StratifiedKFold`` and ``RepeatedStratifiedKFold``: given the class counts the fold compositions are
  fixed, and ``E[HE_i GE_N]`` pairs a test point judged by the fold's training set with a fresh point
  judged by that set plus the fold (:func:`momentbound.exact.stratified.stratified_ge_joint`); the
  moments of ``GE_N`` are then conditional on a dataset scikit-learn can split, as the estimate's are;
* ``ShuffleSplit`` and ``StratifiedShuffleSplit``: the same term for one split, summed over the law of
  the test composition (:func:`momentbound.exact.shuffle_split.shuffle_split_ge_joint`).

Monte Carlo (``backend="montecarlo"``, every classifier and splitter): the simulation keeps, per
draw, a conditional mean of the estimate and the exact ``GE_N`` of the full-data table (the sum of
the fold tables), and every quantity gets a confidence interval (delta-method intervals as in
:mod:`momentbound.estimators.montecarlo`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Union

import numpy as np

from momentbound.errors import InvalidArgument, UnknownMethod
from momentbound.splitters.basic import Splitter, check_model_and_estimator, splitter_member
from momentbound.intervals import Interval
from momentbound.estimators.simulation import correlation_interval
from momentbound.model.cells import CellModel

__all__ = ["Approximation", "EstimatorAccuracy", "estimator_accuracy", "ACCURACY_BACKENDS", "ACCURACY_FIELDS"]

ACCURACY_BACKENDS = ("exact", "montecarlo", "auto")

#: the numeric fields of :class:`EstimatorAccuracy`, in table order
ACCURACY_FIELDS = (
    "mean",
    "variance",
    "ge_full_mean",
    "ge_full_variance",
    "bias",
    "deviation_variance",
    "mean_square",
    "rms",
    "covariance_with_ge",
    "correlation_with_ge",
)

Value = Union[Fraction, float, Interval]


@dataclass(frozen=True)
class Approximation:
    """A value that is neither exact nor a confidence interval: ``kind`` is ``"approximation"``.

    Attributes
    ----------
    mean, variance:
        The approximate moments.
    method:
        How they were obtained (``"delta"``: first-order delta method around the exact means).
    """

    mean: float
    variance: float
    method: str = "delta"
    kind: str = "approximation"


@dataclass(frozen=True)
class EstimatorAccuracy:
    """Accuracy of an error estimator against ``GE_N`` (frozen result of :func:`estimator_accuracy`).

    Numbers are ``Fraction`` (exact rational arithmetic), ``float`` (exact backend in floating
    point) or :class:`~momentbound.estimators.Interval` (Monte Carlo: confidence interval with the
    point ``estimate``). ``rms`` and ``correlation_with_ge`` are square roots: floats (or intervals).

    Attributes
    ----------
    estimator, N, classifier:
        What was analysed.
    mean, variance:
        ``E[est]`` and ``Var(est)``.
    ge_full_mean, ge_full_variance:
        ``E[GE_N]`` and ``Var(GE_N)``.
    bias, deviation_variance, mean_square, rms:
        ``E[est - GE_N]``, ``Var(est - GE_N)``, ``E[(est - GE_N)^2]`` and its square root.
    covariance_with_ge, correlation_with_ge:
        ``Cov(est, GE_N)`` and the correlation (``None`` when a variance is 0).
    train_size:
        Hold-out: the training size ``N - Ns``; ``None`` otherwise.
    ge_train_mean, ge_train_variance, bias_train, deviation_variance_train, rms_train,
    covariance_with_train_ge, correlation_with_train_ge:
        Hold-out only: the same against the GE of the classifier trained on the training part.
    approximation:
        ``Point632Plus(B=None)`` only: the delta-method approximation of its mean and variance
        (:class:`Approximation`, never mixed with the exact numbers).
    backend, kind:
        ``"exact"`` / ``"montecarlo"`` and ``Kind.EXACT`` / ``Kind.ESTIMATE``.
    auto_reason:
        ``backend="auto"``: the exact route's refusal when it simulated instead (``backend`` is then
        ``"montecarlo"``), else ``None``.
    route:
        Exact only, splitters with several exact sums: which one computed the numbers
        (``"count-tables"``, ``"rows"``, ``"class-states"``; :class:`~momentbound.estimators.results.ErrorMoments`).
    draws, confidence:
        Monte Carlo only: number of draws and interval level.
    seconds:
        Wall-clock time.
    metric:
        The statistic (``"error"`` or a :class:`~momentbound.estimators.metrics.LinearMetric`'s name):
        ``GE_N`` is then its population counterpart for the classifier trained on all ``N`` points.
    """

    estimator: Splitter
    N: int
    mean: Value
    variance: Value
    ge_full_mean: Value
    ge_full_variance: Value
    bias: Value
    deviation_variance: Value
    mean_square: Value
    rms: Union[float, Interval]
    covariance_with_ge: Value
    correlation_with_ge: Union[float, Interval, None]
    backend: str
    kind: Any
    classifier: Any
    seconds: float
    train_size: int | None = None
    ge_train_mean: Value | None = None
    ge_train_variance: Value | None = None
    bias_train: Value | None = None
    deviation_variance_train: Value | None = None
    rms_train: Union[float, Interval, None] = None
    covariance_with_train_ge: Value | None = None
    correlation_with_train_ge: Union[float, Interval, None] = None
    approximation: Approximation | None = None
    draws: int | None = None
    confidence: float | None = None
    metric: str = "error"
    route: str | None = None
    auto_reason: str | None = None

    def as_row(self) -> dict[str, Any]:
        """A flat row: names, then every number as a float (intervals as ``_lower``/``_upper``)."""
        row: dict[str, Any] = {"estimator": self.estimator.name, "N": self.N}
        names = ACCURACY_FIELDS + (
            "ge_train_mean", "ge_train_variance", "bias_train", "deviation_variance_train", "rms_train",
            "covariance_with_train_ge", "correlation_with_train_ge",
        )
        for name in names:
            value = getattr(self, name)
            if isinstance(value, Interval):
                row[name] = float(value.estimate if value.estimate is not None else value.lower)
                row[f"{name}_lower"] = float(value.lower)
                row[f"{name}_upper"] = float(value.upper)
            else:
                row[name] = None if value is None else float(value)
        if self.approximation is not None:
            row["approximation_mean"] = self.approximation.mean
            row["approximation_variance"] = self.approximation.variance
            row["approximation_kind"] = self.approximation.kind
        row.update({"backend": self.backend, "kind": getattr(self.kind, "value", str(self.kind)), "seconds": self.seconds})
        if self.route is not None:
            row["route"] = self.route
        if self.auto_reason is not None:
            row["auto_reason"] = self.auto_reason
        return row


# ----------------------------------------------------------------------------- exact
def full_product(engine: Any, N: int, estimator: Splitter) -> Any:
    """``E[est GE_N]`` from exact terms (see the module docstring): the splitter's ``full_product``."""
    return splitter_member(estimator, "full_product")(engine, N)


def _sqrt(x: Any) -> float:
    return math.sqrt(max(float(x), 0.0))


def _corr(cov: Any, a: Any, b: Any) -> float | None:
    if float(a) <= 0 or float(b) <= 0:
        return None
    return max(-1.0, min(1.0, float(cov) / math.sqrt(float(a) * float(b))))


def _exact(model: CellModel, N: int, estimator: Splitter, classifier: Any, engine: Any,
           metric: Any = None) -> dict[str, Any]:
    from momentbound.estimators.from_predictions import check_cross_memory, make_engine
    from momentbound.estimators.metrics import metric_engine

    if engine is None:
        engine = make_engine(model, classifier=classifier, backend="exact")
    if metric is not None:
        engine = metric_engine(engine, metric)
    check_cross_memory(engine, estimator.split(N), estimator, "exact")  # before any work
    # splitters that can refuse a dataset condition the GE_N moments on a split; the joint term comes
    # first: it refuses intractable table sums before other work
    joint, g1, g2 = splitter_member(estimator, "ge_terms")(engine, N)
    parts = estimator.assemble(engine, N, "exact")
    m, s2 = parts.mean, parts.second
    var = s2 - m * m
    gvar = g2 - g1 * g1
    cov = joint - m * g1
    msq = s2 - 2 * joint + g2
    out: dict[str, Any] = {
        "mean": m,
        "variance": var,
        "ge_full_mean": g1,
        "ge_full_variance": gvar,
        "bias": m - g1,
        "deviation_variance": var + gvar - 2 * cov,
        "mean_square": msq,
        "rms": _sqrt(msq),
        "covariance_with_ge": cov,
        "correlation_with_ge": _corr(cov, var, gvar),
        "classifier": engine.source_classifier or engine.classifier,
        "route": parts.route,
    }
    if splitter_member(estimator, "single_training_set"):
        train = parts.train_size
        t1, t2 = engine.ge_first(train), engine.ge_second(train)
        tvar = t2 - t1 * t1
        tcov = t2 - m * t1  # given its training table, HE has mean GE_train
        out.update(
            train_size=train,
            ge_train_mean=t1,
            ge_train_variance=tvar,
            bias_train=m - t1,
            deviation_variance_train=var + tvar - 2 * tcov,
            rms_train=_sqrt(s2 - t2),
            covariance_with_train_ge=tcov,
            correlation_with_train_ge=_corr(tcov, var, tvar),
        )
    approximation = splitter_member(estimator, "approximation")(engine, N)
    if approximation is not None:
        out["approximation"] = Approximation(*approximation)
    return out


# ----------------------------------------------------------------------------- Monte Carlo
def _montecarlo(
    model: CellModel, N: int, estimator: Splitter, classifier: Any, draws: int, confidence: float,
    rng: np.random.Generator,
) -> dict[str, Any]:
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.estimators.montecarlo import Simulation, TableModel, check_arguments

    clf = as_classifier(NaiveBayes() if classifier is None else classifier, model)
    check_arguments(model, N, estimator, clf, draws, confidence, rng)
    seeded = getattr(clf, "seeded", None)
    if callable(seeded):  # an unset random_state is drawn from rng (see monte_carlo_moments)
        clf = seeded(rng)
    form = clf.exact_form(model)
    m = TableModel(model, clf) if form is None else TableModel(form.model, form.classifier)
    sim = Simulation(m, int(draws), float(confidence), rng, track=True)
    parts = estimator.simulate(sim, N)
    rec = sim.record
    if rec is None:
        raise InvalidArgument(f"{estimator.describe()} does not report per-draw values for the accuracy simulation")
    st = sim.stats
    R = int(draws)
    G, c = rec.full, rec.cond
    dc, dG = c - c.mean(), G - G.mean()
    bias = st.mean(c - G, -1.0, 1.0)
    b = float(bias.estimate)
    d_dev = rec.var_d + dG**2 - 2 * dc * dG
    dev_var = st.combined(rec.var_c, d_dev)
    msq = st.combined(rec.var_c + 2 * b * (c - G) - b * b, d_dev)
    cov = st.combined(np.zeros(R), dc * dG, nonneg=False)
    gvar = st.variance(G)
    out: dict[str, Any] = {
        "mean": parts.mean,
        "variance": parts.variance,
        "ge_full_mean": st.mean(G),
        "ge_full_variance": gvar,
        "bias": bias,
        "deviation_variance": dev_var,
        "mean_square": msq,
        "rms": _sqrt_interval(msq),
        "covariance_with_ge": cov,
        "correlation_with_ge": correlation_interval(cov, parts.variance, gvar),
        "classifier": clf,
        "draws": R,
        "confidence": float(confidence),
    }
    if rec.train is not None:
        T = rec.train
        dT = T - T.mean()
        tbias = st.mean(c - T, -1.0, 1.0)
        tb = float(tbias.estimate)
        d_tr = rec.var_d + dT**2 - 2 * dc * dT
        tcov = st.combined(np.zeros(R), dc * dT, nonneg=False)
        tvar = st.variance(T)
        out.update(
            train_size=parts.train_size,
            ge_train_mean=st.mean(T),
            ge_train_variance=tvar,
            bias_train=tbias,
            deviation_variance_train=st.combined(rec.var_c, d_tr),
            rms_train=_sqrt_interval(st.combined(rec.var_c + 2 * tb * (c - T) - tb * tb, d_tr)),
            covariance_with_train_ge=tcov,
            correlation_with_train_ge=correlation_interval(tcov, parts.variance, tvar),
        )
    return out


def _sqrt_interval(v: Interval) -> Interval:
    return Interval(math.sqrt(max(v.lower, 0.0)), math.sqrt(max(v.upper, 0.0)), math.sqrt(max(v.estimate, 0.0)))


# ----------------------------------------------------------------------------- public entry
def estimator_accuracy(
    model: CellModel,
    N: int,
    estimator: Splitter,
    *,
    classifier: Any = None,
    backend: str = "exact",
    draws: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator | None = None,
    engine: Any = None,
    scoring: str | None = None,
    metric: Any = None,
) -> EstimatorAccuracy:
    """Bias, variance of the deviation, RMS and correlation of an error estimate against ``GE_N``.

    Parameters
    ----------
    model:
        The data distribution (:class:`~momentbound.model.cells.CellModel`).
    N:
        Dataset size; ``GE_N`` is the error of the classifier trained on all ``N`` points.
    estimator:
        Any splitter: ``GE()``, ``HoldOut(...)``, ``KFold(v)``, ``LeaveOneOut()``, ``Resubstitution()``,
        ``Bootstrap(B)``, ``Point632(B)``, ``Point632Plus(B)``, ``OutOfBag(B)``, the stratified and
        repeated splitters.
    classifier:
        ``NaiveBayes()`` by default; any classifier plug-in.
    backend:
        ``"exact"``: naive Bayes and its exact forms, the splitters with exact joint terms (GE,
        hold-out, ``KFold``, leave-one-out, ``StratifiedKFold``, ``RepeatedStratifiedKFold``,
        ``ShuffleSplit``, ``StratifiedShuffleSplit``, resubstitution, ideal bootstrap, .632, .632+);
        ``"montecarlo"``: everything, with confidence intervals. ``"auto"``: exact where the exact
        route accepts the work (its limits are checked before any work), otherwise Monte Carlo (``rng``
        required); ``backend`` of the result says which, ``auto_reason`` the exact route's refusal.
    draws, confidence, rng:
        Monte Carlo only: number of draws, interval level, and the ``numpy.random.Generator``
        (required for ``"montecarlo"``).
    engine:
        Exact only: a :class:`~momentbound.estimators.MomentEngine` to share caches across calls.
    scoring:
        ``None`` (default): the error rate against ``GE_N``. A scikit-learn scorer name: the mean
        fold score of ``cross_val_score`` against the population value of that metric for the
        classifier trained on all ``N`` points (``backend="montecarlo"``; a
        :class:`~momentbound.estimators.scoring.ScoreMoments` with the same accuracy fields).
    metric:
        Exact only: a :class:`~momentbound.estimators.metrics.LinearMetric` (``None``: the 0-1 error), compared
        with its population counterpart ``GE_N`` (e.g. a confusion entry against ``P[Y = a, g_N(X) = b]``),
        for ``GE``, ``HoldOut``, ``KFold``, ``LeaveOneOut``, and with the rates that divide by class counts
        (recall, balanced error: scikit-learn's fold scores against the population rates) for
        ``StratifiedKFold``, ``RepeatedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``,
        ``StratifiedShuffleSplit``, and (rates over the data's class counts) ``Resubstitution``, the ideal
        ``Bootstrap()`` and ``Point632()``; others raise ``InvalidArgument`` with the splitter's reason.

    Returns
    -------
    EstimatorAccuracy

    Examples
    --------
    >>> from momentbound import CellModel
    >>> from momentbound.estimators import KFold
    >>> acc = estimator_accuracy(CellModel((2,), ["1/5", "3/10", "1/5", "3/10"]), 6, KFold(2))
    >>> acc.bias == acc.mean - acc.ge_full_mean, acc.mean_square == acc.bias**2 + acc.deviation_variance
    (True, True)

    References
    ----------
    Braga-Neto & Dougherty, Pattern Recognition 38 (2005) and Pattern Recognition Letters 31 (2010).
    """
    from momentbound.estimators.metrics import check_metric

    start = time.perf_counter()
    check_model_and_estimator(model, estimator)
    if scoring is not None:
        if metric is not None:
            raise InvalidArgument("give scoring= (a scikit-learn scorer, by simulation) or metric= (an exact linear "
                                  "statistic), not both")
        from momentbound.estimators.scoring import scored_moments

        return scored_moments(model, N, estimator, scoring, classifier=classifier,  # type: ignore[return-value]
                              backend="montecarlo" if backend == "auto" else backend,  # scorers are simulated
                              engine=engine, options={"draws": draws, "confidence": confidence, "rng": rng})
    if backend not in ACCURACY_BACKENDS:
        raise UnknownMethod(f"backend must be one of {', '.join(map(repr, ACCURACY_BACKENDS))}, got {backend!r}")
    reason, fields = None, None
    if backend == "auto":  # exact where its limits (checked before any work) accept it
        from momentbound.estimators.from_predictions import auto_fallback

        if rng is None:
            raise InvalidArgument("backend='auto' may simulate: pass rng=np.random.default_rng(seed)")
        try:
            split = estimator.split(N)
            fields = _exact(model, split.N, estimator, classifier, engine, check_metric(metric, estimator, "exact"))
            backend = "exact"
        except InvalidArgument as error:
            if not auto_fallback(error, metric):
                raise
            reason, backend = str(error), "montecarlo"
    chosen = check_metric(metric, estimator, backend)
    from momentbound.bounds.result import Kind

    if fields is not None:
        kind = Kind.EXACT
    elif backend == "montecarlo":
        if rng is None:
            raise InvalidArgument("backend='montecarlo' needs rng=np.random.default_rng(seed)")
        split = estimator.split(N)
        fields = _montecarlo(model, split.N, estimator, classifier, draws, confidence, rng)
        kind = Kind.ESTIMATE
    else:
        split = estimator.split(N)
        fields = _exact(model, split.N, estimator, classifier, engine, chosen)
        kind = Kind.EXACT
    return EstimatorAccuracy(
        estimator=estimator, N=split.N, backend=backend, kind=kind, seconds=time.perf_counter() - start,
        metric=chosen.name, auto_reason=reason, **fields
    )
