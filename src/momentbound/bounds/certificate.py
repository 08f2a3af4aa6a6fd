"""Rigorous verification of dual polynomials (certificates) on a support.

A certificate ``p`` for an upper bound must satisfy ``p(x) >= 1_E(x)`` on the whole
support; for a lower bound ``p(x) <= 1_E(x)``.  The *slack* is ``p - 1_E`` (upper) or
``1_E - p`` (lower); a certificate is verified when its minimum slack is ``>= 0``.

How the minimum is found without enumerating a 10^8-point grid: on every piece of the
support where ``1_E`` is constant, the slack is a polynomial, monotone between
consecutive real critical points.  The critical points (real roots of the derivative)
are enclosed rigorously by arb balls (python-flint ``complex_roots``; every root whose
imaginary ball contains 0 is kept, so no real root is lost).  On an integer range the
minimum is therefore attained at an end of the range or at the floor/ceiling of a
critical point: those integers are evaluated in exact rational arithmetic.  On a
continuum the polynomial is evaluated on the root balls in interval arithmetic, giving a
rigorous lower bound.  Coefficients are converted to exact rationals (floats exactly).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint

from momentbound.errors import InvalidArgument
from momentbound.rational import to_fmpq, to_fraction

from .basis import chebyshev_to_monomial_coeffs
from .problem import AffineMap, Event, MomentProblem, Support, SupportKind
from .result import Certificate

__all__ = [
    "Verification",
    "verify_polynomial_dominates",
    "slack_minimum",
    "polynomial_minimum",
    "certify",
    "certificate_value",
]

_DENSE_LIMIT = 64  # integer ranges this short are simply enumerated
_MAX_CANDIDATES = 4096


@dataclass(frozen=True)
class Verification:
    """Outcome of a certificate check.

    ``min_slack`` is exact on discrete supports and a rigorous lower bound on continua;
    ``violations`` lists support points with negative slack (discrete supports), most
    violated first, at most a few per piece (used by cutting-plane methods).
    """

    ok: bool
    min_slack: Fraction
    worst_point: Fraction | None
    how: str
    violations: tuple[Fraction, ...] = ()






def _arb_interval(a: flint.arb) -> tuple[Fraction, Fraction]:
    m, e = a.mid().man_exp()
    rm, re = a.rad().man_exp()
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    rad = Fraction(int(rm)) * Fraction(2) ** int(re)
    return mid - rad, mid + rad


def exact_u_poly(coefficients: Sequence[Fraction | float], basis: str) -> flint.fmpq_poly:
    """The polynomial in ``u`` as an exact ``fmpq_poly``."""
    if basis == "chebyshev":
        mono = chebyshev_to_monomial_coeffs(coefficients)
    elif basis == "monomial":
        mono = tuple(Fraction(c) for c in coefficients)
    else:
        raise InvalidArgument(f"basis must be 'chebyshev' or 'monomial', got {basis!r}")
    return flint.fmpq_poly([to_fmpq(c) for c in mono])


def _critical_balls(r: flint.fmpq_poly, prec: int) -> list[tuple[Fraction, Fraction]]:
    """Rational enclosures of every real critical point of ``r`` (in ``u``)."""
    d = r.derivative()
    if d.degree() <= 0:
        return []
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        roots = d.complex_roots()
    finally:
        flint.ctx.prec = old
    out = []
    for z, _mult in roots:
        if z.imag.contains(0):
            out.append(_arb_interval(z.real))
    return out


def _slack_poly(p: flint.fmpq_poly, target: int, side: str) -> flint.fmpq_poly:
    t = flint.fmpq_poly([target])
    return p - t if side == "upper" else t - p


def _integer_piece_min(
    r: flint.fmpq_poly, lo: int, hi: int, amap: AffineMap
) -> tuple[Fraction, Fraction, list[tuple[Fraction, Fraction]], str]:
    """Exact minimum of ``r(u(x))`` over integers ``lo..hi``; returns (min, argmin, negatives, how)."""

    def val(x: int) -> Fraction:
        return to_fraction(r(to_fmpq(amap.to_unit(x))))

    if hi - lo + 1 <= _DENSE_LIMIT:
        cands = set(range(lo, hi + 1))
        how = "grid"
    else:
        how = "roots"
        cands = {lo, hi}
        prec = 128
        while True:
            balls = _critical_balls(r, prec)
            extra: set[int] = set()
            too_wide = False
            for ulo, uhi in balls:
                xa, xb = amap.from_unit(ulo), amap.from_unit(uhi)
                xa, xb = min(xa, xb), max(xa, xb)
                if xb < lo or xa > hi:
                    continue
                a, b = max(lo, math.floor(xa)), min(hi, math.ceil(xb))
                if b - a > 8:
                    too_wide = True
                    break
                extra.update(range(a, b + 1))
            if not too_wide:
                cands |= extra
                break
            if prec >= 4096:
                # should not happen; enumerate the widest enclosure if it is small, else give up rigorously
                raise InvalidArgument("root isolation did not converge; certificate cannot be verified")
            prec *= 4
    values = sorted((val(x), Fraction(x)) for x in cands)
    negatives = [(v, x) for v, x in values if v < 0]
    return values[0][0], values[0][1], negatives, how


def _continuous_piece_min(
    r: flint.fmpq_poly, lo: Fraction | None, hi: Fraction | None, amap: AffineMap
) -> tuple[Fraction, Fraction | None]:
    """Rigorous lower bound of ``r(u(x))`` on the closed piece (interval arithmetic)."""
    best: Fraction | None = None
    arg: Fraction | None = None
    ulo = None if lo is None else amap.to_unit(lo)
    uhi = None if hi is None else amap.to_unit(hi)
    for end in (ulo, uhi):
        if end is not None:
            v = to_fraction(r(to_fmpq(end)))
            if best is None or v < best:
                best, arg = v, amap.from_unit(end)
    deg = r.degree()
    if deg >= 1:
        lead = to_fraction(r.coeffs()[-1])
        if uhi is None and lead < 0:
            return Fraction(-(10**30)), None
        if ulo is None and (lead if deg % 2 == 0 else -lead) < 0:
            return Fraction(-(10**30)), None
    d = r.derivative()
    irrational = d
    if d.degree() >= 1:
        # rational critical points exactly (tight certificates touch there: no rounding at all)
        _, factors = d.factor()
        irrational = flint.fmpq_poly([1])
        for f, mult in factors:
            if f.degree() == 1:
                c1, c0 = to_fraction(f.coeffs()[1]), to_fraction(f.coeffs()[0])
                z = -c0 / c1
                if (ulo is None or z >= ulo) and (uhi is None or z <= uhi):
                    v = to_fraction(r(to_fmpq(z)))
                    if best is None or v < best:
                        best, arg = v, amap.from_unit(z)
            else:
                irrational *= f**mult
    old = flint.ctx.prec
    flint.ctx.prec = 256
    try:
        ar = flint.arb_poly([flint.arb(c) for c in r.coeffs()])
        balls = _critical_balls(irrational.integral(), 256) if irrational.degree() >= 1 else []
        for ua, ub in balls:
            if (uhi is not None and ua > uhi) or (ulo is not None and ub < ulo):
                continue
            a = ua if ulo is None else max(ua, ulo)
            b = ub if uhi is None else min(ub, uhi)
            mid, rad = (a + b) / 2, (b - a) / 2
            ball = flint.arb(to_fmpq(mid), to_fmpq(rad)) if rad > 0 else flint.arb(to_fmpq(mid))
            lower = _arb_interval(ar(ball))[0]
            if best is None or lower < best:
                best, arg = lower, amap.from_unit(mid)
    finally:
        flint.ctx.prec = old
    if best is None:  # whole real line with a constant or even polynomial and no critical point
        best = to_fraction(r(flint.fmpq(0)))
        arg = amap.from_unit(0)
    return best, arg


def polynomial_minimum(poly: flint.fmpq_poly, lo: Fraction | None, hi: Fraction | None) -> Fraction:
    """Rigorous lower bound of the exact polynomial ``poly`` on the closed interval ``[lo, hi]``.

    ``None`` marks an infinite end; a polynomial unbounded below there gives ``-10**30``.

    Example
    -------
    >>> polynomial_minimum(flint.fmpq_poly([1, -2, 1]), Fraction(-1), None)   # (z - 1)^2
    Fraction(0, 1)
    """
    if lo is not None and hi is not None and lo == hi:
        return to_fraction(poly(to_fmpq(lo)))
    value, _ = _continuous_piece_min(poly, lo, hi, AffineMap(Fraction(0), Fraction(1)))
    return value


def slack_minimum(
    coefficients: Sequence[Fraction | float],
    basis: str,
    amap: AffineMap,
    support: Support,
    event: Event,
    side: str,
) -> Verification:
    """Minimum slack of the polynomial over the whole support (exact / rigorous)."""
    if side not in ("upper", "lower"):
        raise InvalidArgument(f"side must be 'upper' or 'lower', got {side!r}")
    p = exact_u_poly(coefficients, basis)
    if support.kind is SupportKind.FINITE:
        vals = []
        for x in support.points:  # type: ignore[union-attr]
            r = _slack_poly(p, int(event.indicator(x)), side)
            vals.append((to_fraction(r(to_fmpq(amap.to_unit(x)))), x))
        vals.sort()
        neg = tuple(x for v, x in vals if v < 0)[:16]
        return Verification(vals[0][0] >= 0, vals[0][0], vals[0][1], "points", neg)
    best: Fraction | None = None
    worst: Fraction | None = None
    hows: set[str] = set()
    negatives: list[tuple[Fraction, Fraction]] = []
    for piece in event.pieces(support):
        r = _slack_poly(p, piece.target, side)
        if piece.integer:
            m, x, neg, how = _integer_piece_min(r, int(piece.lo), int(piece.hi), amap)  # type: ignore[arg-type]
            negatives.extend(neg[:8])
            hows.add(how)
        else:
            m, x = _continuous_piece_min(r, piece.lo, piece.hi, amap)
            hows.add("interval-arithmetic")
        if best is None or m < best:
            best, worst = m, x
    if best is None:  # unreachable: every support has at least one piece
        raise InvalidArgument(f"the support {support} has no points to verify on")
    negatives.sort()
    how = "+".join(sorted(hows))
    return Verification(best >= 0, best, worst, how, tuple(x for _, x in negatives))


def verify_polynomial_dominates(cert: Certificate, support: Support, event: Event) -> Verification:
    """Check ``cert`` (``p >= 1_E`` for upper, ``p <= 1_E`` for lower) on the whole support.

    Example
    -------
    >>> from momentbound.bounds.problem import AffineMap
    >>> c = Certificate("upper", (Fraction(1),), "chebyshev", AffineMap(Fraction(0), Fraction(1)),
    ...                 Fraction(1), False, 0.0, "")
    >>> verify_polynomial_dominates(c, Support.grid(-5, 5), Event.gt(0)).ok
    True
    """
    return slack_minimum(cert.coefficients, cert.basis, cert.domain_map, support, event, cert.side)


def certificate_value(coefficients: Sequence[Fraction | float], basis: str, problem: MomentProblem) -> Fraction:
    """Exact ``E[p(X)]`` from the problem's exact moments."""
    if basis == "chebyshev":
        mom = problem.chebyshev_moments()
    else:
        mom = problem.affine_to_unit()[1]
    if len(coefficients) > len(mom):
        raise InvalidArgument(
            f"certificate degree {len(coefficients) - 1} exceeds the known moment order {len(mom) - 1}"
        )
    return sum((Fraction(c) * m for c, m in zip(coefficients, mom)), Fraction(0))


