"""Semi-infinite dual solved by exchange / sequential linear programming (method ``"sqp"``).

The dual of the moment problem,

    min  sum_k y_k c_k   s.t.   p(u) = sum_k y_k T_k(u) >= 1_E(u)  for every u in the support,

has ``m + 1`` unknowns and infinitely many constraints (docs/mathematics.md, section 'Bounds on a
probability from moments').  The paper's SQP
keeps a finite set of constraints, solves the (linear, since the objective is affine)
subproblem, and adds the most violated constraints of the current iterate, each found as
the minimum of a polynomial over an interval from the real roots of its derivative.  Here
the subproblem is an LP solved by HiGHS at tight tolerances (one persistent model, rows appended
and the basis reused between iterations; scipy's HiGHS ladder with pruning of inactive points
as fallback); every local minimum of the
slack below ``-tol`` is added at once (multiple exchange), which converges in a dozen or so
iterations for six moments.  On an integer grid the candidate points are the integers
next to each real critical point, so the method solves the discrete semi-infinite problem
(the sharp bound for a grid) without enumerating the grid; on an interval it solves the
continuous one.  The last iterate is a floating-point candidate whose certificate is
verified on the whole support (exact arithmetic) and shifted if needed before reporting.

References
----------
Dhurandhar & Dobra, Section 7.2.2 (SQP); R. Hettich and K. Kortanek, "Semi-infinite
programming: theory, methods and applications", SIAM Review 35 (1993).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import SolverFailed
from momentbound.quiet import quiet_native_output

from .pieces import UnitPiece, bounded_support_reason, discrete_pieces, grid_neighbours, initial_points
from .problem import MomentProblem
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind
from .sdp import assemble, certified_side, tol_and_max_iter

__all__ = ["SQPMethod", "piece_candidates", "ExchangeResult", "exchange_dual"]

#: coefficient box keeping the subproblems bounded (on the boundary of the moment space the dual
#: optimum is unbounded and the box decides the accuracy).  When HiGHS fails on the first
#: subproblem with this box (concentrated laws, many moments) the exchange restarts from the
#: small box, enlarged tenfold (up to the normal box) while a converged iterate touches it.
_COEF_BOX = 1e6
_SMALL_BOX = 1e3
_MAX_BOX = _COEF_BOX
_HIGHS_LADDER = (
    ("highs", {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}),
    ("highs-ds", {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}),
    ("highs-ipm", {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}),
    ("highs", {}),
)
#: constant added to the final iterate before verification (the LP is only feasible to ~1e-10)
MARGIN = 1e-12


def critical_points(coefficients: np.ndarray) -> np.ndarray:
    """Real roots of ``p'`` (floating point; exact checks happen in the verifier)."""
    y = np.trim_zeros(np.asarray(coefficients, dtype=float), "b")
    if y.size <= 2:
        return np.zeros(0)
    roots = _cheb.chebroots(_cheb.chebder(y))
    scale = max(1.0, float(np.max(np.abs(roots)))) if roots.size else 1.0
    return roots[np.abs(roots.imag) <= 1e-7 * scale].real


def candidates_from_roots(real: np.ndarray, piece: UnitPiece) -> np.ndarray:
    """Ends of ``piece`` plus the given critical points inside it (grid neighbours on a grid)."""
    if piece.a == piece.b:
        return np.array([piece.a])
    inside = real[(real > piece.a) & (real < piece.b)]
    cands = np.concatenate([[piece.a, piece.b], grid_neighbours(inside, piece)])
    return np.unique(cands) if piece.step > 0 else cands


def piece_candidates(coefficients: np.ndarray, piece: UnitPiece) -> np.ndarray:
    """Points of ``piece`` where ``p`` may attain a local minimum: the ends and the real
    critical points (roots of ``p'``), moved to the neighbouring grid points on a grid.

    Example
    -------
    >>> sorted(abs(float(v)) for v in piece_candidates(np.array([0.0, 0.0, 1.0]), UnitPiece(-1.0, 1.0, 0)))
    [0.0, 1.0, 1.0]
    """
    if piece.a == piece.b:
        return np.array([piece.a])
    return candidates_from_roots(critical_points(coefficients), piece)


