"""Moments known only approximately: confidence boxes for the moments of a bounded sample.

For ``X`` in ``[a, c]`` each power ``X^k`` lies in a known range ``[l_k, h_k]`` of width
``R_k``.  From an i.i.d. sample of size ``n`` each ``E[X^k]`` gets an interval at level
``delta_k``:

* ``betting`` (the default; Waudby-Smith and Ramdas 2024, the hedged capital process with
  the predictable plug-in bets of their fixed-sample intervals): with ``y_i = (X_i^k - l_k) / R_k``
  in ``[0, 1]`` taken in a random order, a candidate mean ``m`` is rejected when the capital
  ``K_t^+(m) = prod_{i <= t} (1 + l_i^+(m) (y_i - m))`` or
  ``K_t^-(m) = prod_{i <= t} (1 - l_i^-(m) (y_i - m))`` reaches ``2 / delta_k`` at some
  ``t <= n``, with bets ``l_i^+ = min(lambda_i, c / m)``, ``l_i^- = min(lambda_i, c / (1 - m))``,
  ``lambda_i = sqrt(2 log(2 / delta_k) / (n s_{i-1}^2))`` (``s_{i-1}^2`` the regularised variance of
  the earlier draws) and ``c = 3/4``.  Under ``E[y] = m`` both capitals are nonnegative
  martingales starting at 1, so by Ville's inequality each reaches ``2 / delta_k`` with
  probability at most ``delta_k / 2``: the interval of the candidates not rejected is valid
  for every ``n`` (no asymptotics).  It adapts to the variance of ``X^k``, like a CLT
  interval, where the two below pay for the range;
* Hoeffding: ``eps = R_k sqrt(log(2 / delta_k) / (2 n))``;
* empirical Bernstein (Maurer and Pontil 2009, Theorem 4, both tails):
  ``eps = sqrt(2 V_k log(4 / delta_k) / n) + 7 R_k log(4 / delta_k) / (3 (n - 1))`` with
  ``V_k`` the unbiased sample variance of ``X^k``;

``auto`` takes the narrower of Hoeffding and empirical Bernstein, each at ``delta_k / 2``.  The
total error probability ``1 - confidence`` is split evenly over the ``K`` moments
(Bonferroni), so all ``K`` intervals hold together with probability at least
``confidence``; any bound computed from the box (worst case over it) then holds with at
least that probability.  The intervals are clipped to ``[l_k, h_k]`` and widened outward by
``1e-12 R_k`` to cover the rounding of the floating-point sample means.

The draws also bound ``P(X in E)`` directly: the count of draws in ``E`` is binomial, and its
exact (Clopper-Pearson) interval holds at its own level.  The *combined* sample bound (the
default of :func:`sample_bound` and of ``bound --sample``) treats the indicator ``1{X in E}`` as
one more bounded statistic of the sample: the error probability ``1 - confidence`` is split
(Bonferroni), a share ``s`` (default ``COUNT_SHARE = 1/2``) to the binomial interval of the count
and ``1 - s`` to the moment box, so the box and the count interval hold together with
probability at least ``confidence``.  On that event the true law lies in the box and its
``P(X in E)`` in the count interval, so the bound is the moment bound of the box (every law in
the box has its ``P(X in E)`` in it) intersected with the count interval; the set of laws in
the box is convex and ``P(X in E)`` linear in the law, so this is also the sharp bound of the
problem with ``P(X in E)`` constrained to the count interval.  It is valid at level
``confidence`` for every ``n``.  When the two parts do not meet, no law is consistent with both
at that level (an event of probability at most ``1 - confidence`` when the support is right),
and the bound is reported as empty.  The *moments* bound spends the whole budget on the box.

References
----------
W. Hoeffding, J. Amer. Statist. Assoc. 58 (1963); A. Maurer and M. Pontil, "Empirical
Bernstein bounds and sample variance penalization", COLT 2009; C. J. Clopper and E. S. Pearson,
Biometrika 26 (1934); I. Waudby-Smith and A. Ramdas,
"Estimating means of bounded random variables by betting", J. R. Stat. Soc. B 86 (2024),
section 4 and appendix B.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from momentbound.errors import InvalidArgument

from .problem import Event, MomentProblem, Support

__all__ = ["MomentBox", "INTERVALS", "SAMPLE_BOUNDS", "COUNT_SHARE", "SampleBound", "betting_interval",
           "moment_box_from_sample", "read_sample", "sample_bound", "sample_problem", "split_confidence",
           "combine_with_count"]

INTERVALS = ("betting", "auto", "hoeffding", "bernstein")

#: Largest bet per unit of the distance to the range's end (Waudby-Smith and Ramdas 2024 use 1/2 or 3/4).
_BET_CAP = 0.75
#: Most moments a sample box takes: each further moment only narrows the share of the error
#: probability every interval gets (Bonferroni), and the box bounds were flat from 4 to 6 moments.
MAX_SAMPLE_MOMENTS = 20
#: Most draws the betting intervals read: each end costs about a dozen passes over the sample
#: (about 4 microseconds per draw and moment in all, and six float arrays of its length).
MAX_BETTING_DRAWS = 2_000_000
#: Largest sample file read (about 25 million lines of numbers).
MAX_SAMPLE_FILE_BYTES = 500_000_000
#: Bisection tolerance for each end of a betting interval, relative to its distance from the
#: sample mean: the end is returned on its conservative side, at most this fraction too far out.
_BISECTION_TOL = 1e-3
#: A candidate is rejected only if the log capital exceeds the threshold by this much, so that the
#: rounding of the float log sums (about n * 1e-16) can only widen the interval.
_LOG_SLACK = 1e-9


@dataclass(frozen=True)
class MomentBox:
    """Confidence intervals ``[lo_k, hi_k]`` for ``E[X^k]``, ``k = 1..K``, holding jointly with
    probability at least ``confidence``."""

    lo: tuple[Fraction, ...]
    hi: tuple[Fraction, ...]
    confidence: float
    n: int
    method: str


def _power_range(a: float, c: float, k: int) -> tuple[float, float]:
    vals = [a**k, c**k]
    if k % 2 == 0 and a < 0 < c:
        vals.append(0.0)
    return min(vals), max(vals)


def betting_interval(y: np.ndarray, delta: float) -> tuple[float, float]:
    """Confidence interval for the mean of ``y`` (values in ``[0, 1]``, an i.i.d. sequence in the
    order given) with error probability at most ``delta``: the hedged capital process with
    predictable plug-in bets (Waudby-Smith and Ramdas 2024, section 4), see the module notes.

    The ends are found by bisection (each capital is monotone in the candidate mean) to 1e-3
    of their distance from the sample mean, and returned on their conservative side.

    Example
    -------
    >>> lo, hi = betting_interval(np.tile([0.0, 1.0], 200), 0.05)
    >>> 0.4 < lo < 0.5 < hi < 0.6
    True
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or y.size < 1 or not np.all((y >= 0) & (y <= 1)):
        raise InvalidArgument("y must be a non-empty 1-D array of values in [0, 1] (NaN excluded); rescale "
                              "(y - lo) / (hi - lo) with the ends of its range")
    if not 0 < delta < 1:
        raise InvalidArgument(f"delta (the error probability) must be in (0, 1), got {delta!r}")
    n = y.size
    t = np.arange(1, n + 1)
    mu = (0.5 + np.cumsum(y)) / (t + 1)
    var = (0.25 + np.cumsum((y - mu) ** 2)) / (t + 1)
    var_before = np.concatenate(([0.25], var[:-1]))
    lam = np.sqrt(2 * math.log(2 / delta) / (n * var_before))
    threshold = math.log(2 / delta) + _LOG_SLACK

    def rejected(m: float, sign: int) -> bool:
        room = m if sign > 0 else 1 - m
        bets = np.minimum(lam, _BET_CAP / room) if room > 0 else lam
        log_capital = np.cumsum(np.log1p(sign * bets * (y - m)))
        return bool(np.max(log_capital) >= threshold)

    mean = float(np.mean(y))
    # first probe: about the half-width of a normal-theory interval, doubled until rejected
    first_step = max(float(np.std(y)) * math.sqrt(2 * math.log(2 / delta) / n), 1e-12)

    def end(sign: int) -> float:
        # sign +1: K^+ rejects the small means (the lower end, towards 0); sign -1: K^- the large
        # ones (towards 1).  Only rejected candidates are returned; if the mean itself were
        # rejected, the true end would lie beyond it and the returned one is still conservative.
        limit, direction = (0.0, -1.0) if sign > 0 else (1.0, 1.0)
        inside, step = mean, first_step
        while True:
            probe = mean + direction * step
            if (probe - limit) * direction >= 0:
                if not rejected(limit, sign):
                    return limit
                outside = limit
                break
            if rejected(probe, sign):
                outside = probe
                break
            inside, step = probe, 2 * step
        tol = _BISECTION_TOL * abs(outside - mean)
        while abs(inside - outside) > tol:
            mid = (inside + outside) / 2
            if rejected(mid, sign):
                outside = mid
            else:
                inside = mid
        return outside

    return end(+1), end(-1)


