"""The cheapest polynomial whose image dominates a piecewise-polynomial target, certified.

Every bound with a shape constraint or a moment box reduces to one program
(docs/mathematics.md, "Shape constraints and moment boxes"): find coefficients ``y`` of a
dual polynomial that minimise the worst-case expectation ``E[q_y(X)]`` subject to finitely
many *stretch* constraints

    ``P_i(z) = sum_j A_i[:, j] y_j - b_i  >= 0``   for every ``z`` in ``[lo_i, hi_i]``,

where ``P_i`` is a polynomial in ``z`` whose coefficients are affine in ``y`` (a point
constraint when ``lo_i = hi_i``).  The conic program writes each ``P_i`` on its interval
through the Markov-Lukacs representation with sums-of-squares Gram matrices in a local
variable (the interval mapped onto ``[-1, 1]`` or ``[0, oo)``) and goes to Clarabel
directly.  The floating-point solution is only a candidate: its coefficients are made
exact rationals, every ``P_i`` is checked rigorously (exact arithmetic and arb interval
arithmetic, :func:`~momentbound.bounds.certificate.polynomial_minimum`), and a violation is
repaired by moving ``y`` along a *shift direction* whose effect on every ``P_i`` is bounded
below by a positive amount, after which the check is repeated.  Only verified values are
reported as bounds.

A stretch may carry a linear ``divisor`` ``d(z) > 0`` dividing ``P_i`` exactly (a constraint
that touches zero at an end by construction); the check and the repair then use
``P_i / d``, which keeps the repair proportional to the violation.

References
----------
D. Bertsimas and I. Popescu, SIAM J. Optim. 15 (2005); I. Popescu, Math. Oper. Res. 30
(2005); B. P. G. Van Parys, P. J. Goulart and D. Kuhn, Math. Program. 156 (2016).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from momentbound.quiet import quiet_native_output

from momentbound.errors import InfeasibleMoments, InvalidArgument, SolverFailed
from momentbound.rational import to_fmpq

from .certificate import polynomial_minimum

__all__ = ["Stretch", "DominanceProgram", "DominanceSolution", "solve_dominance", "binomial_shift"]

Matrix = tuple[tuple[Fraction, ...], ...]




@dataclass(frozen=True)
class Stretch:
    """``sum_j matrix[k][j] y_j - offset[k]`` (coefficient of ``z^k``) is ``>= 0`` on ``[lo, hi]``.

    ``None`` marks an infinite end; ``lo == hi`` is a point constraint.  ``divisor = (d0, d1)``
    says ``d0 + d1 z`` divides the polynomial exactly and is positive inside the interval.
    """

    lo: Fraction | None
    hi: Fraction | None
    matrix: Matrix
    offset: tuple[Fraction, ...]
    divisor: tuple[Fraction, Fraction] | None = None
    label: str = ""

    @cached_property
    def _exact(self) -> tuple[flint.fmpq_mat, flint.fmpq_mat]:
        rows, cols = len(self.matrix), len(self.matrix[0])
        mat = flint.fmpq_mat(rows, cols, [to_fmpq(v) for row in self.matrix for v in row])
        return mat, flint.fmpq_mat(rows, 1, [to_fmpq(v) for v in self.offset])

    @cached_property
    def floats(self) -> tuple[np.ndarray, np.ndarray]:
        """``matrix`` and ``offset`` as float arrays (for the conic solver only)."""
        return np.array([[float(v) for v in row] for row in self.matrix]), np.array([float(v) for v in self.offset])

    def polynomial(self, y: Sequence[Fraction]) -> flint.fmpq_poly:
        """The exact polynomial ``P(z)`` for exact ``y``."""
        mat, off = self._exact
        col = mat * flint.fmpq_mat(len(y), 1, [to_fmpq(v) for v in y]) - off
        return flint.fmpq_poly([col[k, 0] for k in range(col.nrows())])

    def checked(self, poly: flint.fmpq_poly) -> flint.fmpq_poly | None:
        """``P / divisor`` (``None`` if the division is not exact), or ``P`` without a divisor."""
        if self.divisor is None:
            return poly
        d0, d1 = self.divisor
        d = flint.fmpq_poly([to_fmpq(d0), to_fmpq(d1)])
        quot, rem = divmod(poly, d)
        return quot if rem == 0 else None


@dataclass(frozen=True)
class DominanceProgram:
    """Minimise the worst-case ``E[q_y(X)]`` subject to the stretches.

    The objective is ``sum_k max(a_k lo_k, a_k hi_k)`` with ``a = objective_map @ y`` and
    ``[lo_k, hi_k]`` the moment intervals (``lo_k = hi_k`` for exactly known moments, where it
    is the linear ``a . m``).  ``shift`` is a direction in ``y`` whose effect on every
    stretch (after its divisor) is positive; it repairs small violations.
    """

    nvar: int
    stretches: tuple[Stretch, ...]
    objective_map: Matrix
    moment_box: tuple[tuple[Fraction, Fraction], ...]
    shift: tuple[Fraction, ...]

    def value(self, y: Sequence[Fraction]) -> Fraction:
        """The exact worst-case objective at exact ``y``."""
        total = Fraction(0)
        for row, (lo, hi) in zip(self.objective_map, self.moment_box):
            a = sum((c * v for c, v in zip(row, y)), Fraction(0))
            total += max(a * lo, a * hi)
        return total


@dataclass(frozen=True)
class DominanceSolution:
    """A verified (or not) dual solution: exact ``y``, its value, and how it was obtained."""

    y: tuple[Fraction, ...]
    value: Fraction
    verified: bool
    shifted: bool
    min_slack: float
    solver_status: str


def binomial_shift(alpha: Fraction, beta: Fraction, degree: int) -> list[list[Fraction]]:
    """Matrix ``C`` with ``coeffs_t = C coeffs_z`` for the substitution ``z = alpha + beta t``."""
    C = [[Fraction(0)] * (degree + 1) for _ in range(degree + 1)]
    for k in range(degree + 1):
        for j in range(k + 1):
            C[j][k] = math.comb(k, j) * alpha ** (k - j) * beta**j
    return C


def _local_map(lo: Fraction | None, hi: Fraction | None) -> tuple[Fraction, Fraction, str]:
    """``z = alpha + beta t`` with ``t`` in ``[-1, 1]``, ``[0, oo)`` or the whole line."""
    if lo is not None and hi is not None:
        return (lo + hi) / 2, (hi - lo) / 2, "interval"
    if lo is not None:
        return lo, Fraction(1), "halfline"
    if hi is not None:
        return hi, Fraction(-1), "halfline"
    return Fraction(0), Fraction(1), "line"


def _gram_map(degree: int) -> np.ndarray:
    """Columns: ``svec`` entries of a Gram matrix of size ``degree + 1``; rows: coefficients of
    ``v^T Q v`` (``v = (1, t, ..., t^degree)``).  ``svec`` is Clarabel's scaled upper triangle
    (column major, off-diagonal entries times sqrt 2)."""
    size = degree + 1
    cols = []
    for j in range(size):
        for i in range(j + 1):
            col = np.zeros(2 * degree + 1)
            col[i + j] = 1.0 if i == j else math.sqrt(2.0)
            cols.append(col)
    return np.array(cols).T


def _times(weight: Sequence[float], block: np.ndarray, length: int) -> np.ndarray:
    """Rows of ``weight(t) * poly(t)`` where ``block`` maps variables to ``poly``'s coefficients."""
    out = np.zeros((length, block.shape[1]))
    for i, w in enumerate(weight):
        for k in range(block.shape[0]):
            if i + k < length and w != 0:
                out[i + k] += w * block[k]
    return out