@dataclass(frozen=True)
class ExchangeResult:
    """Last iterate of the exchange method (floating point, unverified)."""

    coefficients: tuple[float, ...]
    objective: float
    iterations: int
    points: int
    max_violation: float
    converged: bool
    #: a master problem was solved only inaccurately (e.g. cvxpy's ``optimal_inaccurate``):
    #: the iterate is feasible on the points found but its optimality is not the solver's word
    inaccurate: bool = False
    #: no constraint is violated but the coefficient box is active: optimal for the boxed problem only
    box_limited: bool = False


def exchange_dual(
    cheb_moments: np.ndarray,
    pieces: tuple[UnitPiece, ...],
    offsets: tuple[float, ...],
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
    solver: str | None = None,
) -> ExchangeResult:
    """Minimise ``c . y`` subject to ``p(u) >= offset_i`` on every piece (exchange method).

    ``offsets[i]`` is the right-hand side on ``pieces[i]`` (the indicator value for an upper
    bound, minus it for a lower bound written as a minimisation of ``-p``).  ``solver``
    names a cvxpy solver for the master problems (default: HiGHS directly, warm started).

    Example
    -------
    >>> r = exchange_dual(np.array([1.0, -0.6, -0.2]),
    ...                   (UnitPiece(-1.0, 0.6, 0), UnitPiece(0.6, 1.0, 1)), (0.0, 1.0))
    >>> round(r.objective * 37, 6)
    1.0
    """
    try:
        return _exchange(cheb_moments, pieces, offsets, tol, max_iter, _COEF_BOX, solver)
    except SolverFailed:
        return _exchange(cheb_moments, pieces, offsets, tol, max_iter, _SMALL_BOX, solver)


def _exchange(
    cheb_moments: np.ndarray, pieces: tuple[UnitPiece, ...], offsets: tuple[float, ...], tol: float, max_iter: int, box: float,
    solver: str | None = None,
) -> ExchangeResult:
    c = np.asarray(cheb_moments, dtype=float)
    m = len(c) - 1
    base_u = [initial_points(pc, m) for pc in pieces]
    base = (np.concatenate(base_u), np.concatenate([np.full(len(p), off) for p, off in zip(base_u, offsets)]))
    extra_u = np.zeros(0)  # exchanged points: only the active ones are kept (keeps the LP well posed)
    extra_r = np.zeros(0)
    y = np.zeros(m + 1)
    worst = math.inf
    it = 0
    converged = False
    total_points = len(base[0])
    last_active: np.ndarray | None = None
    inaccurate = False
    box_limited = False
    if solver is None:
        warm: Any = _WarmLP(c, m)  # persistent HiGHS model: rows are appended, the basis is reused
    else:
        from .formulations import CvxpyMaster

        warm = CvxpyMaster(c, m, solver, tol)  # the named master problem, rebuilt and solved through cvxpy
    warm.set_box(box)
    warm.add(base[0], base[1])
    pending: tuple[np.ndarray, np.ndarray] | None = None
    for it in range(1, max_iter + 1):
        if pending is not None:
            warm.add(*pending)
        fast = warm.solve()
        if fast is not None:
            y = fast
            inaccurate = getattr(warm, "status", "optimal") != "optimal"
            if inaccurate:
                # the master is not solved (only "optimal_inaccurate"): the exchange cannot claim
                # convergence from it; the iterate is verified (and shifted) by the caller
                break
            last_active = None
        elif solver is not None:  # no silent switch to another solver
            if it > 1:
                break
            raise SolverFailed(f"cvxpy solver {solver} failed on the first exchange master problem ({warm.status})")
        else:
            res = _full_solve(c, m, base, extra_u, extra_r, last_active, warm.box)
            if res is None:
                if it > 1:  # keep the last good iterate; it is verified (and shifted) by the caller
                    break
                raise SolverFailed(f"HiGHS failed in exchange iteration {it} for every tolerance tried", result=None)
            y, extra_u, extra_r, last_active = res
            inaccurate = False
        worst = 0.0
        new_u, new_r = [], []
        real = critical_points(y)
        for pc, off in zip(pieces, offsets):
            u = candidates_from_roots(real, pc)
            slack = _cheb.chebval(u, y) - off
            bad = slack < -tol
            if np.any(bad):
                worst = min(worst, float(slack.min()))
                new_u.append(u[bad])
                new_r.append(np.full(int(bad.sum()), off))
        if not new_u:
            if np.max(np.abs(y)) >= 0.999 * warm.box and warm.box < _MAX_BOX:
                warm.set_box(warm.box * 10)  # the box, not the constraints, stopped the descent
                pending = None
                continue
            # with the box active the iterate is the optimum of the boxed problem only
            box_limited = bool(np.max(np.abs(y)) >= 0.999 * warm.box)
            converged = not box_limited
            break
        pending = (np.concatenate(new_u), np.concatenate(new_r))
        extra_u = np.concatenate([extra_u, pending[0]])
        extra_r = np.concatenate([extra_r, pending[1]])
        total_points += len(pending[0])
    return ExchangeResult(tuple(y.tolist()), float(c @ y), it, total_points, -worst, converged and not inaccurate,
                          inaccurate, box_limited)


