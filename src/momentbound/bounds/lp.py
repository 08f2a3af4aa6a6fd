"""``lp`` and ``lp-dual``: the sharp discrete moment LP with column generation and an exact finish.

Primal (docs/mathematics.md, section 'Bounds on a probability from moments'):
``max sum_{x in E} q_x`` s.t. ``sum_x T_k(u_x) q_x = tau_k``,
``q >= 0``, with ``u_x`` the support point scaled to ``[-1, 1]`` and ``tau_k = E[T_k(u)]``
the exact Chebyshev moments (well conditioned, see docs/mathematics.md, section 'Numerical
conditioning').  Its dual is the
certificate: ``min tau . y`` s.t. ``p_y(x) = sum_k y_k T_k(u_x) >= 1_E(x)`` on the support.

Huge grids are never enumerated: the restricted LP starts from a few Chebyshev-spaced
grid points and adds the most violated dual constraints, found from the real roots of
``p_y'`` (floor/ceil of each root, piece ends and event threshold neighbours).  A
phase 1 (minimise the moment residual) finds a feasible column set first; if none exists
its dual is a Farkas polynomial that proves the moments infeasible on the support.

Exact finish (Prekopa's basis test): the optimal basis of the float solve (``m + 1``
support points) is re-solved in rational arithmetic, ``B w = tau`` and ``B^T y = c_B``.
``w >= 0`` proves primal feasibility, and ``y`` is verified on the *whole* support by
exact root isolation (:mod:`.certificate`); both together prove the bound sharp and
exact (status OPTIMAL).  Points where the exact check fails are added as columns and the
loop continues.  If no exact basis verifies, the float dual is verified and its constant
term shifted to the verified value (status SHIFTED).  Lower bounds are ``1 -`` the upper
bound of the complement, with the complementary certificate ``1 - p``.

``lp`` solves the primal restricted LP with HiGHS; ``lp-dual`` solves the dual (cutting
planes on the polynomial constraint).  Both are exact on grids and finite supports; on an
interval they are the semi-infinite LP solved by exchange, with a shifted certificate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction
from typing import Any

import numpy as np

from momentbound.errors import InfeasibleMoments, InvalidArgument, MomentboundError, SolverFailed
from momentbound.quiet import quiet_native_output
from momentbound.rational import to_fmpq, to_fraction

from .basis import choose_basis
from .certificate import certify, slack_minimum
from .pieces import INITIAL_COLUMNS, starting_columns, support_neighbours
from .problem import Event, MomentProblem, SupportKind
from .registry import DISCRETE_FEASIBILITY, BoundMethod
from .result import BoundResult, Certificate, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["LPMethod", "LPDualMethod", "check_discrete_feasible", "HIGHS_STATUS_MAP", "HighsOutcome", "SideResult", "solve_upper"]

class HighsOutcome(Enum):
    """What a HiGHS model status means for the restricted LP."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    UNVERIFIED = "unverified"  # a solution exists but HiGHS could not confirm it: the exact finish decides
    FAILED = "failed"


_O = HighsOutcome
# one table translating HiGHS model statuses (by name) into our outcome
HIGHS_STATUS_MAP: Mapping[str, HighsOutcome] = {
    "kOptimal": _O.OPTIMAL,
    "kInfeasible": _O.INFEASIBLE,
    "kUnbounded": _O.UNBOUNDED,
    "kUnboundedOrInfeasible": _O.INFEASIBLE,
    "kIterationLimit": _O.FAILED,
    "kTimeLimit": _O.FAILED,
    "kSolveError": _O.FAILED,
    "kModelError": _O.FAILED,
    "kLoadError": _O.FAILED,
    "kPresolveError": _O.FAILED,
    "kPostsolveError": _O.FAILED,
    "kNotset": _O.FAILED,
    "kUnknown": _O.UNVERIFIED,
    "kModelEmpty": _O.FAILED,
    "kInterrupt": _O.FAILED,
    "kMemoryLimit": _O.FAILED,
}


_ELASTIC = 1e6


