"""``sos``: certified bounds with shape constraints (unimodal, symmetric) and moment boxes.

One method for the problems the plain moment LP/SDP cannot state: each side of the bound
is a :class:`~momentbound.bounds.dominance.DominanceProgram` (cheapest dual polynomial
under sums-of-squares constraints, verified exactly afterwards), built by the variant of
the problem:

* ``plain``: ``q >= 1_E`` on the support (with a moment box: worst case over the box);
* ``unimodal-mode``: mode known, Khinchine's representation (:mod:`.shape`);
* ``unimodal``: mode unknown, the certified envelope over mode intervals (:mod:`.shape`);
* ``symmetric``: symmetric about the mean, a moment problem in ``(X - mu)^2``.

Lower bounds are one minus the upper bound of the complement.  Every reported number comes
from a dual solution checked on the whole support in exact / interval arithmetic; a side
that could not be verified is reported as trivial and the status says UNVERIFIED.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from momentbound.errors import InvalidArgument

from .dominance import DominanceProgram, DominanceSolution, Stretch, solve_dominance
from .feasibility import check_feasible
from .problem import AffineMap, Event, MomentProblem, ShapeKind, Support, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Certificate, Diagnostics, Kind, Status, round_down, round_up
from .shape import (
    check_symmetric_moments,
    check_unimodal_moments,
    mode_envelope,
    mode_range,
    moment_objective,
    symmetric_program,
    unimodal_program,
)

__all__ = ["SOSMethod", "plain_program", "variant"]

_CONTINUOUS = (SupportKind.INTERVAL, SupportKind.HALFLINE, SupportKind.REAL)
#: grids up to this size are handled point by point (sharp); larger ones by their hull
DENSE_GRID = 2000


def plain_program(problem: MomentProblem, event: Event) -> DominanceProgram:
    """``min E[q(X)]`` (worst case over a moment box) subject to ``q >= 1_E`` on the support.

    A finite support, and a grid of at most :data:`DENSE_GRID` points, give one point
    constraint per point (the discrete moment LP with inequality rows for a box); a larger
    grid is relaxed to the interval between its ends (valid, not sharp).
    """
    amap, _ = problem.affine_to_unit()
    n = problem.order
    nvar = n + 1
    ident = tuple(tuple(Fraction(int(j == k)) for j in range(nvar)) for k in range(nvar))
    zero = (Fraction(0),) * n
    sup = problem.support
    stretches = []
    if sup.is_discrete and sup.size <= DENSE_GRID:  # type: ignore[operator]
        ends = (int(sup.lo), int(sup.hi) + 1) if sup.kind is SupportKind.GRID else (0, 0)  # type: ignore[arg-type]
        points = sup.points if sup.kind is SupportKind.FINITE else range(*ends)
        for x in points:  # type: ignore[union-attr]
            u = amap.to_unit(x)
            stretches.append(Stretch(u, u, ident, (Fraction(int(event.indicator(x))),) + zero))
    else:
        hull = Support.interval(sup.lo, sup.hi) if sup.kind is SupportKind.GRID else sup
        for piece in event.pieces(hull):
            lo = None if piece.lo is None else amap.to_unit(piece.lo)
            hi = None if piece.hi is None else amap.to_unit(piece.hi)
            stretches.append(Stretch(lo, hi, ident, (Fraction(piece.target),) + zero))
    rows, box = moment_objective(problem, nvar)
    return DominanceProgram(nvar, tuple(stretches), rows, box, (Fraction(1),) + zero)


@dataclass(frozen=True)
class _Side:
    """An upper bound on ``P(event)``: value, the solution behind it, notes."""

    value: Fraction
    solution: DominanceSolution | None
    verified: bool
    note: str
    to_u: Callable[[tuple[Fraction, ...]], tuple[Fraction, ...]]


def _identity(y: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    return y


def _single(program: DominanceProgram, tol: float, note: str, to_u: Callable[..., Any] = _identity) -> _Side:
    sol = solve_dominance(program, tol=tol)
    if sol is None:
        return _Side(Fraction(1), None, True, note + "; no dominating polynomial: trivial bound 1", to_u)
    if not sol.verified:
        # the trivial bound 1 is proven without a certificate; say why the dual was not used
        why = f"; dual not verified (min slack {sol.min_slack:.3g}): trivial bound 1"
        return _Side(Fraction(1), None, True, note + why, to_u)
    shifted = "; dual shifted to verify" if sol.shifted else ""
    return _Side(min(Fraction(1), sol.value), sol, True, note + shifted, to_u)


def _plain_side(problem: MomentProblem, event: Event, opts: dict[str, Any]) -> _Side:
    box = "worst case over the moment box" if problem.moment_box is not None else "q >= 1_E"
    return _single(plain_program(problem, event), opts["tol"], box)


def _unimodal_mode_side(problem: MomentProblem, event: Event, opts: dict[str, Any]) -> _Side:
    amap, _ = problem.affine_to_unit()
    m = amap.to_unit(problem.shape.mode)  # type: ignore[union-attr]
    note = f"unimodal about {problem.shape.mode}"  # type: ignore[union-attr]
    return _single(unimodal_program(problem, event, m, m), opts["tol"], note)


def _unimodal_side(problem: MomentProblem, event: Event, opts: dict[str, Any]) -> _Side:
    lo, hi = mode_range(problem)
    env = mode_envelope(problem, event, lo, hi, pieces=int(opts["mode_pieces"]), refine=int(opts["mode_refine"]),
                        tol=opts["tol"], gap=float(opts["mode_gap"]))
    a, b = env.worst
    note = (f"mode unknown in [{float(lo):.6g}, {float(hi):.6g}]: largest certified bound over {env.intervals} "
            f"mode intervals, worst [{float(a):.6g}, {float(b):.6g}]")
    if env.best_mode_value is not None:
        note += (f"; the best single mode found, {float(env.best_mode):.6g}, gives {float(env.best_mode_value):.6g} "
                 f"(envelope - best mode = {float(env.value - env.best_mode_value):.2g})")
    if env.trivial:
        note += f"; {env.trivial} interval(s) without a verified dual got the trivial bound 1"
    if env.excluded:
        note += f"; {env.excluded} interval(s) excluded by a verified Farkas polynomial (no law has its mode there)"
    return _Side(env.value, env.solution, True, note, _identity)


def _symmetric_side(problem: MomentProblem, event: Event, opts: dict[str, Any]) -> _Side:
    _, mu = problem.affine_to_unit()
    c = mu[1]

    def to_u(r: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
        # sum_j r_j (u - c)^(2j) in monomials of u
        out = [Fraction(0)] * (2 * len(r) - 1)
        for j, rj in enumerate(r):
            for i in range(2 * j + 1):
                out[i] += rj * math.comb(2 * j, i) * (-c) ** (2 * j - i)
        return tuple(out)

    note = f"symmetric about the mean {problem.moments[1]}"
    return _single(symmetric_program(problem, event), opts["tol"], note, to_u)


#: how each variant of the problem bounds one side (literal registry)
SIDES: dict[str, Callable[[MomentProblem, Event, dict[str, Any]], _Side]] = {
    "plain": _plain_side,
    "unimodal-mode": _unimodal_mode_side,
    "unimodal": _unimodal_side,
    "symmetric": _symmetric_side,
}


def variant(problem: MomentProblem) -> str:
    """Which entry of :data:`SIDES` handles ``problem``."""
    if problem.shape is None:
        return "plain"
    if problem.shape.kind is ShapeKind.SYMMETRIC:
        return "symmetric"
    return "unimodal-mode" if problem.shape.mode is not None else "unimodal"


def _certificate(side: str, s: _Side, amap: AffineMap, how: str) -> Certificate:
    y = s.to_u(s.solution.y) if s.solution is not None else (Fraction(1),)
    if side == "lower":
        y = tuple([1 - y[0]] + [-v for v in y[1:]])
    value = s.value if side == "upper" else 1 - s.value
    slack = s.solution.min_slack if s.solution is not None else 0.0
    return Certificate(side, y, "monomial", amap, value, s.verified, slack, how)


class SOSMethod(BoundMethod):
    """Bounds under shape constraints and moment boxes, by certified sums of squares.

    Options
    -------
    tol : float
        Clarabel tolerance (default ``1e-9``); the result is verified exactly either way.
    mode_pieces, mode_refine : int
        Unknown mode: initial number of mode intervals and the largest number of bisections of the worst.
    mode_gap : float
        Unknown mode: stop bisecting once the worst interval's bound is within this of the best
        single-mode bound found (default ``1e-6``, so the envelope is the maximum over the modes
        to that accuracy; ``0`` runs every bisection).

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, Shape, bound
    >>> p = MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, 2), shape=Shape.unimodal(0))
    >>> r = bound(p, "sos")
    >>> abs(r.upper - 1 / 9) < 1e-6, r.certified      # Gauss: 4 / (9 k^2) at k = 2
    (True, True)
    """

    name = "sos"
    kind = Kind.BOUND
    options = {"tol": 1e-9, "mode_pieces": 8, "mode_refine": 64, "mode_gap": 1e-6}
    handles_degenerate = False
    features = frozenset({"shape", "moment-box"})

    def applies(self, problem: MomentProblem) -> str | None:
        if not problem.features:
            return "sos is for shape constraints and moment boxes; lp, sdp and closed-form cover the plain problem"
        if problem.order < 1:
            return "needs at least the mean"
        if problem.shape is not None:
            if problem.support.kind not in _CONTINUOUS:
                return "shape constraints need a continuous support (interval, halfline or real)"
            mode = problem.shape.mode
            if mode is not None and not problem.support.contains(mode):
                return f"the mode {mode} lies outside the support {problem.support}"
            if problem.shape.kind is ShapeKind.SYMMETRIC and problem.moment_box is not None:
                return "a symmetric shape needs exactly known moments (its centre is the mean); drop the moment box"
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        tol = float(options["tol"])
        if not 0 < tol < 1e-2:
            raise InvalidArgument(f"tol must be in (0, 1e-2), got {tol!r}")
        if not 0 <= float(options["mode_gap"]) < 1:
            raise InvalidArgument(f"mode_gap must be in [0, 1), got {options['mode_gap']!r}")
        for key in ("mode_pieces", "mode_refine"):
            if int(options[key]) < (1 if key == "mode_pieces" else 0):
                raise InvalidArgument(f"{key} must be a positive integer, got {options[key]!r}")
        key = variant(problem)
        if problem.moment_box is None:
            check_feasible(problem)
            if key == "unimodal-mode":
                check_unimodal_moments(problem, problem.shape.mode)  # type: ignore[union-attr]
            if key == "symmetric":
                check_symmetric_moments(problem)
        side = SIDES[key]
        up = side(problem, problem.event, options)
        comp = side(problem, problem.event.complement(), options)
        upper, lower = up.value, max(Fraction(0), 1 - comp.value)
        verified = up.verified and comp.verified
        shifted = any(s.solution is not None and s.solution.shifted for s in (up, comp))
        status = (Status.SHIFTED if shifted else Status.VALID) if verified else Status.UNVERIFIED
        amap, _ = problem.affine_to_unit()
        certs = (_certificate("lower", comp, amap, f"sos:{key}"), _certificate("upper", up, amap, f"sos:{key}"))
        notes = (f"upper: {up.note}", f"lower: 1 - ({comp.note})")
        solver_status = "/".join(s.solution.solver_status if s.solution else "none" for s in (up, comp))
        return BoundResult(
            round_down(lower),
            round_up(upper),
            self.name,
            Kind.BOUND,
            status,
            f"{key}: " + "; ".join(notes),
            certificates=certs,
            certified=status.is_proven,
            diagnostics=Diagnostics(solver="clarabel(cvxpy)", solver_status=solver_status, formula=key, notes=notes),
            exact_lower=lower if comp.verified else None,
            exact_upper=upper if up.verified else None,
        )
