"""Tests of the exchange (sqp) and descent (gd, gdts) methods.

Witnesses: closed forms (docs/mathematics.md, section 'Closed-form bounds': the sums-of-squares
example and the small exact instance), the exact rational LP on small grids
(solved here independently by enumerating vertices of the tiny primal LP with exact
Fractions), exact sums of random pmfs, and the exact binomial cdf.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound.bounds import Event, MomentProblem, Status, Support, bound
from momentbound.bounds.gd import dual_descent, feasible_constant
from momentbound.bounds.sdp import UnitPiece
from momentbound.bounds.sqp import critical_points, exchange_dual, piece_candidates
from momentbound.errors import InvalidArgument


def moments_of(pmf: list[tuple[F, F]], order: int) -> tuple[F, ...]:
    return tuple(sum((p * x**k for x, p in pmf), F(0)) for k in range(order + 1))


def prob(pmf: list[tuple[F, F]], event: Event) -> F:
    return sum((p for x, p in pmf if event.indicator(x)), F(0))


def solve_exact(A: list[list[F]], b: list[F]) -> list[F] | None:
    """Gauss-Jordan on Fractions; None if singular."""
    n = len(A)
    M = [row[:] + [bi] for row, bi in zip(A, b)]
    for col in range(n):
        piv = next((r for r in range(col, n) if M[r][col] != 0), None)
        if piv is None:
            return None
        M[col], M[piv] = M[piv], M[col]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col] / M[col][col]
                M[r] = [x - f * y for x, y in zip(M[r], M[col])]
    return [M[i][n] / M[i][i] for i in range(n)]


def sharp_grid_bounds(points: list[int], mom: tuple[F, ...], event: Event) -> tuple[F, F]:
    """Exact sharp bounds by enumerating the basic feasible solutions of the primal LP
    (every choice of m + 1 support points): tiny supports only."""
    m = len(mom) - 1
    best_lo, best_hi = None, None
    for basis in itertools.combinations(points, m + 1):
        A = [[F(x) ** k for x in basis] for k in range(m + 1)]
        q = solve_exact(A, list(mom))
        if q is None or any(v < 0 for v in q):
            continue
        val = sum((qi for qi, x in zip(q, basis) if event.indicator(x)), F(0))
        best_lo = val if best_lo is None else min(best_lo, val)
        best_hi = val if best_hi is None else max(best_hi, val)
    assert best_lo is not None and best_hi is not None
    return best_lo, best_hi


METHODS = ("sqp", "gd", "gdts")
OPTS = {"sqp": {}, "gd": {}, "gdts": {"rng": 7, "rounds": 1, "neighbours": 2, "max_iter": 40}}


@pytest.mark.parametrize("method", METHODS)
def test_small_exact_instance(method: str) -> None:
    """docs/mathematics.md, section 'Closed-form bounds': [0, 1/3] with two moments, [1/20, 4/15] with three."""
    r2 = bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), method=method, **OPTS[method])
    r3 = bound(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)), method=method, **OPTS[method])
    assert r2.certified and r3.certified
    assert r2.exact_lower <= 0 and r2.exact_upper >= F(1, 3)
    assert r3.exact_lower <= F(1, 20) and r3.exact_upper >= F(4, 15)
    if method == "sqp":  # the exchange method reaches the sharp discrete bound
        assert r2.upper == pytest.approx(1 / 3, abs=1e-8)
        assert (r3.lower, r3.upper) == pytest.approx((1 / 20, 4 / 15), abs=1e-8)
    assert r3.status in (Status.VALID, Status.SHIFTED)


@pytest.mark.parametrize("method", METHODS)
def test_sostools_example(method: str) -> None:
    r = bound(MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5)), method=method, **OPTS[method])
    assert r.certified and r.exact_upper >= F(1, 37)
    tol = 1e-8 if method == "sqp" else 1e-3
    assert r.upper == pytest.approx(1 / 37, abs=tol)


@pytest.mark.parametrize("seed", range(5))
def test_sqp_equals_exact_sharp_lp(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    pts = list(range(0, int(rng.integers(5, 9))))
    w = rng.integers(1, 10, size=len(pts))
    pmf = [(F(x), F(int(wi), int(w.sum()))) for x, wi in zip(pts, w)]
    order = int(rng.integers(2, 4))
    event = Event.ge(int(rng.integers(1, len(pts))))
    mom = moments_of(pmf, order)
    lo, hi = sharp_grid_bounds(pts, mom, event)
    r = bound(MomentProblem(mom, Support.grid(pts[0], pts[-1]), event), method="sqp")
    assert r.exact_lower <= lo and r.exact_upper >= hi  # valid
    assert float(r.exact_lower) == pytest.approx(float(lo), abs=1e-8)  # and sharp
    assert float(r.exact_upper) == pytest.approx(float(hi), abs=1e-8)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(3))
def test_random_pmfs_contain_truth(method: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    lo, hi = -int(rng.integers(1, 6)), int(rng.integers(1, 8))
    xs = list(range(lo, hi + 1))
    w = rng.integers(0, 20, size=len(xs)) + 1
    pmf = [(F(x), F(int(wi), int(w.sum()))) for x, wi in zip(xs, w)]
    order = int(rng.integers(2, 6))
    for event in (Event.gt(0), Event.lt(1)):
        r = bound(MomentProblem(moments_of(pmf, order), Support.grid(lo, hi), event), method=method, **OPTS[method])
        truth = prob(pmf, event)
        assert r.certified and r.exact_lower <= truth <= r.exact_upper


@pytest.mark.parametrize("method", METHODS)
def test_finite_support_contains_truth(method: str) -> None:
    pmf = [(F(-2), F(1, 4)), (F(0), F(1, 4)), (F(1, 2), F(1, 4)), (F(3), F(1, 4))]
    p = MomentProblem(moments_of(pmf, 3), Support.finite([-2, 0, F(1, 2), 3]), Event.gt(0))
    r = bound(p, method=method, **OPTS[method])
    assert r.certified and r.exact_lower <= F(1, 2) <= r.exact_upper
    if method == "sqp":
        lo, hi = r.exact_lower, r.exact_upper
        assert float(hi - lo) < 1e-8  # four atoms, three moments: the law is determined


def test_sqp_binomial_16_moments() -> None:
    pmf = [(F(k), F(math.comb(40, k)) * F(3, 10) ** k * F(7, 10) ** (40 - k)) for k in range(41)]
    event = Event.le(12)
    truth = prob(pmf, event)
    r = bound(MomentProblem(moments_of(pmf, 16), Support.grid(0, 40), event), method="sqp")
    assert r.certified and r.exact_lower <= truth <= r.exact_upper
    sdp = bound(MomentProblem(moments_of(pmf, 16), Support.grid(0, 40), event), method="sdp")
    # the discrete semi-infinite bound is never looser than the interval relaxation
    assert r.upper <= sdp.upper + 1e-7 and r.lower >= sdp.lower - 1e-7


def test_gdts_never_worse_than_gd_and_reproducible() -> None:
    pmf = [(F(k), F(math.comb(12, k), 2**12)) for k in range(13)]
    p = MomentProblem(moments_of(pmf, 4), Support.grid(0, 12), Event.ge(9))
    gd = bound(p, method="gd")
    a = bound(p, method="gdts", rng=np.random.default_rng(3), rounds=1, neighbours=2, max_iter=30)
    b = bound(p, method="gdts", rng=np.random.default_rng(3), rounds=1, neighbours=2, max_iter=30)
    assert a.upper <= gd.upper + 1e-12 and a.lower >= gd.lower - 1e-12
    assert (a.lower, a.upper) == (b.lower, b.upper)
    truth = prob(pmf, Event.ge(9))
    assert a.exact_lower <= truth <= a.exact_upper


# ----------------------------------------------------------------------------- internals
def test_piece_candidates_roots_and_grid() -> None:
    # T_2 = 2u^2 - 1 has its minimum at 0; on a grid of step 0.3 from -0.9 the neighbours are 0 -/+ 0.15
    cont = piece_candidates(np.array([0.0, 0.0, 1.0]), UnitPiece(-1.0, 1.0, 0))
    assert sorted(cont.tolist()) == [-1.0, 0.0, 1.0]
    grid = piece_candidates(np.array([0.0, 0.0, 1.0]), UnitPiece(-0.9, 0.9, 0, step=0.3))
    k = (grid + 0.9) / 0.3
    assert np.allclose(k, np.round(k))  # every candidate is a grid point
    assert np.min(np.abs(grid)) < 1e-12 and len(grid) == 4  # ends + the two neighbours of 0
    assert critical_points(np.array([1.0])).size == 0


def test_exchange_and_descent_agree_on_oracle() -> None:
    c = np.array([1.0, -0.6, -0.2])
    pieces = (UnitPiece(-1.0, 0.6, 0), UnitPiece(0.6, 1.0, 1))
    ex = exchange_dual(c, pieces, (0.0, 1.0))
    de = dual_descent(c, pieces, (0.0, 1.0))
    assert ex.converged and ex.objective == pytest.approx(1 / 37, abs=1e-9)
    assert de.objective >= ex.objective - 1e-9
    y0, _, need = feasible_constant(np.array(de.coefficients), pieces, (0.0, 1.0))
    assert y0 == pytest.approx(de.coefficients[0]) and need.max() == pytest.approx(y0)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("method", METHODS)
def test_real_line_not_applicable(method: str) -> None:
    p = MomentProblem((1, 0, 1), Support.real(), Event.gt(0))
    with pytest.raises(InvalidArgument, match="needs a bounded support"):
        bound(p, method=method)


def test_bad_options() -> None:
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(InvalidArgument, match="tol must be in"):
        bound(p, method="sqp", tol=1.0)
    with pytest.raises(InvalidArgument, match="max_iter must be a positive integer"):
        bound(p, method="sqp", max_iter=0)
    with pytest.raises(InvalidArgument, match="max_iter must be a positive integer"):
        bound(p, method="gd", max_iter=-3)
    with pytest.raises(InvalidArgument, match="rng must be a numpy.random.Generator"):
        bound(p, method="gdts", rng="seed")
    with pytest.raises(InvalidArgument, match="radius must be positive"):
        bound(p, method="gdts", radius=0.0)
    with pytest.raises(InvalidArgument, match="rounds must be a positive integer"):
        bound(p, method="gdts", rounds=1.5)


def test_gd_concentrated_law_makes_progress() -> None:
    """Z at N = 1000 lives within +-0.02 of 0 in the scaled variable: from q = 0 GD finds no
    descent direction; the quadratic start gives a non-trivial, valid bound (never below sqp's)."""
    from momentbound.studies.method_comparison import table4_problem
    from momentbound.bounds.gd import quadratic_start
    from momentbound.bounds.pieces import discrete_pieces

    problem, _ = table4_problem(1000, 6)
    gd = bound(problem, method="gd")
    sqp = bound(problem, method="sqp")
    assert gd.certified and sqp.certified
    assert gd.upper < 0.95 and gd.lower > 0.05
    assert gd.upper >= sqp.upper - 1e-9 and gd.lower <= sqp.lower + 1e-9
    c = np.array([float(v) for v in problem.chebyshev_moments()])
    pieces = discrete_pieces(problem)
    zero_start = dual_descent(c, pieces, tuple(float(p.target) for p in pieces))
    assert zero_start.objective == pytest.approx(1.0)  # stuck without the start
    assert quadratic_start(c, pieces, (0.0, 0.0)) is None  # no boundary to start from


def test_sqp_twelve_moments_of_z_at_N100() -> None:
    """12 moments of Z_x at N = 100 (a concentrated law: the large coefficient box makes
    HiGHS fail, the exchange restarts from a small box); valid against the exact law."""
    from momentbound.studies.method_comparison import table4_problem
    from momentbound.exact import prob_z_positive
    from momentbound.model import equal_cells_model

    problem, _ = table4_problem(100, 12)
    r = bound(problem, method="sqp")
    truth = float(prob_z_positive(equal_cells_model((2, 2)), 100, (0, 0)).positive)
    assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12
    assert r.width < 0.6
