"""Tests of joint-event bounds (bounds/joint.py).

Witnesses: exact joint probabilities of two naive Bayes statistics by brute-force
enumeration of count tables, independent laws with a closed-form joint probability, the
Frechet inequalities on hand-made inputs, and dense evaluation for the bivariate verifier.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from momentbound.bounds import Event, Kind, MomentProblem, Status, Support, bound
from momentbound.bounds.joint import (
    JointBox,
    bird_bound,
    chebyshev_joint_moments,
    frechet_bounds,
    joint_sdp,
    verify_bivariate,
)
from momentbound.bounds.result import BoundResult
from momentbound.errors import DegreeCapExceeded, InvalidArgument
from momentbound.model import CellModel, equal_cells_model
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.moments.core import joint_moments
from momentbound.model.enumeration import count_tables, multinomial_pmf


def joint_truth(model, zx, zy, N: int) -> F:  # type: ignore[no-untyped-def]
    return sum(
        (multinomial_pmf(c, model.cells) for c in count_tables(model.n_cells, N) if zx.evaluate(c) > 0 and zy.evaluate(c) > 0),
        F(0),
    )


def uniform_table(lo: int, hi: int, n: int) -> list[list[F]]:
    pts = range(lo, hi + 1)
    mx = [sum((F(x) ** k for x in pts), F(0)) / len(pts) for k in range(n + 1)]
    return [[mx[i] * mx[j] for j in range(n + 1)] for i in range(n + 1)]


def test_independent_uniform_contains_and_tightens() -> None:
    table = uniform_table(-2, 2, 4)
    r1 = joint_sdp(table, (-2, 2), (-2, 2), degree=1)
    r2 = joint_sdp(table, (-2, 2), (-2, 2), degree=2)
    for r in (r1, r2):
        assert r.certified and r.kind is Kind.BOUND
        assert r.exact_lower <= F(4, 25) <= r.exact_upper
    assert r2.width < r1.width


def test_naive_bayes_pair_against_enumeration() -> None:
    model = equal_cells_model((2, 2))
    zx, zy = naive_bayes_statistic(model, (0, 0)), naive_bayes_statistic(model, (0, 1))
    N = 5
    truth = joint_truth(model, zx, zy, N)
    jm = joint_moments(zx, zy, model, N, 4, 4)
    r = joint_sdp(jm.values, zx.support(N), zy.support(N), degree=2)
    assert r.certified and r.status in (Status.VALID, Status.SHIFTED)
    assert r.exact_lower <= truth <= r.exact_upper
    assert r.upper < 0.9  # informative
    # Frechet from the certified single-event bounds with the same moment order
    singles = []
    for z in (zx, zy):
        mom = tuple(jm.values[i][0] for i in range(5)) if z is zx else tuple(jm.values[0][j] for j in range(5))
        lo, hi = z.support(N)
        singles.append(bound(MomentProblem(mom, Support.grid(lo, hi), Event.gt(0)), method="sdp"))
    fr = frechet_bounds(*singles)
    assert fr.certified and fr.exact_lower <= truth <= fr.exact_upper
    assert fr.method == "frechet(sdp,sdp)"


def test_frechet_formula() -> None:
    def res(lo: F, hi: F, certified: bool = True) -> BoundResult:
        return BoundResult(float(lo), float(hi), "m", Kind.BOUND, Status.VALID if certified else Status.UNVERIFIED, certified=certified, exact_lower=lo, exact_upper=hi)

    r = frechet_bounds(res(F(6, 10), F(8, 10)), res(F(7, 10), F(9, 10)))
    assert (r.exact_lower, r.exact_upper) == (F(3, 10), F(8, 10))
    r = frechet_bounds(res(F(1, 10), F(2, 10)), res(F(3, 10), F(9, 10)))
    assert (r.exact_lower, r.exact_upper) == (F(0), F(2, 10))
    u = frechet_bounds(res(F(1, 10), F(2, 10), certified=False), res(F(3, 10), F(9, 10)))
    assert not u.certified and u.status is Status.UNVERIFIED
    with pytest.raises(InvalidArgument, match="result_x must be a BoundResult"):
        frechet_bounds("x", r)  # type: ignore[arg-type]


@pytest.mark.parametrize("N", [3, 4])
def test_bird_bound_against_enumeration(N: int) -> None:
    model = equal_cells_model((2,))
    z0, z1 = naive_bayes_statistic(model, (0,)), naive_bayes_statistic(model, (1,))
    truth = joint_truth(model, z0, z1, N)
    for order in (2, 4):
        r = bird_bound(z0, z1, model, N, order)
        assert r.certified and r.exact_lower <= truth <= r.exact_upper
        assert r.method.startswith("bird+")
    r4 = bird_bound(z0, z1, model, N, 4, method="sqp")
    assert r4.exact_lower <= truth <= r4.exact_upper


def test_bird_degree_cap() -> None:
    model = equal_cells_model((2, 2))
    zx, zy = naive_bayes_statistic(model, (0, 0)), naive_bayes_statistic(model, (1, 1))
    with pytest.raises(DegreeCapExceeded, match="degree_cap"):
        bird_bound(zx, zy, model, 30, 6, degree_cap=20)


def test_chebyshev_joint_moments_exact() -> None:
    table = uniform_table(0, 4, 2)
    cm = chebyshev_joint_moments(table, (0, 4), (0, 4), 2)
    # u = (X - 2) / 2 uniform on {-1, -1/2, 0, 1/2, 1}: E[u] = 0, E[T_2(u)] = 2 E[u^2] - 1 = 0
    assert cm[(0, 0)] == 1 and cm[(1, 0)] == 0 and cm[(0, 1)] == 0
    assert cm[(2, 0)] == 0 and cm[(1, 1)] == 0
    # X uniform on {0, 1, 2} scaled by the range (0, 4): u in {-1, -1/2, 0}
    cm2 = chebyshev_joint_moments(uniform_table(0, 2, 2), (0, 4), (0, 4), 2)
    assert cm2[(1, 0)] == F(-1, 2) and cm2[(1, 1)] == F(1, 4)
    assert cm2[(2, 0)] == F(-1, 6)  # 2 E[u^2] - 1 with E[u^2] = (1 + 1/4) / 3
    with pytest.raises(InvalidArgument, match="must cover"):
        chebyshev_joint_moments(table, (0, 4), (0, 4), 4)
    bad = [[F(2), F(0)], [F(0), F(0)]]
    with pytest.raises(InvalidArgument, match="= 1"):
        chebyshev_joint_moments(bad, (0, 4), (0, 4), 1)


def test_verify_bivariate_is_a_lower_bound() -> None:
    rng = np.random.default_rng(0)
    for _ in range(5):
        coef = rng.normal(size=(4, 4)) / 4
        box = JointBox(-0.3, 1.0, -1.0, 0.2, 0)
        lb = verify_bivariate(coef, [box], [0], points=200)
        us, vs = np.linspace(-0.3, 1.0, 2001), np.linspace(-1.0, 0.2, 2001)
        dense = np.polynomial.chebyshev.chebvander(us, 3) @ coef @ np.polynomial.chebyshev.chebvander(vs, 3).T
        assert lb <= dense.min() + 1e-12
        assert lb >= dense.min() - 0.05  # and not absurdly loose


def test_joint_sdp_errors() -> None:
    table = uniform_table(-2, 2, 4)
    with pytest.raises(InvalidArgument, match="support_x must be an integer range"):
        joint_sdp(table, (2, -2), (-2, 2))
    with pytest.raises(InvalidArgument, match="degree must be a positive integer"):
        joint_sdp(table, (-2, 2), (-2, 2), degree=0)
    with pytest.raises(InvalidArgument, match="points must be an integer"):
        joint_sdp(table, (-2, 2), (-2, 2), points=3)
    with pytest.raises(InvalidArgument, match="must cover"):
        joint_sdp(table, (-2, 2), (-2, 2), degree=3)


def test_empty_event_box() -> None:
    table = uniform_table(-2, 0, 2)  # X <= 0 always: P[X > 0, Y > 0] = 0
    r = joint_sdp(table, (-2, 0), (-2, 0), degree=1)
    assert r.exact_upper == 0 and r.certified


@pytest.mark.parametrize("signs", [(1, 1), (1, -1), (-1, -1)])
def test_naive_bayes_joint_bounds_all_routes(signs: tuple[int, int]) -> None:
    from momentbound.probability.naive_bayes_joint import naive_bayes_joint_bounds

    model = CellModel((2,), ["1/5", "3/10", "3/10", "1/5"])
    N = 4
    z1, z2 = naive_bayes_statistic(model, (0,)), naive_bayes_statistic(model, (1,))
    truth = sum(
        (
            multinomial_pmf(c, model.cells)
            for c in count_tables(model.n_cells, N)
            if signs[0] * z1.evaluate(c) > 0 and signs[1] * z2.evaluate(c) > 0
        ),
        F(0),
    )
    for method in ("joint-sdp", "frechet", "bird"):
        r = naive_bayes_joint_bounds(model, N, (0,), (1,), signs=signs, method=method, degree=2)
        assert r.certified, method
        assert r.exact_lower <= truth <= r.exact_upper, (method, r.lower, float(truth), r.upper)


def test_naive_bayes_joint_bounds_errors() -> None:
    from momentbound.probability.naive_bayes_joint import naive_bayes_joint_bounds

    model = equal_cells_model((2,))
    with pytest.raises(InvalidArgument, match="method must be one of"):
        naive_bayes_joint_bounds(model, 4, (0,), (1,), method="copula")
    with pytest.raises(InvalidArgument, match="signs must be a pair"):
        naive_bayes_joint_bounds(model, 4, (0,), (1,), signs=(1, 0))
    with pytest.raises(InvalidArgument, match="degree must be a positive integer"):
        naive_bayes_joint_bounds(model, 4, (0,), (1,), degree=0)