@dataclass(frozen=True)
class SideResult:
    """One side (an upper bound on ``P(E)``) of a discrete LP solve."""

    value: Fraction
    certificate: Certificate
    status: Status
    iterations: int
    columns: int
    exact_basis: bool
    shift: float
    note: str


@dataclass
class _Restricted:
    status: HighsOutcome
    y: np.ndarray
    q: np.ndarray
    basic: list[int]
    objective: float
    raw_status: str


def _highs(options: Mapping[str, Any]) -> Any:
    import highspy

    with quiet_native_output():  # HiGHS prints its banner when the first Highs() is built
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("log_to_console", False)
    h.setOptionValue("primal_feasibility_tolerance", 1e-10)
    h.setOptionValue("dual_feasibility_tolerance", 1e-10)
    h.setOptionValue("small_matrix_value", 1e-12)
    h.setOptionValue("presolve", "off")
    for k, v in options.items():
        st = h.setOptionValue(k, v)
        if st != highspy.HighsStatus.kOk:
            raise InvalidArgument(f"highs_options: HiGHS rejected option {k}={v!r}")
    return h


def _colwise(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    nrow, ncol = mat.shape
    start = np.arange(0, nrow * ncol + 1, nrow)
    index = np.tile(np.arange(nrow), ncol)
    return start, index, mat.T.reshape(-1).copy()


def _run_highs(h: Any, lp: Any) -> tuple[HighsOutcome, str, Any]:
    """Solve ``lp`` with ``h``: (outcome, raw HiGHS status name, solution).

    An unconfirmed status with a valid primal and dual solution counts as optimal: the exact
    finish verifies the basis either way.
    """
    h.passModel(lp)
    with quiet_native_output():
        h.run()
    raw = str(h.getModelStatus()).split(".")[-1]
    status = HIGHS_STATUS_MAP.get(raw, HighsOutcome.FAILED)
    sol = h.getSolution()
    if status is HighsOutcome.UNVERIFIED and sol.dual_valid and sol.value_valid:
        status = HighsOutcome.OPTIMAL
    return status, raw, sol


def _solve_primal(
    A: np.ndarray, c: np.ndarray, tau: np.ndarray, phase1: bool, options: Mapping[str, Any], elastic: bool = False
) -> _Restricted:
    """max c.q s.t. A q = tau, q >= 0 (A: rows = moments, cols = points); phase1 adds +-e_k artificials."""
    import highspy

    nrow, npts = A.shape
    if phase1:
        A = np.hstack([A, np.eye(nrow), -np.eye(nrow)])
        cost = np.concatenate([np.zeros(npts), np.ones(2 * nrow)])  # minimise the residual
    elif elastic:
        # elastic moment rows (penalty _ELASTIC): near the boundary of the moment space the
        # restricted columns may miss the exact atoms; bounded duals keep the LP solvable and
        # every certificate is verified on the whole support anyway
        A = np.hstack([A, np.eye(nrow), -np.eye(nrow)])
        cost = np.concatenate([-c, np.full(2 * nrow, _ELASTIC)])  # HiGHS minimises
    else:
        cost = -c  # HiGHS minimises
    h = _highs(options)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], nrow
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(A.shape[1])
    lp.col_upper_ = np.full(A.shape[1], highspy.kHighsInf)
    lp.row_lower_ = tau.copy()
    lp.row_upper_ = tau.copy()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = _colwise(A)
    status, raw, sol = _run_highs(h, lp)
    if status is not HighsOutcome.OPTIMAL:
        return _Restricted(status, np.zeros(nrow), np.zeros(npts), [], math.nan, raw)
    rd = np.array(sol.row_dual)
    y = rd if phase1 else -rd  # phase 1: a.y <= 0 for points, E[p] = residual; phase 2: a.y >= c
    basis = h.getBasis()
    col_status = basis.col_status  # the property builds a new list on every access
    basic = [j for j in range(npts) if col_status[j] == highspy.HighsBasisStatus.kBasic]
    obj = h.getInfo().objective_function_value
    return _Restricted(status, y, np.array(sol.col_value)[:npts], basic, obj if phase1 else -obj, raw)


