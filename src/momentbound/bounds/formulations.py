"""The optimisation problems of the bound methods as named cvxpy problems, solvable by any solver.

Every method that solves an optimisation problem exposes it here as a :class:`Formulation`:
a ``cvxpy.Problem`` together with its named variables and a dictionary of named
constraints (cvxpy constraints carry no names), so the problem can be inspected, extended
and solved with any installed cvxpy solver.

* ``lp``: the discrete moment LP ``max sum_{x in E} q_x`` s.t. ``sum_x phi_k(x) q_x = tau_k``,
  ``q >= 0``, on a set of support points (the column generation solves a sequence of these);
* ``lp-dual``: its dual ``min tau . y`` s.t. ``sum_k y_k phi_k(x) >= 1_E(x)`` on the points;
* ``sqp``: the master problem of the exchange method (the same dual on exchange points in
  the scaled variable ``u``, Chebyshev basis, with a coefficient box);
* ``sdp``: the Bertsimas-Popescu sum-of-squares program (Markov-Lukacs representation on
  every piece of constant indicator, one PSD Gram matrix per weight);
* the bivariate joint SDP: :func:`momentbound.bounds.joint.joint_sdp_formulation`.

``bound(problem, method, solver=NAME)`` runs the method with its subproblems solved through
cvxpy by ``NAME``; the solver's answer is only a candidate: the dual polynomial is
rationalised and verified on the whole support in exact arithmetic
(:mod:`momentbound.bounds.certificate`) exactly as on the direct (HiGHS / Clarabel) paths,
and a failed check lowers the status.

The builders read the problem through three accessors, :func:`moment_rows` (lower and upper
values of each moment row: equal for known moments), :func:`support_points` (the columns of
the LP) and the event pieces (:func:`momentbound.bounds.pieces.unit_pieces`), and write a
row with ``lo < hi`` as a pair of inequalities, so moment boxes need no new builder.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from momentbound.quiet import quiet_native_output
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import InvalidArgument, SolverFailed, UnknownMethod

from .pieces import (
    SOSSolution,
    chebyshev_nodes,
    discrete_pieces,
    initial_points,
    markov_lukacs_blocks,
    piece_variable,
    starting_columns,
    unit_pieces,
)
from .problem import MomentProblem, SupportKind

__all__ = [
    "Formulation",
    "MomentRows",
    "SOLVER_METHODS",
    "check_solver",
    "formulation",
    "installed_solvers",
    "lp_formulation",
    "lp_dual_formulation",
    "moment_rows",
    "sdp_formulation",
    "sdp_solvers",
    "sqp_formulation",
    "support_points",
]

#: methods whose optimisation problems can be solved through cvxpy (``bound(..., solver=...)``)
SOLVER_METHODS: tuple[str, ...] = ("lp", "lp-dual", "sqp", "sdp")
_SIDES = ("upper", "lower")
#: cvxpy statuses whose primal/dual values are worth verifying
OK_STATUSES = frozenset({"optimal", "optimal_inaccurate"})


# ----------------------------------------------------------------------------- solvers
def installed_solvers() -> tuple[str, ...]:
    """The cvxpy solvers installed in this environment (``cvxpy.installed_solvers()``)."""
    import cvxpy as cp

    return tuple(cp.installed_solvers())


def check_solver(name: Any) -> str:
    """The canonical (upper-case) name of an installed cvxpy solver.

    Raises
    ------
    InvalidArgument
        ``name`` is not a string or not an installed solver (the message lists them).
    """
    installed = installed_solvers()
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgument(f"solver must be a cvxpy solver name such as {installed[0]!r}, got {name!r}")
    canon = name.strip().upper()
    if canon not in installed:
        raise UnknownMethod(
            f"solver {name!r} is not an installed cvxpy solver; installed: {', '.join(installed)} "
            "(pip install the solver's package to add one)"
        )
    return canon


def sdp_solvers() -> tuple[str, ...]:
    """The installed cvxpy solvers with a semidefinite cone (those that can solve ``sdp`` and the joint SDP)."""
    from cvxpy.reductions.solvers import defines

    out = []
    for name in defines.INSTALLED_CONIC_SOLVERS:
        cls = defines.SOLVER_MAP_CONIC.get(name)
        supported = {c.__name__ for c in getattr(cls, "SUPPORTED_CONSTRAINTS", ())}
        if supported & {"PSD", "SvecPSD"}:
            out.append(name)
    return tuple(out)


def require_sdp_solver(name: str, what: str) -> None:
    """Raise :class:`SolverFailed` (a run that cannot finish) if ``name`` has no semidefinite cone."""
    capable = sdp_solvers()
    if name not in capable:
        raise SolverFailed(
            f"solver {name} has no semidefinite cone and cannot solve {what}; installed solvers that can: "
            f"{', '.join(capable) or 'none'}"
        )


def _solver_kwargs(solver: str, tol: float | None, max_iter: int | None) -> dict[str, Any]:
    """Tolerance and iteration options in each solver's own vocabulary (none for the others)."""
    kw: dict[str, Any] = {}
    if solver == "CLARABEL":
        if tol is not None:
            kw.update(tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
        if max_iter is not None:
            kw["max_iter"] = max_iter
    elif solver == "SCS":
        if tol is not None:
            # first-order method: tighter than 1e-8 costs minutes; the exact check decides anyway
            kw.update(eps_abs=max(tol, 1e-8), eps_rel=max(tol, 1e-8))
        kw["max_iters"] = 50_000
    elif solver == "OSQP":
        if tol is not None:
            kw.update(eps_abs=max(tol, 1e-9), eps_rel=max(tol, 1e-9))
        kw.update(max_iter=200_000, polishing=True)
    elif solver == "HIGHS" and tol is not None:
        kw.update(primal_feasibility_tolerance=max(tol, 1e-10), dual_feasibility_tolerance=max(tol, 1e-10))
    return kw


# ----------------------------------------------------------------------------- the wrapper
@dataclass(frozen=True)
class Formulation:
    """A cvxpy problem with named variables and named constraints.

    ``problem`` is the ``cvxpy.Problem``; ``variables`` and ``constraints`` map names to the
    cvxpy objects (``problem.constraints`` holds the same constraints, in insertion order).
    ``method`` and ``side`` say what it is; ``basis`` names the polynomial basis of the
    moment rows and of the dual polynomial (``"chebyshev"`` or ``"hermite"``, see
    :class:`momentbound.bounds.basis.PolyBasis`); ``points`` are the support points (``lp``,
    exact) or scaled points ``u`` (``sqp``) the problem was written on; ``expressions`` names
    derived expressions (the dual coefficients ``"y" = y_hi - y_lo`` when moment rows are boxes).
    """

    problem: Any
    method: str
    side: str
    variables: Mapping[str, Any]
    constraints: Mapping[str, Any]
    basis: str = "chebyshev"
    points: tuple[Any, ...] = ()
    expressions: Mapping[str, Any] = field(default_factory=dict)

    def solve(self, solver: str = "CLARABEL", *, tol: float | None = None, max_iter: int | None = None, **kwargs: Any) -> str:
        """Solve with the named cvxpy solver (silently); returns cvxpy's status string.

        Raises
        ------
        InvalidArgument
            Unknown solver name.
        SolverFailed
            The solver raised (e.g. it cannot handle semidefinite cones).
        """
        import cvxpy as cp

        name = check_solver(solver)
        opts = {**_solver_kwargs(name, tol, max_iter), **kwargs}
        try:
            with warnings.catch_warnings(), quiet_native_output():
                # "solution may be inaccurate" is reported through the status; answers are verified anyway
                warnings.simplefilter("ignore")
                self.problem.solve(solver=name, verbose=False, **opts)
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            raise SolverFailed(f"cvxpy solver {name} failed on the {self.method} problem: {exc}") from exc
        return str(self.problem.status)

    def __getitem__(self, name: str) -> Any:
        """A variable, named expression (e.g. ``"y" = y_hi - y_lo`` with moment boxes) or constraint by name."""
        for table in (self.variables, self.expressions, self.constraints):
            if name in table:
                return table[name]
        raise KeyError(f"{name!r} is neither a variable ({', '.join(self.variables)}) nor a constraint ({', '.join(self.constraints)})")


def _problem(objective: Any, constraints: dict[str, Any], variables: dict[str, Any], method: str, side: str,
             **kw: Any) -> Formulation:
    import cvxpy as cp

    return Formulation(cp.Problem(objective, list(constraints.values())), method, side, variables, constraints, **kw)


# ----------------------------------------------------------------------------- accessors
@dataclass(frozen=True)
class MomentRows:
    """Admissible values of each moment row: ``lo[k] <= E[phi_k(X)] <= hi[k]`` (floats for solvers)."""

    lo: np.ndarray
    hi: np.ndarray

    @property
    def is_equality(self) -> bool:
        return bool(np.array_equal(self.lo, self.hi))


def moment_rows(values: Sequence[Fraction | float]) -> MomentRows:
    """Rows for known (exact) moments in the solver basis: ``lo == hi == tau``."""
    tau = np.array([float(v) for v in values])
    return MomentRows(tau, tau.copy())


def support_points(problem: MomentProblem, *, limit: int = 4096) -> tuple[Fraction, ...]:
    """The LP's columns: every point of a discrete support with at most ``limit`` points;
    otherwise the starting columns of the column generation (piece ends and points spread
    like Chebyshev nodes over the support)."""
    sup = problem.support
    if sup.kind is SupportKind.REAL:
        raise InvalidArgument("the LP needs a bounded support (grid, finite set or interval); use 'sdp' on the real line")
    if sup.kind is SupportKind.FINITE and len(sup.points) <= limit:  # type: ignore[arg-type]
        return tuple(sup.points)  # type: ignore[arg-type]
    if sup.kind is SupportKind.GRID and (sup.size or 0) <= limit:
        return tuple(Fraction(x) for x in range(int(sup.lo), int(sup.hi) + 1))  # type: ignore[arg-type]
    from .basis import choose_basis

    return tuple(starting_columns(problem, choose_basis(problem, "auto"), dense_limit=limit))


def _check_side(side: str) -> None:
    if side not in _SIDES:
        raise InvalidArgument(f"side must be 'upper' or 'lower', got {side!r}")


def _moment_constraints(expr: Any, rows: MomentRows, name: str) -> dict[str, Any]:
    """``expr == tau`` for known moments, else ``lo <= expr <= hi`` (two named constraints)."""
    if rows.is_equality:
        return {name: expr == rows.lo}
    return {f"{name}_lo": expr >= rows.lo, f"{name}_hi": expr <= rows.hi}


def _dual_objective(y_name: str, rows: MomentRows, m1: int) -> tuple[Any, dict[str, Any]]:
    """``tau . y`` for equality rows; ``hi . y_hi - lo . y_lo`` (y = y_hi - y_lo) for boxes."""
    import cvxpy as cp

    if rows.is_equality:
        y = cp.Variable(m1, name=y_name)
        return y, {y_name: y}
    yh, yl = cp.Variable(m1, nonneg=True, name=f"{y_name}_hi"), cp.Variable(m1, nonneg=True, name=f"{y_name}_lo")
    return yh - yl, {f"{y_name}_hi": yh, f"{y_name}_lo": yl}


def _dual_cost(y: Any, variables: Mapping[str, Any], rows: MomentRows, y_name: str) -> Any:
    if rows.is_equality:
        return rows.lo @ y
    return rows.hi @ variables[f"{y_name}_hi"] - rows.lo @ variables[f"{y_name}_lo"]


# ----------------------------------------------------------------------------- LP (restricted)
def restricted_primal(A: np.ndarray, c: np.ndarray, rows: MomentRows, *, phase1: bool = False,
                      elastic: float | None = None, side: str = "upper") -> Formulation:
    """``max c . q`` (``min`` for ``side="lower"``) s.t. ``A q`` in the moment rows, ``q >= 0``.

    ``phase1`` minimises the moment residual ``sum(r_plus + r_minus)`` instead; ``elastic``
    adds residual columns with that penalty (semi-infinite problems, whose restricted
    columns may miss the exact atoms).
    """
    import cvxpy as cp

    nrow, npts = A.shape
    q = cp.Variable(npts, nonneg=True, name="q")
    variables: dict[str, Any] = {"q": q}
    moments = A @ q
    if phase1 or elastic is not None:
        rp, rm = cp.Variable(nrow, nonneg=True, name="r_plus"), cp.Variable(nrow, nonneg=True, name="r_minus")
        variables.update(r_plus=rp, r_minus=rm)
        moments = moments + rp - rm
        penalty = cp.sum(rp + rm)
    constraints = _moment_constraints(moments, rows, "moments")
    if phase1:
        objective = cp.Maximize(-penalty)
    elif side == "upper":
        objective = cp.Maximize(c @ q - elastic * penalty if elastic is not None else c @ q)
    else:
        objective = cp.Minimize(c @ q + elastic * penalty if elastic is not None else c @ q)
    return _problem(objective, constraints, variables, "lp", side)


def restricted_dual(A: np.ndarray, c: np.ndarray, rows: MomentRows, *, phase1: bool = False,
                    elastic: float | None = None, side: str = "upper") -> Formulation:
    """``min tau . y`` s.t. ``A^T y >= c`` (``max`` and ``<=`` for ``side="lower"``).

    ``phase1`` maximises ``tau . y`` over ``A^T y <= 0``, ``|y| <= 1`` (a Farkas direction);
    ``elastic`` boxes the coefficients.
    """
    import cvxpy as cp

    nrow, _ = A.shape
    y, variables = _dual_objective("y", rows, nrow)
    cost = _dual_cost(y, variables, rows, "y")
    expressions = {} if "y" in variables else {"y": y}
    constraints: dict[str, Any] = {}
    if phase1:
        constraints["dominance"] = A.T @ y <= 0
        constraints["box"] = cp.abs(y) <= 1
        objective = cp.Maximize(cost)
    else:
        constraints["dominance"] = A.T @ y >= c if side == "upper" else A.T @ y <= c
        if elastic is not None:
            constraints["box"] = cp.abs(y) <= elastic
        objective = cp.Minimize(cost) if side == "upper" else cp.Maximize(cost)
    return _problem(objective, constraints, variables, "lp-dual", side, expressions=expressions)


def _value_of(expr: Any) -> np.ndarray | None:
    v = getattr(expr, "value", None)
    return None if v is None else np.asarray(v, dtype=float).reshape(-1)


def _moment_dual(form: Formulation) -> np.ndarray | None:
    """The moment-row multipliers ``y`` of a solved primal (``tau . y`` = optimal value)."""
    if "moments" in form.constraints:
        return _value_of_dual(form.constraints["moments"])
    lo, hi = _value_of_dual(form.constraints["moments_lo"]), _value_of_dual(form.constraints["moments_hi"])
    if lo is None or hi is None:
        return None
    return hi - lo


def _value_of_dual(constraint: Any) -> np.ndarray | None:
    d = constraint.dual_value
    return None if d is None else np.asarray(d, dtype=float).reshape(-1)


def solve_restricted(formulation_name: str, A: np.ndarray, c: np.ndarray, tau: np.ndarray, phase1: bool,
                     solver: str, elastic: bool, elastic_penalty: float) -> tuple[str, np.ndarray, np.ndarray, list[int], float, str]:
    """One restricted LP of the column generation, through cvxpy.

    Returns ``(outcome, y, q, basic, objective, raw_status)`` in the conventions of the
    direct HiGHS path: phase 2 ``y`` with ``A^T y >= c`` and ``tau . y`` = optimum; phase 1
    ``y`` with ``A^T y <= 0`` and ``tau . y`` = the residual.  ``basic`` are the columns of the
    ``m + 1`` largest weights (an interior-point answer has no basis; the exact finish
    completes or repairs it).
    """
    rows = moment_rows(tau)
    nrow, npts = A.shape
    build = restricted_primal if formulation_name == "primal" else restricted_dual
    form = build(A, c, rows, phase1=phase1, elastic=elastic_penalty if elastic else None)
    try:
        status = form.solve(solver, tol=1e-10)
    except SolverFailed as exc:
        return "failed", np.zeros(nrow), np.zeros(npts), [], math.nan, str(exc)
    if status not in OK_STATUSES:
        return ("infeasible" if "infeasible" in status else "failed"), np.zeros(nrow), np.zeros(npts), [], math.nan, status
    if formulation_name == "primal":
        yd = _moment_dual(form)
        qv = _value_of(form.variables["q"])
        if yd is None or qv is None:
            return "failed", np.zeros(nrow), np.zeros(npts), [], math.nan, status + " (no dual values)"
        y = -yd if phase1 else yd
    else:
        y = _value_of(form["y"])
        qd = _value_of_dual(form.constraints["dominance"])
        if y is None or qd is None:
            return "failed", np.zeros(nrow), np.zeros(npts), [], math.nan, status + " (no dual values)"
        qv = np.abs(qd)
    value = float(form.problem.value)
    objective = -value if phase1 else value
    order = np.argsort(-qv)
    top = max(float(qv[order[0]]), 1e-300) if npts else 1.0
    basic = [int(j) for j in order[: nrow] if qv[j] > 1e-9 * top]
    return "optimal", np.asarray(y, dtype=float), qv, basic, objective, status


def _lp_matrix(problem: MomentProblem, points: Sequence[Any] | None, basis: str) -> tuple[Any, tuple[Fraction, ...], np.ndarray, np.ndarray]:
    from .basis import choose_basis

    if basis not in ("auto", "chebyshev", "hermite"):
        raise InvalidArgument(f"basis must be 'auto', 'chebyshev' or 'hermite', got {basis!r}")
    pb = choose_basis(problem, basis)
    if points is None:
        pts = support_points(problem)
    else:
        pts = tuple(sorted({Fraction(p) for p in points}))
        outside = [p for p in pts if not problem.support.contains(p)]
        if outside:
            raise InvalidArgument(f"points {outside[:3]} are not in the support {problem.support}; pass support points")
        if not pts:
            raise InvalidArgument("points must list at least one support point")
    A = pb.vander(pb.v_float(np.array([float(x) for x in pts]))).T
    c = np.array([1.0 if problem.event.indicator(x) else 0.0 for x in pts])
    return pb, pts, A, c


def _on_points(problem: MomentProblem, side: str, points: Sequence[Any] | None, basis: str, build: Any) -> Formulation:
    """A restricted LP builder applied to the problem's moment rows on its support points."""
    _check_side(side)
    pb, pts, A, c = _lp_matrix(problem, points, basis)
    form = build(A, c, moment_rows(pb.moments), side=side)
    return Formulation(form.problem, form.method, side, form.variables, form.constraints, pb.kind, pts, form.expressions)


def lp_formulation(problem: MomentProblem, side: str = "upper", *, points: Sequence[Any] | None = None,
                   basis: str = "auto") -> Formulation:
    """The discrete moment LP of ``problem`` as a named cvxpy problem.

    ``max`` (``side="upper"``) or ``min`` (``"lower"``) of ``sum_{x in E} q[x]`` over weights
    ``q >= 0`` (variable ``"q"``, one per point) with the moment rows
    ``sum_x phi_k(x) q[x] = tau_k`` (constraint ``"moments"``; its dual values are the
    coefficients of the dual polynomial in the basis ``phi``).  The points are every point
    of a discrete support with at most 4096 points, else the column generation's starting
    columns, or ``points``.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> f = lp_formulation(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)))
    >>> f.solve("CLARABEL"), round(float(f.problem.value) * 15, 6)          # the sharp 4/15
    ('optimal', 4.0)
    """
    return _on_points(problem, side, points, basis, restricted_primal)


def lp_dual_formulation(problem: MomentProblem, side: str = "upper", *, points: Sequence[Any] | None = None,
                        basis: str = "auto") -> Formulation:
    """The dual of :func:`lp_formulation`: ``min tau . y`` s.t. ``p_y(x) >= 1_E(x)`` at the points.

    Variable ``"y"`` holds the coefficients of ``p_y = sum_k y_k phi_k``; constraint
    ``"dominance"`` (one row per point) has the primal weights as dual values.  For
    ``side="lower"``: ``max tau . y`` s.t. ``p_y <= 1_E``.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> f = lp_dual_formulation(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)))
    >>> f.solve("HIGHS"), round(float(f.problem.value) * 3, 6)              # the sharp 1/3
    ('optimal', 1.0)
    """
    return _on_points(problem, side, points, basis, restricted_dual)


# ----------------------------------------------------------------------------- SQP master
def sqp_master(c: np.ndarray, U: np.ndarray, R: np.ndarray, box: float, side: str = "upper") -> Formulation:
    """``min c . y`` s.t. ``sum_k y_k T_k(u_i) >= R_i`` at the exchange points, ``|y_k| <= box``."""
    import cvxpy as cp

    m1 = len(c)
    rows = moment_rows(c)
    y, variables = _dual_objective("y", rows, m1)
    V = _cheb.chebvander(np.asarray(U, dtype=float), m1 - 1)
    constraints = {"dominance": V @ y >= np.asarray(R, dtype=float), "box": cp.abs(y) <= box}
    return _problem(cp.Minimize(_dual_cost(y, variables, rows, "y")), constraints, variables, "sqp", side,
                    points=tuple(float(u) for u in U), expressions={} if "y" in variables else {"y": y})


def sqp_formulation(problem: MomentProblem, side: str = "upper", *, points: Sequence[float] | None = None,
                    box: float = 1e6) -> Formulation:
    """The master problem of the exchange method (``sqp``) on its starting points (or ``points``).

    In the scaled variable ``u`` (support mapped to ``[-1, 1]``) and the Chebyshev basis:
    ``min E[p(u)]`` over ``p = sum_k y_k T_k`` (variable ``"y"``) with ``p(u_i) >= 1_E(u_i)``
    (constraint ``"dominance"``) and ``|y_k| <= box`` (``"box"``).  For ``side="lower"`` the
    problem is written for ``-p`` (so ``-value`` is the lower bound candidate).

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> f = sqp_formulation(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)))
    >>> f.solve("CLARABEL"), round(float(f.problem.value) * 3, 6)
    ('optimal', 1.0)
    """
    _check_side(side)
    if problem.support.kind is SupportKind.REAL:
        raise InvalidArgument("sqp needs a bounded support (grid, finite or interval); use 'sdp' on the real line")
    c = np.array([float(v) for v in problem.chebyshev_moments()])
    sign = 1.0 if side == "upper" else -1.0
    pieces = discrete_pieces(problem)
    if points is None:
        us = [initial_points(pc, problem.order) for pc in pieces]
        U = np.concatenate(us)
        R = np.concatenate([np.full(len(u), sign * pc.target) for u, pc in zip(us, pieces)])
    else:
        U = np.asarray(points, dtype=float)
        R = np.array([sign * next((pc.target for pc in pieces if pc.a - 1e-12 <= u <= pc.b + 1e-12), 0) for u in U])
    return sqp_master(c, U, R, box, side)


class CvxpyMaster:
    """The exchange method's master LP solved through cvxpy (interface of the warm HiGHS model)."""

    def __init__(self, c: np.ndarray, m: int, solver: str, tol: float | None = None) -> None:
        self.c = np.asarray(c, dtype=float)
        self.solver = solver
        self.tol = tol
        self.box = 1e6
        self.U = np.zeros(0)
        self.R = np.zeros(0)
        self.status = ""

    def set_box(self, box: float) -> None:
        self.box = box

    def add(self, u: np.ndarray, r: np.ndarray) -> None:
        self.U = np.concatenate([self.U, np.asarray(u, dtype=float)])
        self.R = np.concatenate([self.R, np.asarray(r, dtype=float)])

    def solve(self) -> np.ndarray | None:
        form = sqp_master(self.c, self.U, self.R, self.box)
        try:
            self.status = form.solve(self.solver, tol=self.tol)
        except SolverFailed as exc:
            self.status = str(exc)
            return None
        y = _value_of(form["y"])
        if self.status not in OK_STATUSES or y is None or not np.all(np.isfinite(y)):
            return None
        return y


# ----------------------------------------------------------------------------- SDP
def sos_program(cheb_moments: np.ndarray, pieces: tuple[tuple[float, float, float], ...], side: str = "upper") -> Formulation:
    """``min sum_k y_k c_k`` over ``p = sum_k y_k T_k`` with ``p >= r`` on every piece ``(a, b, r)``.

    On a piece ``[a, b]`` (``a < b``) the constraint is the Markov-Lukacs identity
    ``p - r = sum_j w_j s_j`` with ``s_j = v^T Q v`` (``v`` the Chebyshev basis of the piece,
    Gram matrix ``Q`` PSD), imposed at ``m + 1`` nodes of the piece; a one-point piece is the
    linear constraint ``p(a) >= r``.  Names: variable ``"y"``, Gram matrices
    ``"gram[i,j]"`` (piece ``i``, weight ``j``), constraints ``"identity[i]"``, ``"psd[i,j]"``
    and ``"point[i]"``.
    """
    import cvxpy as cp

    c = np.asarray(cheb_moments, dtype=float)
    m = len(c) - 1
    y = cp.Variable(m + 1, name="y")
    variables: dict[str, Any] = {"y": y}
    constraints: dict[str, Any] = {}
    for pi, (a, b, r) in enumerate(pieces):
        a, b, r = float(a), float(b), float(r)
        if a == b:
            constraints[f"point[{pi}]"] = _cheb.chebvander(np.array([a]), m) @ y >= r
            continue
        nodes = chebyshev_nodes(m, a, b)
        rhs = 0
        for bj, (size, weight) in enumerate(markov_lukacs_blocks(m, a, b)):
            if size <= 0:
                continue
            Q = cp.Variable((size, size), symmetric=True, name=f"gram[{pi},{bj}]")
            variables[f"gram[{pi},{bj}]"] = Q
            constraints[f"psd[{pi},{bj}]"] = Q >> 0
            v = _cheb.chebvander(piece_variable(nodes, a, b), size - 1)
            w = _cheb.chebval(nodes, weight)
            G = np.stack([w[j] * np.outer(v[j], v[j]).reshape(-1, order="F") for j in range(len(nodes))])
            rhs = rhs + G @ cp.vec(Q, order="F")
        constraints[f"identity[{pi}]"] = _cheb.chebvander(nodes, m) @ y - r == rhs
    return _problem(cp.Minimize(c @ y), constraints, variables, "sdp", side)


def sdp_formulation(problem: MomentProblem, side: str = "upper") -> Formulation:
    """The Bertsimas-Popescu SOS program of ``problem`` (see :func:`sos_program`).

    Written in the scaled variable ``u`` with Chebyshev moments; for ``side="lower"`` the
    program is written for ``q = -p`` (``q >= -1_E``), so ``-value`` is the lower bound
    candidate.  On the real line an odd top moment is dropped (it cannot enter a
    certificate), as in the ``sdp`` method.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> f = sdp_formulation(MomentProblem((1, 1, "5/4"), Support.interval(0, 5), Event.between(4, 5)))
    >>> f.solve("CLARABEL"), round(float(f.problem.value) * 37, 5)          # 1/37 (Bertsimas-Popescu)
    ('optimal', 1.0)
    """
    _check_side(side)
    c = np.array([float(v) for v in problem.chebyshev_moments()])
    if problem.support.kind is SupportKind.REAL and problem.order % 2 == 1:
        c = c[:-1]
    sign = 1.0 if side == "upper" else -1.0
    spec = tuple((pc.a, pc.b, sign * pc.target) for pc in unit_pieces(problem))
    form = sos_program(c, spec, side)
    return form


def solve_sos(cheb_moments: np.ndarray, pieces: tuple[tuple[float, float, float], ...], solver: str,
              tol: float, max_iter: int) -> Any:
    """:func:`momentbound.bounds.sdp.sos_dual` through cvxpy and ``solver`` (an ``SOSSolution``)."""
    form = sos_program(cheb_moments, pieces)
    m1 = len(cheb_moments)
    try:
        status = form.solve(solver, tol=tol, max_iter=max_iter)
    except SolverFailed as exc:
        return SOSSolution(tuple([math.nan] * m1), math.nan, f"error: {exc}", 0)
    y = _value_of(form.variables["y"])
    coeffs = tuple(float(v) for v in y) if y is not None else tuple([math.nan] * m1)
    stats = form.problem.solver_stats
    iters = int(getattr(stats, "num_iters", 0) or 0) if stats is not None else 0
    value = float(form.problem.value) if form.problem.value is not None else math.nan
    return SOSSolution(coeffs, value, status, iters)


# ----------------------------------------------------------------------------- dispatch
_BUILDERS = {
    "lp": lp_formulation,
    "lp-dual": lp_dual_formulation,
    "sqp": sqp_formulation,
    "sdp": sdp_formulation,
}


def formulation(problem: MomentProblem, method: str, side: str = "upper", **kwargs: Any) -> Formulation:
    """The named cvxpy problem that ``method`` solves for ``problem`` (``side`` ``"upper"`` or ``"lower"``).

    ``method`` is one of :data:`SOLVER_METHODS`; keyword arguments go to the method's builder
    (:func:`lp_formulation`, :func:`lp_dual_formulation`, :func:`sqp_formulation`,
    :func:`sdp_formulation`).  The bivariate joint SDP has its own builder,
    :func:`momentbound.bounds.joint.joint_sdp_formulation`.

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event
    >>> f = formulation(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), "lp")
    >>> sorted(f.variables), sorted(f.constraints)
    (['q'], ['moments'])
    """
    if not isinstance(problem, MomentProblem):
        raise InvalidArgument(f"problem must be a MomentProblem, got {type(problem).__name__}")
    builder = _BUILDERS.get(method) if isinstance(method, str) else None
    if builder is None:
        raise UnknownMethod(
            f"method {method!r} has no cvxpy formulation; methods with one: {', '.join(SOLVER_METHODS)} "
            "(and momentbound.bounds.joint.joint_sdp_formulation for the joint SDP)"
        )
    return builder(problem, side, **kwargs)
