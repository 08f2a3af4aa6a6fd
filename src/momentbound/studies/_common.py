"""Shared plumbing of the study modules: grids, progress, numbers, figures, estimator rows."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from momentbound.errors import InvalidArgument
from momentbound.guard import block_seconds
from momentbound.intervals import Enclosure

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

T = TypeVar("T")
R = TypeVar("R")

Progress = Callable[[int, int], None]


def grid_map(fn: Callable[[T], R], items: Sequence[T], progress: Progress | None = None) -> list[R]:
    """``[fn(item) for item in items]`` reporting ``progress(done, total)`` after each item."""
    out: list[R] = []
    total = len(items)
    for i, item in enumerate(items):
        out.append(fn(item))
        if progress is not None:
            progress(i + 1, total)
    return out


def as_float(value: Any, *, name: str = "value") -> float:
    """A point value (Fraction, int, float, numpy scalar) as float.

    Interval-valued results (with ``lower``/``upper``) are rejected: a study plots one curve
    per quantity and must not silently pick a point inside a guaranteed interval.
    """
    if isinstance(value, Enclosure):
        raise InvalidArgument(
            f"{name} is an interval [{value.lower}, {value.upper}]; the studies plot point values, "
            f"so use a point backend ('exact', 'sampling' or 'series')"
        )
    if isinstance(value, Fraction):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be a number, got {value!r}") from exc


def check_positive_int(value: Any, *, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_int_grid(values: Iterable[Any], *, name: str, minimum: int, maximum: int | None = None) -> tuple[int, ...]:
    """Validate a grid of integers (sorted, unique, within bounds)."""
    try:
        grid = tuple(sorted({int(v) for v in values}))
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name} must be integers, got {values!r}") from exc
    if len(grid) < 2:
        raise InvalidArgument(f"{name} needs at least 2 distinct values to draw a curve, got {grid}")
    if grid[0] < minimum or (maximum is not None and grid[-1] > maximum):
        upper = "" if maximum is None else f" and <= {maximum}"
        raise InvalidArgument(f"{name} values must be >= {minimum}{upper}, got {grid[0]}..{grid[-1]}")
    return grid


def estimator_row(res: Any) -> dict[str, float | None]:
    """The numeric fields of an ``EstimatorMoments`` result as floats (None when absent)."""
    from momentbound.estimators.from_predictions import MOMENT_FIELDS

    row: dict[str, float | None] = {}
    for field in MOMENT_FIELDS:
        value = getattr(res, field, None)
        row[field] = None if value is None else as_float(value, name=field)
    return row


def estimator_runner(model: Any, *, ties: str, backend: str) -> "tuple[Callable[..., Any], Any]":
    """``(run, engine)``: ``run(N, estimator, **kw)`` is ``estimator_moments`` for ``model`` with one
    naive Bayes classifier and one shared engine, whose caches serve every point of a grid."""
    from momentbound.estimators import estimator_moments, make_engine
    from momentbound.exact import NaiveBayes

    classifier = NaiveBayes(ties=ties)
    if backend == "exact":
        import math

        from momentbound.probability.exact_backend import ExactBackend

        backend = ExactBackend(max_work=math.inf)  # type: ignore[assignment]
    engine = make_engine(model, classifier=classifier, backend=backend)

    def run(N: int, estimator: Any, **kw: Any) -> Any:
        # a study's grid is its own, documented scale: no per-call time or work limit
        return estimator_moments(model, N, estimator, classifier=classifier, backend=backend, engine=engine,
                                 max_seconds=block_seconds(), **kw)

    return run, engine


def source_of(res: Any) -> tuple[str, str]:
    """``(backend, kind)`` of an estimator result, as the strings a ``CurveSource`` records."""
    return str(res.backend), str(getattr(res.kind, "value", res.kind))


def new_figure(nrows: int, ncols: int, title: str, *, width: float = 4.2, height: float = 3.4) -> "tuple[Figure, list[Axes]]":
    """A pyplot-free figure (no global state, no 'too many figures' warnings) with a title."""
    from matplotlib.figure import Figure

    import textwrap

    fig = Figure(figsize=(width * ncols, height * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    # wrap long titles to the figure width (about 10 characters per inch at this size)
    fig.suptitle(textwrap.fill(title, width=max(40, int(9.5 * width * ncols))), fontsize=11)
    return fig, [ax for row in axes for ax in row]


def label(ax: "Axes", *, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    from matplotlib.ticker import ScalarFormatter

    if isinstance(ax.yaxis.get_major_formatter(), ScalarFormatter):
        ax.ticklabel_format(axis="y", useOffset=False)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)


def fraction_grid(points: int) -> tuple[Fraction, ...]:
    """``points`` equally spaced exact values from 0 to 1."""
    if points < 2:
        raise InvalidArgument(f"grid needs at least 2 points, got {points}")
    return tuple(Fraction(i, points - 1) for i in range(points))


def finite(values: Iterable[float | None]) -> bool:
    return all(v is not None and math.isfinite(v) for v in values)


def interval_row(res: Any) -> dict[str, float | None]:
    """Moment fields of an estimator result as ``field``, ``field_lower``, ``field_upper`` floats.

    A Monte Carlo result (fields are :class:`~momentbound.estimators.Interval` with an
    ``estimate``) gives its point estimate and confidence interval; an exact (point) result gives
    ``lower == upper == value``, so exact and Monte Carlo rows share one set of columns.
    """
    from momentbound.estimators.from_predictions import MOMENT_FIELDS

    row: dict[str, float | None] = {}
    for field in MOMENT_FIELDS:
        value = getattr(res, field, None)
        if value is None:
            row[field] = row[f"{field}_lower"] = row[f"{field}_upper"] = None
        elif isinstance(value, Enclosure):
            if value.estimate is None:
                raise InvalidArgument(f"{field} is a guaranteed bound without a point estimate; "
                                      f"use backend 'exact' or 'montecarlo'")
            row[field] = float(value.estimate)
            row[f"{field}_lower"] = float(value.lower)
            row[f"{field}_upper"] = float(value.upper)
        else:
            row[field] = row[f"{field}_lower"] = row[f"{field}_upper"] = as_float(value, name=field)
    return row


def check_mc_options(draws: Any, confidence: Any, seed: Any) -> None:
    """Validate the Monte Carlo options of a study (draws, confidence level, integer seed)."""
    from momentbound.estimators.montecarlo import MIN_DRAWS

    check_positive_int(draws, name="draws", minimum=MIN_DRAWS)  # fewer: the intervals would not hold their level
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InvalidArgument(f"confidence must be a number in (0, 1) such as 0.95, got {confidence!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidArgument(f"seed must be a non-negative integer (the studies' rng seed), got {seed!r}")


def mc_runner(model: Any, *, ties: str, draws: int, confidence: float, seed: int) -> "Callable[..., Any]":
    """``run(N, estimator, key)``: :func:`~momentbound.estimators.montecarlo.monte_carlo_moments`
    with ``rng = default_rng([seed, *key])``, so every grid point has its own reproducible stream
    (independent of the rest of the grid)."""
    import numpy as np

    from momentbound.estimators.montecarlo import monte_carlo_moments
    from momentbound.exact import NaiveBayes

    check_mc_options(draws, confidence, seed)
    classifier = NaiveBayes(ties=ties)

    def run(N: int, estimator: Any, key: Sequence[int]) -> Any:
        rng = np.random.default_rng([seed, *(int(k) for k in key)])
        return monte_carlo_moments(model, N, estimator, classifier=classifier, draws=draws,
                                   confidence=confidence, rng=rng, max_seconds=block_seconds())

    return run
