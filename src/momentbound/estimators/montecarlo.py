"""Conditional Monte Carlo moments of GE, hold-out, v-fold CV and leave-one-out.

Only training **count tables** are sampled; everything given the tables is computed exactly:

* GE and hold-out (training size ``n``): draws ``T ~ Multinomial(n, p)``; for every input ``x`` the
  prediction probabilities ``g_x(y | T)`` are evaluated exactly (integer score comparison, the tie
  coin as its probability), so ``GE(T) = sum_x sum_y g_x(y | T) P[X = x, Y != y]`` is exact per draw.
  ``E[GE]`` is the mean of the draws; ``Var[GE]`` their unbiased sample variance. Hold-out by the law
  of total variance (equivalently Lemma 1): given ``T`` the ``Ns`` test errors are iid
  ``Bernoulli(GE(T))``, so ``E[HE] = E[GE]`` and ``Var[HE] = E[GE (1 - GE)] / Ns + Var[GE]``.
* Cross-validation (fold sizes as scikit-learn's ``KFold``): the ``v`` fold count tables
  ``F_i ~ Multinomial(s_i, p)`` are drawn independently; fold ``i``'s classifier is trained on
  ``T_{-i} = sum_{j != i} F_j``; its expected error count given the tables is
  ``E_i = sum_{x,y} F_i[x, y] (1 - g_x(y | T_{-i}))`` and, with random ties, the independent tie coins
  add the conditional variance ``C_i = sum_{x,y} F_i[x, y] g_x(y | T_{-i}) (1 - g_x(y | T_{-i}))``.
  ``CE = sum_i err_i / N`` so ``E[CE] = E[sum_i E_i] / N`` and
  ``Var[CE] = E[sum_i C_i] / N^2 + Var[sum_i E_i / N]`` (the coin part added exactly per draw, so the
  estimate carries no coin noise). ``Var(HE_i) = E[C_i] / s_i^2 + Var(E_i / s_i)`` (mean over folds);
  given the tables the folds' errors are independent, so ``Cov(HE_i, HE_j) = Cov(E_i / s_i, E_j / s_j)``
  (mean over ordered pairs ``i != j``).

Confidence intervals (two-sided, level ``confidence``, normal quantile ``z``):

* means: CLT, ``mean +- z sd / sqrt(R)`` over the ``R`` draws;
* variances and covariances: every estimate has the form ``mean_r(c_r) + R/(R-1) mean_r(d_r)`` with
  ``d_r`` a product of centred draws; the interval is ``+- z sd_r(c_r + d_r) / sqrt(R)``, the asymptotic
  (delta-method) interval, which for ``c = 0`` is the usual ``sqrt((m4 - s^4) / R)`` interval of a sample
  variance based on the fourth central moment.

Intervals of error rates are clipped to ``[0, 1]``, of variances to ``[0, inf)``. ``std`` and
``mean_plus_std`` are the images of those intervals (not separately calibrated). Each interval is
marginal (no simultaneous coverage across fields).
"""

from __future__ import annotations

from momentbound import guard
from momentbound.errors import MemoryLimitExceeded
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.splitters.basic import (  # KFold: used by the doctests
    KFold,
    Splitter,
    splitter_member,
)
from momentbound.estimators.results import ErrorMoments
from momentbound.estimators.simulation import (  # re-exported: the engine's public names
    DEFAULT_DRAWS,
    MAX_MEMORY,
    MIN_DRAWS,
    SCHEDULERS,
    Draws,
    SimulatedParts,
    Simulation,
    TableModel,
    check_arguments,
    DEFAULT_TIMEOUT,
    check_scheduler,
    fit_scheduler,
    interval_plus,
    interval_sqrt,
    memory_estimate,
)
from momentbound.intervals import Interval
from momentbound.model.cells import CellModel
from momentbound.progress import ProgressBar

__all__ = [
    "Draws", "MonteCarloMoments", "Simulation", "SimulatedParts", "bootstrap_extra_variance", "monte_carlo_moments",
    "memory_estimate",
    "DEFAULT_DRAWS", "MIN_DRAWS", "MAX_MEMORY", "SCHEDULERS",
]


