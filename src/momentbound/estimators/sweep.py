"""Plain (single-process) sweeps of estimator moments over hold-out sizes, fold counts or N.

All rows share one :class:`~momentbound.estimators.from_predictions.MomentEngine`, so training sizes and
fold-size pairs that recur across the sweep are computed once (a CV sweep over ``v = 2..N``
needs only about ``2 sqrt(N)`` distinct fold sizes).
"""

from __future__ import annotations

import dataclasses

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from momentbound import guard
from momentbound.errors import InvalidArgument
from momentbound.splitters.basic import GE, Splitter, HoldOut, KFold, LeaveOneOut, check_size
from momentbound.estimators.from_predictions import (
    MAX_SECONDS,
    EstimatorMoments,
    MomentEngine,
    check_arguments,
    check_cross_memory,
    estimator_moments,
    make_engine,
)
from momentbound.model.cells import CellModel

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SweepResult", "sweep", "sweep_estimators", "SWEEP_AXES"]

SWEEP_AXES = ("holdout", "folds", "N")


@dataclass(frozen=True)
class SweepResult:
    """Rows of a sweep (one :class:`EstimatorMoments` per value, a
    :class:`~momentbound.estimators.scoring.ScoreMoments` with ``scoring=``) and the total time."""

    over: str
    values: tuple[Any, ...]
    rows: tuple[EstimatorMoments, ...]
    seconds: float

    def to_frame(self) -> "pd.DataFrame":
        """The rows as a pandas DataFrame (floats; intervals as ``*_lower`` / ``*_upper``)."""
        import pandas as pd

        frame = pd.DataFrame([r.as_row() for r in self.rows])
        frame.insert(0, "value", [str(v) for v in self.values])
        return frame


def sweep_estimators(
    over: str, values: Sequence[Any], *, N: int | None = None, estimator: Splitter | None = None
) -> list[tuple[int, Splitter]]:
    """The ``(N, estimator)`` configurations of a sweep, validated (no moment is computed).

    ``over="holdout"``: integers are test sizes, floats in ``(0, 1)`` test fractions;
    ``over="folds"``: integers are numbers of folds (the field ``v`` of ``estimator``, default
    :class:`KFold`; e.g. ``StratifiedKFold(5)`` or ``RepeatedKFold(5, 10)`` sweep their own folds), ``"loo"``
    is leave-one-out (plain folds only);
    ``over="N"``: dataset sizes for ``estimator`` (default :class:`GE`).
    """
    if over not in SWEEP_AXES:
        raise InvalidArgument(f"over must be one of {', '.join(SWEEP_AXES)}, got {over!r}")
    vals = list(values)
    if not vals:
        raise InvalidArgument("values must not be empty: give at least one value to sweep over")
    configs: list[tuple[int, Splitter]] = []
    if over == "N":
        est = estimator if estimator is not None else GE()
        configs = [(check_size(v, name="N (a swept value)"), est) for v in vals]
    else:
        if N is None:
            raise InvalidArgument(f"a sweep over {over!r} needs N (the dataset size)")
        if estimator is not None and over == "holdout":
            raise InvalidArgument("a sweep over 'holdout' builds its own HoldOut splitters; estimator is used with "
                                  "over='folds' (a splitter with folds v) and over='N'")
        if estimator is not None and (not dataclasses.is_dataclass(estimator)
                                      or "v" not in {f.name for f in dataclasses.fields(estimator)}):
            raise InvalidArgument(f"a sweep over 'folds' varies the number of folds v of its splitter; "
                                  f"{estimator.describe()} has no v: use KFold, StratifiedKFold or a repeated k-fold")
        n = check_size(N)
        for v in vals:
            if over == "holdout":
                if isinstance(v, (float, np.floating)):
                    configs.append((n, HoldOut(test_fraction=float(v))))
                else:
                    configs.append((n, HoldOut(test_size=v)))
            elif isinstance(v, str) and v.lower() == "loo":
                if estimator is not None:
                    plain = "without --splitter" if guard.cli_mode() else "estimator=None"
                    raise InvalidArgument(f"'loo' is leave-one-out, not a number of folds of {estimator.describe()}: "
                                          f"give numbers of folds, or sweep the plain folds ({plain})")
                configs.append((n, LeaveOneOut()))
            elif estimator is not None:
                configs.append((n, dataclasses.replace(estimator, v=v)))
            else:
                configs.append((n, KFold(v)))
    for n, est in configs:
        est.split(n)  # every split is checked before any computation starts
    return configs


