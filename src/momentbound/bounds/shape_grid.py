"""``shape-grid``: sharp, certified bounds for unimodal and symmetric laws on an integer grid.

The continuous theorems (Gauss, Khinchine's ``X = m + U Y``) do not hold for laws on the
integers: the law ``{-2: .1, -1: .1, 0: .6, 1: .1, 2: .1}`` is unimodal about 0 with mean 0
and variance 1, yet ``P(|X| >= 2) = 0.2 > 1/9``.  Their discrete analogues are linear
programs (docs/mathematics.md, "Shape constraints and moment boxes"):

* **Unimodal about an integer mode** ``m``: the pmf is nondecreasing up to ``m`` and
  nonincreasing from ``m``.  Its superlevel sets are integer ranges containing ``m``, so the
  law is a mixture of discrete uniforms on ranges ``{a, ..., b}`` with ``a <= m <= b`` (the
  layer-cake decomposition), and every such mixture is unimodal about ``m``.  The primal LP
  has one variable per grid point and the monotonicity rows; its dual is a polynomial ``q``
  with ``sum_{x=a}^{b} (q(x) - 1_E(x)) >= 0`` for every range containing ``m``, whence
  ``P(E) <= E[q(X)]``.  With prefix sums ``D`` of ``q - 1_E`` the check is
  ``max_{a <= m} D_a <= min_{b >= m} D_{b+1}``: exact, in integers, linear in the grid size.
  A mode between two integers is the union of the classes of its two neighbours; an
  unknown mode is the union over every grid point (the maximum over modes, sharp).
* **Symmetric about the mean** ``c``: the law is a mixture of the point ``{c}`` and the pairs
  ``{c - t, c + t}`` (each half and half), which needs ``2c`` to be an integer; the dual
  check is ``q(c - t) + q(c + t) >= 1_E(c - t) + 1_E(c + t)`` on every pair in the grid.

The float LP (HiGHS) proposes the dual ``q``; it is rounded to rationals, and its constant
term raised until the exact check passes, so every reported number is proven.  Moments that
no law of the class has are proven so by a Farkas polynomial (the same checks with the empty
event and ``E[q(X)] < 0``).  Lower bounds are one minus the upper bound of the complement.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from momentbound.errors import InfeasibleMoments, InvalidArgument, SolverFailed
from momentbound.quiet import quiet_native_output

from .feasibility import check_feasible
from .problem import Event, MomentProblem, ShapeKind, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Certificate, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["ShapeGridMethod", "grid_modes", "MAX_GRID_POINTS", "MAX_MODE_WORK"]

#: largest grid for a known mode or a symmetric law (one LP with this many variables)
MAX_GRID_POINTS = 100_001
#: largest (number of modes) x (grid points) for an unknown mode (one LP per mode)
MAX_MODE_WORK = 250_000
#: constant-term raises tried, relative to the size of the dual, before giving up
_SHIFTS = (0, 2**-50, 2**-40, 2**-30, 2**-20, 2**-12, 2**-6)


def grid_modes(problem: MomentProblem) -> tuple[int, ...]:
    """The integer modes whose classes make up the problem's shape constraint (grid supports).

    An unknown mode ranges over the grid points that can be the mode of a law with the given mean
    ``mu`` and variance ``s^2``: a component ``{a..b}`` containing ``m`` has its centre ``c`` within
    ``h = (b - a) / 2`` of ``m`` and ``E[(X - m)^2 | component] = (c - m)^2 + (h^2 + h) / 3 >= 4 (c - m)^2 / 3``,
    so ``(mu - m)^2 <= 3 s^2``; and ``c`` lies in ``[(lo + m) / 2, (m + hi) / 2]``, so
    ``2 mu - hi <= m <= 2 mu - lo``.  The other modes have no law at all.
    """
    lo, hi = int(problem.support.lo), int(problem.support.hi)  # type: ignore[arg-type]
    mode = problem.shape.mode  # type: ignore[union-attr]
    if mode is not None:
        return tuple(sorted({math.floor(mode), math.ceil(mode)} & set(range(lo, hi + 1))))
    modes = range(lo, hi + 1)
    mom = problem.exact_moments
    if problem.order >= 1:
        mu = mom[1]
        modes = range(max(lo, math.ceil(2 * mu - hi)), min(hi, math.floor(2 * mu - lo)) + 1)
        if problem.order >= 2:
            var = mom[2] - mu * mu
            modes = range(0) if var < 0 else modes
            return tuple(m for m in modes if (m - mu) ** 2 <= 3 * var)
    return tuple(modes)


@dataclass(frozen=True)
class _Class:
    """One convex class of laws on the grid: the LP data and the exact dual check."""

    label: str
    a_eq: np.ndarray  # (order + 1) x variables: the moments of each variable's law
    weights: np.ndarray  # variables x points: the law of each variable (to average the event)
    a_ub: np.ndarray | None  # rows z_i - z_j <= 0 (monotone pmf), or None
    check: Callable[[Sequence[int]], bool]  # exact dual check on integer residuals at the points


def _unimodal_class(n: int, mi: int, us: np.ndarray, order: int) -> _Class:
    a_eq = np.vstack([us**k for k in range(order + 1)])
    rows = []
    for i in range(n - 1):
        row = np.zeros(n)
        if i < mi:  # p_i <= p_{i+1}
            row[i], row[i + 1] = 1.0, -1.0
        else:  # p_{i+1} <= p_i
            row[i + 1], row[i] = 1.0, -1.0
        rows.append(row)
    a_ub = np.array(rows) if rows else None

    def check(r: Sequence[int]) -> bool:
        # every range {a..b} with a <= mi <= b has a nonnegative sum: max prefix before <= min prefix after
        d = [0]
        for v in r:
            d.append(d[-1] + v)
        return max(d[: mi + 1]) <= min(d[mi + 1:])

    return _Class(f"unimodal about grid point {mi}", a_eq, np.eye(n), a_ub, check)


def _symmetric_class(n: int, ci2: int, us: np.ndarray, order: int) -> _Class:
    """``ci2`` = twice the centre's index (the centre may sit between two points)."""
    comps = [(ci2 - j, j) for j in range(n) if 0 <= ci2 - j <= j < n]  # (i, j) with i + j = ci2, i <= j
    weights = np.zeros((len(comps), n))
    for c, (i, j) in enumerate(comps):
        weights[c, i] += 0.5
        weights[c, j] += 0.5
    a_eq = np.vstack([weights @ us**k for k in range(order + 1)])

    def check(r: Sequence[int]) -> bool:
        return all(r[i] + r[j] >= 0 for i, j in comps)

    return _Class("symmetric about the mean", a_eq, weights, None, check)


