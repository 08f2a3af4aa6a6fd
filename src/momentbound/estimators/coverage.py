"""Coverage of the confidence intervals users compute from hold-out, cross-validation and
``ShuffleSplit`` (docs/estimators.md, section 'Confidence intervals and their coverage').

Three intervals, at nominal level ``1 - a`` (``z`` the normal, ``t`` the Student quantile):

* ``clopper-pearson`` and ``wald``: the binomial interval of the hold-out error rate ``k / Ns``.
  Given the training table ``T`` the ``Ns`` test errors are ``Binomial(Ns, GE(T))``, so the
  probability that the interval covers ``GE(T)`` (or the constant ``E[GE_N]``) given ``T`` is an
  exact binomial sum; it is averaged over training tables exactly (enumerating every table) when
  there are few, else by Monte Carlo over training tables.
* ``naive-cv``: ``CE +- z s / sqrt(v)`` with ``s`` the standard deviation of the ``v`` fold error
  rates of ``KFold(v)`` or ``StratifiedKFold(v)`` (Bates, Hastie and Tibshirani, JASA 2024): Monte
  Carlo. ``StratifiedKFold`` draws only datasets scikit-learn can split, so its coverage and
  ``E[GE_N]`` are conditional on a split.
* ``nadeau-bengio``: the corrected resampled t interval of ``ShuffleSplit(J, n_test)`` or
  ``StratifiedShuffleSplit(J, n_test)``, ``mean +- t_{J-1} sqrt((1/J + n_test/n_train) s^2)`` with
  ``s^2`` the sample variance of the ``J`` split errors (Nadeau and Bengio, Machine Learning 2003):
  Monte Carlo over datasets of points (for the stratified splitter, datasets scikit-learn can split).

Targets: ``ge-full`` (``GE_N``, the error of the classifier trained on all ``N`` points),
``expected-ge-full`` (the constant ``E[GE_N]``, computed exactly) and, for hold-out,
``ge-train`` (the error of the classifier trained on the training part).

Other statistics (``scoring=`` a scikit-learn scorer, ``metric=`` a linear statistic of the confusion
matrix): the naive CV and Nadeau-Bengio intervals built on the fold (split) values of that statistic,
``cross_val_score(..., scoring=...)``'s scores, against the population value of the same metric for
the classifier trained on all ``N`` points (target ``ge-full``), by Monte Carlo over datasets whose
every fold has a value (the fraction without is reported as ``undefined``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist
from typing import Any

import numpy as np

from momentbound import guard
from momentbound.errors import InvalidArgument, WorkLimitExceeded
from momentbound.estimators.montecarlo import TableModel, check_arguments
from momentbound.intervals import Interval
from momentbound.model.cells import CellModel
from momentbound.splitters.basic import GE, splitter_member
from momentbound.splitters.repeated import fold_count_tables, redraw_unsplittable
from momentbound.splitters.stratified import stratified_fold_tables

from momentbound.guard import DEFAULT_SECONDS

__all__ = ["COVERAGE_METHODS", "COVERAGE_TARGETS", "CoverageResult", "interval_coverage",
           "binomial_interval", "training_tables", "sampled_errors", "proportion"]

#: interval method -> the ``interval_kind`` of the splitters it belongs to (a splitter protocol member)
COVERAGE_METHODS = {"clopper-pearson": "holdout", "wald": "holdout", "naive-cv": "folds", "nadeau-bengio": "splits"}
COVERAGE_TARGETS = ("ge-full", "expected-ge-full", "ge-train")

#: enumerate the training tables exactly when there are at most this many
EXACT_TABLE_LIMIT = 20_000


@dataclass(frozen=True)
class CoverageResult:
    """Coverage of one confidence interval (frozen result of :func:`interval_coverage`).

    Attributes
    ----------
    method, target, splitter, N:
        The interval, what it should cover, the splitter and the dataset size.
    nominal:
        The interval's nominal level.
    coverage:
        Probability that the interval covers the target: an :class:`Interval` (the Monte Carlo
        confidence interval at level ``confidence``; zero width when ``exact``).
    exact:
        Whether ``coverage`` is an exact sum (floating point) rather than a Monte Carlo estimate.
    expected_ge_full:
        ``E[GE_N]`` (exact).
    mean_width:
        Mean width of the interval (Monte Carlo or exact, as ``coverage``).
    draws, confidence, seconds:
        Monte Carlo draws (``None`` when exact), level of the Monte Carlo interval, wall-clock time.
    statistic:
        ``"error"``, the scorer name (``scoring=``) or the linear statistic's name (``metric=``); for the
        last two ``expected_ge_full`` is the Monte Carlo mean of the population value.
    undefined:
        ``scoring=``: the fraction of datasets with a fold whose score is undefined (no interval); else ``None``.
    """

    method: str
    target: str
    splitter: Any
    N: int
    nominal: float
    coverage: Interval
    exact: bool
    expected_ge_full: float
    mean_width: float
    draws: int | None
    confidence: float
    seconds: float
    statistic: str = "error"
    undefined: float | None = None


# ----------------------------------------------------------------------------- pieces
def binomial_interval(k: np.ndarray, n: int, nominal: float, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson or Wald interval of a binomial proportion for error counts ``k`` out of ``n``.

    Examples
    --------
    >>> lo, hi = binomial_interval(np.array([0, 5]), 10, 0.95, "clopper-pearson")
    >>> round(float(hi[0]), 4), round(float(lo[1]), 4)
    (0.3085, 0.1871)
    """
    k = np.asarray(k, dtype=float)
    a = 1.0 - nominal
    if method == "clopper-pearson":
        from scipy import stats  # imported on use: scipy.stats takes a second to import
        lo = np.where(k > 0, stats.beta.ppf(a / 2, k, n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - a / 2, k + 1, n - k), 1.0)
        return lo, hi
    z = NormalDist().inv_cdf(1 - a / 2)
    rate = k / n
    half = z * np.sqrt(rate * (1 - rate) / n)
    return rate - half, rate + half


