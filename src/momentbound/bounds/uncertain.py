"""Moments known only approximately: confidence boxes for the moments of a bounded sample.

For ``X`` in ``[a, c]`` each power ``X^k`` lies in a known range ``[l_k, h_k]`` of width
``R_k``.  From an i.i.d. sample of size ``n`` the interval for ``E[X^k]`` is the sample mean
``+- eps_k`` with, at level ``delta_k``,

* Hoeffding: ``eps = R_k sqrt(log(2 / delta_k) / (2 n))``;
* empirical Bernstein (Maurer and Pontil 2009, Theorem 4, both tails):
  ``eps = sqrt(2 V_k log(4 / delta_k) / n) + 7 R_k log(4 / delta_k) / (3 (n - 1))`` with
  ``V_k`` the unbiased sample variance of ``X^k``;

``auto`` takes the narrower of the two, each at ``delta_k / 2``.  The total error
probability ``1 - confidence`` is split evenly over the ``K`` moments (Bonferroni), so all
``K`` intervals hold together with probability at least ``confidence``; any bound computed
from the box (worst case over it) then holds with at least that probability.  The
intervals are clipped to ``[l_k, h_k]`` and widened outward by ``1e-12 R_k`` to cover the
rounding of the floating-point sample means.

References
----------
W. Hoeffding, J. Amer. Statist. Assoc. 58 (1963); A. Maurer and M. Pontil, "Empirical
Bernstein bounds and sample variance penalization", COLT 2009.
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

__all__ = ["MomentBox", "INTERVALS", "moment_box_from_sample", "read_sample", "sample_problem"]

INTERVALS = ("auto", "hoeffding", "bernstein")


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


def moment_box_from_sample(
    sample: Sequence[float] | np.ndarray, support: Support, order: int, confidence: float = 0.95, method: str = "auto"
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
    method : {"auto", "hoeffding", "bernstein"}

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
    if not isinstance(order, int) or order < 1:
        raise InvalidArgument(f"order must be a positive integer, got {order!r}")
    if not 0 < confidence < 1:
        raise InvalidArgument(f"confidence must be in (0, 1), got {confidence!r}")
    if method not in INTERVALS:
        raise InvalidArgument(f"method must be one of {INTERVALS}, got {method!r}")
    n = x.size
    delta = (1 - confidence) / order
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

        if method == "hoeffding":
            eps = hoeffding(delta)
        elif method == "bernstein":
            eps = bernstein(delta)
        else:
            eps = min(hoeffding(delta / 2), bernstein(delta / 2))
        pad = 1e-12 * max(width, 1e-300)
        lo.append(Fraction(max(l_k, mean - eps - pad)))
        hi.append(Fraction(min(h_k, mean + eps + pad)))
    return MomentBox(tuple(lo), tuple(hi), confidence, n, method)


def read_sample(path: str | Path) -> np.ndarray:
    """One number per line (blank lines and ``#`` comments ignored)."""
    p = Path(path)
    if not p.is_file():
        raise InvalidArgument(f"sample file {str(p)!r} does not exist")
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
    sample: Sequence[float] | np.ndarray, support: Support, event: Event, order: int = 2, confidence: float = 0.95,
    method: str = "auto", **kwargs: object,
) -> MomentProblem:
    """A moment-box problem whose worst-case bound holds with probability at least ``confidence``.

    Example
    -------
    >>> from momentbound.bounds import bound
    >>> rng = np.random.default_rng(0)
    >>> p = sample_problem(rng.beta(2, 5, 400), Support.interval(0, 1), Event.ge("0.5"))
    >>> r = bound(p, "sos")
    >>> r.lower <= 0.109375 <= r.upper      # the true P(X >= 0.5) of Beta(2, 5)
    True
    """
    box = moment_box_from_sample(sample, support, order, confidence, method)
    return MomentProblem.from_box((1, *box.lo), (1, *box.hi), support, event, **kwargs)  # type: ignore[arg-type]
