"""Bounds on joint events ``P[X > tx and Y > ty]`` of two integer statistics (docs/mathematics.md,
section 'Joint events and the bird polynomial').

Three routes, all returning :class:`~momentbound.bounds.result.BoundResult`:

* :func:`frechet_bounds`: from bounds ``[lx, ux]`` on ``P[X > tx]`` and ``[ly, uy]`` on
  ``P[Y > ty]``, ``max(0, lx + ly - 1) <= P[both] <= min(ux, uy)`` (certified when both inputs are).
* :func:`bird_bound`: the paper's bird polynomial ``W`` with ``W > 0 iff X > 0 and Y > 0`` on
  ``[-a, a]^2``; its moments (:func:`momentbound.moments.bird.bird_moments`)
  feed a one-dimensional method.  The degree grows linearly in ``a`` (``DegreeCapExceeded``
  beyond the cap), so this only works for small ranges.
* :func:`joint_sdp`: a bivariate moment relaxation (Lasserre).  The law on the box is split
  into its parts on ``E = {X >= tx+1, Y >= ty+1}``, ``A = {X <= tx}`` and ``B = {X >= tx+1,
  Y <= ty}``, each a measure on a box with its own moment matrix and box-localizing
  matrices (Chebyshev product basis of the scaled variables on ``[-1, 1]^2``); their moments add
  up to the known ``E[T_i(u) T_j(v)]``, ``i + j <= 2d``.  Maximising the mass on ``E`` (or on
  ``A + B``) bounds ``P(E)``.  The dual of the moment-matching constraint is a polynomial
  ``p(u, v)`` with ``p >= 1`` on ``E`` and ``p >= 0`` on ``A``, ``B``; it is *verified* on each box
  by evaluation on a grid plus the bilinear-interpolation remainder
  ``(hu^2 max|p_uu| + hv^2 max|p_vv|) / 8`` (Markov: ``|T_k''| <= k^2 (k^2 - 1) / 3``), its constant
  term is shifted by any deficit, and the bound is ``E[p]`` in exact arithmetic.

References
----------
Dhurandhar & Dobra, Section 8 and Appendix; J. B. Lasserre, "Global optimization with
polynomials and the problem of moments", SIAM J. Optim. 11 (2001).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import InvalidArgument, SolverFailed

from .basis import chebyshev_table
from .problem import Event, MomentProblem, Support
from .result import BoundResult, Diagnostics, Kind, Status, round_down, round_up

__all__ = [
    "frechet_bounds",
    "bird_bound",
    "joint_sdp",
    "JointBox",
    "chebyshev_joint_moments",
    "verify_bivariate",
    "joint_sdp_formulation",
]


def frechet_bounds(result_x: BoundResult, result_y: BoundResult) -> BoundResult:
    """Frechet bounds on ``P[X in E1 and Y in E2]`` from bounds on the two marginal events.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> rx = bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), "sdp")
    >>> r = frechet_bounds(rx, rx)
    >>> r.lower, round(r.upper, 6)
    (0.0, 0.333333)
    """
    for name, r in (("result_x", result_x), ("result_y", result_y)):
        if not isinstance(r, BoundResult):
            raise InvalidArgument(f"{name} must be a BoundResult, got {type(r).__name__}")
    start = time.perf_counter()
    ex = all(r.exact_lower is not None and r.exact_upper is not None for r in (result_x, result_y))
    if ex:
        lo_q = max(Fraction(0), result_x.exact_lower + result_y.exact_lower - 1)  # type: ignore[operator]
        hi_q = min(result_x.exact_upper, result_y.exact_upper)  # type: ignore[type-var]
        lo, hi = round_down(lo_q), round_up(hi_q)
    else:
        lo_q = hi_q = None
        lo = max(0.0, result_x.lower + result_y.lower - 1.0)
        hi = min(result_x.upper, result_y.upper)
    certified = result_x.certified and result_y.certified and result_x.kind is Kind.BOUND and result_y.kind is Kind.BOUND
    status = Status.VALID if certified else Status.UNVERIFIED
    return BoundResult(
        lo,
        hi,
        f"frechet({result_x.method},{result_y.method})",
        Kind.BOUND,
        status,
        f"{status.message}: Frechet bounds max(0, lx + ly - 1) <= P <= min(ux, uy)",
        certificates=result_x.certificates + result_y.certificates,
        certified=certified,
        seconds=result_x.seconds + result_y.seconds + time.perf_counter() - start,
        diagnostics=Diagnostics(formula="frechet"),
        exact_lower=lo_q,
        exact_upper=hi_q,
    )


def bird_bound(
    stat_x: Any,
    stat_y: Any,
    model: Any,
    N: int,
    order: int,
    *,
    method: str = "sdp",
    degree_cap: int | None = None,
    a: int | None = None,
    r: int | None = None,
    **options: Any,
) -> BoundResult:
    """Bound ``P[X > 0 and Y > 0]`` through the bird polynomial ``W`` (one-dimensional ``method``).

    ``W = (X + a)^r X^2 Y + (Y + a)^r Y^2 X`` takes integer values with
    ``|W| <= 2 (2a)^r a^3``; its first ``order`` moments and that range define a moment problem
    for ``P[W > 0]``.  Raises :class:`~momentbound.errors.DegreeCapExceeded` (from the moment
    engine) when ``order * (r + 3)`` exceeds ``degree_cap``.

    Example
    -------
    >>> from momentbound.model import equal_cells_model
    >>> from momentbound.model.statistics import naive_bayes_statistic
    >>> m = equal_cells_model((2,))
    >>> r = bird_bound(naive_bayes_statistic(m, (0,)), naive_bayes_statistic(m, (1,)), m, 3, 2)
    >>> r.certified, r.lower <= r.upper
    (True, True)
    """
    from momentbound.moments.bird import bird_moments

    from .api import bound

    kwargs: dict[str, Any] = {}
    if degree_cap is not None:
        kwargs["degree_cap"] = degree_cap
    start = time.perf_counter()
    bm = bird_moments(stat_x, stat_y, model, N, order, a=a, r=r, **kwargs)
    rational = getattr(bm.moments, "rational", None)
    moments = tuple(rational) if rational is not None else tuple(bm.moments.values)
    B = 2 * (2 * bm.a) ** bm.r * bm.a**3
    problem = MomentProblem(moments, Support.grid(-B, B), Event.gt(0), name=f"W(a={bm.a}, r={bm.r})")
    res = bound(problem, method, **options)
    assert isinstance(res, BoundResult)
    note = f"bird polynomial a={bm.a}, r={bm.r}, degree {bm.degree}, |W| <= {B}"
    return BoundResult(
        res.lower,
        res.upper,
        f"bird+{res.method}",
        res.kind,
        res.status,
        res.message + "; " + note,
        certificates=res.certificates,
        certified=res.certified,
        seconds=time.perf_counter() - start,
        diagnostics=Diagnostics(
            solver=res.diagnostics.solver, solver_status=res.diagnostics.solver_status, iterations=res.diagnostics.iterations, notes=res.diagnostics.notes + (note,)
        ),
        exact_lower=res.exact_lower,
        exact_upper=res.exact_upper,
    )


# ----------------------------------------------------------------------------- bivariate SDP
@dataclass(frozen=True)
class JointBox:
    """A closed box ``[u0, u1] x [v0, v1]`` of the scaled square and the indicator value on it."""

    u0: float
    u1: float
    v0: float
    v1: float
    target: int


def _scaled(lo: int, hi: int) -> tuple[Fraction, Fraction]:
    shift = Fraction(lo + hi, 2)
    scale = Fraction(hi - lo, 2) if hi > lo else Fraction(1)
    return shift, scale


def chebyshev_joint_moments(
    joint: Sequence[Sequence[Any]], support_x: tuple[int, int], support_y: tuple[int, int], degree: int
) -> dict[tuple[int, int], Fraction]:
    """Exact ``E[T_i(u) T_j(v)]`` for ``i + j <= degree`` from exact ``E[X^i Y^j]``.

    ``u``, ``v`` map the integer ranges ``support_x``, ``support_y`` onto ``[-1, 1]``.

    Example
    -------
    >>> chebyshev_joint_moments([[1, 0], [0, 0]], (-1, 1), (-1, 1), 1)[(1, 0)]
    Fraction(0, 1)
    """
    sx, cx = _scaled(*support_x)
    sy, cy = _scaled(*support_y)
    m = [[Fraction(v) for v in row] for row in joint]
    if len(m) <= degree or any(len(row) <= degree for row in m):
        raise InvalidArgument(
            f"joint moments must cover E[X^i Y^j] for i, j <= {degree}, got a table of shape {len(m)}x{len(m[0]) if m else 0}"
        )
    if m[0][0] != 1:
        raise InvalidArgument(f"joint moments must start with E[X^0 Y^0] = 1, got {m[0][0]}")
    # E[u^k v^l] with u = (X - sx)/cx
    uv: dict[tuple[int, int], Fraction] = {}
    for k in range(degree + 1):
        for l in range(degree + 1 - k):
            acc = Fraction(0)
            for i in range(k + 1):
                ci = math.comb(k, i) * (-sx) ** (k - i)
                for j in range(l + 1):
                    acc += ci * math.comb(l, j) * (-sy) ** (l - j) * m[i][j]
            uv[(k, l)] = acc / (cx**k * cy**l)
    table = chebyshev_table(degree)
    out: dict[tuple[int, int], Fraction] = {}
    for i in range(degree + 1):
        for j in range(degree + 1 - i):
            out[(i, j)] = sum(
                (table[i][k] * table[j][l] * uv[(k, l)] for k in range(i + 1) for l in range(j + 1) if table[i][k] and table[j][l]),
                Fraction(0),
            )
    return out


def _boxes(support_x: tuple[int, int], support_y: tuple[int, int], tx: int, ty: int) -> tuple[JointBox, ...]:
    sx, cx = _scaled(*support_x)
    sy, cy = _scaled(*support_y)
    u = lambda x: float((Fraction(x) - sx) / cx)  # noqa: E731
    v = lambda y: float((Fraction(y) - sy) / cy)  # noqa: E731
    (xl, xh), (yl, yh) = support_x, support_y
    boxes = []
    if tx + 1 <= xh and ty + 1 <= yh:
        boxes.append(JointBox(u(max(tx + 1, xl)), u(xh), v(max(ty + 1, yl)), v(yh), 1))
    if xl <= tx:
        boxes.append(JointBox(u(xl), u(min(tx, xh)), v(yl), v(yh), 0))
    if tx + 1 <= xh and yl <= ty:
        boxes.append(JointBox(u(max(tx + 1, xl)), u(xh), v(yl), v(min(ty, yh)), 0))
    return tuple(boxes)


def _second_derivative_bounds(coef: np.ndarray) -> tuple[float, float]:
    """Upper bounds of ``|p_uu|`` and ``|p_vv|`` on ``[-1, 1]^2`` (Markov brothers)."""
    n = coef.shape[0]
    k = np.arange(n, dtype=float)
    mk = k**2 * (k**2 - 1) / 3
    a = np.abs(coef)
    return float((mk[:, None] * a).sum()), float((a * mk[None, :]).sum())


def verify_bivariate(coef: np.ndarray, boxes: Sequence[JointBox], side_targets: Sequence[int], *, points: int = 1500) -> float:
    """Rigorous lower bound of ``min (p - target)`` over the boxes, ``p = sum coef[i, j] T_i(u) T_j(v)``.

    Grid evaluation (``points`` per axis) minus the bilinear-interpolation remainder and a
    floating-point allowance.

    Example
    -------
    >>> c = np.zeros((3, 3)); c[0, 0] = 1.0; c[2, 0] = 0.5      # 1 + T_2(u)/2 >= 1/2
    >>> verify_bivariate(c, [JointBox(-1, 1, -1, 1, 0)], [0]) > 0.49
    True
    """
    muu, mvv = _second_derivative_bounds(coef)
    fp = 1e-13 * float(np.abs(coef).sum()) * coef.shape[0] ** 2
    worst = math.inf
    for box, target in zip(boxes, side_targets):
        nu = 1 if box.u0 == box.u1 else points
        nv = 1 if box.v0 == box.v1 else points
        us = np.linspace(box.u0, box.u1, nu + 1) if nu > 1 else np.array([box.u0])
        vs = np.linspace(box.v0, box.v1, nv + 1) if nv > 1 else np.array([box.v0])
        vals = _cheb.chebvander(us, coef.shape[0] - 1) @ coef @ _cheb.chebvander(vs, coef.shape[1] - 1).T
        hu = (box.u1 - box.u0) / nu if nu > 1 else 0.0
        hv = (box.v1 - box.v0) / nv if nv > 1 else 0.0
        rem = (hu * hu * muu + hv * hv * mvv) / 8
        low = float(vals.min()) - target - rem - fp
        if low < 0 and nu > 1 and nv > 1:
            low = _refine(coef, us, vs, vals, target, rem, fp, hu, hv)
        worst = min(worst, low)
    return worst


def _refine(
    coef: np.ndarray, us: np.ndarray, vs: np.ndarray, vals: np.ndarray, target: int, rem: float, fp: float, hu: float, hv: float,
    sub: int = 16, max_cells: int = 4000,
) -> float:
    """Cell-wise bound (min of the 4 corners minus the remainder); cells that may dip below zero
    are re-checked on a ``sub x sub`` grid, whose remainder is ``sub^2`` times smaller."""
    corners = np.minimum(np.minimum(vals[:-1, :-1], vals[1:, :-1]), np.minimum(vals[:-1, 1:], vals[1:, 1:]))
    cell_low = corners - target - rem - fp
    bad = np.argwhere(cell_low < 0)
    if len(bad) == 0:
        return float(cell_low.min())
    if len(bad) > max_cells:
        return float(cell_low.min())
    t = np.linspace(0.0, 1.0, sub + 1)
    du, dv = _cheb.chebvander, _cheb.chebvander
    for i, j in bad:
        su = us[i] + hu * t
        sv = vs[j] + hv * t
        sub_vals = du(su, coef.shape[0] - 1) @ coef @ dv(sv, coef.shape[1] - 1).T
        cell_low[i, j] = float(sub_vals.min()) - target - rem / (sub * sub) - fp
    return float(cell_low.min())


def _relaxation(
    cheb: dict[tuple[int, int], Fraction], boxes: tuple[JointBox, ...], d: int, maximise: Sequence[int], side: str = "upper"
) -> Any:
    """The moment relaxation maximising the mass of the boxes in ``maximise``, as a named
    :class:`~momentbound.bounds.formulations.Formulation`.

    Variables ``"z[i]"``: the Chebyshev moments of the part of the law on box ``i``;
    constraints ``"moments"`` (the parts add up to the known moments; its dual values are the
    certificate polynomial), ``"moment_matrix[i]"`` and ``"localizing_u[i]"``,
    ``"localizing_v[i]"`` (PSD).
    """
    import cvxpy as cp

    from .formulations import Formulation

    keys = sorted(cheb)
    index = {k: n for n, k in enumerate(keys)}
    c = np.array([float(cheb[k]) for k in keys])
    basis = [(a, b) for a in range(d + 1) for b in range(d + 1 - a)]
    loc_basis = [(a, b) for a in range(d) for b in range(d - a)]

    def moment_matrix(z: Any, g_u: np.ndarray | None, g_v: np.ndarray | None, bas: list[tuple[int, int]]) -> Any:
        rows = []
        for a1, b1 in bas:
            row = []
            for a2, b2 in bas:
                # T_a1 T_a2 (u) = (T_{a1+a2} + T_|a1-a2|)/2, times the localizer g (Chebyshev series)
                pu = {a1 + a2: 0.5}
                pu[abs(a1 - a2)] = pu.get(abs(a1 - a2), 0.0) + 0.5
                pv = {b1 + b2: 0.5}
                pv[abs(b1 - b2)] = pv.get(abs(b1 - b2), 0.0) + 0.5
                if g_u is not None:
                    pu = _times(pu, g_u)
                if g_v is not None:
                    pv = _times(pv, g_v)
                terms = [(wu * wv, index[(i, j)]) for i, wu in pu.items() for j, wv in pv.items() if wu * wv != 0]
                row.append(sum(w * z[ix] for w, ix in terms))
            rows.append(row)
        return cp.bmat(rows)

    zs = [cp.Variable(len(keys), name=f"z[{i}]") for i in range(len(boxes))]
    cons: dict[str, Any] = {"moments": sum(zs) == c}
    for i, (z, box) in enumerate(zip(zs, boxes)):
        M = moment_matrix(z, None, None, basis)
        cons[f"moment_matrix[{i}]"] = (M + M.T) / 2 >> 0
        if d >= 1:
            gu = _cheb.chebmul([-box.u0, 1.0], [box.u1, -1.0])  # (u - u0)(u1 - u)
            gv = _cheb.chebmul([-box.v0, 1.0], [box.v1, -1.0])
            for label, g_u, g_v in (("u", gu, None), ("v", None, gv)):
                L = moment_matrix(z, g_u, g_v, loc_basis)
                cons[f"localizing_{label}[{i}]"] = (L + L.T) / 2 >> 0
    objective = cp.Maximize(sum(zs[i][index[(0, 0)]] for i in maximise))
    variables = {f"z[{i}]": z for i, z in enumerate(zs)}
    return Formulation(cp.Problem(objective, list(cons.values())), "joint-sdp", side, variables, cons,
                       points=tuple(keys))


def joint_sdp_formulation(
    joint: Sequence[Sequence[Any]],
    support_x: tuple[int, int],
    support_y: tuple[int, int],
    *,
    tx: int = 0,
    ty: int = 0,
    degree: int = 2,
    side: str = "upper",
) -> Any:
    """The bivariate moment relaxation that :func:`joint_sdp` solves, as a named cvxpy problem.

    ``side="upper"`` maximises the mass on ``E = {X > tx, Y > ty}``; ``"lower"`` maximises the
    mass on its complement (``1 - value`` is the lower bound).  See :func:`_relaxation` for
    the names; ``points`` of the result lists the moment keys ``(i, j)`` of ``E[T_i(u) T_j(v)]``
    in the order of the ``"moments"`` rows.

    Example
    -------
    >>> from fractions import Fraction as F
    >>> mx = [sum(F(x) ** k for x in range(-2, 3)) / 5 for k in range(5)]
    >>> f = joint_sdp_formulation([[mx[i] * mx[j] for j in range(5)] for i in range(5)], (-2, 2), (-2, 2))
    >>> sorted(f.constraints)[:3], f.solve("CLARABEL")
    (['localizing_u[0]', 'localizing_u[1]', 'localizing_u[2]'], 'optimal')
    """
    if side not in ("upper", "lower"):
        raise InvalidArgument(f"side must be 'upper' or 'lower', got {side!r}")
    sx, sy, cheb, boxes = _joint_setup(joint, support_x, support_y, degree, tx, ty)
    target = 1 if side == "upper" else 0
    return _relaxation(cheb, boxes, degree, [i for i, b in enumerate(boxes) if b.target == target], side)


def _joint_setup(
    joint: Sequence[Sequence[Any]], support_x: tuple[int, int], support_y: tuple[int, int], degree: int, tx: int, ty: int
) -> tuple[tuple[int, int], tuple[int, int], dict[tuple[int, int], Fraction], tuple[JointBox, ...]]:
    for name, sup in (("support_x", support_x), ("support_y", support_y)):
        if len(sup) != 2 or int(sup[0]) != sup[0] or int(sup[1]) != sup[1] or sup[0] > sup[1]:
            raise InvalidArgument(f"{name} must be an integer range (lo, hi) with lo <= hi, got {sup!r}")
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
        raise InvalidArgument(f"degree must be a positive integer, got {degree!r}")
    sx = (int(support_x[0]), int(support_x[1]))
    sy = (int(support_y[0]), int(support_y[1]))
    cheb = chebyshev_joint_moments(joint, sx, sy, 2 * degree)
    return sx, sy, cheb, _boxes(sx, sy, int(tx), int(ty))


def _solve_relaxation(
    cheb: dict[tuple[int, int], Fraction], boxes: tuple[JointBox, ...], d: int, maximise: Sequence[int], solver_tol: float,
    solver: str = "CLARABEL",
) -> tuple[float, np.ndarray, str]:
    """Maximise the total mass of the boxes listed in ``maximise``; returns (value, dual coefficients, status)."""
    form = _relaxation(cheb, boxes, d, maximise)
    status = form.solve(solver, tol=solver_tol)
    eq = form.constraints["moments"]
    if status not in ("optimal", "optimal_inaccurate") or eq.dual_value is None:
        raise SolverFailed(f"bivariate moment relaxation ended with status {status!r} ({solver})", result=status)
    keys = sorted(cheb)
    c = np.array([float(cheb[k]) for k in keys])
    y = np.asarray(eq.dual_value, dtype=float)
    value = float(form.problem.value)
    # cvxpy's sign convention for equality duals: make E[p] match the optimum
    if abs(float(c @ y) + value) < abs(float(c @ y) - value):
        y = -y
    coef = np.zeros((2 * d + 1, 2 * d + 1))
    for n, k in enumerate(keys):
        coef[k] = y[n]
    return value, coef, status


def _times(p: dict[int, float], g: np.ndarray) -> dict[int, float]:
    out: dict[int, float] = {}
    for i, wi in p.items():
        for k, gk in enumerate(g):
            if gk == 0:
                continue
            for s in (i + k, abs(i - k)):
                out[s] = out.get(s, 0.0) + wi * gk / 2
    return out


def joint_sdp(
    joint: Sequence[Sequence[Any]],
    support_x: tuple[int, int],
    support_y: tuple[int, int],
    *,
    tx: int = 0,
    ty: int = 0,
    degree: int = 2,
    solver_tol: float = 1e-9,
    points: int = 1500,
    solver: str = "CLARABEL",
) -> BoundResult:
    """Bivariate moment-SDP bounds on ``P[X > tx and Y > ty]`` for integer ``X``, ``Y``.

    Parameters
    ----------
    joint : table
        Exact (or float) ``E[X^i Y^j]`` for ``i, j <= 2 * degree``.
    support_x, support_y : (int, int)
        Integer ranges of ``X`` and ``Y``.
    tx, ty : int
        Thresholds of the event.
    degree : int
        Relaxation order ``d`` (moments of total degree ``<= 2d`` are used).
    solver_tol : float
        Clarabel tolerance.
    points : int
        Grid points per axis for the certificate verification.
    solver : str
        The cvxpy solver of the relaxation (any installed solver with semidefinite cones;
        the relaxation itself is :func:`joint_sdp_formulation`).

    Example
    -------
    >>> # X, Y independent, uniform on {-2, ..., 2}: P[X > 0, Y > 0] = 4/25
    >>> from fractions import Fraction as F
    >>> mx = [sum(F(x) ** k for x in range(-2, 3)) / 5 for k in range(5)]
    >>> table = [[mx[i] * mx[j] for j in range(5)] for i in range(5)]
    >>> r = joint_sdp(table, (-2, 2), (-2, 2), degree=2)
    >>> r.certified and r.lower <= 4 / 25 <= r.upper
    True
    """
    start = time.perf_counter()
    if isinstance(points, bool) or not isinstance(points, int) or points < 10:
        raise InvalidArgument(f"points must be an integer >= 10, got {points!r}")
    from .formulations import check_solver, require_sdp_solver

    solver = check_solver(solver)
    require_sdp_solver(solver, "the bivariate moment relaxation")
    sx, sy, cheb, boxes = _joint_setup(joint, support_x, support_y, degree, tx, ty)
    in_e = [i for i, b in enumerate(boxes) if b.target == 1]
    out_e = [i for i, b in enumerate(boxes) if b.target == 0]
    notes = []
    results: dict[str, tuple[Fraction, bool]] = {}
    statuses = []
    failed: list[str] = []
    for side, maximise in (("upper", in_e), ("complement", out_e)):
        if not maximise:  # the event (or its complement) is empty on the box
            results[side] = (Fraction(0), True)
            continue
        solver_value, coef, st = _solve_relaxation(cheb, boxes, degree, maximise, solver_tol, solver)
        statuses.append(st)
        targets = [1 if i in maximise else 0 for i in range(len(boxes))]
        slack = verify_bivariate(coef, boxes, targets, points=points)
        shift = max(0.0, -slack)
        if shift > 0:
            coef[0, 0] += shift * (1 + 1e-9) + 1e-15
            notes.append(f"{side} certificate shifted by {shift:.3g}")
            slack = verify_bivariate(coef, boxes, targets, points=points)
        ok = slack >= 0
        value = sum((Fraction(float(coef[k])) * v for k, v in cheb.items()), Fraction(0))
        results[side] = (value, ok)
        if ok and value >= 1 and abs(float(value) - solver_value) > 1e-6:
            # only the trivial bound is proven, and not what the solver reported: a failed solve
            failed.append(f"{side}: the verified value {float(value):.6g} is not the solver's {solver_value:.6g} ({st})")
    up_val, up_ok = results["upper"]
    co_val, co_ok = results["complement"]
    ex_up = min(Fraction(1), up_val) if up_ok else Fraction(1)
    ex_lo = max(Fraction(0), 1 - co_val) if co_ok else Fraction(0)
    verified = up_ok and co_ok
    shifted = any("shifted" in n for n in notes)
    status = (Status.SHIFTED if shifted else Status.VALID) if verified else Status.UNVERIFIED
    if failed:
        status = Status.FAILED
        notes.extend(failed)
    return BoundResult(
        round_down(ex_lo),
        round_up(ex_up),
        "joint-sdp",
        Kind.BOUND,
        status,
        status.message + (("; " + "; ".join(notes)) if notes else ""),
        certified=status.is_proven,
        seconds=time.perf_counter() - start,
        diagnostics=Diagnostics(solver=f"{solver.lower()}(cvxpy)", solver_status="/".join(statuses), notes=tuple(notes)),
        exact_lower=ex_lo if co_ok else None,
        exact_upper=ex_up if up_ok else None,
    )