class _WarmLP:
    """``min c.y  s.t.  V y >= R`` with rows appended between solves (highspy, warm started)."""

    def __init__(self, c: np.ndarray, m: int) -> None:
        import highspy

        with quiet_native_output():  # HiGHS prints its banner when the first Highs() is built
            self._h = highspy.Highs()
            self._h.setOptionValue("output_flag", False)
            self._h.setOptionValue("log_to_console", False)
        self._ok = highspy.HighsModelStatus.kOptimal
        self._inf = highspy.kHighsInf
        h = self._h
        h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        h.addVars(m + 1, np.full(m + 1, -_COEF_BOX), np.full(m + 1, _COEF_BOX))
        h.changeColsCost(m + 1, np.arange(m + 1, dtype=np.int32), np.asarray(c, dtype=float))
        self._m = m
        self.box = _COEF_BOX

    def set_box(self, box: float) -> None:
        self.box = box
        idx = np.arange(self._m + 1, dtype=np.int32)
        self._h.changeColsBounds(self._m + 1, idx, np.full(self._m + 1, -box), np.full(self._m + 1, box))

    def add(self, u: np.ndarray, r: np.ndarray) -> None:
        V = _cheb.chebvander(np.asarray(u, dtype=float), self._m)
        n, w = V.shape
        self._h.addRows(
            n, np.asarray(r, dtype=float), np.full(n, self._inf), V.size,
            (np.arange(n) * w).astype(np.int32), np.tile(np.arange(w, dtype=np.int32), n), V.ravel(),
        )

    def solve(self) -> np.ndarray | None:
        with quiet_native_output():
            self._h.run()
        if self._h.getModelStatus() != self._ok:
            return None
        return np.array(self._h.getSolution().col_value, dtype=float)