def sweep(
    model: CellModel,
    over: str,
    values: Sequence[Any],
    *,
    N: int | None = None,
    estimator: Splitter | None = None,
    classifier: Any = None,
    backend: Any = "exact",
    covariance: str = "exact",
    progress: Callable[[int, int], None] | None = None,
    engine: MomentEngine | None = None,
    max_seconds: float | None = MAX_SECONDS,
    metric: Any = None,
    scoring: str | None = None,
    **montecarlo: Any,
) -> SweepResult:
    """Estimator moments over hold-out test sizes, numbers of folds, or dataset sizes.

    Parameters
    ----------
    model:
        The data distribution.
    over:
        ``"holdout"`` (values: test sizes, or fractions in ``(0, 1)``), ``"folds"`` (values:
        numbers of folds, or ``"loo"``) or ``"N"`` (values: dataset sizes for ``estimator``).
    values:
        The swept values, in order.
    N:
        Dataset size (for ``"holdout"`` and ``"folds"``).
    estimator:
        For ``over="N"``: the estimator at each size (default ``GE()``); for ``over="folds"``: the splitter
        whose number of folds ``v`` is swept (default ``KFold``).
    classifier, backend, covariance:
        As in :func:`~momentbound.estimators.from_predictions.estimator_moments`.
    progress:
        Called as ``progress(done, total)`` after each row (the CLI draws a progress bar with it).
    engine:
        A shared :class:`MomentEngine` (built from ``classifier``/``backend`` when omitted).
    max_seconds:
        Exact backends: each point is refused (before any work) when its estimated time exceeds
        this, as in :func:`~momentbound.estimators.from_predictions.estimator_moments`; ``None``
        runs every point.
    metric:
        A :class:`~momentbound.estimators.metrics.LinearMetric` (exact backends): every row's moments are
        those of that linear statistic of the confusion matrix instead of the 0-1 error.
    scoring:
        A scikit-learn scorer name (``backend="montecarlo"``): every row is
        :func:`~momentbound.estimators.scoring.monte_carlo_scores` of ``cross_val_score(..., scoring=...)``,
        a :class:`~momentbound.estimators.scoring.ScoreMoments` (options ``draws``, ``confidence``, ``seed``).
    **montecarlo:
        With ``backend="montecarlo"``: ``draws``, ``confidence``, ``scheduler``, ``workers``, ``timeout`` of
        :func:`~momentbound.estimators.montecarlo.monte_carlo_moments` and ``seed`` (an integer
        or ``None``); row ``i`` draws from the ``i``-th child of ``numpy.random.SeedSequence(seed)``,
        so a row's numbers do not depend on the other rows or on where its fits run.

    Returns
    -------
    SweepResult
        ``rows`` in the order of ``values``; ``to_frame()`` gives a DataFrame.

    Examples
    --------
    >>> from momentbound import independent_1d_model
    >>> res = sweep(independent_1d_model("2/5"), "folds", [2, 5, 10], N=20)  # doctest: +SKIP
    >>> res.to_frame()[["folds", "mean", "variance"]]  # doctest: +SKIP
    """
    configs = sweep_estimators(over, values, N=N, estimator=estimator)
    if scoring is not None:
        return _scoring_sweep(model, over, values, configs, classifier, backend, covariance, metric, scoring,
                              progress, max_seconds, montecarlo)
    if metric is not None and isinstance(backend, str) and backend == "montecarlo":
        raise InvalidArgument("metric= has exact moments on the exact backends: drop backend='montecarlo' (for a "
                              "scikit-learn scorer by simulation use scoring=)")
    if isinstance(backend, str) and backend == "montecarlo":
        return _montecarlo_sweep(model, over, values, configs, classifier, covariance, progress, montecarlo)
    if montecarlo:
        raise InvalidArgument(f"options {sorted(montecarlo)} only apply to backend='montecarlo'")
    from momentbound.estimators.metrics import check_metric

    for n, est in configs:
        check_arguments(model, est, covariance)
        check_metric(metric, est, backend)  # every row's statistic before any work
    if engine is None:
        engine = make_engine(model, classifier=classifier, backend=backend)
    for n, est in configs:  # every point's memory is checked before any computation starts
        check_cross_memory(engine, est.split(n), est, covariance)
    start = time.perf_counter()
    rows = []
    for i, (n, est) in enumerate(configs, start=1):
        rows.append(
            estimator_moments(
                model, n, est, classifier=classifier, backend=engine.backend, covariance=covariance,
                engine=engine, progress=False,  # the caller's progress(i, n) reports the sweep
                max_seconds=max_seconds, metric=metric,
            )
        )
        if progress is not None:
            progress(i, len(configs))
    return SweepResult(over, tuple(values), tuple(rows), time.perf_counter() - start)