def certify(
    coefficients: Sequence[Fraction | float],
    side: str,
    problem: MomentProblem,
    *,
    basis: str = "chebyshev",
    allow_shift: bool = True,
    how_prefix: str = "",
) -> tuple[Certificate, bool]:
    """Verify a candidate dual polynomial and, if needed, shift its constant term.

    Returns ``(certificate, shifted)``.  A certificate that could not be verified (and not
    shifted) has ``verified=False``; callers must not report its value as a bound.
    """
    amap, _ = problem.affine_to_unit()
    coeffs = [Fraction(c) for c in coefficients] or [Fraction(0)]
    ver = slack_minimum(coeffs, basis, amap, problem.support, problem.event, side)
    shifted = False
    if not ver.ok and allow_shift:
        delta = -ver.min_slack
        if not problem.support.is_discrete:
            # interval-arithmetic bounds of the shifted polynomial carry their own rounding
            delta = delta * (1 + Fraction(1, 10**9)) + Fraction(1, 10**40)
        coeffs[0] = coeffs[0] + delta if side == "upper" else coeffs[0] - delta
        ver = slack_minimum(coeffs, basis, amap, problem.support, problem.event, side)
        shifted = True
    value = certificate_value(coeffs, basis, problem)
    how = (how_prefix + ":" if how_prefix else "") + ver.how
    cert = Certificate(side, tuple(coeffs), basis, amap, value, ver.ok, float(ver.min_slack), how)
    return cert, shifted
