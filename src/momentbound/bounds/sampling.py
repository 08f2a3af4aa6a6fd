"""Monte Carlo estimates of ``P(X in E)`` with confidence intervals (method ``"sampling"``).

The paper's RS: draw count tables of the multinomial data model (never datasets),
evaluate the statistic on all of them at once, and count how often the event holds.
Two intervals are reported for the hit fraction ``p_hat`` of ``n`` draws:

* the paper's Chebyshev-type interval ``p_hat +/- sqrt(p_hat (1 - p_hat) / (n alpha))``
  (Chebyshev's inequality with the plug-in standard deviation; ``alpha = 1 - confidence``),
  which reproduces the widths of the paper's Table 5;
* the exact Clopper-Pearson interval from beta quantiles, which has guaranteed coverage
  (the default for ``lower``/``upper``).

Results have kind ESTIMATE: they hold with the stated confidence, not with certainty.
A problem's statistic is drawn by its ``statistic_sampler`` (for the naive Bayes statistic:
:func:`momentbound.model.z_sampler.naive_bayes_sampler`).

References
----------
Dhurandhar & Dobra, Section 7.2.3 and Table 5; C. J. Clopper and E. S. Pearson,
Biometrika 26 (1934).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument

from .problem import Event, EventKind, MomentProblem
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind, Status

__all__ = [
    "SamplingEstimate",
    "SamplingMethod",
    "estimate_probability",
    "clopper_pearson",
    "chebyshev_interval",
    "event_mask",
    "INTERVALS",
]

INTERVALS = ("clopper-pearson", "chebyshev")


def _check_rng(rng: Any) -> np.random.Generator:
    from momentbound._validate import as_seed

    if rng is None or isinstance(rng, (int, np.integer, np.random.Generator)):
        return as_seed(rng, "rng")
    raise InvalidArgument(f"rng must be a numpy.random.Generator, an integer seed >= 0 or None, got {rng!r}")


def _check_confidence(confidence: Any) -> float:
    try:
        c = float(confidence)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"confidence must be a number in (0, 1), got {confidence!r}") from exc
    if not 0.0 < c < 1.0:
        raise InvalidArgument(f"confidence must be in (0, 1) (e.g. 0.95), got {confidence!r}")
    return c


def _check_draws(draws: Any) -> int:
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise InvalidArgument(f"draws must be a positive integer, got {draws!r}")
    return int(draws)


def clopper_pearson(hits: int, draws: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided Clopper-Pearson interval for a binomial proportion.

    Example
    -------
    >>> lo, hi = clopper_pearson(50, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.3983, 0.6017)
    """
    from scipy.stats import beta

    draws = _check_draws(draws)
    if not 0 <= hits <= draws:
        raise InvalidArgument(f"hits must be in 0..draws={draws}, got {hits!r}")
    a = 1.0 - _check_confidence(confidence)
    lo = 0.0 if hits == 0 else float(beta.ppf(a / 2, hits, draws - hits + 1))
    hi = 1.0 if hits == draws else float(beta.ppf(1 - a / 2, hits + 1, draws - hits))
    return lo, hi


def chebyshev_interval(hits: int, draws: int, confidence: float = 0.95) -> tuple[float, float]:
    """The paper's interval ``p_hat +/- sqrt(p_hat (1 - p_hat) / (n (1 - confidence)))``, clipped to [0, 1].

    Example
    -------
    >>> lo, hi = chebyshev_interval(50, 100)     # Table 5, 100 samples: width ~0.45
    >>> round(hi - lo, 4)
    0.4472
    """
    draws = _check_draws(draws)
    if not 0 <= hits <= draws:
        raise InvalidArgument(f"hits must be in 0..draws={draws}, got {hits!r}")
    a = 1.0 - _check_confidence(confidence)
    p = hits / draws
    half = math.sqrt(p * (1 - p) / (draws * a))
    return max(0.0, p - half), min(1.0, p + half)


def event_mask(event: Event, values: np.ndarray) -> np.ndarray:
    """Vectorised ``event.indicator`` (exact for integer samples: thresholds compare as rationals).

    Example
    -------
    >>> event_mask(Event.gt(0), np.array([-1, 0, 2])).tolist()
    [False, False, True]
    """
    v = np.asarray(values)
    k = event.kind

    def cmp(t: Any, op: str) -> np.ndarray:
        # compare v with the rational t exactly: v ? p/q  <=>  q v ? p (q > 0)
        p, q = t.numerator, t.denominator
        lhs = v * q if v.dtype != object else np.array([x * q for x in v.ravel()], dtype=object).reshape(v.shape)
        return {"gt": lhs > p, "ge": lhs >= p, "lt": lhs < p, "le": lhs <= p}[op]

    if k is EventKind.UNION:
        out = np.zeros(v.shape, dtype=bool)
        for sp in event.spans():
            part = np.ones(v.shape, dtype=bool)
            if sp.lo is not None:
                part &= event_mask(Event.ge(sp.lo) if sp.lo_closed else Event.gt(sp.lo), v)
            if sp.hi is not None:
                part &= event_mask(Event.le(sp.hi) if sp.hi_closed else Event.lt(sp.hi), v)
            out |= part
        return out
    if np.issubdtype(v.dtype, np.floating):
        a = float(event.a)
        b = None if event.b is None else float(event.b)
        table = {
            EventKind.GT: lambda: v > a,
            EventKind.GE: lambda: v >= a,
            EventKind.LT: lambda: v < a,
            EventKind.LE: lambda: v <= a,
            EventKind.BETWEEN: lambda: (v >= a) & (v <= b),
            EventKind.OUTSIDE: lambda: (v < a) | (v > b),
        }
        return np.asarray(table[k]())
    if k is EventKind.GT:
        return cmp(event.a, "gt")
    if k is EventKind.GE:
        return cmp(event.a, "ge")
    if k is EventKind.LT:
        return cmp(event.a, "lt")
    if k is EventKind.LE:
        return cmp(event.a, "le")
    inside = cmp(event.a, "ge") & cmp(event.b, "le")
    return inside if k is EventKind.BETWEEN else ~inside