@dataclass(frozen=True)
class _Side:
    value: Fraction  # certified upper bound on P(event) over the class (negative: class proven empty)
    lp_value: float | None  # the float LP optimum (None: LP infeasible)
    y: tuple[Fraction, ...]
    shifted: bool


def _integer_residuals(y: Sequence[Fraction], xs: Sequence[int], shift: Fraction, scale: Fraction,
                       indicator: Sequence[int]) -> list[int]:
    """``L (q(x) - 1_E(x))`` at the grid points, exactly, for one common denominator ``L > 0``."""
    # q(x) = sum_k y_k ((x - shift) / scale)^k as a polynomial in x with rational coefficients
    coef = [Fraction(0)] * len(y)
    for k, yk in enumerate(y):
        if yk == 0:
            continue
        f = yk / scale**k
        for j in range(k + 1):
            coef[j] += f * math.comb(k, j) * (-shift) ** (k - j)
    den = 1
    for c in coef:
        den = den * c.denominator // math.gcd(den, c.denominator)
    ints = [int(c * den) for c in coef]
    out = []
    for x, e in zip(xs, indicator):
        v = 0
        for c in reversed(ints):
            v = v * x + c
        out.append(v - den * e)
    return out


def _solve_side(cls: _Class, problem: MomentProblem, event: Event, farkas: bool = False) -> _Side:
    """Certified ``sup P(event)`` over ``cls`` (``farkas``: prove the class empty instead)."""
    from scipy.optimize import linprog

    amap, mu = problem.affine_to_unit()
    lo, hi = int(problem.support.lo), int(problem.support.hi)  # type: ignore[arg-type]
    xs = range(lo, hi + 1)
    ind = [0 if farkas else int(event.indicator(x)) for x in xs]
    order = problem.order
    muf = np.array([float(v) for v in mu])
    nvar = cls.a_eq.shape[1]
    c = cls.weights @ np.array(ind, dtype=float)
    g = cls.a_ub
    lp_value = None
    with quiet_native_output():
        if not farkas:
            res = linprog(-c, A_ub=g, b_ub=None if g is None else np.zeros(g.shape[0]), A_eq=cls.a_eq, b_eq=muf,
                          bounds=(0, None), method="highs")
            if res.status == 2:
                return _solve_side(cls, problem, event, farkas=True)
            if res.status != 0:
                raise SolverFailed(f"shape-grid: HiGHS could not solve the LP of the class '{cls.label}' "
                                   f"({res.message})")
            yf = -np.asarray(res.eqlin.marginals, dtype=float)
            lp_value = float(-res.fun)
        else:
            # Farkas: min mu.y subject to the dual constraints with the empty event, y in a box
            ng = 0 if g is None else g.shape[0]
            a_ub = np.hstack([-cls.a_eq.T, -(g.T if g is not None else np.zeros((nvar, 0)))])
            cost = np.concatenate([muf, np.zeros(ng)])
            bounds = [(-1.0, 1.0)] * (order + 1) + [(0, None)] * ng
            res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(nvar), bounds=bounds, method="highs")
            if res.status != 0 or res.fun >= -1e-12:
                raise SolverFailed(f"shape-grid: HiGHS found no law {cls.label} with these moments but no "
                                   f"proof of it either ({res.message})")
            yf = np.asarray(res.x[: order + 1], dtype=float)
    y = [Fraction(float(v)) for v in yf]
    size = max(1.0, float(np.abs(yf).max()))
    for step in _SHIFTS:
        cand = [y[0] + Fraction(step) * Fraction(size)] + y[1:]
        r = _integer_residuals(cand, xs, amap.shift, amap.scale, ind)
        if cls.check(r):
            value = sum((yk * mk for yk, mk in zip(cand, mu)), Fraction(0))
            if farkas:
                if value >= 0:
                    break
                raise InfeasibleMoments(
                    f"no law {cls.label} on {problem.support} has these moments (a verified Farkas polynomial)",
                    condition="unimodal" if problem.shape.kind is ShapeKind.UNIMODAL else "symmetry",  # type: ignore[union-attr]
                )
            return _Side(value, lp_value, tuple(cand), step > 0)
    if farkas:
        raise SolverFailed(f"shape-grid: the Farkas polynomial for the class '{cls.label}' did not verify exactly")
    raise SolverFailed(f"shape-grid: the dual polynomial for the class '{cls.label}' did not verify exactly")


