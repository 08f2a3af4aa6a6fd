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

from momentbound.errors import InvalidArgument, MomentboundError, SolverFailed
from momentbound.quiet import quiet_native_output

from .pieces import SOSSolution, UnitPiece, chebyshev_nodes, markov_lukacs_blocks, piece_variable, unit_pieces
from .problem import MomentProblem, SupportKind
from .registry import BoundMethod
from .result import BoundResult, Diagnostics, Kind, Status, round_down, round_up

__all__ = ["SDPMethod", "UnitPiece", "unit_pieces", "sos_dual"]

#: constant added to the solver's polynomial before verification (its feasibility is ~tol)
MARGIN = 1e-9
#: a solved side is confirmed when its verified value is this close to the solver's objective
CONFIRM_TOL = 1e-6


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


def piece_scale(m: int, a: float, b: float) -> float:
    """How large a polynomial with unit Chebyshev coefficients can get on ``[a, b]``: ``|T_m|``
    at the farther end (1 inside ``[-1, 1]``); the piece's rows and Gram matrices are divided by it."""
    if math.isinf(a) or math.isinf(b):
        return 1.0
    end = max(abs(a), abs(b))
    return 1.0 if end <= 1.0 else float(np.cosh(m * np.arccosh(end)))


@lru_cache(maxsize=256)
def _structure(m: int, pieces: tuple[tuple[float, float], ...]) -> tuple[Any, list[Any], int, list[int], list[int]]:
    """Constraint matrix and cones for the given degree and piece geometry (cached).

    The polynomial identity ``p - r = sum_i w_i s_i`` on each piece is imposed at ``m + 1``
    nodes of the piece (identity of polynomials of degree ``m``), which keeps every matrix
    entry bounded by a small constant however short the piece is.  On a piece outside
    ``[-1, 1]`` (a window variable, see :func:`window`) the identity is divided by
    :func:`piece_scale` ``sigma`` and the Gram matrices are ``sigma`` times the solver's
    variables, so every entry the solver sees stays of order one.
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
        sigma = piece_scale(m, *pieces[pi])
        block[:, : m + 1] = _cheb.chebvander(node_sets[pi], m) / sigma
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
# statuses in which the solver says it reached the optimum (at reduced accuracy for the "almost" ones)
_SOLVED = {"Solved", "AlmostSolved", "optimal", "optimal_inaccurate"}
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
        rhs.append(np.full(m + 1, float(pieces[pi][2]) / piece_scale(m, *geometry[pi])))
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


#: a law whose support reaches farther than this many standard deviations from its mean is
#: solved in a window variable (see :func:`window`)
WINDOW_REACH = 12
#: half-width of the window, in standard deviations
WINDOW_SDS = 8
#: half-widths tried for a concentrated law, in standard deviations (each side keeps its tightest
#: verified certificate: measured on 30 random concentrated grid problems, no single width is best)
WINDOW_TRIES = (5, 8, 4)


def windows(problem: MomentProblem, *, spread_too: bool = False) -> list[tuple[Fraction, Fraction]]:
    """The window variables tried: ``[(0, 1)]`` for a spread law; for a concentrated one (see
    :func:`window`) the windows of ``WINDOW_TRIES`` standard deviations about the mean.  With
    ``spread_too`` a spread law (bounded support, positive variance) gets only those windows
    that lie inside the support (none on unbounded supports)."""
    c, h = window(problem)
    if (c, h) != (0, 1):
        sd = h / Fraction(WINDOW_SDS)
        return [(c, (k * sd).limit_denominator(1 << 30)) for k in WINDOW_TRIES]
    if not spread_too:
        return [(c, h)]
    if not problem.support.is_bounded:
        return []
    _, mu = problem.affine_to_unit()
    if len(mu) < 3 or mu[2] - mu[1] ** 2 <= 0:
        return []
    sd = Fraction(math.sqrt(float(mu[2] - mu[1] ** 2))).limit_denominator(1 << 30)
    centre = Fraction(float(mu[1])).limit_denominator(1 << 30)
    return [(centre, k * sd) for k in WINDOW_TRIES if abs(centre) + k * sd < 1]


def window(problem: MomentProblem) -> tuple[Fraction, Fraction]:
    """Centre ``c`` and half-width ``h`` of the variable ``t = (u - c) / h`` the SOS program is written in.

    ``(0, 1)`` (``t = u``) unless the support is bounded and reaches more than
    :data:`WINDOW_REACH` standard deviations from the mean: then ``t`` maps
    ``mean +- WINDOW_SDS sd`` onto ``[-1, 1]``.  In ``u`` the Chebyshev moments of such a law
    differ from a point mass's only far down the digits and the optimal polynomial's
    coefficients are huge (``1e7`` for 8 moments of binomial(200, 0.3)); in ``t`` the objective
    has no cancellation, and the pieces far outside ``[-1, 1]`` are split and scaled
    (:func:`piece_scale`).
    """
    _, mu = problem.affine_to_unit()
    if not problem.support.is_bounded or len(mu) < 3:
        return Fraction(0), Fraction(1)
    var = mu[2] - mu[1] ** 2
    if var <= 0:
        return Fraction(0), Fraction(1)
    sd = math.sqrt(float(var))
    if max(abs(-1 - float(mu[1])), abs(1 - float(mu[1]))) <= WINDOW_REACH * sd:
        return Fraction(0), Fraction(1)
    return Fraction(float(mu[1])).limit_denominator(1 << 30), Fraction(WINDOW_SDS * sd).limit_denominator(1 << 30)


def window_moments(problem: MomentProblem, c: Fraction, h: Fraction) -> tuple[Fraction, ...]:
    """Exact Chebyshev moments ``E[T_k(t)]`` of ``t = (u - c) / h``."""
    from .basis import monomial_to_chebyshev_moments

    if (c, h) == (0, 1):
        return problem.chebyshev_moments()
    _, mu = problem.affine_to_unit()
    raw = [sum((math.comb(k, j) * (-c) ** (k - j) * mu[j] for j in range(k + 1)), Fraction(0)) / h**k
           for k in range(len(mu))]
    return monomial_to_chebyshev_moments(raw)


def window_pieces(pieces: tuple[UnitPiece, ...], c: Fraction, h: Fraction) -> list[tuple[float, float, int]]:
    """The pieces in ``t``, cut at ``t = +-1, +-2, +-4, ...`` (each part gets its own scale)."""
    if (c, h) == (0, 1):
        return [(pc.a, pc.b, pc.target) for pc in pieces]
    cf, hf = float(c), float(h)
    out = []
    for pc in pieces:
        a = pc.a if math.isinf(pc.a) else (pc.a - cf) / hf
        b = pc.b if math.isinf(pc.b) else (pc.b - cf) / hf
        if a == b or math.isinf(a) or math.isinf(b):
            out.append((a, b, pc.target))
            continue
        cuts = sorted({sgn * 2.0**j for j in range(64) for sgn in (-1.0, 1.0) if a < sgn * 2.0**j < b})
        ends = [a, *cuts, b]
        out.extend((lo, hi, pc.target) for lo, hi in zip(ends[:-1], ends[1:]))
    return out


def window_to_u(coefficients: np.ndarray | tuple[float, ...], c: Fraction, h: Fraction) -> list[Fraction]:
    """Exact monomial coefficients in ``u`` of ``sum_k y_k T_k((u - c) / h)`` (floats taken exactly)."""
    import flint

    from momentbound.rational import to_fmpq

    from .basis import chebyshev_to_monomial_coeffs

    mono = chebyshev_to_monomial_coeffs([float(v) for v in coefficients])
    t = flint.fmpq_poly([to_fmpq(-c / h), to_fmpq(1 / h)])
    acc = flint.fmpq_poly([0])
    for coef in reversed(mono):
        acc = acc * t + flint.fmpq_poly([to_fmpq(coef)])
    out = [Fraction(int(v.p), int(v.q)) for v in acc.coeffs()] or [Fraction(0)]
    return out + [Fraction(0)] * (len(mono) - len(out))


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
    candidate: np.ndarray | tuple[float, ...] | list[Fraction],
    how: str,
    *,
    basis: str = "chebyshev",
) -> tuple[Any, bool]:
    """Verify (and if needed shift) a candidate dual polynomial with the shared verifier.

    The candidate is checked as is; if its minimum slack ``-delta`` is negative, the
    constant term is moved by ``delta`` plus a margin (the rigorous interval lower bound on a
    continuum carries a tiny enclosure error) and checked again, at most a few times.
    Returns ``(certificate, shifted)``.
    """
    from .certificate import certify

    coeffs = [v if isinstance(v, Fraction) else Fraction(float(v)) for v in candidate]
    cert, _ = certify(coeffs, side, problem, basis=basis, allow_shift=False, how_prefix=how)
    # on an unbounded piece a top coefficient of the wrong sign (solver noise) makes the slack
    # unbounded below (the verifier's -1e30): drop such negligible top terms, then shift
    scale = max((abs(float(v)) for v in coeffs), default=1.0)
    while not cert.verified and cert.min_slack <= -1e29 and len(coeffs) > 1 and abs(float(coeffs[-1])) <= 1e-7 * max(1.0, scale):
        coeffs.pop()
        cert, _ = certify(coeffs, side, problem, basis=basis, allow_shift=False, how_prefix=how)
    shifted = False
    attempt = 0
    while not cert.verified and cert.min_slack > -1e29 and attempt < 4:
        delta = -Fraction(cert.min_slack) if cert.min_slack < 0 else Fraction(0)
        margin = delta * Fraction(1, 1000) + Fraction(1, 10**40) * 10 ** (10 * attempt)
        step = delta + margin
        coeffs[0] = coeffs[0] + step if side == "upper" else coeffs[0] - step
        cert, _ = certify(coeffs, side, problem, basis=basis, allow_shift=False, how_prefix=how)
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
    solved: dict[str, bool] | None = None,
) -> BoundResult:
    """Build the :class:`BoundResult` from verified upper/lower certificates.

    Unverified sides are reported as the trivial bound (0 or 1) and lower the status to
    UNVERIFIED; a shifted certificate lowers it to SHIFTED.  ``solved[side]`` says whether
    the numerical solver reported success for that side: a side whose solve failed and whose
    verified value is only the trivial bound (upper ``>= 1``, lower ``<= 0``) is a failure,
    and the result's status is FAILED (not proven: the method found nothing), whatever its
    certificate says.
    """
    upper_cert, up_shift = side_results["upper"]
    lower_cert, lo_shift = side_results["lower"]
    notes = list(diagnostics.notes)
    verified = upper_cert.verified and lower_cert.verified
    solved = solved or {}
    # a trivial side is still the answer when the other side meets it ([0, 0] or [1, 1] is sharp)
    up_is_0 = upper_cert.verified and upper_cert.value <= 0
    lo_is_1 = lower_cert.verified and lower_cert.value >= 1
    failed_sides = [
        side
        for side, cert, trivial in (("upper", upper_cert, lambda v: v >= 1 and not lo_is_1),
                                    ("lower", lower_cert, lambda v: v <= 0 and not up_is_0))
        if not solved.get(side, True) and (not cert.verified or trivial(cert.value))
    ]
    if failed_sides:
        status = Status.FAILED
        notes.append(
            " and ".join(failed_sides) + " solve failed ("
            + (diagnostics.solver_status or "no solver status")
            + "); only the trivial bound is proven there"
        )
    elif verified:
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
        # the cvxpy route keeps the plain scaled variable (its program is formulations.sos_program)
        frames = windows(problem) if options["solver"] is None else [(Fraction(0), Fraction(1))]
        if frames == [(0, 1)] and options["solver"] is None:
            # a spread law: the windows that fit inside the support as well ("Solved" in u can
            # still be 6e-4 short of the optimum, measured against an exact reference)
            frames += windows(problem, spread_too=True)
        notes: list[str] = []
        if problem.support.kind is SupportKind.REAL and problem.order % 2 == 1:
            # a polynomial bounded below on both half-lines has even degree: the top odd moment
            # cannot enter any certificate on the real line
            notes.append(f"real line: the odd moment of order {problem.order} cannot be used")
        pieces = unit_pieces(problem)
        sides: dict[str, tuple[Any, bool]] = {}
        solved: dict[str, bool] = {}
        statuses = []
        iters = 0
        for side in ("upper", "lower"):
            # lower bound: max c.y s.t. p <= 1_E  <=>  min c.q with q = -p, q >= -1_E
            sign = 1.0 if side == "upper" else -1.0
            best: tuple[Any, ...] | None = None  # (certificate pair, status, solved, note)
            failure: tuple[str, Any] | None = None
            tries = list(frames)
            for wc, wh in tries:
                c = np.array([float(v) for v in window_moments(problem, wc, wh)])
                if problem.support.kind is SupportKind.REAL and problem.order % 2 == 1:
                    c = c[:-1]
                spec = tuple((a, b, sign * target) for a, b, target in window_pieces(pieces, wc, wh))
                sol = solve(c, spec, tol=tol, max_iter=max_iter)
                if sol.solver_status not in _CLARABEL_OK:
                    # looser tolerances often succeed near the boundary of the moment space; the
                    # candidate is verified rigorously below either way
                    retry = solve(c, spec, tol=min(tol * 1e3, 1e-6), max_iter=max_iter)
                    iters += sol.iterations
                    sol = retry if np.all(np.isfinite(retry.coefficients)) else sol
                iters += sol.iterations
                if not np.all(np.isfinite(sol.coefficients)) or (
                    sol.solver_status not in _CLARABEL_OK and sol.solver_status not in _CANDIDATE_OK
                ):
                    failure = (sol.solver_status, sol)
                    continue
                cand = np.array(sol.coefficients)
                cand[0] += MARGIN  # interior-point iterates are feasible only to ~tol
                if (wc, wh) == (0, 1):
                    pair = certified_side(problem, side, sign * cand, "sdp")
                else:
                    pair = certified_side(problem, side, window_to_u(sign * cand, wc, wh), "sdp", basis="monomial")
                cert = pair[0]
                status = sol.solver_status
                ok = status in _SOLVED
                note = ""
                # compared as reported, inside [0, 1]: a solver optimum of 1 (upper) or 0 (lower) is
                # the sharp answer when the trivial bound is the best there is (P[X <= mean])
                gap = (abs(min(1.0, max(0.0, float(cert.value))) - min(1.0, max(0.0, sign * sol.objective)))
                       if cert.verified and math.isfinite(sol.objective) else math.inf)
                if ok and cert.verified and gap > CONFIRM_TOL:
                    # the solver's optimum is not what its verified certificate proves
                    ok, status = False, status + "(unconfirmed)"
                    note = f"{side}: the verified bound is {gap:.2g} from the solver's optimum {sign * sol.objective:.6g}"
                if (wc, wh) != (0, 1):
                    status += f"[t=(u-{float(wc):.4g})/{float(wh):.4g}]"
                better = best is None or (cert.verified and (not best[0][0].verified or (
                    cert.value < best[0][0].value if side == "upper" else cert.value > best[0][0].value)))
                if better:
                    best = (pair, status, ok, note)
            if best is None:
                assert failure is not None
                raise SolverFailed(
                    f"{'Clarabel' if solver_name == 'clarabel' else solver_name} returned {failure[0]} for the {side} bound of {problem.event} "
                    f"(order {problem.order}); the moments may be on the boundary of the moment space",
                    result=failure[1],
                )
            sides[side], status, solved[side], note = best
            statuses.append(status)
            if note:
                notes.append(note)
        if any("[t=" in st for st in statuses) or len(frames) > 1:
            notes.append("solved in window variables t = (u - c) / h as well; the tightest verified certificate kept")
        diag = Diagnostics(solver=solver_name, solver_status="/".join(statuses), iterations=iters, notes=tuple(notes))
        result = assemble(problem, self.name, sides, diag, solved=solved)
        if all(st.split("[")[0] in ("Solved", "optimal") for st in statuses) or result.status is Status.FAILED:
            return result
        return _with_gap(problem, result)


def _with_gap(problem: MomentProblem, result: BoundResult) -> BoundResult:
    """Attach a rigorous bound on the distance to the program's optimum when the solver did not
    reach it to full accuracy: on a discrete support the sharp LP bound (status OPTIMAL, exact)
    can only be tighter than the relaxation's optimum, so the distance to it bounds the gap."""
    from dataclasses import replace

    from .lp import LPMethod

    if problem.support.kind not in (SupportKind.GRID, SupportKind.FINITE) or result.exact_upper is None or result.exact_lower is None:
        return result
    try:
        sharp = LPMethod().solve(problem)
    except MomentboundError:  # no measurement; the result stands as it is
        return result
    if sharp.status is not Status.OPTIMAL or sharp.exact_upper is None or sharp.exact_lower is None:
        return result
    gap = float(max(result.exact_upper - sharp.exact_upper, sharp.exact_lower - result.exact_lower, 0))
    note = (f"the solver did not reach the program's optimum to full accuracy: the bounds are within {gap:.3g} of it "
            "at most (their distance to the sharp discrete bound)")
    diag = replace(result.diagnostics, optimality_gap=gap, notes=result.diagnostics.notes + (note,))
    return replace(result, diagnostics=diag, message=result.message + "; " + note)