def _seeds(options: dict[str, Any], rows: int) -> list[Any]:
    """The ``seed`` option popped and checked: one child seed sequence per row."""
    seed = options.pop("seed", None)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise InvalidArgument(f"seed must be None or an integer >= 0, got {seed!r}")
    return np.random.SeedSequence(seed).spawn(rows)


def _scoring_sweep(
    model: CellModel, over: str, values: Sequence[Any], configs: Sequence[tuple[int, Splitter]], classifier: Any,
    backend: Any, covariance: str, metric: Any, scoring: str, progress: Callable[[int, int], None] | None,
    max_seconds: float | None, options: dict[str, Any],
) -> SweepResult:
    """:func:`sweep` with ``scoring=``: one seeded :func:`monte_carlo_scores` run per row, every row checked first."""
    from momentbound.estimators.scoring import check_scoring_run, monte_carlo_scores

    if metric is not None:
        raise InvalidArgument("give scoring= (a scikit-learn scorer, by simulation) or metric= (an exact linear "
                              "statistic), not both")
    if not (isinstance(backend, str) and backend == "montecarlo"):
        raise InvalidArgument(f"scoring={scoring!r} is computed by simulation: use backend='montecarlo' (with seed=), "
                              f"not backend={backend!r}")
    if covariance != "exact":
        raise InvalidArgument("scoring= simulates the real procedure: use covariance='exact'")
    unknown = sorted(set(options) - {"draws", "confidence", "seed"})
    if unknown:
        raise InvalidArgument(f"unknown option(s) {unknown} with scoring=; it takes draws, confidence and seed")
    options = dict(options)
    children = _seeds(options, len(configs))
    for n, est in configs:  # every row's refusals (splitter, scorer, work) before any work
        check_scoring_run(model, n, est, scoring, classifier=classifier, max_seconds=max_seconds, **options)
    start = time.perf_counter()
    rows = []
    for i, ((n, est), child) in enumerate(zip(configs, children), start=1):
        rows.append(monte_carlo_scores(model, n, est, scoring=scoring, classifier=classifier,
                                       rng=np.random.default_rng(child), max_seconds=max_seconds, **options))
        if progress is not None:
            progress(i, len(configs))
    return SweepResult(over, tuple(values), tuple(rows), time.perf_counter() - start)  # type: ignore[arg-type]


def _montecarlo_sweep(
    model: CellModel, over: str, values: Sequence[Any], configs: Sequence[tuple[int, Splitter]], classifier: Any,
    covariance: str, progress: Callable[[int, int], None] | None, options: dict[str, Any],
) -> SweepResult:
    """:func:`sweep` with ``backend="montecarlo"``: one seeded Monte Carlo run per row."""
    from momentbound.estimators.montecarlo import monte_carlo_moments

    unknown = sorted(set(options) - {"draws", "confidence", "seed", "scheduler", "workers", "timeout"})
    if unknown:
        raise InvalidArgument(f"unknown option(s) {unknown} for backend='montecarlo'; it takes draws, "
                              "confidence, seed, scheduler, workers and timeout")
    if covariance != "exact":
        raise InvalidArgument("backend='montecarlo' simulates the real procedure: use covariance='exact'")
    options = dict(options)
    children = _seeds(options, len(configs))
    start = time.perf_counter()
    rows = []
    for i, ((n, est), child) in enumerate(zip(configs, children), start=1):
        rows.append(monte_carlo_moments(model, n, est, classifier=classifier, rng=np.random.default_rng(child),
                                        progress=False, **options))
        if progress is not None:
            progress(i, len(configs))
    return SweepResult(over, tuple(values), tuple(rows), time.perf_counter() - start)  # type: ignore[arg-type]