@dataclass(frozen=True, kw_only=True)
class MonteCarloMoments(ErrorMoments):
    """Monte Carlo moments of an error estimator (frozen result of :func:`monte_carlo_moments`).

    The fields of :class:`~momentbound.estimators.results.ErrorMoments`; every moment is an
    :class:`~momentbound.estimators.Interval` ``[lower, upper]`` (confidence interval at level
    ``confidence``) carrying the point ``estimate``.

    Attributes
    ----------
    estimator, N:
        The estimator and the dataset size.
    mean, variance, std, mean_plus_std:
        Moments of the estimator (intervals with point estimates).
    train_size, test_size, folds, fold_sizes:
        As in ``EstimatorMoments`` (``train_size`` for CV is ``N - N // v``).
    fold_variance, fold_covariance:
        ``Var(HE_i)`` (mean over folds) and ``Cov(HE_i, HE_j)`` (mean over ordered pairs ``i != j``);
        ``None`` unless cross-validation.
    ge_mean, ge_variance:
        Moments of the GE of the classifier trained on ``train_size`` points.
    backend, kind, covariance, classifier, seconds:
        ``"montecarlo"``, ``Kind.ESTIMATE``, ``"exact"``, the classifier, wall-clock seconds.
    draws, confidence:
        Number of sampled table draws (per training size / per fold set) and the interval level.
    single_variance, repetition_covariance:
        Repeated splitters only: ``Var`` of one partition's estimate and the covariance of the
        estimates of two independent partitions of the same data (the variance left as the number
        of repetitions grows); ``None`` otherwise.
    """

    draws: int
    confidence: float

    def as_row(self) -> dict[str, Any]:
        """A flat row: :meth:`ErrorMoments.as_row`'s fields (intervals as lower/upper), the
        point estimates under the moment names, and the draws."""
        from momentbound.estimators.results import MOMENT_FIELDS

        row = super().as_row()
        for name in MOMENT_FIELDS:
            value = getattr(self, name, None)
            if isinstance(value, Interval):
                row[name] = float(value.estimate)
        row["draws"] = self.draws
        return row


