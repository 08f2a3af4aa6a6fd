"""``closed-form``: classical closed-form moment bounds, each with its dual polynomial.

Formulas (docs/mathematics.md, section 'Closed-form bounds'; mean ``mu``, variance ``s2``,
``m2 = E[X^2]``):

* **Cantelli** (one-sided Chebyshev), any support: ``P(X >= mu + t) <= s2/(s2 + t^2)``,
  dual ``((x - x0)/(t' - x0))^2``; sharp on the real line with two moments.  Two-sided
  Chebyshev ``P(|X - mu| >= k) <= s2/k^2`` for events symmetric about the mean.
* **Two moments on an interval** ``[a, b]``, ``mu < t``: ``P(X >= t)`` is at most the
  smallest of Cantelli, ``(mu - a)/(t - a)`` (dual ``(x - a)/(t - a)``) and
  ``1 - (m2 - (t + b) mu + t b)/((t - a)(b - a))`` (dual ``1 - (x - t)(x - b)/((t - a)(b - a))``);
  sharp on the interval.  Lower tails by reflection.  With the mean only: ``(mu - a)/(t - a)``.
* **Bertsimas-Popescu (1, 2, R+)** for ``X >= 0``: ``min(Markov mu/t, Cantelli)``.
* **Boros-Prekopa** ``m = 2, 3`` for ``P(X >= lo + 1)`` on the grid ``{lo..hi}`` (binomial
  moments); the dual polynomial interpolates the indicator on the formula's basis.
* **Chebyshev-Markov-Stieltjes** on the real line (even order ``2n``): the canonical
  representation through ``xi`` (nodes: ``xi`` and the roots of a quasi-orthogonal
  polynomial; weights from the Christoffel function ``1 / sum_k p_k(x)^2``) gives
  ``sum_{x_j < xi} w_j <= F(xi-) <= F(xi) <= sum_{x_j <= xi} w_j``; the dual polynomials are
  Hermite interpolants computed at 60 digits and verified (with a tiny shift).

Every reported number comes from a certificate verified on the problem's support by
:mod:`.certificate`; a side without an applicable formula gets the trivial bound.
The method picks the sharpest verified candidate per side and names it in the message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .certificate import certify
from .problem import Event, EventKind, MomentProblem, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Certificate, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["ClosedFormMethod", "closed_form_candidates", "Candidate"]

_UPPER_TAILS = (EventKind.GT, EventKind.GE)
_LOWER_TAILS = (EventKind.LT, EventKind.LE)


@dataclass(frozen=True)
class Candidate:
    """A closed-form bound on ``P(E)`` with its dual polynomial.

    ``x_poly`` are monomial coefficients in ``x`` (exact) or ``None`` when ``u_poly``
    (monomial coefficients in the problem's scaled variable ``u``) is given.
    """

    name: str
    side: str
    value: Fraction
    x_poly: tuple[Fraction, ...] | None
    u_poly: tuple[Fraction, ...] | None
    sharp: bool


def _polymul(a: Sequence[Fraction], b: Sequence[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _x_to_u(coeffs: Sequence[Fraction], problem: MomentProblem) -> tuple[Fraction, ...]:
    """Monomial coefficients in ``u`` of a polynomial given in ``x = shift + scale u``."""
    amap, _ = problem.affine_to_unit()
    out = [Fraction(0)]
    power = [Fraction(1)]
    lin = [amap.shift, amap.scale]
    for c in coeffs:
        term = [c * v for v in power]
        if len(term) > len(out):
            out += [Fraction(0)] * (len(term) - len(out))
        for i, v in enumerate(term):
            out[i] += v
        power = _polymul(power, lin)
    return tuple(out)


def _complement_side(c: Candidate) -> Candidate:
    """An upper bound on P(E^c) is a lower bound 1 - value on P(E) with polynomial 1 - p."""
    flip = lambda poly: None if poly is None else tuple([1 - poly[0]] + [-v for v in poly[1:]])  # noqa: E731
    side = "lower" if c.side == "upper" else "upper"
    return Candidate(c.name, side, 1 - c.value, flip(c.x_poly), flip(c.u_poly), c.sharp)


def _reflect(c: Candidate) -> Candidate:
    """A candidate computed for ``Y = -X`` expressed back in ``x``."""
    if c.x_poly is None:
        return c
    return Candidate(c.name, c.side, c.value, tuple(v * (-1) ** k for k, v in enumerate(c.x_poly)), None, c.sharp)


def _tail(ev: Event) -> tuple[str, Fraction, bool] | None:
    """('upper'|'lower', threshold, closed) for tail events."""
    if ev.kind in _UPPER_TAILS:
        return "upper", ev.a, ev.kind is EventKind.GE
    if ev.kind in _LOWER_TAILS:
        return "lower", ev.a, ev.kind is EventKind.LE
    return None


def _upper_tail_bounds(mu: Fraction, m2: Fraction | None, t: Fraction, a: Fraction | None, b: Fraction | None,
                       real: bool, order: int) -> list[Candidate]:
    """Upper bounds on P(X >= t) with mu < t (the dual polynomials also cover P(X > t)).

    On a half-line ``[a, oo)`` (``b`` is None) with two moments the smaller of Markov and
    Cantelli is the sharp Bertsimas-Popescu (1, 2, R+) bound, so both are marked sharp.
    """
    out: list[Candidate] = []
    halfline = a is not None and b is None
    if m2 is not None:
        s2 = m2 - mu * mu
        if s2 > 0:
            x0 = mu - s2 / (t - mu)
            d = t - x0
            poly = (x0 * x0 / (d * d), -2 * x0 / (d * d), 1 / (d * d))
            out.append(Candidate("cantelli", "upper", s2 / (s2 + (t - mu) ** 2), poly, None,
                                 (real or halfline) and order == 2))
    if a is not None and a < t:
        name = "markov" if halfline else ("interval-mean" if m2 is None else "interval-two-moment")
        out.append(Candidate(
            name, "upper", (mu - a) / (t - a),
            (-a / (t - a), 1 / (t - a)), None, (m2 is None and b is not None) or (halfline and order <= 2)))
        if m2 is not None and b is not None and t <= b:
            k = 1 / ((t - a) * (b - a))
            val = 1 - k * (m2 - (t + b) * mu + t * b)
            poly = (1 - k * t * b, k * (t + b), -k)
            out.append(Candidate("interval-two-moment", "upper", val, poly, None, False))
    return out


def _boros_prekopa(problem: MomentProblem) -> list[Candidate]:
    sup, ev = problem.support, problem.event
    if sup.kind is not SupportKind.GRID or problem.order < 2:
        return []
    lo, hi = sup.lo, sup.hi
    pieces = ev.pieces(sup)
    inside = [p for p in pieces if p.target == 1]
    if len(inside) != 1 or inside[0].lo != lo + 1 or inside[0].hi != hi:  # type: ignore[operator]
        return []
    n = int(hi - lo)  # type: ignore[operator]
    if n < 3:
        return []
    m = min(problem.order, 3)
    # moments of Y = X - lo on {0..n}, then binomial moments
    mom = problem.exact_moments
    ym = [sum((math.comb(k, j) * (-lo) ** (k - j) * mom[j] for j in range(k + 1)), Fraction(0)) for k in range(m + 1)]  # type: ignore[operator]
    S1 = ym[1]
    S2 = (ym[2] - ym[1]) / 2
    S3 = (ym[3] - 3 * ym[2] + 2 * ym[1]) / 6 if m == 3 else None
    if S1 <= 0:
        return []
    sharp = problem.order == m
    out: list[Candidate] = []

    def interp(points: Sequence[int], name: str, side: str, value: Fraction) -> Candidate:
        # the dual polynomial interpolates 1_E (= [y >= 1]) at the basis points (Lagrange, exact), in x
        vals = [Fraction(int(p >= 1)) for p in points]
        poly = [Fraction(0)] * len(points)
        for i, (pi, vi) in enumerate(zip(points, vals)):
            if vi == 0:
                continue
            term = [Fraction(1)]
            den = Fraction(1)
            for j, pj in enumerate(points):
                if j != i:
                    term = _polymul(term, [-(Fraction(pj) + lo), Fraction(1)])  # (x - (lo + pj))
                    den *= pi - pj
            for k, v in enumerate(term):
                poly[k] += vi * v / den
        return Candidate(name, side, value, tuple(poly), None, sharp)

    clamp = lambda i: min(max(i, 1), n - 1)  # noqa: E731
    if m == 2:
        i = clamp(1 + math.floor(2 * S2 / S1))
        lower = 2 * S1 / (i + 1) - 2 * S2 / (i * (i + 1))
        out.append(interp([0, i, i + 1], "boros-prekopa-2", "lower", lower))
        upper = S1 - 2 * S2 / n
        if upper <= 1:
            out.append(interp([0, 1, n], "boros-prekopa-2", "upper", upper))
    else:
        den = (n - 1) * S1 - 2 * S2
        # the lower basis {0, i, i+1, n} needs i + 1 < n (i = n - 1 would repeat the point n)
        i = min(clamp(1 + math.floor((2 * (n - 2) * S2 - 6 * S3) / den)) if den != 0 else 1, n - 2)  # type: ignore[operator]
        lower = ((i + 2 * n - 1) * S1 / ((i + 1) * n) - 2 * (2 * i + n - 2) * S2 / (i * (i + 1) * n)
                 + 6 * S3 / (i * (i + 1) * n))  # type: ignore[operator]
        out.append(interp([0, i, i + 1, n], "boros-prekopa-3", "lower", lower))
        if S2 > 0:
            j = min(max(2 + math.floor(3 * S3 / S2), 2), n - 1)  # type: ignore[operator]
            upper = S1 - 2 * (2 * j - 1) * S2 / (j * (j + 1)) + 6 * S3 / (j * (j + 1))  # type: ignore[operator]
            if upper <= 1:
                out.append(interp([0, 1, j, j + 1], "boros-prekopa-3", "upper", upper))
    return out


def _cms(problem: MomentProblem) -> list[Candidate]:
    """Chebyshev-Markov-Stieltjes bounds on F(xi) on the real line (even order)."""
    import mpmath

    tail = _tail(problem.event)
    if problem.support.kind is not SupportKind.REAL or tail is None or problem.order < 2:
        return []
    m = problem.order - problem.order % 2
    n = m // 2
    amap, mu = problem.affine_to_unit()
    xi = amap.to_unit(tail[1])
    with mpmath.workdps(60):
        H = mpmath.matrix(n + 1, n + 1)
        for i in range(n + 1):
            for j in range(n + 1):
                H[i, j] = mpmath.mpf(mu[i + j].numerator) / mu[i + j].denominator
        # quasi-orthogonal R (degree n): E[(u - xi) R(u) u^j] = 0, j < n; nodes = xi + roots of R
        nu = [mu[k + 1] - xi * mu[k] for k in range(2 * n)]
        if n > 0:
            A = mpmath.matrix(n, n)
            rhs = mpmath.matrix(n, 1)
            for j in range(n):
                for i in range(n):
                    A[j, i] = mpmath.mpf(nu[i + j].numerator) / nu[i + j].denominator
                rhs[j] = -mpmath.mpf(nu[n + j].numerator) / nu[n + j].denominator
            try:
                r = mpmath.lu_solve(A, rhs)
            except ZeroDivisionError:
                return []
            coeffs = [r[i] for i in range(n)] + [mpmath.mpf(1)]
            roots = mpmath.polyroots(coeffs[::-1], maxsteps=200, extraprec=200)
            if any(abs(mpmath.im(z)) > mpmath.mpf(10) ** -30 for z in roots):
                return []
            nodes = sorted(mpmath.re(z) for z in roots)
        else:
            nodes = []
        xif = mpmath.mpf(xi.numerator) / xi.denominator
        if any(abs(z - xif) < mpmath.mpf(10) ** -40 for z in nodes):
            return []

        def hermite(value_at_xi: int) -> list[Any]:
            # degree 2n: p(z) = [z < xi], p'(z) = 0 at the other nodes; p(xi) = value_at_xi
            rows, rhs_ = [], []
            for z in nodes:
                rows.append([z**k for k in range(m + 1)])
                rhs_.append(1 if z < xif else 0)
                rows.append([k * z ** (k - 1) if k > 0 else 0 for k in range(m + 1)])
                rhs_.append(0)
            rows.append([xif**k for k in range(m + 1)])
            rhs_.append(value_at_xi)
            return list(mpmath.lu_solve(mpmath.matrix(rows), mpmath.matrix(rhs_)))

        try:
            up = hermite(1)
            lo = hermite(0)
        except ZeroDivisionError:  # nodes too far apart for 60 digits (moments spanning 1e100 and more)
            return []
    to_frac = lambda cs: tuple(Fraction(str(mpmath.nstr(c, 40, min_fixed=-1e9, max_fixed=1e9))) for c in cs)  # noqa: E731
    up_u, lo_u = to_frac(up), to_frac(lo)
    val = lambda cs: sum((c * mu[k] for k, c in enumerate(cs)), Fraction(0))  # noqa: E731
    sharp = False  # sharp only up to the ~1e-40 rounding of the irrational nodes; reported as VALID
    # these bound P(X <= xi) (and P(X < xi)); map to the event
    cands = [Candidate("chebyshev-markov-stieltjes", "upper", val(up_u), None, up_u, sharp),
             Candidate("chebyshev-markov-stieltjes", "lower", val(lo_u), None, lo_u, sharp)]
    if tail[0] == "upper":
        cands = [_complement_side(c) for c in cands]
    return cands


def _effective_event(problem: MomentProblem) -> Event:
    """An interval event reaching past a support end is a tail event on that support."""
    sup, ev = problem.support, problem.event
    if not sup.is_bounded or ev.b is None:
        return ev
    if ev.kind is EventKind.BETWEEN:
        if ev.b >= sup.hi:  # type: ignore[operator]
            return Event.ge(ev.a)
        if ev.a <= sup.lo:  # type: ignore[operator]
            return Event.le(ev.b)
    if ev.kind is EventKind.OUTSIDE:
        if ev.b >= sup.hi:  # type: ignore[operator]
            return Event.lt(ev.a)
        if ev.a <= sup.lo:  # type: ignore[operator]
            return Event.gt(ev.b)
    return ev


def closed_form_candidates(problem: MomentProblem) -> list[Candidate]:
    """Every applicable closed-form candidate bound (unverified) for ``problem``."""
    eff = _effective_event(problem)
    if eff != problem.event:
        problem = problem.with_event(eff)
    sup, ev = problem.support, problem.event
    mom = problem.exact_moments
    if problem.order < 1:
        return []
    mu = mom[1]
    m2 = mom[2] if problem.order >= 2 else None
    real = sup.kind is SupportKind.REAL
    a, b = sup.lo, sup.hi  # None for an infinite end
    out: list[Candidate] = []
    tail = _tail(ev)
    if tail is not None:
        direction, t, _closed = tail
        if sup.kind is SupportKind.GRID:  # the event's first/last grid point is the effective threshold
            pieces = [p for p in ev.pieces(sup) if p.target == 1]
            t_eff = None if not pieces else (pieces[0].lo if direction == "upper" else pieces[0].hi)
        else:
            t_eff = t
        for target_dir, comp in ((direction, False), ("lower" if direction == "upper" else "upper", True)):
            # bound P(E) from above (comp=False) or P(E^c) from above (comp=True)
            if sup.kind is SupportKind.GRID:
                cp = [p for p in (ev.complement() if comp else ev).pieces(sup) if p.target == 1]
                if not cp:
                    continue
                thr = cp[0].lo if target_dir == "upper" else cp[0].hi
            else:
                thr = t
            if thr is None or t_eff is None and sup.kind is SupportKind.GRID:
                continue
            if target_dir == "upper" and mu < thr:
                cands = _upper_tail_bounds(mu, m2, thr, a, b, real, problem.order)
            elif target_dir == "lower" and mu > thr:
                cands = [_reflect(c) for c in _upper_tail_bounds(
                    -mu, m2, -thr, None if b is None else -b, None if a is None else -a, real, problem.order)]
            else:
                cands = []
            if a is not None and a >= 0 and target_dir == "upper" and thr > 0:
                cands += [Candidate("bertsimas-popescu-(1,2,R+)", "upper", mu / thr, (Fraction(0), 1 / thr), None,
                                    False)]
            out += [_complement_side(c) for c in cands] if comp else cands
    elif ev.kind in (EventKind.BETWEEN, EventKind.OUTSIDE, EventKind.UNION) and m2 is not None and ev.b is not None:
        s2 = m2 - mu * mu
        k = mu - ev.a
        two_tails = ev.kind is not EventKind.UNION or (
            len(ev.parts) == 2 and ev.parts[0].lo is None and ev.parts[1].hi is None
        )
        if two_tails and k > 0 and ev.b - mu == k and s2 > 0:
            # P(|X - mu| > k) <= s2/k^2 with dual ((x - mu)/k)^2 (also bounds the closed version)
            poly = (mu * mu / (k * k), -2 * mu / (k * k), 1 / (k * k))
            c = Candidate("chebyshev-two-sided", "upper", s2 / (k * k), poly, None, False)
            out.append(c if ev.kind is not EventKind.BETWEEN else _complement_side(c))
    out += _boros_prekopa(problem)
    out += _cms(problem)
    return out


def _attainment_notes(problem: MomentProblem, winner: Candidate | None) -> list[str]:
    """Say whether a sharp upper bound on an unbounded support is attained.

    Markov's bound on a half-line with a known variance larger than Markov's extremal law
    allows (``d < C^2`` in Bertsimas-Popescu's notation) is a supremum approached by moving a
    vanishing mass to infinity, never attained; Cantelli's is attained by two atoms.
    """
    if winner is None or not winner.sharp or problem.support.kind is not SupportKind.HALFLINE:
        return []
    if winner.name == "markov" and problem.order >= 2:
        mu, m2, a = problem.exact_moments[1], problem.exact_moments[2], problem.support.lo
        t = a + (mu - a) / winner.value  # type: ignore[operator]
        if (m2 - mu * mu) > (mu - a) * (t - mu):  # type: ignore[operator]
            return ["upper is a supremum, not attained (a vanishing mass escapes to infinity)"]
    return ["upper is the sharp supremum, attained"]


class ClosedFormMethod(BoundMethod):
    """The sharpest applicable closed form, each side proven by its verified dual polynomial.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> r = ClosedFormMethod().solve(MomentProblem((1, 0, 1), Support.real(), Event.ge(2)))
    >>> r.exact_upper, r.message.split(";")[2].strip()
    (Fraction(1, 5), 'upper: cantelli')
    """

    name = "closed-form"
    kind = Kind.BOUND
    options: dict[str, Any] = {}

    def applies(self, problem: MomentProblem) -> str | None:
        if problem.order < 1:
            return "closed forms need at least the mean"
        if not closed_form_candidates(problem):
            return "no closed form applies to this support/event/order (see docs/bounds.md)"
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        best: dict[str, tuple[Fraction, Certificate, Candidate, bool]] = {}
        for c in closed_form_candidates(problem):
            poly = c.u_poly if c.u_poly is not None else _x_to_u(c.x_poly, problem)  # type: ignore[arg-type]
            cert, shifted = certify(poly, c.side, problem, basis="monomial", allow_shift=c.u_poly is not None,
                                    how_prefix=c.name)
            if not cert.verified:
                continue
            v = cert.value
            cur = best.get(c.side)
            better = cur is None or (v < cur[0] if c.side == "upper" else v > cur[0])
            if better:
                best[c.side] = (v, cert, c, shifted)
        up = best.get("upper")
        lo = best.get("lower")
        upper = min(Fraction(1), up[0]) if up else Fraction(1)
        lower = max(Fraction(0), lo[0]) if lo else Fraction(0)
        sharp = bool(up and lo and up[2].sharp and lo[2].sharp)
        shifted = bool((up and up[3]) or (lo and lo[3]))
        status = Status.SHIFTED if shifted else (Status.OPTIMAL if sharp else Status.VALID)
        names = f"lower: {lo[2].name if lo else 'trivial 0'}; upper: {up[2].name if up else 'trivial 1'}"
        notes = _attainment_notes(problem, up[2] if up else None)
        if notes:
            names += "; " + "; ".join(notes)
        certs = tuple(x[1] for x in (lo, up) if x)
        return BoundResult(
            round_down(lower),
            round_up(upper),
            self.name,
            Kind.BOUND,
            status,
            f"{'sharp' if sharp else 'valid'}; {names}",
            certificates=certs,
            certified=True,
            diagnostics=Diagnostics(formula=names, notes=tuple(notes)),
            exact_lower=lower,
            exact_upper=upper,
        )