@dataclass(frozen=True)
class SamplingEstimate:
    """Hit count of the event in ``draws`` samples and both confidence intervals."""

    hits: int
    draws: int
    confidence: float
    estimate: float
    clopper_pearson: tuple[float, float]
    chebyshev: tuple[float, float]


def estimate_probability(
    sampler: Callable[[np.random.Generator, int], np.ndarray],
    event: Event,
    draws: int = 1000,
    *,
    rng: np.random.Generator | int | None = None,
    confidence: float = 0.95,
    batch: int = 100_000,
) -> SamplingEstimate:
    """Monte Carlo estimate of ``P(X in event)`` from ``sampler(rng, size)``.

    Example
    -------
    >>> est = estimate_probability(lambda rng, n: rng.integers(0, 2, n), Event.gt(0), 2000, rng=1)
    >>> est.clopper_pearson[0] < 0.5 < est.clopper_pearson[1]
    True
    """
    draws = _check_draws(draws)
    conf = _check_confidence(confidence)
    gen = _check_rng(rng)
    hits = 0
    left = draws
    while left > 0:
        n = min(left, batch)
        values = np.asarray(sampler(gen, n))
        if values.shape != (n,):
            raise InvalidArgument(f"statistic_sampler(rng, {n}) must return {n} samples, got shape {values.shape}")
        hits += int(np.count_nonzero(event_mask(event, values)))
        left -= n
    return SamplingEstimate(
        hits, draws, conf, hits / draws, clopper_pearson(hits, draws, conf), chebyshev_interval(hits, draws, conf)
    )


class SamplingMethod(BoundMethod):
    """Monte Carlo estimate with a confidence interval (paper's RS; kind ESTIMATE).

    Needs ``problem.statistic_sampler`` (e.g. :func:`momentbound.model.z_sampler.naive_bayes_sampler`).

    Options
    -------
    draws : int
        Number of sampled count tables (default 1000).
    confidence : float
        Confidence level of the interval (default 0.95).
    interval : {"clopper-pearson", "chebyshev"}
        Which interval becomes ``lower``/``upper`` (the other is in the message).
    rng : numpy.random.Generator, int or None
        Source of randomness.
    max_seconds : float or None
        Refuse (``WorkLimitExceeded``) before any draw when the draws would take longer
        (:mod:`momentbound.guard`); ``None`` lifts the limit.

    Example
    -------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.z_sampler import naive_bayes_sampler
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> p = MomentProblem((1,), Support.grid(-147, 147), Event.gt(0),
    ...                   statistic_sampler=naive_bayes_sampler(equal_cells_model((2, 2)), 10, (0, 0)))
    >>> r = bound(p, method="sampling", draws=2000, rng=0)
    >>> r.kind.value, r.samples, r.lower < r.upper
    ('estimate', 2000, True)
    """

    name = "sampling"
    kind = Kind.ESTIMATE
    options = {"draws": 1000, "confidence": 0.95, "interval": "clopper-pearson", "rng": None,
               "max_seconds": 120.0}

    def applies(self, problem: MomentProblem) -> str | None:
        if problem.statistic_sampler is None:
            return "needs problem.statistic_sampler (e.g. naive_bayes_sampler(model, N, x)) to draw samples"
        return getattr(problem.statistic_sampler, "unavailable", None)

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        from momentbound import guard

        interval = options["interval"]
        if interval not in INTERVALS:
            raise InvalidArgument(f"interval must be one of {INTERVALS}, got {interval!r}")
        draws = _check_draws(options["draws"])
        per = getattr(problem.statistic_sampler, "seconds_per_draw", None)
        if per is None and draws > 10_000:  # an unknown sampler: time a small batch first
            probe = time.perf_counter()
            problem.statistic_sampler(_check_rng(0), 1000)  # type: ignore[misc]
            per = (time.perf_counter() - probe) / 1000
        guard.check(f"{guard.option('draws', draws)} samples", seconds=None if per is None else per * draws,
                    max_seconds=options["max_seconds"], fix=f"use fewer {guard.option('draws')}")
        est = estimate_probability(
            problem.statistic_sampler,  # type: ignore[arg-type]
            problem.event,
            _check_draws(options["draws"]),
            rng=_check_rng(options["rng"]),
            confidence=options["confidence"],
        )
        lo, hi = est.clopper_pearson if interval == "clopper-pearson" else est.chebyshev
        other = "chebyshev" if interval == "clopper-pearson" else "clopper-pearson"
        olo, ohi = est.chebyshev if interval == "clopper-pearson" else est.clopper_pearson
        msg = (
            f"{Status.ESTIMATED.message}: {est.hits}/{est.draws} hits, estimate {est.estimate:.6g}, "
            f"{est.confidence:.0%} {interval} [{lo:.6g}, {hi:.6g}], {other} [{olo:.6g}, {ohi:.6g}]"
        )
        return BoundResult(
            lo,
            hi,
            self.name,
            Kind.ESTIMATE,
            Status.ESTIMATED,
            msg,
            certified=False,
            diagnostics=Diagnostics(solver="monte-carlo", formula=interval, notes=(f"estimate={est.estimate!r}", f"{other}=[{olo!r}, {ohi!r}]")),
            samples=est.draws,
            confidence=est.confidence,
        )