def _full_solve(
    c: np.ndarray, m: int, base: tuple[np.ndarray, np.ndarray], extra_u: np.ndarray, extra_r: np.ndarray, last_active: np.ndarray | None,
    box: float = _COEF_BOX,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Fallback: solve the whole subproblem with the scipy/HiGHS tolerance ladder, pruning
    inactive exchanged points if that fails.  Returns ``(y, extra_u, extra_r, active)``."""
    for attempt in range(2):
        U = np.concatenate([base[0], extra_u])
        R = np.concatenate([base[1], extra_r])
        res = _solve_lp(c, _cheb.chebvander(U, m), R, m, box)
        if res is not None:
            active = np.abs(np.asarray(res.ineqlin.marginals, dtype=float))[len(base[0]) :] > 1e-14
            return np.asarray(res.x, dtype=float), extra_u, extra_r, active
        if attempt == 0 and last_active is not None and len(extra_u) > int(last_active.sum()):
            # near-duplicate exchanged points can make HiGHS fail: keep the points active at
            # the last full solve (plus the newer ones) and retry
            keep = np.concatenate([last_active, np.ones(len(extra_u) - len(last_active), dtype=bool)])
            extra_u, extra_r = extra_u[keep], extra_r[keep]
        else:
            break
    return None


def _solve_lp(c: np.ndarray, V: np.ndarray, R: np.ndarray, m: int, box: float = _COEF_BOX) -> Any:
    """The exchange subproblem with HiGHS: tight tolerances first (docs/mathematics.md, section
    'Numerical conditioning': defaults mislead)."""
    from scipy.optimize import linprog

    for method, opts in _HIGHS_LADDER:
        with quiet_native_output():
            res = linprog(c, A_ub=-V, b_ub=-R, bounds=[(-box, box)] * (m + 1), method=method, options=opts)
        if res.status == 0 and res.x is not None:
            return res
    return None


#: a converged side is confirmed when its verified value is this close to the solver's objective
_CONFIRM_TOL = 1e-6


def _verified_gap(cert: Any, objective: float, side: str) -> float:
    """How much worse the verified bound is than the solver's own optimum (0 when not worse)."""
    if not cert.verified or not math.isfinite(objective):
        return math.inf
    value = float(cert.value)
    return max(0.0, value - objective) if side == "upper" else max(0.0, objective - value)


class SQPMethod(BoundMethod):
    """Exchange / sequential-LP solution of the semi-infinite dual, certified.

    Options
    -------
    tol : float
        Violation below which a constraint counts as satisfied (default ``1e-9``); the
        final certificate is verified exactly regardless.
    max_iter : int
        Maximum number of exchange iterations per side (default 100).

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> r = bound(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)), method="sqp")
    >>> round(r.lower * 20, 6), round(r.upper * 15 / 4, 6)    # sharp: [1/20, 4/15]
    (1.0, 1.0)
    """

    name = "sqp"
    kind = Kind.BOUND
    options = {"tol": 1e-9, "max_iter": 100, "solver": None}

    def applies(self, problem: MomentProblem) -> str | None:
        return bounded_support_reason(problem)

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        tol, max_iter = tol_and_max_iter(options)
        solver = None
        if options["solver"] is not None:
            from .formulations import check_solver

            solver = check_solver(options["solver"])
        c = np.array([float(v) for v in problem.chebyshev_moments()])
        pieces = discrete_pieces(problem)
        sides: dict[str, tuple[Any, bool]] = {}
        iters, npts, notes, states = 0, 0, [], []
        solved: dict[str, bool] = {}
        for side in ("upper", "lower"):
            sign = 1.0 if side == "upper" else -1.0
            res = exchange_dual(c, pieces, tuple(sign * pc.target for pc in pieces), tol=tol, max_iter=max_iter,
                                solver=solver)
            iters += res.iterations
            npts += res.points
            state = ("converged" if res.converged else "inaccurate" if res.inaccurate
                     else "box-limited" if res.box_limited else "stopped")
            if res.inaccurate:
                notes.append(f"{side}: the last master problem was solved only inaccurately ({solver}); optimality not established")
            elif res.box_limited:
                notes.append(f"{side}: the coefficient box |y_k| <= {_MAX_BOX:.0e} is active; optimality not established")
            elif not res.converged:
                notes.append(f"{side}: exchange stopped after {res.iterations} iterations (violation {res.max_violation:.2g})")
            cand = np.array(res.coefficients)
            cand[0] += max(res.max_violation, 0.0) + MARGIN
            sides[side] = certified_side(problem, side, sign * cand, "sqp")
            gap = _verified_gap(sides[side][0], sign * res.objective, side)
            if res.converged and sides[side][0].verified and gap > _CONFIRM_TOL:
                # the exchange converged in floating point but its certificate needed a shift: the
                # solver's optimum is not what the verified bound proves
                state = "unconfirmed"
                notes.append(f"{side}: the verified bound is {gap:.2g} from the solver's optimum; optimality not established")
            # a box-limited exchange solved its (boxed) problem: not a failed solve, though not the optimum
            # either (at the boundary of the moment space the unboxed optimum is not attained)
            solved[side] = state in ("converged", "box-limited")
            states.append(state)
        diag = Diagnostics(solver="highs-exchange" if solver is None else f"cvxpy:{solver}-exchange",
                           solver_status="/".join(states), iterations=iters, columns=npts, notes=tuple(notes))
        return assemble(problem, self.name, sides, diag, solved=solved)