def _classes(problem: MomentProblem) -> list[_Class]:
    lo, hi = int(problem.support.lo), int(problem.support.hi)  # type: ignore[arg-type]
    n = hi - lo + 1
    amap, _ = problem.affine_to_unit()
    us = np.array([float(amap.to_unit(x)) for x in range(lo, hi + 1)])
    shape = problem.shape
    if shape.kind is ShapeKind.SYMMETRIC:  # type: ignore[union-attr]
        c2 = 2 * problem.exact_moments[1]
        if c2.denominator != 1:
            raise InfeasibleMoments(
                f"a law on the integers symmetric about its mean needs a mean that is an integer or a half-integer, "
                f"got {problem.exact_moments[1]}", condition="symmetry")
        return [_symmetric_class(n, int(c2) - 2 * lo, us, problem.order)]
    return [_unimodal_class(n, m - lo, us, problem.order) for m in grid_modes(problem)]


class ShapeGridMethod(BoundMethod):
    """Unimodal (known or unknown mode) and symmetric laws on an integer grid: the sharp discrete LP.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, Shape, bound
    >>> p = MomentProblem((1, 0, 1), Support.grid(-2, 2), Event.deviation(0, 2), shape=Shape.unimodal(0))
    >>> r = bound(p, "shape-grid")
    >>> round(r.upper, 9), r.certified       # attained by {-2: .1, -1: .1, 0: .6, 1: .1, 2: .1}
    (0.2, True)
    """

    name = "shape-grid"
    kind = Kind.BOUND
    options: dict[str, Any] = {}
    handles_degenerate = False
    features = frozenset({"shape"})

    def applies(self, problem: MomentProblem) -> str | None:
        if problem.shape is None:
            return "shape-grid is for shape constraints (unimodal, symmetric); lp covers the plain grid problem"
        if problem.support.kind is not SupportKind.GRID:
            return "shape-grid needs a grid support (grid:LO:HI); on interval, halfline and real supports use sos"
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        check_feasible(problem)
        n = problem.support.size or 0
        if n > MAX_GRID_POINTS:
            raise InvalidArgument(
                f"a shape constraint on a grid of {n:,} points exceeds the limit of {MAX_GRID_POINTS:,} points; "
                "use a smaller grid, or the support's hull interval:LO:HI (the continuous shape class)")
        if problem.shape.kind is ShapeKind.UNIMODAL and problem.shape.mode is None:  # type: ignore[union-attr]
            modes = len(grid_modes(problem))
            if modes * n > MAX_MODE_WORK:
                raise InvalidArgument(
                    f"an unknown mode on a grid of {n:,} points takes two LPs of {n:,} variables for each of the "
                    f"{modes:,} possible modes (limit {MAX_MODE_WORK:,} = modes x points); give the mode "
                    "(--mode M, Shape.unimodal(M)) or use a smaller grid")
        uppers: list[tuple[_Side, _Class]] = []
        lowers: list[tuple[_Side, _Class]] = []
        proven_empty = 0
        classes = _classes(problem)
        for cls in classes:
            try:
                up = _solve_side(cls, problem, problem.event)
                comp = _solve_side(cls, problem, problem.event.complement())
            except InfeasibleMoments:
                proven_empty += 1
                continue
            uppers.append((up, cls))
            lowers.append((comp, cls))
        if not uppers:
            where = "for any mode on the grid" if len(classes) > 1 else ""
            raise InfeasibleMoments(
                f"no {problem.shape} law on {problem.support} has these moments {where}".rstrip()
                + " (verified Farkas polynomials)", condition=problem.shape.kind.value)  # type: ignore[union-attr]
        up, up_cls = max(uppers, key=lambda t: t[0].value)
        comp, low_cls = max(lowers, key=lambda t: t[0].value)
        upper = min(Fraction(1), up.value)
        lower = max(Fraction(0), 1 - comp.value)
        shifted = up.shifted or comp.shifted
        amap, _ = problem.affine_to_unit()
        how = f"shape-grid:{problem.shape}"  # type: ignore[union-attr]
        certs = (
            Certificate("lower", tuple([1 - comp.y[0]] + [-v for v in comp.y[1:]]), "monomial", amap, 1 - comp.value,
                        True, 0.0, f"{how} ({low_cls.label})"),
            Certificate("upper", up.y, "monomial", amap, up.value, True, 0.0, f"{how} ({up_cls.label})"),
        )
        gap = max(abs(float(up.value) - (up.lp_value or 0.0)), abs(float(comp.value) - (comp.lp_value or 0.0)))
        notes = (
            f"upper: {up_cls.label}, LP optimum {up.lp_value:.12g}",
            f"lower: 1 - ({low_cls.label}, LP optimum {comp.lp_value:.12g})",
            f"{len(uppers)} class(es) solved, {proven_empty} proven empty; certified value within {gap:.2g} of the LP",
        )
        status = Status.SHIFTED if shifted else Status.VALID
        return BoundResult(
            round_down(lower),
            round_up(upper),
            self.name,
            Kind.BOUND,
            status,
            "; ".join(notes),
            certificates=certs,
            certified=True,
            diagnostics=Diagnostics(solver="highs(scipy)", solver_status="optimal", formula=str(problem.shape),
                                    notes=notes),
            exact_lower=lower,
            exact_upper=upper,
        )
