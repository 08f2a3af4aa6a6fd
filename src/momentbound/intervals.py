"""Sound interval arithmetic for moments computed from interval-valued probability backends.

:class:`Interval` carries ``[lower, upper]`` (floats rounded outward one step per operation, or
exact rationals) and an optional point ``estimate`` propagated by the same formulas;
:func:`partition_dot` bounds a weighted sum of the probabilities of a partition by its exact range over the box of
intervals intersected with ``{sum = 1}``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Union

import numpy as np

from momentbound.errors import InvalidArgument, SolverFailed

__all__ = [
    "Enclosure",
    "Interval",
    "Value",
    "Number",
    "PARTITION_TOLERANCE",
    "partition_dot",
    "clip_nonneg",
    "ratio_like",
    "sqrt_value",
]

Number = Union[Fraction, float]

# how far interval ends may miss a probability sum of 1 (rounding in the backend) before we refuse
PARTITION_TOLERANCE = 1e-9


# ----------------------------------------------------------------------------- intervals
def _down(value: Any) -> Any:
    """One float step towards -inf (outward rounding keeps float intervals sound); exact as is."""
    return math.nextafter(value, -math.inf) if isinstance(value, float) else value


def _up(value: Any) -> Any:
    return math.nextafter(value, math.inf) if isinstance(value, float) else value


class Enclosure:
    """An enclosure ``[lower, upper]`` of an unknown quantity, with an optional point ``estimate``.

    The one interval type of the package. :class:`Interval` (numbers, with sound arithmetic),
    :class:`momentbound.probability.ProbabilityInterval` (arrays of prediction probabilities) and
    :class:`momentbound.bounds.BoundResult` (bounds on a probability, with their certificate) are
    enclosures: code that accepts any of them tests ``isinstance(value, Enclosure)`` and reads
    them as :class:`Interval` objects with :meth:`intervals`.

    Examples
    --------
    >>> Enclosure.intervals(Interval(0, 1)) == Interval(0, 1)
    True
    """

    __slots__ = ()
    lower: Any
    upper: Any
    estimate: Any

    @property
    def width(self) -> Any:
        return self.upper - self.lower

    def intervals(self) -> Any:
        """The enclosure as :class:`Interval` objects: one for scalar ends, nested lists of the
        shape of the ends for array ends (each with its entry of ``estimate``)."""
        lo, hi = np.asarray(self.lower), np.asarray(self.upper)
        if lo.ndim == 0:
            return Interval(self.lower, self.upper, self.estimate)
        est = None if self.estimate is None else np.asarray(self.estimate).tolist()
        return _zip_intervals(lo.tolist(), hi.tolist(), est)


def _zip_intervals(lo: Any, hi: Any, est: Any) -> Any:
    if isinstance(lo, list):
        ests = est if est is not None else [None] * len(lo)
        return [_zip_intervals(a, b, e) for a, b, e in zip(lo, hi, ests)]
    return Interval(lo, hi, est)


@dataclass(frozen=True)
class Interval(Enclosure):
    """A closed interval ``[lower, upper]`` enclosing an unknown moment (sound arithmetic).

    Produced when the prediction probabilities come with intervals: guaranteed bounds
    (``"bound:<method>"`` backends; kind ``BOUND``), or per-term confidence intervals of a Monte
    Carlo backend (``"sampling"``; kind ``ESTIMATE``), which then also carries the propagated point
    ``estimate``. Sums, differences and products enclose every value the operands allow; for
    confidence intervals the result is the image of the per-term intervals, not a calibrated
    simultaneous confidence interval.

    Examples
    --------
    >>> a = Interval(0.1, 0.2)
    >>> (a * a - a).lower <= 0.1 * 0.1 - 0.1 <= (a * a - a).upper
    True
    """

    lower: Any
    upper: Any
    estimate: Any = None

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise InvalidArgument(f"Interval needs lower <= upper, got [{self.lower}, {self.upper}]")

    def intervals(self) -> Interval:
        """Itself (see :meth:`Enclosure.intervals`)."""
        return self

    @property
    def midpoint(self) -> float:
        return (float(self.lower) + float(self.upper)) / 2.0

    def __contains__(self, value: object) -> bool:
        return bool(self.lower <= value <= self.upper)  # type: ignore[operator]

    @staticmethod
    def _of(value: Any) -> Interval:
        return value if isinstance(value, Interval) else Interval(value, value, value)

    @staticmethod
    def _est(a: Interval, b: Interval, op: Any) -> Any:
        if a.estimate is None or b.estimate is None:
            return None
        return op(a.estimate, b.estimate)

    def __add__(self, other: Any) -> Interval:
        o = Interval._of(other)
        return Interval(
            _down(self.lower + o.lower),
            _up(self.upper + o.upper),
            Interval._est(self, o, lambda a, b: a + b),
        )

    __radd__ = __add__

    def __sub__(self, other: Any) -> Interval:
        o = Interval._of(other)
        return Interval(
            _down(self.lower - o.upper),
            _up(self.upper - o.lower),
            Interval._est(self, o, lambda a, b: a - b),
        )

    def __rsub__(self, other: Any) -> Interval:
        return Interval._of(other) - self

    def __neg__(self) -> Interval:
        return Interval(-self.upper, -self.lower, None if self.estimate is None else -self.estimate)

    def __mul__(self, other: Any) -> Interval:
        o = Interval._of(other)
        products = (
            self.lower * o.lower,
            self.lower * o.upper,
            self.upper * o.lower,
            self.upper * o.upper,
        )
        return Interval(
            _down(min(products)), _up(max(products)), Interval._est(self, o, lambda a, b: a * b)
        )

    __rmul__ = __mul__

    def clip(self, low: Any, high: Any) -> Interval:
        """Intersect with ``[low, high]`` (a range known to contain the true value)."""
        lo = max(self.lower, low)
        hi = min(self.upper, high)
        if lo > hi:  # only rounding can cause this; keep a valid (degenerate) interval
            lo = hi = low if self.upper < low else high
        est = self.estimate
        if est is not None:
            est = min(max(est, lo), hi)
        return Interval(lo, hi, est)

    def sqrt(self) -> Interval:
        est = None if self.estimate is None else math.sqrt(max(float(self.estimate), 0.0))
        return Interval(
            max(_down(math.sqrt(max(float(self.lower), 0.0))), 0.0),
            _up(math.sqrt(max(float(self.upper), 0.0))),
            est,
        )


Value = Union[Fraction, float, Interval]


def clip_nonneg(v: Value) -> Value:
    """Variances are >= 0; only interval enclosures or float rounding (~1e-17) dip below."""
    if isinstance(v, Interval):
        zero = abs(0 * v.lower)  # 0 in the interval's arithmetic (never -0.0)
        return v.clip(zero, max(v.upper, zero))
    if isinstance(v, float):
        return max(v, 0.0)
    return v


def sqrt_value(v: Value) -> Union[float, Interval]:
    if isinstance(v, Interval):
        return v.sqrt()
    return math.sqrt(max(float(v), 0.0))


def ratio_like(a: int, b: int, like: Value) -> Number:
    """``a / b`` as a Fraction when computing in rationals, else as a float."""
    exact = isinstance(like, Fraction) or (
        isinstance(like, Interval) and isinstance(like.lower, Fraction)
    )
    return Fraction(a, b) if exact else a / b


def partition_dot(values: Sequence[Any], weights: Sequence[Any]) -> Value:
    """``sum_i values[i] * weights[i]`` for the probabilities of a partition (they sum to 1).

    Point values give the plain sum. When the values are intervals, the result is the exact range
    of the sum over the box of intervals intersected with ``{sum_i value_i = 1}`` (a fractional
    knapsack: fill from the lower ends, cheapest or dearest weights first), which is much tighter
    than adding the intervals; the point estimates, when present, are summed.
    """
    if not any(isinstance(v, Interval) for v in values):
        total: Value = 0
        for v, w in zip(values, weights):
            if w:
                total = total + v * w
        return total
    boxes = [Interval._of(v) for v in values]
    # exact rational arithmetic on the (exactly representable) float ends, rounded outward once
    lo = [Fraction(b.lower) for b in boxes]
    hi = [Fraction(b.upper) for b in boxes]
    wq = [Fraction(w) for w in weights]
    slack = 1 - sum(lo, Fraction(0))
    if slack < -PARTITION_TOLERANCE or sum(hi, Fraction(0)) < 1 - PARTITION_TOLERANCE:
        raise SolverFailed(
            "the backend's probability intervals cannot contain probabilities summing to 1 "
            f"(lower ends sum to {float(sum(lo)):.12g}, upper ends to {float(sum(hi)):.12g}); "
            "the backend's bounds are inconsistent",
            result=boxes,
        )
    slack = max(slack, Fraction(0))
    base = sum((l * w for l, w in zip(lo, wq)), Fraction(0))

    def extreme(order: list[int]) -> Fraction:
        left, total = slack, base
        for i in order:
            if left <= 0:
                break
            add = min(hi[i] - lo[i], left)
            total += add * wq[i]
            left -= add
        return total

    order = sorted(range(len(wq)), key=lambda i: wq[i])
    low_q, high_q = extreme(order), extreme(order[::-1])
    low, high = _down(float(low_q)), _up(float(max(low_q, high_q)))
    estimate = None
    if all(b.estimate is not None for b in boxes):
        estimate = math.fsum(float(b.estimate) * float(w) for b, w in zip(boxes, wq))
        estimate = min(max(estimate, low), high)
    return Interval(low, high, estimate)
