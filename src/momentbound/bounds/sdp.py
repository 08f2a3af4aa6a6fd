"""Bertsimas-Popescu semidefinite bounds (docs/mathematics.md, section 'Bounds on a probability
from moments', method ``"sdp"``).

The dual of the moment problem asks for the cheapest polynomial ``p`` (degree ``m``, the
number of known moments) with ``p >= 1_E`` on the support.  On every piece of the support
where the indicator is constant the constraint is ``p - target >= 0`` on an interval,
and by the Markov-Lukacs theorem a polynomial of degree ``m`` is non-negative on ``[a, b]``
iff

* ``m = 2n``:     ``p = s0 + (u - a)(b - u) s1``  with ``s0``, ``s1`` sums of squares,
* ``m = 2n + 1``: ``p = (u - a) s0 + (b - u) s1``,

and on a half line ``[a, oo)`` iff ``p = s0 + (u - a) s1`` (on the whole line: ``p = s0``).
A sum of squares of degree ``2d`` is ``v(u)^T Q v(u)`` with a positive semidefinite Gram
matrix ``Q``.  Everything is written in the scaled variable ``u`` (the support mapped to
``[-1, 1]``) and the Gram matrices use the Chebyshev polynomials of each piece
(``T_i`` of the piece mapped to ``[-1, 1]``), so no raw power of a large number appears.
The conic program is passed to Clarabel directly (no cvxpy compile step), which keeps a
6-moment solve near a millisecond.

A grid support is relaxed to the interval between its ends, with the event boundary
moved to the neighbouring integers (``X > 0`` on integers is ``X >= 1``): valid, but weaker
than the discrete LP.  A finite support is relaxed to the hulls of its runs of points with
the same indicator.  The floating-point solution is a *candidate*: its certificate is
verified on the whole support by :func:`momentbound.bounds.certificate.certify` (exact
root isolation), shifted if needed, and only then reported.

References
----------
D. Bertsimas and I. Popescu, "Optimal inequalities in probability theory: a convex
optimization approach", SIAM J. Optim. 15 (2005); Dhurandhar & Dobra, Section 7.2.2.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from momentbound.errors import InvalidArgument, SolverFailed
from momentbound.quiet import quiet_native_output

from .pieces import SOSSolution, UnitPiece, chebyshev_nodes, markov_lukacs_blocks, piece_variable, unit_pieces
from .problem import MomentProblem, SupportKind
from .registry import BoundMethod, register
from .result import BoundResult, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["SDPMethod", "UnitPiece", "unit_pieces", "sos_dual"]

#: constant added to the solver's polynomial before verification (its feasibility is ~tol)
MARGIN = 1e-9


# ----------------------------------------------------------------------------- conic data
def _gram_rows(size: int, nodes: np.ndarray, a: float, b: float, weight: np.ndarray) -> np.ndarray:
    """Rows ``j``: coefficients of ``svec(Q)`` in ``weight(u_j) * v(u_j)^T Q v(u_j)``.

    ``v_i = T_i(L(u))`` is the Chebyshev basis of the piece; ``svec`` is Clarabel's scaled
    upper triangle (column major, off-diagonals times sqrt 2).
    """
    v = _cheb.chebvander(piece_variable(nodes, a, b), size - 1)
    w = _cheb.chebval(nodes, weight)
    cols = []
    for j in range(size):
        for i in range(j + 1):
            cols.append(w * v[:, i] * v[:, j] * (1.0 if i == j else math.sqrt(2.0)))
    return np.array(cols).T


@lru_cache(maxsize=256)
def _structure(m: int, pieces: tuple[tuple[float, float], ...]) -> tuple[Any, list[Any], int, list[int], list[int]]:
    """Constraint matrix and cones for the given degree and piece geometry (cached).

    The polynomial identity ``p - r = sum_i w_i s_i`` on each piece is imposed at ``m + 1``
    nodes of the piece (identity of polynomials of degree ``m``), which keeps every matrix
    entry bounded by a small constant however short the piece is.
    """
    import clarabel
    import scipy.sparse as sp

    blocks: list[tuple[int, int, np.ndarray]] = []  # (piece, size, rows)
    points: list[tuple[int, float]] = []
    node_sets: dict[int, np.ndarray] = {}
    for pi, (a, b) in enumerate(pieces):
        if a == b:
            points.append((pi, a))
            continue
        node_sets[pi] = chebyshev_nodes(m, a, b)
        for size, weight in markov_lukacs_blocks(m, a, b):
            if size > 0:
                blocks.append((pi, size, _gram_rows(size, node_sets[pi], a, b, weight)))
    widths = [blk[2].shape[1] for blk in blocks]
    nvar = m + 1 + sum(widths)
    offsets = np.cumsum([m + 1] + widths)[:-1]
    rows: list[np.ndarray] = []
    cones: list[Any] = []
    eq_pieces: list[int] = []
    for pi in node_sets:
        block = np.zeros((m + 1, nvar))
        block[:, : m + 1] = _cheb.chebvander(node_sets[pi], m)
        for (pj, _size, grows), off in zip(blocks, offsets):
            if pj == pi:
                block[:, off : off + grows.shape[1]] = -grows
        rows.append(block)
        eq_pieces.append(pi)
    if eq_pieces:
        cones.append(clarabel.ZeroConeT((m + 1) * len(eq_pieces)))
    if points:
        pts = np.array([u for _, u in points])
        block = np.zeros((len(points), nvar))
        block[:, : m + 1] = -_cheb.chebvander(pts, m)
        rows.append(block)
        cones.append(clarabel.NonnegativeConeT(len(points)))
    for (_pi, size, grows), off in zip(blocks, offsets):
        block = np.zeros((grows.shape[1], nvar))
        block[:, off : off + grows.shape[1]] = -np.eye(grows.shape[1])
        rows.append(block)
        cones.append(clarabel.PSDTriangleConeT(size))
    A = sp.csc_matrix(np.vstack(rows))
    return A, cones, nvar, eq_pieces, [pi for pi, _ in points]


_CLARABEL_OK = {"Solved", "AlmostSolved", "optimal"}  # (the last: cvxpy's name, solver= routes)
# statuses whose (finite) iterate is still worth verifying as a candidate certificate
_CANDIDATE_OK = {"NumericalError", "MaxIterations", "MaxTime", "InsufficientProgress", "AlmostSolved",
                 "optimal_inaccurate", "user_limit"}


def sos_dual(
    cheb_moments: np.ndarray,
    pieces: tuple[tuple[float, float, float], ...],
    *,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> SOSSolution:
    """Minimise ``sum_k y_k c_k`` over ``p = sum_k y_k T_k`` with ``p >= r`` on every piece ``(a, b, r)``.

    ``c`` are Chebyshev moments of the scaled variable.  Returns the (unverified) candidate.

    Example
    -------
    >>> sol = sos_dual(np.array([1.0, -0.6, -0.2]), ((-1.0, 1.0, 0.0), (0.6, 1.0, 1.0)))
    >>> round(sol.objective * 37, 6)   # SOSTOOLS example, exact value 1/37
    1.0
    """
    import clarabel
    import scipy.sparse as sp

    c = np.asarray(cheb_moments, dtype=float)
    m = len(c) - 1
    geometry = tuple((float(a), float(b)) for a, b, _ in pieces)
    A, cones, nvar, eq_pieces, point_pieces = _structure(m, geometry)
    rhs = []
    for pi in eq_pieces:
        rhs.append(np.full(m + 1, float(pieces[pi][2])))
    if point_pieces:
        rhs.append(np.array([-pieces[pi][2] for pi in point_pieces]))
    rhs.append(np.zeros(A.shape[0] - sum(len(r) for r in rhs)))
    b = np.concatenate(rhs)
    q = np.zeros(nvar)
    q[: m + 1] = c
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = tol
    settings.tol_gap_rel = tol
    settings.tol_feas = tol
    settings.tol_ktratio = 1e-8
    settings.max_iter = max_iter
    with quiet_native_output():
        solver = clarabel.DefaultSolver(sp.csc_matrix((nvar, nvar)), q, A, b, cones, settings)
        sol = solver.solve()
    status = str(sol.status)
    return SOSSolution(tuple(float(v) for v in np.asarray(sol.x)[: m + 1]), float(sol.obj_val), status, int(sol.iterations))


def tol_and_max_iter(options: dict[str, Any]) -> tuple[float, int]:
    """The validated ``tol`` (in ``(0, 1e-2)``) and ``max_iter`` (>= 1) options of a dual solver."""
    tol = float(options["tol"])
    if not 0 < tol < 1e-2:
        raise InvalidArgument(f"tol must be in (0, 1e-2), got {tol!r}")
    max_iter = int(options["max_iter"])
    if max_iter < 1:
        raise InvalidArgument(f"max_iter must be a positive integer, got {max_iter!r}")
    return tol, max_iter


def certified_side(
    problem: MomentProblem,
    side: str,
    candidate: np.ndarray | tuple[float, ...],
    how: str,
) -> tuple[Any, bool]:
    """Verify (and if needed shift) a candidate dual polynomial with the shared verifier.

    The candidate is checked as is; if its minimum slack ``-delta`` is negative, the
    constant term is moved by ``delta`` plus a margin (the rigorous interval lower bound on a
    continuum carries a tiny enclosure error) and checked again, at most a few times.
    Returns ``(certificate, shifted)``.
    """
    from .certificate import certify

    coeffs = [Fraction(float(v)) for v in candidate]
    cert, _ = certify(coeffs, side, problem, basis="chebyshev", allow_shift=False, how_prefix=how)
    # on an unbounded piece a top coefficient of the wrong sign (solver noise) makes the slack
    # unbounded below (the verifier's -1e30): drop such negligible top terms, then shift
    scale = max((abs(float(v)) for v in coeffs), default=1.0)
    while not cert.verified and cert.min_slack <= -1e29 and len(coeffs) > 1 and abs(float(coeffs[-1])) <= 1e-7 * max(1.0, scale):
        coeffs.pop()
        cert, _ = certify(coeffs, side, problem, basis="chebyshev", allow_shift=False, how_prefix=how)
    shifted = False
    attempt = 0
    while not cert.verified and cert.min_slack > -1e29 and attempt < 4:
        delta = -Fraction(cert.min_slack) if cert.min_slack < 0 else Fraction(0)
        margin = delta * Fraction(1, 1000) + Fraction(1, 10**40) * 10 ** (10 * attempt)
        step = delta + margin
        coeffs[0] = coeffs[0] + step if side == "upper" else coeffs[0] - step
        cert, _ = certify(coeffs, side, problem, basis="chebyshev", allow_shift=False, how_prefix=how)
        shifted = True
        attempt += 1
    return cert, shifted


def assemble(
    problem: MomentProblem,
    method: str,
    side_results: dict[str, tuple[Any, bool]],
    diagnostics: Diagnostics,
    *,
    proven_status: Status = Status.VALID,
) -> BoundResult:
    """Build the :class:`BoundResult` from verified upper/lower certificates.

    Unverified sides are reported as the trivial bound (0 or 1) and lower the status to
    UNVERIFIED; a shifted certificate lowers it to SHIFTED.
    """
    upper_cert, up_shift = side_results["upper"]
    lower_cert, lo_shift = side_results["lower"]
    notes = list(diagnostics.notes)
    verified = upper_cert.verified and lower_cert.verified
    if verified:
        status = Status.SHIFTED if (up_shift or lo_shift) else proven_status
    else:
        status = Status.UNVERIFIED
    ex_up = min(Fraction(1), upper_cert.value) if upper_cert.verified else Fraction(1)
    ex_lo = max(Fraction(0), lower_cert.value) if lower_cert.verified else Fraction(0)
    if not upper_cert.verified:
        notes.append(f"upper certificate not verified (min slack {upper_cert.min_slack:.3g}); upper set to 1")
    if not lower_cert.verified:
        notes.append(f"lower certificate not verified (min slack {lower_cert.min_slack:.3g}); lower set to 0")
    if up_shift:
        notes.append("upper certificate shifted to its verified minimum")
    if lo_shift:
        notes.append("lower certificate shifted to its verified minimum")
    diag = Diagnostics(
        solver=diagnostics.solver,
        solver_status=diagnostics.solver_status,
        iterations=diagnostics.iterations,
        columns=diagnostics.columns,
        notes=tuple(notes),
    )
    return BoundResult(
        lower=round_down(ex_lo),
        upper=round_up(ex_up),
        method=method,
        kind=Kind.BOUND,
        status=status,
        message=status.message + ("" if not notes else "; " + "; ".join(notes)),
        certificates=(lower_cert, upper_cert),
        certified=status.is_proven,
        diagnostics=diag,
        exact_lower=ex_lo if lower_cert.verified else None,
        exact_upper=ex_up if upper_cert.verified else None,
    )


@register
class SDPMethod(BoundMethod):
    """Semidefinite (sum-of-squares) bounds on an interval, Bertsimas-Popescu.

    Options
    -------
    tol : float
        Clarabel gap and feasibility tolerance (default ``1e-9``; tighter values often end in
        "AlmostSolved" after many more iterations).
    max_iter : int
        Interior-point iteration cap (default 200).

    Example
    -------
    >>> from momentbound.bounds import MomentProblem, Support, Event, bound
    >>> r = bound(MomentProblem((1, 1, "5/4"), Support.interval(0, 5), Event.between(4, 5)), method="sdp")
    >>> round(r.upper * 37, 6), r.certified
    (1.0, True)
    """

    name = "sdp"
    kind = Kind.BOUND
    options = {"tol": 1e-9, "max_iter": 200, "solver": None}

    def _solve(self, problem: MomentProblem, **options: Any) -> BoundResult:
        tol, max_iter = tol_and_max_iter(options)
        solve = sos_dual
        solver_name = "clarabel"
        if options["solver"] is not None:
            from .formulations import check_solver, require_sdp_solver, solve_sos

            name = check_solver(options["solver"])
            require_sdp_solver(name, "the sum-of-squares program")
            solver_name = f"cvxpy:{name}"

            def solve(c: np.ndarray, spec: Any, *, tol: float, max_iter: int) -> SOSSolution:
                return solve_sos(c, spec, name, tol, max_iter)
        c = np.array([float(v) for v in problem.chebyshev_moments()])
        notes = []
        if problem.support.kind is SupportKind.REAL and problem.order % 2 == 1:
            # a polynomial bounded below on both half-lines has even degree: the top odd moment
            # cannot enter any certificate on the real line
            c = c[:-1]
            notes.append(f"real line: the odd moment of order {problem.order} cannot be used")
        pieces = unit_pieces(problem)
        sides: dict[str, tuple[Any, bool]] = {}
        statuses = []
        iters = 0
        for side in ("upper", "lower"):
            # lower bound: max c.y s.t. p <= 1_E  <=>  min c.q with q = -p, q >= -1_E
            sign = 1.0 if side == "upper" else -1.0
            spec = tuple((pc.a, pc.b, sign * pc.target) for pc in pieces)
            sol = solve(c, spec, tol=tol, max_iter=max_iter)
            if sol.solver_status not in _CLARABEL_OK:
                # looser tolerances often succeed near the boundary of the moment space; the
                # candidate is verified rigorously below either way
                retry = solve(c, spec, tol=min(tol * 1e3, 1e-6), max_iter=max_iter)
                iters += sol.iterations
                sol = retry if np.all(np.isfinite(retry.coefficients)) else sol
            statuses.append(sol.solver_status)
            iters += sol.iterations
            if not np.all(np.isfinite(sol.coefficients)) or (
                sol.solver_status not in _CLARABEL_OK and sol.solver_status not in _CANDIDATE_OK
            ):
                raise SolverFailed(
                    f"{'Clarabel' if solver_name == 'clarabel' else solver_name} returned {sol.solver_status} for the {side} bound of {problem.event} "
                    f"(order {problem.order}); the moments may be on the boundary of the moment space",
                    result=sol,
                )
            cand = np.array(sol.coefficients)
            cand[0] += MARGIN  # interior-point iterates are feasible only to ~tol
            sides[side] = certified_side(problem, side, sign * cand, "sdp")
        diag = Diagnostics(solver=solver_name, solver_status="/".join(statuses), iterations=iters, notes=tuple(notes))
        return assemble(problem, self.name, sides, diag)