def _degree(stretch: Stretch) -> int:
    for k in range(len(stretch.matrix) - 1, -1, -1):
        if any(stretch.matrix[k]) or stretch.offset[k]:
            return k
    return 0


def _markov_lukacs(kind: str, d: int) -> list[tuple[list[float], int]]:
    """(weight, Gram degree) pairs writing a degree-``d`` polynomial nonnegative on the local domain."""
    if kind == "interval":
        if d % 2 == 0:
            return [([1.0], d // 2)] + ([([1.0, 0.0, -1.0], d // 2 - 1)] if d >= 2 else [])
        return [([1.0, 1.0], (d - 1) // 2), ([1.0, -1.0], (d - 1) // 2)]
    if kind == "halfline":
        return [([1.0], d // 2)] + ([([0.0, 1.0], (d - 1) // 2)] if d >= 1 else [])
    return [([1.0], d // 2)]


def _float_solve(program: DominanceProgram, tol: float) -> tuple[np.ndarray | None, str]:
    """Solve the conic program with Clarabel directly (no modelling layer: milliseconds)."""
    import clarabel
    import scipy.sparse as sp

    nvar = program.nvar
    M = np.array([[float(v) for v in row] for row in program.objective_map])
    lo = np.array([float(a) for a, _ in program.moment_box])
    hi = np.array([float(b) for _, b in program.moment_box])
    boxed = not np.array_equal(lo, hi)
    nt = M.shape[0] if boxed else 0
    eq_rows: list[tuple[np.ndarray, list[tuple[int, np.ndarray]], np.ndarray]] = []  # (y part, gram parts, rhs)
    ineq_rows: list[tuple[np.ndarray, float]] = []  # row . y >= rhs
    grams: list[int] = []  # Gram sizes in order
    for st in program.stretches:
        mat, off = st.floats
        if st.lo is not None and st.hi is not None and st.lo == st.hi:
            pw = float(st.lo) ** np.arange(mat.shape[0])
            ineq_rows.append((pw @ mat, float(pw @ off)))
            continue
        d = _degree(st)
        alpha, beta, kind = _local_map(st.lo, st.hi)
        C = np.array([[float(v) for v in row] for row in binomial_shift(alpha, beta, mat.shape[0] - 1)])
        A, b = (C @ mat)[: d + 1], (C @ off)[: d + 1]
        if d == 0:
            ineq_rows.append((A[0], float(b[0])))
            continue
        if kind == "line" and d % 2 == 1:
            # bounded below on the line needs an even degree: the top coefficient must vanish
            eq_rows.append((A[d : d + 1], [], b[d : d + 1]))
            A, b, d = A[:d], b[:d], d - 1
        parts = []
        for weight, gdeg in _markov_lukacs(kind, d):
            if gdeg < 0:
                continue
            parts.append((len(grams), _times(weight, _gram_map(gdeg), d + 1)))
            grams.append(gdeg + 1)
        eq_rows.append((A, parts, b))
    widths = [n * (n + 1) // 2 for n in grams]
    offsets = np.concatenate([[nvar + nt], nvar + nt + np.cumsum(widths)]).astype(int)
    total = int(offsets[-1])
    blocks: list[np.ndarray] = []
    rhs: list[np.ndarray] = []
    cones: list[Any] = []
    if eq_rows:
        for A, parts, b in eq_rows:
            block = np.zeros((A.shape[0], total))
            block[:, :nvar] = A
            for g, rows in parts:
                block[:, offsets[g] : offsets[g] + widths[g]] -= rows
            blocks.append(block)
            rhs.append(b)
        cones.append(clarabel.ZeroConeT(sum(r.shape[0] for r, _, _ in eq_rows)))
    nonneg = 0
    for row, r in ineq_rows:  # row . y >= r  <=>  -row . y + s = -r, s >= 0
        block = np.zeros((1, total))
        block[0, :nvar] = -row
        blocks.append(block)
        rhs.append(np.array([-r]))
        nonneg += 1
    if boxed:  # t_k >= a_k lo_k and t_k >= a_k hi_k with a = M y
        for k in range(nt):
            for bound_k in (lo[k], hi[k]):
                block = np.zeros((1, total))
                block[0, :nvar] = bound_k * M[k]
                block[0, nvar + k] = -1.0
                blocks.append(block)
                rhs.append(np.zeros(1))
                nonneg += 1
    if nonneg:
        cones.append(clarabel.NonnegativeConeT(nonneg))
    for g, size in enumerate(grams):
        block = np.zeros((widths[g], total))
        block[:, offsets[g] : offsets[g] + widths[g]] = -np.eye(widths[g])
        blocks.append(block)
        rhs.append(np.zeros(widths[g]))
        cones.append(clarabel.PSDTriangleConeT(size))
    q = np.zeros(total)
    if boxed:
        q[nvar : nvar + nt] = 1.0
    else:
        q[:nvar] = M.T @ lo
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = tol
    settings.tol_gap_rel = tol
    settings.tol_feas = tol
    settings.max_iter = 300
    Amat = sp.csc_matrix(np.vstack(blocks))
    solver = clarabel.DefaultSolver(sp.csc_matrix((total, total)), q, Amat, np.concatenate(rhs), cones, settings)
    with quiet_native_output():
        sol = solver.solve()
    status = str(sol.status)
    x = np.asarray(sol.x, dtype=float)
    if status in ("Solved", "AlmostSolved") or (status in _CANDIDATE and np.all(np.isfinite(x))):
        return x[:nvar], status
    return None, status


#: Clarabel statuses whose finite iterate is still worth verifying as a candidate
_CANDIDATE = {"MaxIterations", "MaxTime", "InsufficientProgress", "NumericalError"}
_INFEASIBLE = {"PrimalInfeasible", "AlmostPrimalInfeasible"}  # no dominating polynomial
_UNBOUNDED = {"DualInfeasible", "AlmostDualInfeasible"}  # the objective is unbounded below


def _check(program: DominanceProgram, y: Sequence[Fraction]) -> tuple[Fraction, Fraction | None]:
    """(minimum checked slack over all stretches, shift step that repairs it or None)."""
    worst = Fraction(0)
    step: Fraction | None = Fraction(0)
    for st in program.stretches:
        checked = st.checked(st.polynomial(y))
        if checked is None:
            return Fraction(-(10**30)), None
        m = polynomial_minimum(checked, st.lo, st.hi)
        worst = min(worst, m)
        if m >= 0:
            continue
        sens_poly = st.checked(st.polynomial(program.shift) - st.polynomial([Fraction(0)] * program.nvar))
        kappa = polynomial_minimum(sens_poly, st.lo, st.hi) if sens_poly is not None else Fraction(0)
        if kappa <= 0 or m <= -(10**29) or step is None:
            step = None
            continue
        step = max(step, -m / kappa)
    return worst, step


def solve_dominance(program: DominanceProgram, *, tol: float = 1e-9) -> DominanceSolution | None:
    """Solve, verify and (if needed) repair; ``None`` if no dominating polynomial exists.

    Raises
    ------
    InfeasibleMoments
        The program is unbounded below: no law satisfying the constraints has these moments
        (found numerically by the conic solver).
    """
    if program.nvar < 1:
        raise InvalidArgument(f"the dominance program needs at least one coefficient, got {program.nvar}")
    yf, status = _float_solve(program, tol)
    if yf is None:
        if status in _UNBOUNDED:
            raise InfeasibleMoments(
                "no law satisfying the shape/support constraints has these moments "
                f"(the dual program is unbounded: conic solver status {status})",
                condition="dual-unbounded",
            )
        if status in _INFEASIBLE:
            return None
        raise SolverFailed(f"the dominance program ended with status {status!r}", result=status)
    y = [Fraction(float(v)) for v in yf]
    scale = max((abs(float(v)) for v in y), default=1.0)
    worst, step = _check(program, y)
    # solver noise on the top coefficient makes a polynomial unbounded on an infinite piece
    while worst <= -(10**29) and len(y) > 1:
        top = max((k for k, v in enumerate(y) if v != 0), default=0)
        if top == 0 or abs(float(y[top])) > 1e-6 * max(1.0, scale):
            break
        y[top] = Fraction(0)
        worst, step = _check(program, y)
    shifted = False
    for attempt in range(4):
        if worst >= 0 or step is None:
            break
        move = step * (1 + Fraction(1, 10**6)) + Fraction(1, 10**30) * 10 ** (8 * attempt)
        y = [v + move * e for v, e in zip(y, program.shift)]
        worst, step = _check(program, y)
        shifted = True
    verified = worst >= 0
    return DominanceSolution(tuple(y), program.value(y), verified, shifted, float(worst), status)