def training_tables(n: int, cells: int) -> np.ndarray:
    """Every count table of ``n`` points in ``cells`` cells, ``(count, cells)`` (stars and bars)."""
    rows = []
    for bars in combinations(range(n + cells - 1), cells - 1):
        edges = (-1,) + bars + (n + cells - 1,)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(cells)])
    return np.array(rows, dtype=np.int64).reshape(-1, cells)


def multinomial_weights(tables: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Multinomial probabilities of count tables ``(R, cells)`` under cell probabilities ``p``."""
    n = tables.sum(axis=1)
    logp = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), -np.inf)
    term = np.where(tables > 0, tables * logp, 0.0)
    from scipy.special import gammaln

    return np.exp(gammaln(n + 1) - gammaln(tables + 1).sum(axis=1) + term.sum(axis=1))


def sampled_errors(counts: np.ndarray, g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Error counts on test tables ``counts`` ``(r, cells)`` of classifiers with predictions ``g``
    ``(r, inputs, K)``: every point is misclassified with probability ``1 - g_x(y)`` (tie coins)."""
    wrong = np.clip(1.0 - g.reshape(counts.shape), 0.0, 1.0)
    return rng.binomial(counts, wrong).sum(axis=1)


def proportion(values: np.ndarray, confidence: float, *, indicator: bool) -> Interval:
    """Mean of per-draw probabilities with its interval: Clopper-Pearson for 0/1 indicators, else
    the CLT interval, clipped to ``[0, 1]``."""
    R = values.size
    m = float(values.mean())
    if indicator:
        lo, hi = binomial_interval(np.array([round(m * R)]), R, confidence, "clopper-pearson")
        return Interval(float(lo[0]), float(hi[0]), m)
    half = NormalDist().inv_cdf(0.5 + confidence / 2) * float(values.std(ddof=1)) / math.sqrt(R)
    return Interval(max(0.0, m - half), min(1.0, m + half), m)


def _check(method: object, target: object, splitter: object, nominal: object, N: object) -> None:
    if method not in COVERAGE_METHODS:
        raise InvalidArgument(f"method must be one of {sorted(COVERAGE_METHODS)}, got {method!r}")
    if target not in COVERAGE_TARGETS:
        raise InvalidArgument(f"target must be one of {COVERAGE_TARGETS}, got {target!r}")
    kind = COVERAGE_METHODS[method]
    if splitter_member(splitter, "interval_kind") != kind:
        from momentbound.splitters.registry import SPLITTERS

        kinds = [c.__name__ for c in SPLITTERS.values() if getattr(c, "interval_kind", None) == kind]
        raise InvalidArgument(
            f"method {method!r} is the interval of {' or '.join(kinds)}; got splitter {splitter!r}, "
            f"pass a {kinds[0]}(...)"
        )
    if target == "ge-train" and kind != "holdout":
        raise InvalidArgument(f"target 'ge-train' only applies to hold-out intervals, not to {method!r}")
    if kind == "splits" and (math.isinf(splitter.splits) or splitter.splits < 2):
        raise InvalidArgument(f"nadeau-bengio needs a finite number of splits >= 2, got {splitter.splits!r}")
    if (isinstance(nominal, bool) or not isinstance(nominal, (int, float))
            or not 0 < float(nominal) < 1):
        raise InvalidArgument(f"nominal must be a level in (0, 1) such as 0.95, got {nominal!r}")


def work_estimate(kind: str, N: int, folds: int, splits: Any, cells: int, draws: int) -> tuple[float, float]:
    """Estimated seconds and peak bytes of the simulation of :func:`interval_coverage` (``draws``:
    the sampled or enumerated training tables).

    Measured on one core with 8 cells: hold-out 200,000 draws 0.9 s; 5-fold naive CV 200,000
    draws 3.4 s, 20-fold 20,000 draws 1.4 s; Nadeau-Bengio 2,000 draws of 50 splits at N = 200
    9.3 s (the constants below are 1.5-2x above these). Memory: the per-draw arrays (tables of
    ``cells`` counts, datasets of ``N`` points, one error rate per split).
    """
    R = float(draws)
    if kind == "holdout":
        return 1e-6 * R * max(cells, 4), 8.0 * R * (6 * cells + 8)
    if kind == "folds":
        return 1e-6 * R * folds * max(cells, 8), 8.0 * R * folds * (4 * cells + 2)
    J = float(splits) if isinstance(splits, (int, float)) and math.isfinite(splits) else 1.0
    return 5e-7 * R * J * N, 8.0 * R * (6 * N + J + 4 * cells)


# ----------------------------------------------------------------------------- the procedures
def _holdout(m: TableModel, N: int, ns: int, method: str, target: str, nominal: float, mu: float,
             draws: int, rng: np.random.Generator, exact: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Per training table: coverage probability, mean width, weight (exact) or equal weights."""
    n_train = N - ns
    ks = np.arange(ns + 1)
    lo, hi = binomial_interval(ks, ns, nominal, method)
    widths = hi - lo
    if target == "ge-full":
        tr = m.draw(rng, n_train, (draws,))
        te = m.draw(rng, ns, (draws,))
        k = sampled_errors(te, m.predictions(tr), rng)
        full = m.ge(m.predictions(tr + te))
        cover = ((lo[k] <= full) & (full <= hi[k])).astype(float)
        return cover, widths[k], np.full(draws, 1.0 / draws), False
    if exact:
        tables = training_tables(n_train, m.p.size)
        weights = multinomial_weights(tables, m.p)
    else:
        tables = m.draw(rng, n_train, (draws,))
        weights = np.full(draws, 1.0 / draws)
    ge = m.ge(m.predictions(tables))
    from scipy import stats  # imported on use: scipy.stats takes a second to import
    pmf = stats.binom.pmf(ks[None, :], ns, np.clip(ge, 0.0, 1.0)[:, None])  # (R, ns + 1)
    point = ge[:, None] if target == "ge-train" else np.full((ge.size, 1), mu)
    inside = (lo[None, :] <= point + 1e-12) & (point - 1e-12 <= hi[None, :])
    return (pmf * inside).sum(axis=1), pmf @ widths, weights, exact


def _naive_cv(m: TableModel, N: int, v: int, sizes: tuple[int, ...], target: str, nominal: float, mu: float,
              draws: int, rng: np.random.Generator, stratified: bool) -> tuple[np.ndarray, np.ndarray]:
    z = NormalDist().inv_cdf(0.5 + nominal / 2)
    if stratified:  # scikit-learn's fold compositions (sizes as KFold's), datasets it can split
        folds = stratified_fold_tables(m.p, m.K, N, v, draws, rng)
    else:
        folds = np.stack([m.draw(rng, s, (draws,)) for s in sizes], axis=1)  # (R, v, cells)
    total = folds.sum(axis=1)
    rates = np.stack([sampled_errors(folds[:, i], m.predictions(total - folds[:, i]), rng) / sizes[i]
                      for i in range(v)], axis=1)
    est = (rates * np.array(sizes)).sum(axis=1) / N
    half = z * rates.std(axis=1, ddof=1) / math.sqrt(v)
    point = m.ge(m.predictions(total)) if target == "ge-full" else mu
    return ((est - half <= point) & (point <= est + half)).astype(float), 2 * half


def _nadeau_bengio(m: TableModel, N: int, splitter: Any, ns: int, target: str, nominal: float, mu: float,
                   draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    J = int(splitter.splits)
    from scipy import stats  # imported on use: scipy.stats takes a second to import
    t = stats.t.ppf(0.5 + nominal / 2, J - 1)
    C = m.p.size
    cells = rng.choice(C, size=(draws, N), p=m.p)
    if splitter.stratified:
        cells = redraw_unsplittable(m, cells, N, ns, rng)
    rates = np.empty((draws, J))
    data = None
    for j in range(J):
        labels = splitter._labels(cells % m.K, m.K, N, ns, rng)  # label 0: test, 1: train
        both = fold_count_tables(cells, labels, 2, C)
        rates[:, j] = sampled_errors(both[:, 0], m.predictions(both[:, 1]), rng) / ns
        data = both.sum(axis=1)
    mean = rates.mean(axis=1)
    half = t * np.sqrt((1.0 / J + ns / (N - ns)) * rates.var(axis=1, ddof=1))
    point = m.ge(m.predictions(data)) if target == "ge-full" else mu
    return ((mean - half <= point) & (point <= mean + half)).astype(float), 2 * half


def interval_coverage(
    model: CellModel,
    N: int,
    method: str,
    splitter: Any,
    *,
    target: str = "ge-full",
    classifier: Any = None,
    nominal: float = 0.95,
    draws: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator,
    exact: bool | None = None,
    max_seconds: float | None = DEFAULT_SECONDS,
    max_memory: float | None = None,
    scoring: str | None = None,
    metric: Any = None,
) -> CoverageResult:
    """Probability that a user's confidence interval covers ``GE_N``, ``E[GE_N]`` or ``GE_train``.

    Parameters
    ----------
    model:
        The data distribution.
    N:
        Dataset size.
    method:
        ``"clopper-pearson"`` or ``"wald"`` (with ``HoldOut``), ``"naive-cv"`` (with ``KFold`` or
        ``StratifiedKFold``), ``"nadeau-bengio"`` (with ``ShuffleSplit`` or ``StratifiedShuffleSplit``,
        finite splits).
    splitter:
        The splitter whose estimate the interval is built on.
    target:
        ``"ge-full"``, ``"expected-ge-full"`` or (hold-out) ``"ge-train"``.
    classifier:
        ``NaiveBayes(...)`` by default.
    nominal:
        Level of the user's interval.
    draws, confidence, rng:
        Monte Carlo draws (``>= 200``), level of the interval on the coverage, the generator.
    exact:
        Hold-out with target ``ge-train`` or ``expected-ge-full`` only: sum exactly over every
        training table. ``None`` (default): exactly when there are at most 20000 tables.
    max_seconds, max_memory:
        Refuse (``WorkLimitExceeded``, ``MemoryLimitExceeded``) before any work when the estimated
        time (:func:`work_estimate`, and the exact ``E[GE_N]``) or memory (bytes; ``None``: 80% of
        this machine's memory) exceeds them; ``max_seconds=None`` lifts the time limit
        (:mod:`momentbound.guard`).
    scoring, metric:
        The interval of another statistic than the error (module docstring): a scikit-learn scorer name
        of :data:`~momentbound.estimators.scoring.SCORINGS`, or a
        :class:`~momentbound.estimators.metrics.LinearMetric`; methods ``naive-cv`` and ``nadeau-bengio``,
        target ``ge-full``.

    Returns
    -------
    CoverageResult

    Examples
    --------
    >>> from momentbound.model import independent_1d_model
    >>> from momentbound.splitters import HoldOut
    >>> r = interval_coverage(independent_1d_model("2/5"), 12, "clopper-pearson", HoldOut(test_size=6),
    ...                       target="ge-train", rng=np.random.default_rng(0))
    >>> r.exact, r.coverage.estimate >= 0.95
    (True, True)
    """
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.estimators.from_predictions import make_engine

    start = time.perf_counter()
    classifier = as_classifier(NaiveBayes() if classifier is None else classifier, model)
    _check(method, target, splitter, nominal, N)
    if scoring is not None or metric is not None:
        return _statistic_coverage(model, N, method, splitter, target, classifier, float(nominal), draws, confidence,
                                   rng, exact, max_seconds, scoring, metric, start)
    if isinstance(N, int) and N >= 2**62:  # count tables are numpy int64
        raise InvalidArgument(f"N = {N} is beyond the 64-bit counts of the simulation; use N < 2^62 (about 4.6e18)")
    check_arguments(model, N, splitter, classifier, draws, confidence, rng)
    split = splitter.split(N)  # validates N (ImpossibleSplit)
    kind = COVERAGE_METHODS[method]
    n_tables = math.comb(N - split.fold_sizes[0] + model.n_cells - 1, model.n_cells - 1) if kind == "holdout" else 0
    if exact and (kind != "holdout" or target == "ge-full"):
        raise InvalidArgument("exact=True only applies to hold-out intervals with target 'ge-train' or "
                              f"'expected-ge-full', got method {method!r}, target {target!r}")
    if exact is None:
        exact = kind == "holdout" and target != "ge-full" and n_tables <= EXACT_TABLE_LIMIT
    form = classifier.exact_form(model)
    m = TableModel(model, classifier) if form is None else TableModel(form.model, form.classifier)
    R = int(draws)
    seconds, memory = work_estimate(kind, N, len(split.fold_sizes), getattr(splitter, "splits", 1), m.p.size,
                                    n_tables if exact else R)
    engine = make_engine(model, classifier=classifier)
    estimate = getattr(engine.backend, "estimated_seconds", None)
    stratified = splitter_member(splitter, "stratified")
    if estimate is not None and target != "ge-full" and not stratified:  # stratified: E[GE_N] by class counts
        seconds += estimate(engine.model, N, engine.classifier)  # the exact E[GE_N] the interval must cover
    guard.check(f"the coverage of {method} on {splitter.describe()} at N = {N} with {R} draws", seconds=seconds,
                memory=memory, max_seconds=max_seconds, **({} if max_memory is None else {"max_memory": max_memory}),
                fix=f"use fewer {guard.option('draws')} (at least 200), fewer splits or folds, or a smaller {guard.option('N')}")
    try:
        mu = _expected_ge(engine, model, N, splitter, classifier, None if target != "ge-full" else max_seconds)
    except InvalidArgument:  # WorkLimitExceeded and the exact terms' memory refusals
        if target != "ge-full":
            raise
        mu = math.nan  # ge-full covers each dataset's GE_N; E[GE_N] is only reported, and out of reach here
    if kind == "holdout":
        cover, width, weights, exact = _holdout(m, N, split.fold_sizes[0], method, target, float(nominal),
                                                mu, R, rng, bool(exact))
        if exact:
            c = float(weights @ cover)
            coverage = Interval(c, c, c)
            mean_width = float(weights @ width)
        else:
            coverage = proportion(cover, confidence, indicator=target == "ge-full")
            mean_width = float(width.mean())
    else:
        if kind == "folds":
            cover, width = _naive_cv(m, N, len(split.fold_sizes), split.fold_sizes, target, float(nominal),
                                     mu, R, rng, stratified)
        else:
            cover, width = _nadeau_bengio(m, N, splitter, split.fold_sizes[0], target, float(nominal), mu, R,
                                          rng)
        coverage = proportion(cover, confidence, indicator=True)
        mean_width = float(width.mean())
    return CoverageResult(method, target, splitter, N, float(nominal), coverage, bool(exact), mu, mean_width,
                          None if exact else R, float(confidence), time.perf_counter() - start)


def _statistic_coverage(model: CellModel, N: int, method: str, splitter: Any, target: str, classifier: Any,
                        nominal: float, draws: Any, confidence: Any, rng: Any, exact: Any, max_seconds: float | None,
                        scoring: Any, metric: Any, start: float) -> CoverageResult:
    """:func:`interval_coverage` of a scorer's or a linear statistic's interval (module docstring)."""
    from momentbound.estimators.metrics import as_metric
    from momentbound.estimators.scoring import check_scoring, statistic_folds

    if scoring is not None and metric is not None:
        raise InvalidArgument("give scoring= (a scikit-learn scorer) or metric= (a linear statistic), not both")
    if method not in ("naive-cv", "nadeau-bengio"):
        raise InvalidArgument(f"method {method!r} is the binomial interval of the hold-out error count; for "
                              f"{'scoring=' if scoring is not None else 'metric='} use method 'naive-cv' (KFold, "
                              "StratifiedKFold) or 'nadeau-bengio' (ShuffleSplit, StratifiedShuffleSplit), the "
                              "intervals of fold values")
    if target != "ge-full" or exact:
        raise InvalidArgument("with scoring= or metric= the interval is measured against the population value of the "
                              "metric for the classifier trained on all N points, by simulation: use "
                              "target='ge-full' (and exact=None)")
    statistic = check_scoring(scoring, model.n_classes) if scoring is not None else as_metric(metric).name
    values, pop = statistic_folds(model, splitter.split(N).N, splitter, scoring if scoring is not None else as_metric(metric),
                                  classifier=classifier, draws=draws, confidence=confidence, rng=rng,
                                  max_seconds=max_seconds)
    R = int(draws)
    v = values.shape[1]
    ok = ~np.isnan(values).any(axis=1)
    if ok.sum() < 2:
        raise InvalidArgument(f"{statistic} was undefined in a fold of {R - int(ok.sum())} of {R} datasets: there is "
                              "no interval to cover; use a larger N or fewer folds")
    values, pop = values[ok], pop[ok]
    spread = values.var(axis=1, ddof=1)
    if method == "naive-cv":
        half = NormalDist().inv_cdf(0.5 + nominal / 2) * np.sqrt(spread / v)
    else:
        (ns,) = splitter.split(N).fold_sizes
        from scipy import stats  # imported on use: scipy.stats takes a second to import
        half = stats.t.ppf(0.5 + nominal / 2, v - 1) * np.sqrt((1.0 / v + ns / (N - ns)) * spread)
    est = values.mean(axis=1)
    cover = ((est - half <= pop) & (pop <= est + half)).astype(float)
    return CoverageResult(method, target, splitter, N, nominal, proportion(cover, float(confidence), indicator=True),
                          False, float(pop.mean()), float(2 * half.mean()), R, float(confidence),
                          time.perf_counter() - start, statistic, float(1 - ok.mean()))


def _expected_ge(engine: Any, model: CellModel, N: int, splitter: Any, classifier: Any,
                 max_seconds: float | None) -> float:
    """The exact ``E[GE_N]`` (given a dataset the splitter can split, where its ``split_ge_mean`` says so)."""
    from momentbound.estimators.from_predictions import estimator_moments

    mu = splitter_member(splitter, "split_ge_mean")(engine, N)
    if mu is not None:
        return float(mu)
    try:
        return float(estimator_moments(model, N, GE(), classifier=classifier, max_seconds=max_seconds).mean)
    except WorkLimitExceeded:
        raise
    except InvalidArgument as exc:  # the exact backend's own work limit: the remedy here is a smaller N
        raise WorkLimitExceeded(
            f"the exact E[GE_N] that the coverage is measured against is out of reach at N = {N} (beyond the "
            f"exact backend's work limit); "
            f"use a smaller {guard.option('N')}"
        ) from exc