def moment_box_from_sample(
    sample: Sequence[float] | np.ndarray, support: Support, order: int, confidence: float = 0.95,
    method: str = "betting", rng: np.random.Generator | int | None = 0,
) -> MomentBox:
    """Joint confidence box for the first ``order`` moments of a bounded variable.

    Parameters
    ----------
    sample : sequence of floats
        I.i.d. draws of ``X``; every draw must lie in ``support``.
    support : Support
        A bounded support (interval, grid or finite set): its ends give the ranges of ``X^k``.
    order : int
        Number of moments ``K >= 1``.
    confidence : float
        Joint coverage probability, in ``(0, 1)``.
    method : {"betting", "auto", "hoeffding", "bernstein"}
        How each moment's interval is made (module notes); all are valid for every ``n``.
    rng : numpy Generator or int seed
        Draws the random order in which ``betting`` reads the sample, so that a sorted file
        is handled as well as one in the order of the draws.

    Example
    -------
    >>> box = moment_box_from_sample([0.2, 0.4, 0.6, 0.8] * 50, Support.interval(0, 1), 2, 0.95)
    >>> float(box.lo[0]) < 0.5 < float(box.hi[0])
    True
    """
    x = np.asarray(sample, dtype=float).ravel()
    if not support.is_bounded:
        raise InvalidArgument(f"a sample gives moment intervals only on a bounded support, got {support}; "
                              "give --support interval:A:C")
    if x.size < 2:
        raise InvalidArgument(f"the sample needs at least 2 values, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise InvalidArgument("the sample contains NaN or infinite values; remove them")
    a, c = float(support.lo), float(support.hi)  # type: ignore[arg-type]
    outside = x[(x < a) | (x > c)]
    if outside.size:
        raise InvalidArgument(f"sample value {outside[0]!r} lies outside the support {support}; widen the support")
    if not isinstance(order, int) or not 1 <= order <= MAX_SAMPLE_MOMENTS:
        raise InvalidArgument(f"order (the number of moments) must be an integer in 1..{MAX_SAMPLE_MOMENTS}, got "
                              f"{order!r}; more moments only split the error probability further")
    if any(e != 0 and abs(order * math.log10(abs(e))) > 300 for e in (a, c)):
        raise InvalidArgument(f"the ends of the support {support} to the power {order} leave the float range; "
                              "rescale the sample (e.g. to [0, 1]) or use fewer moments")
    if not 0 < confidence < 1:
        raise InvalidArgument(f"confidence must be in (0, 1), got {confidence!r}")
    if method not in INTERVALS:
        raise InvalidArgument(f"method must be one of {INTERVALS}, got {method!r}")
    if method == "betting" and x.size > MAX_BETTING_DRAWS:
        raise InvalidArgument(f"the betting intervals read at most {MAX_BETTING_DRAWS:,} draws, got {x.size:,}; use "
                              "method='bernstein' (--sample-intervals bernstein: one pass, and at this size nearly as "
                              "narrow) or a random subsample")
    n = x.size
    delta = (1 - confidence) / order
    if method == "betting":
        from momentbound._validate import as_seed

        x = as_seed(rng, "rng").permutation(x)
    lo: list[Fraction] = []
    hi: list[Fraction] = []
    for k in range(1, order + 1):
        z = x**k
        l_k, h_k = _power_range(a, c, k)
        width = h_k - l_k
        mean = float(np.mean(z))
        var = float(np.var(z, ddof=1))

        def hoeffding(d: float) -> float:
            return width * math.sqrt(math.log(2 / d) / (2 * n))

        def bernstein(d: float) -> float:
            return math.sqrt(2 * var * math.log(4 / d) / n) + 7 * width * math.log(4 / d) / (3 * (n - 1))

        pad = 1e-12 * max(width, 1e-300)
        if method == "betting":
            if width == 0:
                lo.append(Fraction(l_k))
                hi.append(Fraction(h_k))
                continue
            y = np.clip((z - l_k) / width, 0.0, 1.0)
            u_lo, u_hi = betting_interval(y, delta)
            lo.append(Fraction(max(l_k, l_k + u_lo * width - pad)))
            hi.append(Fraction(min(h_k, l_k + u_hi * width + pad)))
            continue
        if method == "hoeffding":
            eps = hoeffding(delta)
        elif method == "bernstein":
            eps = bernstein(delta)
        else:
            eps = min(hoeffding(delta / 2), bernstein(delta / 2))
        lo.append(Fraction(max(l_k, mean - eps - pad)))
        hi.append(Fraction(min(h_k, mean + eps + pad)))
    return MomentBox(tuple(lo), tuple(hi), confidence, n, method)


def read_sample(path: str | Path) -> np.ndarray:
    """One number per line (blank lines and ``#`` comments ignored)."""
    p = Path(path)
    if not p.is_file():
        raise InvalidArgument(f"sample file {str(p)!r} does not exist")
    size = p.stat().st_size
    if size > MAX_SAMPLE_FILE_BYTES:
        raise InvalidArgument(f"sample file {str(p)!r} has {size / 1e6:.0f} MB, more than the {MAX_SAMPLE_FILE_BYTES / 1e6:.0f} "
                              "MB read into memory; pass a random subsample")
    values = []
    for i, line in enumerate(p.read_text().splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            values.append(float(text))
        except ValueError as exc:
            raise InvalidArgument(f"{p}:{i}: expected one number per line, got {line!r}") from exc
    return np.array(values)


def sample_problem(
    sample: Sequence[float] | np.ndarray, support: Support, event: Event, order: int = 4, confidence: float = 0.95,
    method: str = "betting", rng: np.random.Generator | int | None = 0, **kwargs: object,
) -> MomentProblem:
    """A moment-box problem whose worst-case bound holds with probability at least ``confidence``.

    The box covers the first ``order`` moments (default 4: on five test laws its bounds were within
    0.021 of the narrowest of 2, 3, 4 and 6 moments, see ``benchmarks/bench_sample_bounds.py``);
    ``method`` and ``rng`` as in :func:`moment_box_from_sample`.

    Example
    -------
    >>> from momentbound.bounds import bound
    >>> rng = np.random.default_rng(0)
    >>> p = sample_problem(rng.beta(2, 5, 400), Support.interval(0, 1), Event.ge("0.5"))
    >>> r = bound(p, "sos")
    >>> r.lower <= 0.109375 <= r.upper      # the true P(X >= 0.5) of Beta(2, 5)
    True
    """
    box = moment_box_from_sample(sample, support, order, confidence, method, rng)
    return MomentProblem.from_box((1, *box.lo), (1, *box.hi), support, event, **kwargs)  # type: ignore[arg-type]


#: How a bound from a sample is made: the moment box intersected with the count's binomial
#: interval, or the moment box alone (module notes).
SAMPLE_BOUNDS = ("combined", "moments")
#: Share of the error probability ``1 - confidence`` the combined bound gives to the count interval.
COUNT_SHARE = 0.5


def split_confidence(confidence: float, how: str = "combined", count_share: float = COUNT_SHARE
                     ) -> tuple[float, float | None]:
    """The levels of the moment box and of the count interval (``None``: not part of the bound).

    Example
    -------
    >>> split_confidence(0.95)
    (0.975, 0.975)
    >>> split_confidence(0.95, "moments")
    (0.95, None)
    """
    if not 0 < confidence < 1:
        raise InvalidArgument(f"confidence must be in (0, 1), got {confidence!r}")
    if how not in SAMPLE_BOUNDS:
        raise InvalidArgument(f"the sample bound must be one of {SAMPLE_BOUNDS}, got {how!r}")
    if how == "moments":
        return confidence, None
    if not 0 < count_share < 1:
        raise InvalidArgument(f"count_share (the share of 1 - confidence given to the count interval) must be in "
                              f"(0, 1), got {count_share!r}; e.g. 0.5")
    alpha = 1 - confidence
    return 1 - alpha * (1 - count_share), 1 - alpha * count_share


@dataclass(frozen=True)
class SampleBound:
    """A bound on ``P(X in E)`` from a sample, with the parts it is made of.

    ``lower``/``upper`` is the headline: for ``how == "combined"`` the moment bound intersected
    with the count interval (``None`` when they do not meet), for ``"moments"`` the moment bound.
    The moment bound holds when the box (at ``moment_confidence``) holds, the count interval at
    ``count_confidence``; together they hold with probability at least ``confidence``.
    """

    how: str
    confidence: float
    lower: float | None
    upper: float | None
    moment_bound: tuple[float, float]
    moment_confidence: float
    moment_box: tuple[tuple[Fraction, Fraction], ...]
    hits: int
    n: int
    count_interval: tuple[float, float]
    count_confidence: float
    count_share: float | None

    @property
    def empty(self) -> bool:
        """The two parts exclude each other: no law in the box has its probability in the count interval."""
        return self.lower is None

    def summary(self) -> dict[str, object]:
        """JSON-ready fields naming both parts, the split and the headline."""
        return {
            "bound": self.how, "confidence": self.confidence, "lower": self.lower, "upper": self.upper,
            "empty": self.empty,
            "split": {"moment_box": self.moment_confidence,
                      "count": self.count_confidence if self.how == "combined" else None},
            "moment_bound": {"lower": self.moment_bound[0], "upper": self.moment_bound[1],
                             "confidence": self.moment_confidence},
            "moment_box": [[float(lo), float(hi)] for lo, hi in self.moment_box],
            "count": {"hits": self.hits, "n": self.n, "clopper_pearson": list(self.count_interval),
                      "confidence": self.count_confidence, "in_bound": self.how == "combined"},
        }


def combine_with_count(
    moment_bound: tuple[float, float], moment_box: Sequence[tuple[Fraction, Fraction]], sample: Sequence[float] | np.ndarray,
    event: Event, confidence: float = 0.95, how: str = "combined", count_share: float = COUNT_SHARE,
) -> SampleBound:
    """Join the moment bound of a box made at ``split_confidence(confidence, how, count_share)[0]``
    with the exact binomial interval of the count of ``sample`` in ``event``.

    With ``how="moments"`` the count interval is computed at ``confidence`` for reference only.

    Example
    -------
    >>> x = np.tile([0.0, 0.5, 1.0, 1.0], 100)
    >>> sb = combine_with_count((0.0, 0.9), [], x, Event.ge(1), 0.95)
    >>> sb.how, sb.hits, sb.lower < 0.5 < sb.upper <= 0.9
    ('combined', 200, True)
    """
    from .sampling import clopper_pearson, event_mask

    moment_conf, count_conf = split_confidence(confidence, how, count_share)
    x = np.asarray(sample, dtype=float).ravel()
    hits = int(np.count_nonzero(event_mask(event, x)))
    count = clopper_pearson(hits, int(x.size), confidence if count_conf is None else count_conf)
    lo, hi = float(moment_bound[0]), float(moment_bound[1])
    if how == "combined":
        lo, hi = max(lo, count[0]), min(hi, count[1])
        if lo > hi:
            lo = hi = None  # type: ignore[assignment]
    return SampleBound(how, confidence, lo, hi, (float(moment_bound[0]), float(moment_bound[1])), moment_conf,
                       tuple(moment_box), hits, int(x.size), count,
                       confidence if count_conf is None else count_conf, count_share if how == "combined" else None)


def sample_bound(
    sample: Sequence[float] | np.ndarray, support: Support, event: Event, order: int = 4, confidence: float = 0.95,
    method: str = "betting", rng: np.random.Generator | int | None = 0, how: str = "combined",
    count_share: float = COUNT_SHARE, bound_method: str = "sos", **bound_options: object,
) -> SampleBound:
    """Bound ``P(X in E)`` from i.i.d. draws of a bounded ``X``, valid at level ``confidence`` for every ``n``.

    ``how="combined"`` (default): the moment box of ``order`` moments at ``1 - (1 - confidence)(1 -
    count_share)`` bounded with ``bound_method`` (worst case over the box), intersected with the
    Clopper-Pearson interval of the count at ``1 - (1 - confidence) count_share`` (module notes).
    ``how="moments"``: the moment bound of the box at ``confidence`` alone.

    Example
    -------
    >>> rng = np.random.default_rng(0)
    >>> sb = sample_bound(rng.beta(2, 5, 400), Support.interval(0, 1), Event.ge("0.5"))
    >>> sb.lower <= 0.109375 <= sb.upper, sb.upper - sb.lower < 0.1      # the true P(X >= 0.5) of Beta(2, 5)
    (True, True)
    """
    from .api import bound

    moment_conf, _ = split_confidence(confidence, how, count_share)
    problem = sample_problem(sample, support, event, order, moment_conf, method, rng)
    r = bound(problem, bound_method, **bound_options)
    moment = (r.lower, r.upper) if r.certified else (0.0, 1.0)
    return combine_with_count(moment, problem.moment_box, sample, event, confidence, how, count_share)