def _solve_dual(
    A: np.ndarray, c: np.ndarray, tau: np.ndarray, phase1: bool, options: Mapping[str, Any], elastic: bool = False
) -> _Restricted:
    """The dual LP with one row per point: min tau.y s.t. A^T y >= c (phase1: max tau.y, A^T y <= 0, |y| <= 1)."""
    import highspy

    nrow, npts = A.shape
    h = _highs(options)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = nrow, npts
    inf = highspy.kHighsInf
    if phase1:
        lp.col_cost_ = -tau.copy()
        lp.col_lower_, lp.col_upper_ = -np.ones(nrow), np.ones(nrow)
        lp.row_lower_, lp.row_upper_ = np.full(npts, -inf), np.zeros(npts)
    else:
        lp.col_cost_ = tau.copy()
        big = _ELASTIC if elastic else inf
        lp.col_lower_, lp.col_upper_ = np.full(nrow, -big), np.full(nrow, big)
        lp.row_lower_, lp.row_upper_ = c.astype(float).copy(), np.full(npts, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = _colwise(A.T.copy())
    status, raw, sol = _run_highs(h, lp)
    if status is not HighsOutcome.OPTIMAL:
        return _Restricted(status, np.zeros(nrow), np.zeros(npts), [], math.nan, raw)
    y = np.array(sol.col_value)
    q = np.abs(np.array(sol.row_dual))
    basis = h.getBasis()
    # primal basic columns = dual rows that are nonbasic (active)
    row_status = basis.row_status
    basic = [j for j in range(npts) if row_status[j] != highspy.HighsBasisStatus.kBasic]
    obj = h.getInfo().objective_function_value
    return _Restricted(status, y, q, basic, -obj if phase1 else obj, raw)


class _ColumnGeneration:
    """Column generation on the discrete (or interval) support for the upper bound of P(E)."""

    def __init__(self, problem: MomentProblem, formulation: str, opts: Mapping[str, Any]) -> None:
        self.problem = problem
        self.formulation = formulation
        self.opts = opts
        self.m = problem.order
        self.amap, _ = problem.affine_to_unit()
        self.pb = choose_basis(problem, str(opts["basis"]))
        self.tau_exact = self.pb.moments
        self.tau = np.array([float(t) for t in self.tau_exact])
        self.support = problem.support
        self.event = problem.event
        self.continuous = self.support.kind is SupportKind.INTERVAL
        self.points: list[Fraction] = []
        self.index: dict[Fraction, int] = {}
        self.unproven_residual: float | None = None  # a phase-1 residual that is not an infeasibility proof
        self._obj: list[float] = []
        if self.support.kind is SupportKind.FINITE:
            self.pieces: tuple[Any, ...] = ()
        else:
            self.pieces = self.event.pieces(self.support)
        self.add_points(starting_columns(problem, self.pb, dense_limit=int(opts["dense_limit"]), initial=int(opts["initial_points"])))

    @property
    def elastic(self) -> bool:
        """Elastic moment rows: on a continuum, or after a phase-1 residual that proved nothing."""
        return self.continuous or self.unproven_residual is not None

    @property
    def solver_name(self) -> str:
        """``highs`` on the direct path, ``cvxpy:NAME`` through cvxpy."""
        return "highs" if self.opts.get("solver") is None else f"cvxpy:{self.opts['solver']}"

    @property
    def solver_label(self) -> str:
        """The solver's name in messages."""
        return "HiGHS" if self.opts.get("solver") is None else self.solver_name

    # -- columns -------------------------------------------------------------------
    def add_points(self, pts: Sequence[Fraction]) -> int:
        n = 0
        for x in pts:
            if x not in self.index:
                self.index[x] = len(self.points)
                self.points.append(x)
                n += 1
        return n

    def matrix(self) -> np.ndarray:
        """Column-scaled constraint matrix (scaling a column rescales its weight, not the duals)."""
        v = self.pb.v_float(np.array([float(x) for x in self.points]))
        A = self.pb.vander(v).T
        self.colscale = np.maximum(1.0, np.max(np.abs(A), axis=0))
        return A / self.colscale

    def objective(self) -> np.ndarray:
        n_known = len(self._obj)
        if n_known < len(self.points):
            self._obj.extend(1.0 if self.event.indicator(x) else 0.0 for x in self.points[n_known:])
        return np.array(self._obj)

    # -- pricing (float): most violated points of sign * (p - target) >= 0 ------------
    def violated(self, y: np.ndarray, phase1: bool, tol: float, limit: int) -> list[Fraction]:
        found: list[tuple[float, Fraction]] = []
        pb = self.pb

        def consider(xs_float: np.ndarray, target: Any, exact: list[Fraction] | None, base: int | None) -> None:
            V = pb.vander(pb.v_float(xs_float))
            pv = V @ y
            # relative tolerance: far points have huge basis values
            scale = np.maximum(1.0, np.max(np.abs(V), axis=1))
            slack = (-pv if phase1 else pv - target) / scale
            bad = np.nonzero(slack < -tol)[0]
            if bad.size == 0:
                return
            bad = bad[np.argsort(slack[bad])][: 4 * limit]
            for i in bad:
                x = exact[i] if exact is not None else Fraction(base + int(i))  # type: ignore[operator]
                if x not in self.index:
                    found.append((float(slack[i]), x))

        if self.support.kind is SupportKind.FINITE:
            pts = list(self.support.points)  # type: ignore[arg-type]
            tgt = np.array([1.0 if self.event.indicator(x) else 0.0 for x in pts])
            consider(np.array([float(x) for x in pts]), tgt, pts, None)
        else:
            dy = pb.der(y)
            for piece in self.pieces:
                lo, hi = piece.lo, piece.hi
                if piece.integer and hi - lo + 1 <= int(self.opts["dense_limit"]):
                    consider(np.arange(int(lo), int(hi) + 1, dtype=float), float(piece.target), None, int(lo))
                    continue
                cand: set[Fraction] = {lo, hi}
                vlo, vhi = float(pb.to_v(lo)), float(pb.to_v(hi))
                for r in pb.real_roots(dy, vlo - 1e-9 * abs(vlo) - 1e-12, vhi + 1e-9 * abs(vhi) + 1e-12):
                    x = float(pb.shift) + float(pb.scale) * float(r)
                    cand.update(v for v in support_neighbours(self.support, x) if lo <= v <= hi)
                pts = sorted(cand)
                consider(np.array([float(x) for x in pts]), float(piece.target), pts, None)
        found.sort(key=lambda t: t[0])
        out: list[Fraction] = []
        for _, x in found:
            if x not in out:
                out.append(x)
            if len(out) >= limit:
                break
        return out

    # -- the loop ------------------------------------------------------------------
    def _restricted(self, phase1: bool) -> _Restricted:
        A = self.matrix()
        if self.opts.get("solver") is not None:
            res = self._restricted_cvxpy(A, phase1)
        else:
            solver = _solve_primal if self.formulation == "primal" else _solve_dual
            res = solver(A, self.objective() / self.colscale, self.tau, phase1, self.opts["highs_options"], self.elastic)
        if res.status is not HighsOutcome.OPTIMAL and not (phase1 and res.status is HighsOutcome.INFEASIBLE):
            raise SolverFailed(
                f"{self.solver_label} returned {res.raw_status} on the restricted {'phase-1 ' if phase1 else ''}LP "
                f"with {len(self.points)} columns",
                result=BoundResult(
                    0.0,
                    1.0,
                    "lp" if self.formulation == "primal" else "lp-dual",
                    Kind.BOUND,
                    Status.FAILED,
                    f"{self.solver_label} status {res.raw_status}",
                    diagnostics=Diagnostics(solver=self.solver_name, solver_status=res.raw_status, columns=len(self.points)),
                ),
            )
        return res

    def _restricted_cvxpy(self, A: np.ndarray, phase1: bool) -> _Restricted:
        """The restricted LP through cvxpy (:mod:`.formulations`), in the direct path's conventions."""
        from .formulations import solve_restricted

        outcome, y, q, basic, obj, raw = solve_restricted(
            self.formulation, A, self.objective() / self.colscale, self.tau, phase1, str(self.opts["solver"]),
            self.elastic, _ELASTIC,
        )
        return _Restricted(HighsOutcome(outcome), y, q, basic, obj, raw)

    def u_monomial(self, y: Sequence[Fraction | float]) -> tuple[Fraction, ...]:
        """Exact monomial coefficients in the problem's ``u`` of ``sum_k y_k phi_k``."""
        return self.pb.monomial_in([Fraction(v) for v in y], self.amap.shift, self.amap.scale)

    def phase1(self) -> int:
        tol = float(self.opts["tol"])
        it = 0
        for it in range(1, int(self.opts["max_iter"]) + 1):
            res = self._restricted(True)
            new = self.violated(res.y, True, tol, 4 * (self.m + 1))
            if res.objective <= 1e-11 and not new:
                return it
            if not new:
                if res.objective > 1e-9:
                    self._infeasible(res.y, res.objective)
                return it
            self.add_points(new)
        return it

    def _infeasible(self, y: np.ndarray, residual: float) -> None:
        # Farkas: p(x) <= 0 on the support but E[p] > 0; verified exactly (after a shift)
        lo = self.support.lo
        empty = Event.lt(lo - 1) if lo is not None else Event.lt(0)
        ver = slack_minimum(self.u_monomial(y), "monomial", self.amap, self.support, empty, "lower")
        shift = min(ver.min_slack, Fraction(0))
        value = sum((Fraction(v) * t for v, t in zip(y, self.tau_exact)), Fraction(0)) + shift
        if value > 0:
            raise InfeasibleMoments(
                "no distribution on the discrete support "
                f"{self.support} has these moments (phase-1 residual {residual:.3g}; "
                "proven by an exactly verified Farkas polynomial)",
                condition="discrete-support",
            )
        # a float residual is no proof: on an interval the exact Hankel and localizing conditions
        # (checked before solving) are sufficient; on a discrete support the exact dual simplex
        # decides (it raises InfeasibleMoments only with an exactly verified Farkas certificate).
        # Otherwise the residual is solver noise and phase 2 goes on.
        self.unproven_residual = residual
        if not self.continuous:
            from .prekopa import exact_feasibility

            exact_feasibility(self.problem, int(self.opts["exact_pivots"]))

    def phase2(self) -> tuple[_Restricted, int]:
        tol = float(self.opts["tol"])
        res = self._restricted(False)
        it = 0
        for it in range(1, int(self.opts["max_iter"]) + 1):
            new = self.violated(res.y, False, tol, 4 * (self.m + 1))
            if not new:
                break
            self.add_points(new)
            res = self._restricted(False)
        return res, it

    def exact_basis(self, res: _Restricted) -> tuple[list[Fraction], list[Fraction], list[Fraction]] | None:
        """Exact (y, w, basis points) from the float basis, or None if it is singular."""
        import flint

        m1 = self.m + 1
        chosen = [self.points[j] for j in res.basic]
        if len(chosen) < m1:
            # degenerate: complete with the columns whose dual constraint is tightest
            A = self.matrix()
            slack = A.T @ res.y - self.objective() / self.colscale
            for j in np.argsort(np.abs(slack)):
                if len(chosen) >= m1:
                    break
                x = self.points[j]
                if x in chosen:
                    continue
                trial = chosen + [x]
                if self._rank(trial) == len(trial):
                    chosen = trial
        if len(chosen) != m1:
            return None
        cols = [self.pb.values_exact(x) for x in chosen]
        B = flint.fmpq_mat(m1, m1, [cols[j][k] for k in range(m1) for j in range(m1)])
        try:
            w = B.solve(flint.fmpq_mat(m1, 1, [to_fmpq(t) for t in self.tau_exact]))
            cB = [int(self.event.indicator(x)) for x in chosen]
            y = B.transpose().solve(flint.fmpq_mat(m1, 1, cB))
        except ZeroDivisionError:
            return None
        return [to_fraction(y[k, 0]) for k in range(m1)], [to_fraction(w[j, 0]) for j in range(m1)], chosen

    def _rank(self, pts: Sequence[Fraction]) -> int:
        import flint

        rows = [self.pb.values_exact(x) for x in pts]
        M = flint.fmpq_mat(len(rows), self.m + 1, [v for r in rows for v in r])
        return M.rank()






def _exact_primal(
    cg: _ColumnGeneration, basis: list[Fraction], max_pivots: int
) -> tuple[list[Fraction], list[Fraction], list[Fraction], int]:
    """Exact primal simplex from a primal feasible basis.

    Entering point = the most violated support point of the current dual polynomial, found
    by the rigorous whole-support verifier (exact root isolation); ratio test in rational
    arithmetic.  Stops when the dual polynomial verifies (optimal) or after ``max_pivots``.
    """
    import flint

    m1 = cg.m + 1
    problem = cg.problem
    tau = flint.fmpq_mat(m1, 1, [to_fmpq(t) for t in cg.tau_exact])
    pivots = 0
    while True:
        cols = [cg.pb.values_exact(x) for x in basis]
        B = flint.fmpq_mat(m1, m1, [cols[j][k] for k in range(m1) for j in range(m1)])
        w = B.solve(tau)
        yv = B.transpose().solve(flint.fmpq_mat(m1, 1, [int(cg.event.indicator(x)) for x in basis]))
        y = [to_fraction(yv[k, 0]) for k in range(m1)]
        wf = [to_fraction(w[j, 0]) for j in range(m1)]
        if pivots >= max_pivots:
            return y, wf, basis, pivots
        ver = slack_minimum(cg.u_monomial(y), "monomial", cg.amap, problem.support, problem.event, "upper")
        if ver.ok or ver.worst_point is None or ver.worst_point in basis:
            return y, wf, basis, pivots
        x = ver.worst_point
        d = B.solve(flint.fmpq_mat(m1, 1, cg.pb.values_exact(x)))
        best: tuple[Any, int] | None = None
        for i in range(m1):
            if d[i, 0] > 0:
                ratio = w[i, 0] / d[i, 0]
                if best is None or ratio < best[0]:
                    best = (ratio, i)
        if best is None:  # unbounded primal direction cannot happen for a bounded LP; stop
            return y, wf, basis, pivots
        basis = list(basis)
        basis[best[1]] = x
        pivots += 1


def solve_upper(problem: MomentProblem, formulation: str, opts: Mapping[str, Any]) -> SideResult:
    """Sharp upper bound of ``P(E)`` by column generation plus the exact basis finish."""
    cg = _ColumnGeneration(problem, formulation, opts)
    try:
        iterations = cg.phase1()
        res, it2 = cg.phase2()
    except SolverFailed:
        # the float phase 1 could not fit the moments although they are not proven infeasible,
        # and phase 2 broke down: on the direct path the exact dual simplex may still finish
        # (tail events); a failing solver, or any cvxpy solver, is reported as such
        residual = cg.unproven_residual is not None
        finish = _exact_dual_finish(problem, opts) if residual and opts["exact"] and opts.get("solver") is None else None
        if finish is None:
            raise
        return replace(finish, columns=len(cg.points))
    best: SideResult | None = None
    rounds = int(opts["exact_rounds"]) if opts["exact"] and not cg.continuous else 0
    iterations += it2
    for _ in range(rounds):
        ex = cg.exact_basis(res)
        if ex is None:
            break
        y, w, chosen = ex
        if all(v >= 0 for v in w):
            # primal feasible basis: exact primal simplex, priced by the rigorous verifier
            y, w, chosen, piv = _exact_primal(cg, chosen, int(opts["exact_pivots"]))
            iterations += piv
        cert, _ = certify(cg.u_monomial(y), "upper", problem, basis="monomial", allow_shift=False,
                          how_prefix="exact-rational")
        if cert.verified and not all(v >= 0 for v in w):
            # dual feasible but not primal feasible: finish with exact dual simplex pivots (Lemke)
            from .prekopa import DualSimplex

            ds = DualSimplex(problem, dense_limit=int(opts["dense_limit"]), basis=cg.pb)
            st, reached = ds.run(chosen, int(opts["exact_pivots"]))
            iterations += ds.pivots
            cert2, _ = certify(ds.u_monomial(st.y), "upper", problem, basis="monomial",
                               allow_shift=False, how_prefix="exact-rational")
            if cert2.verified and cert2.value <= cert.value:
                cert, w = cert2, [to_fraction(v) for v in st.w]
        if cert.verified:
            sharp = all(v >= 0 for v in w)
            status = Status.OPTIMAL if sharp else Status.VALID
            note = "exact basis verified: primal and dual feasible in rational arithmetic" if sharp else (
                "exact dual verified; exact primal weights not all >= 0, sharpness not proven"
            )
            best = SideResult(cert.value, cert, status, iterations, len(cg.points), True, 0.0, note)
            if sharp:
                return best
            break
        ver = slack_minimum(cg.u_monomial(y), "monomial", cg.amap, problem.support, problem.event, "upper")
        added = cg.add_points(list(ver.violations[: 4 * (cg.m + 1)]))
        if not added:
            break
        res, it2 = cg.phase2()
        iterations += 1 + it2
    cert, shifted = certify(cg.u_monomial(res.y), "upper", problem, basis="monomial", allow_shift=True,
                            how_prefix="float-dual")
    if not cert.verified:
        status = Status.UNVERIFIED
    else:
        status = Status.SHIFTED if shifted else Status.VALID
    cand = SideResult(
        cert.value,
        cert,
        status,
        iterations,
        len(cg.points),
        False,
        -cert.min_slack if shifted else 0.0,
        "float dual certificate verified on the whole support" + (" after shifting its constant term" if shifted else ""),
    )
    if best is not None and best.value <= cand.value:
        chosen = best
    else:
        chosen = cand
    if chosen.status is not Status.OPTIMAL and opts["exact"]:
        finish = _exact_dual_finish(problem, opts)
        if finish is not None and (finish.status is Status.OPTIMAL or finish.value < chosen.value):
            return replace(finish, iterations=finish.iterations + iterations, columns=len(cg.points))
    return chosen


def _exact_dual_finish(problem: MomentProblem, opts: Mapping[str, Any]) -> SideResult | None:
    """Exact dual simplex from Prekopa's dual feasible starting bases (tail events on discrete supports).

    Used when the float basis could not be finished exactly (many moments of a concentrated
    law: the optimal weights span more orders of magnitude than a float LP resolves).
    ``None`` when the event or support admits no such start.
    """
    from .prekopa import TAIL_EVENTS, PrekopaMethod, dual_simplex_upper, structured_start_basis

    if not problem.support.is_discrete or problem.event.kind not in TAIL_EVENTS:
        return None
    if (problem.support.size or 0) < problem.order + 1:
        return None
    try:
        structured_start_basis(problem)
    except InvalidArgument:
        return None
    popts = {**PrekopaMethod.options, "dense_limit": int(opts["dense_limit"]), "max_pivots": int(opts["exact_pivots"])}
    value, cert, status, pivots, note = dual_simplex_upper(problem, popts)
    if not cert.verified:
        return None
    return SideResult(value, cert, status, pivots, 0, True, 0.0, f"float basis not exact; exact dual simplex: {note}")


def _combine(problem: MomentProblem, name: str, opts: Mapping[str, Any], formulation: str) -> BoundResult:
    up = solve_upper(problem, formulation, opts)
    comp = solve_upper(problem.with_event(problem.event.complement()), formulation, opts)
    c = comp.certificate
    lower_cert = Certificate(
        "lower",
        tuple([1 - Fraction(c.coefficients[0])] + [-Fraction(v) for v in c.coefficients[1:]]),
        c.basis,
        c.domain_map,
        1 - c.value,
        c.verified,
        c.min_slack,
        c.how,
    )
    upper_exact = min(Fraction(1), up.value)
    lower_exact = max(Fraction(0), 1 - comp.value)
    statuses = {up.status, comp.status}
    if Status.UNVERIFIED in statuses:
        status = Status.UNVERIFIED
    elif Status.SHIFTED in statuses:
        status = Status.SHIFTED
    elif Status.VALID in statuses:
        status = Status.VALID
    else:
        status = Status.OPTIMAL
    msg = f"upper: {up.note}; lower: {comp.note}"
    return BoundResult(
        round_down(lower_exact),
        round_up(upper_exact),
        name,
        Kind.BOUND,
        status,
        msg,
        certificates=(lower_cert, up.certificate),
        certified=status.is_proven,
        diagnostics=Diagnostics(
            solver="highs" if opts.get("solver") is None else f"cvxpy:{opts['solver']}",
            solver_status="optimal",
            iterations=up.iterations + comp.iterations,
            columns=max(up.columns, comp.columns),
            exact_basis=up.exact_basis and comp.exact_basis,
            shift=max(up.shift, comp.shift),
            formula=formulation,
        ),
        exact_lower=lower_exact,
        exact_upper=upper_exact,
    )


_LP_OPTIONS: dict[str, Any] = {
    "tol": 1e-9,
    "max_iter": 60,
    "exact": True,
    "exact_rounds": 8,
    "exact_pivots": 200,
    "initial_points": INITIAL_COLUMNS,
    "dense_limit": 4096,
    "highs_options": {},
    "basis": "auto",
    "solver": None,
}


class _LPBase(BoundMethod):
    kind = Kind.BOUND
    options = _LP_OPTIONS
    proves_discrete_feasibility = True  # its phase 1 is the discrete check
    formulation = "primal"

    def applies(self, problem: MomentProblem) -> str | None:
        if not problem.support.is_bounded:
            return "the LP needs a bounded support (grid, finite set or interval); use closed-form or sdp on R"
        return None

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        if not isinstance(options["highs_options"], Mapping):
            raise InvalidArgument(f"highs_options must be a dict of HiGHS options, got {options['highs_options']!r}")
        if float(options["tol"]) < 0:
            raise InvalidArgument(f"tol must be >= 0, got {options['tol']!r}")
        if options["basis"] not in ("auto", "chebyshev", "hermite"):
            raise InvalidArgument(f"basis must be 'auto', 'chebyshev' or 'hermite', got {options['basis']!r}")
        if int(options["max_iter"]) < 1:
            raise InvalidArgument(f"max_iter must be >= 1, got {options['max_iter']!r}")
        if options["solver"] is not None:
            from .formulations import check_solver

            options = {**options, "solver": check_solver(options["solver"])}
        return _combine(problem, self.name, options, self.formulation)


class LPMethod(_LPBase):
    """Sharp discrete moment bound: primal LP (HiGHS) + column generation + exact basis test.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> r = LPMethod().solve(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)))
    >>> (r.exact_lower, r.exact_upper, r.status.value)
    (Fraction(1, 20), Fraction(4, 15), 'optimal')
    """

    name = "lp"
    formulation = "primal"


class LPDualMethod(_LPBase):
    """The same sharp bound from the dual LP (cutting planes on the polynomial constraint)."""

    name = "lp-dual"
    formulation = "dual"


def check_discrete_feasible(problem: MomentProblem) -> None:
    """Raise :class:`InfeasibleMoments` if no law on a grid or finite support has these moments.

    The Hankel and localizing conditions (:func:`~.feasibility.check_feasible`) are necessary but
    not sufficient on a discrete support; this runs the phase 1 of the discrete moment LP, which
    raises only with an exactly verified Farkas polynomial (or the exact dual simplex).  The
    answer is remembered on the problem, so ``method="all"`` pays for it once; a solver failure
    decides nothing here (each method still runs its own checks).
    """
    if not problem.support.is_discrete or problem.order == 0:
        return
    memo = problem.__dict__.get("_discrete_feasible")
    if memo is None:
        try:
            _ColumnGeneration(problem, "primal", _LP_OPTIONS).phase1()
            memo = True
        except InfeasibleMoments as exc:
            memo = exc
        except MomentboundError:  # a solver failure or a limit of the LP: undecided here
            return
        object.__setattr__(problem, "_discrete_feasible", memo)
    if isinstance(memo, InfeasibleMoments):
        raise memo


DISCRETE_FEASIBILITY.append(check_discrete_feasible)