def monte_carlo_moments(
    model: CellModel,
    N: int,
    estimator: Splitter,
    *,
    classifier: Any = None,
    draws: int = DEFAULT_DRAWS,
    confidence: float = 0.95,
    rng: np.random.Generator,
    max_seconds: float | None = 120.0,
    progress: bool | None = None,
    scheduler: Any = None,
    workers: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> MonteCarloMoments:
    """Conditional Monte Carlo moments of an error estimator, with confidence intervals.

    Samples only training count tables and evaluates each classifier's error given its tables
    exactly (see the module docstring for the formulas and the intervals).

    Parameters
    ----------
    model:
        The data distribution (:class:`~momentbound.model.cells.CellModel`).
    N:
        Dataset size.
    estimator:
        ``GE()``, ``HoldOut(...)``, ``KFold(v)`` or ``LeaveOneOut()``; impossible splits raise
        :class:`~momentbound.errors.ImpossibleSplit`.
    classifier:
        ``NaiveBayes(ties=..., alpha=...)``; ``NaiveBayes()`` by default.
    draws:
        Number ``R >= MIN_DRAWS`` (200) of sampled tables (GE / hold-out) or fold-table sets
        (CV); fewer draws are refused because the asymptotic intervals would not hold their
        level.
    confidence:
        Two-sided level of the intervals, in ``(0, 1)``.
    rng:
        ``numpy.random.Generator``, the only source of randomness.
    max_seconds:
        Refuse (``InvalidArgument``) when the estimated time, about ``1e-6 s`` per draw, fold
        and cell (measured: leave-one-out at N = 1000 with 200 draws, 4 cells, 0.65 s),
        exceeds this; ``None`` disables the guard.
    progress:
        Progress bar on stderr (never stdout): ``None`` (default) shows it when stderr is a terminal
        and the run is estimated (from its first chunk of draws) to take more than 2 s; ``True``
        always, ``False`` never. With the bar, the estimated time and memory are printed first.
        Runs whose per-draw results would exceed ``MAX_MEMORY`` are refused before any work, with
        the largest ``draws`` that fits.
    scheduler:
        Where a scikit-learn classifier (:class:`~momentbound.classifiers.SklearnClassifier`) is
        fitted, one fit per count table: ``None`` (default) in this process; ``"local"`` on a
        Dask ``LocalCluster`` of ``workers`` single-threaded worker processes, started and closed
        by the call; ``"threads"``, ``"processes"`` or ``"synchronous"`` on dask's local
        scheduler of that name; an address such as ``"tcp://host:8786"`` or a
        ``distributed.Client`` on an existing cluster (its workers need momentbound). The count
        tables are drawn here from ``rng`` and every fit depends on its table only, so the result
        is the same for any scheduler and number of workers. Other classifiers run as compiled
        naive Bayes kernels in this process and refuse a scheduler.
    workers:
        Number of workers for ``"local"``, ``"threads"`` and ``"processes"`` (``None``: 2); refused
        with any other scheduler, which would ignore it.
    timeout:
        Seconds to wait for the scheduler at an address (default 5); a scheduler that does not
        answer in time is an :class:`~momentbound.errors.InvalidArgument`, raised within about
        that time.

    Returns
    -------
    MonteCarloMoments
        Intervals with point estimates; ``kind`` is ``Kind.ESTIMATE``.

    Examples
    --------
    >>> import numpy as np
    >>> from momentbound.model import independent_1d_model
    >>> r = monte_carlo_moments(independent_1d_model("2/5"), 10, KFold(2), draws=500,
    ...                         rng=np.random.default_rng(0))
    >>> r.draws, r.mean.lower <= r.mean.estimate <= r.mean.upper
    (500, True)
    """
    from momentbound.bounds.result import Kind

    from momentbound.classifiers import NaiveBayes, as_classifier

    start = time.perf_counter()
    classifier = as_classifier(NaiveBayes() if classifier is None else classifier, model)
    from momentbound.splitters.registry import as_splitter

    estimator = as_splitter(estimator)
    check_arguments(model, N, estimator, classifier, draws, confidence, rng, progress)
    check_scheduler(scheduler, workers, classifier, timeout)
    workers = 2 if workers is None else int(workers)
    seeded = getattr(classifier, "seeded", None)
    if callable(seeded):  # an unset random_state is drawn from rng, so that a seed reproduces the run
        classifier = seeded(rng)
    split = estimator.split(N)  # validates N and the split (ImpossibleSplit)
    N = split.N
    R = int(draws)
    folds = max(len(split.fold_sizes), 1)
    if N >= 2**62:  # count tables are numpy int64
        raise InvalidArgument(f"N = {N} is beyond the 64-bit counts of the simulation; use N < 2^62 (about 4.6e18)")
    seconds = 1e-6 * R * folds * model.n_cells
    # splitters other than these draw datasets point by point: (draws, N) arrays (measured: a
    # (300, 1e9) float array was the first allocation of ShuffleSplit at N = 1e9)
    pointwise = splitter_member(estimator, "pointwise")
    if pointwise:
        seconds += 1e-7 * float(R) * N * folds
    B = splitter_member(estimator, "B")
    if B is not None:  # B bootstrap samples of N points per draw (measured: oob 8e-7 s, bootstrap 4e-7 s per R B N)
        seconds += 1e-6 * float(R) * float(B) * N
    guard.check(f"{R} draws of {folds} fold table(s) over {model.n_cells} cells"
                + ("" if B is None else f" with {B} bootstrap samples of {N} points each"), seconds=seconds,
                max_seconds=max_seconds,
                fix=f"use fewer {guard.option('draws')} (at least {MIN_DRAWS}), "
                + ("fewer folds (e.g. KFold(10) instead of leave-one-out)" if B is None
                   else f"fewer {guard.option('bootstraps')}") + f", a smaller {guard.option('N')}")
    # a classifier with a naive Bayes form is simulated in that form (the same law, exact scores)
    form = classifier.exact_form(model)
    memory = memory_estimate((model if form is None else form.model).n_cells, max(1, len(split.fold_sizes)), R)
    if pointwise:
        memory += 8.0 * float(R) * N * 4
        guard.check(f"{R} datasets of {N} points", memory=memory,
                    fix=f"use fewer {guard.option('draws')} (at least {MIN_DRAWS}) or a smaller {guard.option('N')}")
    if B is not None:  # one chunk of draws holds (draws, B, N) arrays of samples, votes and scores
        memory += 8.0 * max(float(B) * N, 4e6) * (8 + 2 * model.n_classes)
        guard.check(f"{guard.option('bootstraps', B)} bootstrap samples of {N} points per draw", memory=memory,
                    fix=f"use fewer {guard.option('bootstraps')} or a smaller {guard.option('N')}")
    limit = guard.memory_limit(MAX_MEMORY)
    if limit is not None and memory > limit:
        per = memory / R
        raise MemoryLimitExceeded(
            f"{guard.option('draws', R)} would hold about {guard.size_text(memory)} of per-draw results (limit "
            f"{guard.size_text(limit)}); use {guard.option('draws')} <= {int(limit / per):,} and combine runs "
            "with different seeds if a narrower interval is needed"
            + (", or --max-memory SIZE on a machine with that much memory" if guard.cli_mode() else "")
        )
    with ProgressBar(R, progress, f"montecarlo {estimator.describe()}, N={N}", memory) as bar, \
            fit_scheduler(scheduler, workers, float(timeout)) as where:
        if form is None:
            m = TableModel(model, classifier, where, int(workers))
        else:
            m = TableModel(form.model, form.classifier)
        parts = estimator.simulate(Simulation(m, R, float(confidence), rng, bar), N)
    mean, variance = parts.mean, parts.variance
    std = interval_sqrt(variance)
    return MonteCarloMoments(
        estimator=estimator,
        N=N,
        mean=mean,
        variance=variance,
        std=std,
        mean_plus_std=interval_plus(mean, std),
        train_size=parts.train_size,
        test_size=parts.test_size,
        folds=parts.folds,
        fold_sizes=parts.fold_sizes,
        fold_variance=parts.fold_variance,
        fold_covariance=parts.fold_covariance,
        ge_mean=parts.ge_mean,
        ge_variance=parts.ge_variance,
        backend="montecarlo",
        kind=Kind.ESTIMATE,
        covariance="exact",
        classifier=classifier,
        seconds=time.perf_counter() - start,
        draws=R,
        confidence=float(confidence),
        single_variance=parts.single_variance,
        repetition_covariance=parts.repetition_covariance,
    )


def bootstrap_extra_variance(
    model: Any,
    N: int,
    B: int,
    *,
    classifier: Any = None,
    draws: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator,
) -> Interval:
    """The variance a finite number ``B`` of bootstrap samples adds to ``Err(1)``:
    ``Var(Err(1)_B) - Var(Err(1)_ideal)``, by Monte Carlo on paired datasets.

    Every drawn dataset gets ``B`` bootstrap samples (the real procedure) and its ideal ``Err(1)``
    (exact per table with one attribute, two classes and ``alpha = 0``; otherwise two independent
    unbiased draws, whose product estimates the square); the per-draw difference of the squared
    deviations, plus the tie coins' variance, estimates the extra variance with a confidence interval
    (it may be negative: the finite-``B`` estimate is not the ideal one plus independent noise).

    Examples
    --------
    >>> from momentbound import CellModel
    >>> extra = bootstrap_extra_variance(CellModel((2,), ["1/5", "3/10", "1/5", "3/10"]), 20, 5,
    ...                                  draws=2000, rng=np.random.default_rng(0))
    >>> extra.lower <= extra.estimate <= extra.upper
    True
    """
    from momentbound.classifiers import NaiveBayes, as_classifier
    from momentbound.splitters.bootstrap import finite_bootstrap, simulate_extra_variance

    clf = as_classifier(NaiveBayes() if classifier is None else classifier, model)
    splitter = finite_bootstrap(B)
    check_arguments(model, N, splitter, clf, draws, confidence, rng)
    form = clf.exact_form(model)
    m = TableModel(model, clf) if form is None else TableModel(form.model, form.classifier)
    return simulate_extra_variance(Simulation(m, int(draws), float(confidence), rng), N, splitter)
