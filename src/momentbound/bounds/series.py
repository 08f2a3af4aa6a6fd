"""Gram-Charlier A and Edgeworth approximations of a cdf from moments (method ``"series"``).

The paper's SA.  With ``Z = (X - mean) / sd`` and ``He_n`` the probabilists' Hermite
polynomials, both expansions have the form

    f(z) = phi(z) * sum_n b_n He_n(z),        F(z) = Phi(z) - phi(z) * sum_{n>=1} b_n He_{n-1}(z),

* Gram-Charlier A: ``b_n = E[He_n(Z)] / n!`` for ``n <= m`` (the known moments);
* Edgeworth: the terms of ``exp(sum_{j>=3} kappa_j eps^(j-2) (-D)^j / j!) phi`` up to
  ``eps^(m-2)``, so cumulants up to ``kappa_m`` are used (grouped by powers of ``n^-1/2``).

Neither is a bound: results have kind APPROXIMATION.  The truncated series can have a
negative density and a non-monotone cdf, badly so for discrete or skewed laws: the cdf
reported here is clipped to ``[0, 1]``, set to 0 below and 1 above a bounded support, and
made monotone (running maximum on a fine grid); a :class:`SeriesWarning` is issued when
the density goes negative.  On an integer grid the event is evaluated with a continuity
correction (``P[X <= t] ~ F(t + 1/2)``).

References
----------
Dhurandhar & Dobra, Section 7.2.2 (SA); Kendall & Stuart, *The Advanced Theory of
Statistics*, vol. 1, ch. 6 (Gram-Charlier and Edgeworth series).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.polynomial import hermite_e as _herm

from momentbound.errors import InvalidArgument

from .problem import EventKind, MomentProblem, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind, Status

__all__ = ["SeriesWarning", "SeriesApproximation", "series_approximation", "SeriesMethod", "EXPANSIONS"]

EXPANSIONS = ("edgeworth", "gram-charlier")
_WINDOW = 12.0  # standard deviations on each side of the mean examined for negativity
_GRID = 4001


class SeriesWarning(UserWarning):
    """A series approximation misbehaved (negative density, clipped or non-monotone cdf)."""


def _standardized(moments: Sequence[Fraction | float]) -> tuple[float, float, list[float]]:
    """Mean, standard deviation and standardized moments ``E[Z^k]`` (exact until the division)."""
    exact = all(isinstance(v, Fraction) for v in moments)
    mom = [Fraction(v) for v in moments] if exact else [float(v) for v in moments]
    mu = mom[1]
    central = [
        sum((math.comb(j, i) * mom[i] * (-mu) ** (j - i) for i in range(j + 1)), type(mu)(0)) for j in range(len(mom))
    ]
    var = central[2]
    if var <= 0:
        raise InvalidArgument(
            f"series needs a positive variance, got {float(var)!r}; a point mass needs no approximation"
        )
    try:
        if exact:
            # sqrt(var) = 2^e sqrt(var / 4^e) with var / 4^e near 1: no float overflow before the end
            e = (var.numerator.bit_length() - var.denominator.bit_length()) // 2
            sd_exact = Fraction(math.sqrt(float(var / Fraction(4) ** e))) * Fraction(2) ** e
            sd = float(sd_exact)
            std = [float(central[k] / var ** (k // 2) / (sd_exact if k % 2 else 1)) for k in range(len(mom))]
        else:
            sd = math.sqrt(float(var))
            std = [float(central[k]) / sd**k for k in range(len(mom))]
        return float(mu), sd, std
    except OverflowError as exc:
        raise InvalidArgument(
            "series: the mean or standard deviation of these moments exceeds the floating-point range "
            "(about 1.8e308); rescale X (divide it by a power of ten) so that they fit in a double"
        ) from exc


def _cumulants(std_moments: Sequence[float]) -> list[float]:
    """Cumulants from moments: ``kappa_n = m_n - sum_{i<n} C(n-1, i-1) kappa_i m_{n-i}``."""
    k = len(std_moments) - 1
    kap = [0.0] * (k + 1)
    for n in range(1, k + 1):
        kap[n] = std_moments[n] - sum(math.comb(n - 1, i - 1) * kap[i] * std_moments[n - i] for i in range(1, n))
    return kap


def _gram_charlier(std_moments: Sequence[float]) -> np.ndarray:
    m = len(std_moments) - 1
    b = np.zeros(m + 1)
    for n in range(m + 1):
        coef = _herm.herme2poly([0] * n + [1])
        b[n] = sum(coef[i] * std_moments[i] for i in range(n + 1)) / math.factorial(n)
    return b


def _edgeworth(std_moments: Sequence[float]) -> np.ndarray:
    m = len(std_moments) - 1
    r = m - 2  # powers eps^1 .. eps^r use cumulants kappa_3 .. kappa_m
    kap = _cumulants(std_moments)
    if r <= 0:
        return np.array([1.0])
    width = 3 * r + 1
    S = np.zeros((r + 1, width))
    for j in range(3, m + 1):
        S[j - 2, j] = kap[j] / math.factorial(j)

    def mul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        out = np.zeros_like(A)
        for s in range(r + 1):
            for t in range(r + 1 - s):
                if A[s].any() and B[t].any():
                    out[s + t] += np.convolve(A[s], B[t])[:width]
        return out

    total = np.zeros_like(S)
    total[0, 0] = 1.0
    term = total.copy()
    for t in range(1, r + 1):
        term = mul(term, S) / t
        total += term
    b = total.sum(axis=0)
    return np.trim_zeros(b, "b")


@dataclass(frozen=True)
class SeriesApproximation:
    """An approximate law from moments: ``pdf``/``cdf`` of ``X`` (not of the standardized variable).

    ``b`` are the Hermite coefficients; ``lo``/``hi`` the support ends (``None`` if unbounded).
    ``negative_density`` says whether the truncated density dips below zero in the examined
    window, ``min_density`` how far.

    Example
    -------
    >>> a = series_approximation((1, 0, 1, 0, 3))      # the standard normal's moments
    >>> round(float(a.cdf(0.0)), 12), a.negative_density
    (0.5, False)
    """

    expansion: str
    mean: float
    sd: float
    b: tuple[float, ...]
    lo: float | None
    hi: float | None
    negative_density: bool
    min_density: float

    def _z(self, x: Any) -> np.ndarray:
        return (np.asarray(x, dtype=float) - self.mean) / self.sd

    def pdf(self, x: Any) -> np.ndarray:
        """The (possibly negative) series density at ``x``."""
        z = self._z(x)
        return np.exp(-z * z / 2) / math.sqrt(2 * math.pi) * _herm.hermeval(z, np.array(self.b)) / self.sd

    def raw_cdf(self, x: Any) -> np.ndarray:
        """The series cdf itself (may leave ``[0, 1]`` and decrease)."""
        from scipy.special import ndtr

        z = self._z(x)
        b = np.array(self.b)
        tail = _herm.hermeval(z, b[1:]) if len(b) > 1 else np.zeros_like(z)
        return ndtr(z) - np.exp(-z * z / 2) / math.sqrt(2 * math.pi) * tail

    def _window(self) -> np.ndarray:
        a = self.mean - _WINDOW * self.sd
        c = self.mean + _WINDOW * self.sd
        if self.lo is not None:
            a = max(a, self.lo)
        if self.hi is not None:
            c = min(c, self.hi)
        return np.linspace(a, c, _GRID) if c > a else np.array([a])

    def cdf(self, x: Any) -> np.ndarray:
        """Clipped, monotone version of the series cdf (0 below / 1 above a bounded support)."""
        xs = np.atleast_1d(np.asarray(x, dtype=float))
        grid = self._window()
        env = np.maximum.accumulate(np.clip(self.raw_cdf(grid), 0.0, 1.0))
        idx = np.searchsorted(grid, xs, side="right") - 1
        before = np.where(idx >= 0, env[np.clip(idx, 0, len(env) - 1)], 0.0)
        out = np.clip(np.maximum(before, np.clip(self.raw_cdf(xs), 0.0, 1.0)), 0.0, 1.0)
        if self.lo is not None:
            out = np.where(xs < self.lo, 0.0, out)
        if self.hi is not None:
            out = np.where(xs >= self.hi, 1.0, out)
        return out if np.ndim(x) else out.reshape(())


def series_approximation(
    moments: Sequence[Any],
    expansion: str = "edgeworth",
    *,
    lo: float | None = None,
    hi: float | None = None,
    warn: bool = True,
) -> SeriesApproximation:
    """Gram-Charlier A or Edgeworth approximation from raw moments ``(1, m1, ..., mk)``, ``k >= 2``.

    Parameters
    ----------
    moments : sequence
        Raw moments, exact (``int``/``Fraction``) or floats; ``m0`` must be 1.
    expansion : {"edgeworth", "gram-charlier"}
    lo, hi : float, optional
        Support ends (used to examine the density and to pin the cdf to 0 and 1).
    warn : bool
        Issue a :class:`SeriesWarning` when the density goes negative.

    Example
    -------
    >>> a = series_approximation((1, 0, 1, 0, 3), "gram-charlier")
    >>> a.b[:3]
    (1.0, 0.0, 0.0)
    """
    if expansion not in EXPANSIONS:
        raise InvalidArgument(f"expansion must be one of {EXPANSIONS}, got {expansion!r}")
    if len(moments) < 3:
        raise InvalidArgument(f"series needs moments up to order 2 at least (mean and variance), got order {len(moments) - 1}")
    vals = [v if isinstance(v, (Fraction, float)) else (Fraction(v) if isinstance(v, int) else float(v)) for v in moments]
    if abs(float(vals[0]) - 1.0) > 1e-12:
        raise InvalidArgument(f"moments[0] must be 1, got {moments[0]!r}")
    mu, sd, std = _standardized(vals)
    b = _gram_charlier(std) if expansion == "gram-charlier" else _edgeworth(std)
    b[1:3] = 0.0  # exactly zero for a standardized variable (removes rounding noise)
    proto = SeriesApproximation(expansion, mu, sd, tuple(float(v) for v in b), lo, hi, False, 0.0)
    dens = proto.pdf(proto._window())
    min_d = float(dens.min())
    negative = min_d < -1e-12 / sd
    if negative and warn:
        where = proto._window()[dens < 0]
        warnings.warn(
            SeriesWarning(
                f"{expansion} density is negative on [{where.min():.6g}, {where.max():.6g}] "
                f"(minimum {min_d:.3g}); the cdf was clipped to [0, 1] and made monotone"
            ),
            stacklevel=2,
        )
    return SeriesApproximation(expansion, mu, sd, proto.b, lo, hi, negative, min_d)


def event_probability(approx: SeriesApproximation, problem: MomentProblem, continuity: bool) -> float:
    """``P(E)`` from the (clipped, monotone) cdf, with a continuity correction on grids."""
    ev = problem.event
    grid = continuity and problem.support.kind is SupportKind.GRID

    def F(x: float) -> float:
        return float(approx.cdf(x))

    def le(t: Fraction) -> float:  # P[X <= t]
        return F(math.floor(t) + 0.5) if grid else F(float(t))

    def lt(t: Fraction) -> float:  # P[X < t]
        return F(math.ceil(t) - 0.5) if grid else F(float(t))

    k, a, b = ev.kind, ev.a, ev.b
    if k is EventKind.LE:
        v = le(a)
    elif k is EventKind.LT:
        v = lt(a)
    elif k is EventKind.GT:
        v = 1.0 - le(a)
    elif k is EventKind.GE:
        v = 1.0 - lt(a)
    elif k is EventKind.BETWEEN:
        v = le(b) - lt(a)  # type: ignore[arg-type]
    elif k is EventKind.UNION:
        v = 0.0
        for sp in ev.spans():
            top = 1.0 if sp.hi is None else (le(sp.hi) if sp.hi_closed else lt(sp.hi))
            bottom = 0.0 if sp.lo is None else (lt(sp.lo) if sp.lo_closed else le(sp.lo))
            v += top - bottom
    else:
        v = 1.0 - (le(b) - lt(a))  # type: ignore[arg-type]
    return min(1.0, max(0.0, v))


class SeriesMethod(BoundMethod):
    """Gram-Charlier A / Edgeworth approximation of ``P(E)`` (kind APPROXIMATION, no guarantee).

    Options
    -------
    expansion : {"edgeworth", "gram-charlier"}
        Which series (default Edgeworth).
    continuity : bool
        Continuity correction on integer grids (default True).

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> r = bound(MomentProblem((1, 0, 1, 0, 3), Support.real(), Event.le(0)), method="series")
    >>> r.kind.value, round(r.lower, 12) == round(r.upper, 12) == 0.5
    ('approximation', True)
    """

    name = "series"
    kind = Kind.APPROXIMATION
    options = {"expansion": "edgeworth", "continuity": True}

    def applies(self, problem: MomentProblem) -> str | None:
        if problem.order < 2:
            return f"needs moments up to order 2 at least (mean and variance), got order {problem.order}"
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        expansion = options["expansion"]
        if expansion not in EXPANSIONS:
            raise InvalidArgument(f"expansion must be one of {EXPANSIONS}, got {expansion!r}")
        continuity = options["continuity"]
        if not isinstance(continuity, bool):
            raise InvalidArgument(f"continuity must be True or False, got {continuity!r}")
        sup = problem.support
        lo = None if sup.lo is None else float(sup.lo)
        hi = None if sup.hi is None else float(sup.hi)
        mom = problem.moments
        var = Fraction(mom[2]) - Fraction(mom[1]) ** 2
        notes: list[str] = []
        if var == 0:  # a point mass: the approximation is the point itself
            x = Fraction(mom[1])
            v = float(problem.event.indicator(x))
            notes.append("zero variance: point mass")
            return BoundResult(v, v, self.name, Kind.APPROXIMATION, Status.APPROXIMATE, Status.APPROXIMATE.message + "; zero variance: point mass", diagnostics=Diagnostics(formula=expansion, notes=tuple(notes)))
        approx = series_approximation(mom, expansion, lo=lo, hi=hi)
        v = event_probability(approx, problem, continuity)
        if approx.negative_density:
            notes.append(f"negative density (min {approx.min_density:.3g}); cdf clipped and made monotone")
        if continuity and sup.kind is SupportKind.GRID:
            notes.append("continuity correction")
        msg = f"{Status.APPROXIMATE.message}: {expansion} series from {problem.order} moments"
        if notes:
            msg += "; " + "; ".join(notes)
        return BoundResult(
            v,
            v,
            self.name,
            Kind.APPROXIMATION,
            Status.APPROXIMATE,
            msg,
            certified=False,
            diagnostics=Diagnostics(solver=expansion, formula=expansion, notes=tuple(notes)),
        )
