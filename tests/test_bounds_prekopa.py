"""Prekopa's dual method: agreement with the sharp LP and the Boros-Prekopa closed forms."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from momentbound.bounds import (
    Event,
    MomentProblem,
    Status,
    Support,
    available_methods,
    bound,
    verify_polynomial_dominates,
)
from momentbound.bounds.certificate import slack_minimum
from momentbound.bounds.prekopa import DualSimplex, structured_start_basis
from momentbound.errors import InvalidArgument

from test_bounds_lp import brute_force_lp, check_certificates, moments_of


@st.composite
def tail_problems(draw, max_n=9, max_order=5):
    n = draw(st.integers(3, max_n))
    weights = draw(st.lists(st.integers(0, 9), min_size=n + 1, max_size=n + 1).filter(lambda w: sum(w) > 0))
    tot = sum(weights)
    pmf = [(x, F(w, tot)) for x, w in enumerate(weights) if w]
    order = draw(st.integers(1, min(max_order, n)))
    kind = draw(st.sampled_from(["gt", "ge", "lt", "le"]))
    t = draw(st.integers(-1, n + 1))
    ev = {"gt": Event.gt, "ge": Event.ge, "lt": Event.lt, "le": Event.le}[kind](t)
    return n, pmf, order, ev


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(tail_problems())
def test_prekopa_equals_brute_force_and_lp(case):
    n, pmf, order, ev = case
    prob = MomentProblem(moments_of(pmf, order), Support.grid(0, n), ev)
    truth = sum(q for x, q in pmf if ev.indicator(x))
    assume("prekopa" in available_methods(prob))
    # the structured start (pairs next to the threshold) exercises the dual simplex pivots
    r = bound(prob, "prekopa", start="structured")
    assert r.status is Status.OPTIMAL and r.certified
    assert (r.exact_lower, r.exact_upper) == brute_force_lp(range(n + 1), prob.moments, ev)
    assert r.exact_lower <= truth <= r.exact_upper
    r = bound(prob, "prekopa")
    assert r.status is Status.OPTIMAL and r.certified
    assert (r.exact_lower, r.exact_upper) == brute_force_lp(range(n + 1), prob.moments, ev)
    assert r.exact_lower <= truth <= r.exact_upper
    check_certificates(r, range(n + 1), ev)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(tail_problems(max_n=30, max_order=7))
def test_structured_start_basis_is_dual_feasible(case):
    n, pmf, order, ev = case
    prob = MomentProblem(moments_of(pmf, order), Support.grid(0, n), ev)
    try:
        basis = structured_start_basis(prob)
    except InvalidArgument:
        return
    assert len(set(basis)) == order + 1 and all(0 <= x <= n for x in basis)
    ds = DualSimplex(prob)
    st_ = ds.state(basis)
    ver = slack_minimum(ds.u_monomial(st_.y), "monomial", ds.amap, prob.support, prob.event, "upper")
    assert ver.ok


@pytest.mark.parametrize("order", [2, 3])
def test_boros_prekopa_closed_forms_match_prekopa_and_lp(order):
    import numpy as np

    rng = np.random.default_rng(7)
    for _ in range(25):
        n = int(rng.integers(4, 12))
        w = rng.integers(0, 10, size=n + 1)
        w[0] = 0 if rng.random() < 0.3 else w[0]
        if w.sum() == 0:
            continue
        pmf = [(x, F(int(v), int(w.sum()))) for x, v in enumerate(w) if v]
        prob = MomentProblem(moments_of(pmf, order), Support.grid(0, n), Event.ge(1))
        cf = bound(prob, "closed-form")
        pk = bound(prob, "prekopa")
        lp = bound(prob, "lp")
        assert (pk.exact_lower, pk.exact_upper) == (lp.exact_lower, lp.exact_upper)
        assert f"boros-prekopa-{order}" in cf.message
        # Boros-Prekopa lower bound is sharp; the upper formula is sharp unless it exceeds 1
        assert cf.exact_lower == lp.exact_lower
        assert cf.exact_upper >= lp.exact_upper
        if "upper: boros-prekopa" in cf.message:
            assert cf.exact_upper == lp.exact_upper


def test_prekopa_coarse_to_fine_on_the_naive_bayes_grid():
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = equal_cells_model((2, 2, 2))
    z = naive_bayes_statistic(model, (0, 0, 0))
    lo, hi = z.support(10)
    prob = MomentProblem(tuple(raw_moments(z, model, 10, 6).values), Support.grid(lo, hi), Event.gt(0))
    r = bound(prob, "prekopa", start="coarse")
    lp = bound(prob, "lp")
    assert r.status is Status.OPTIMAL and "coarse-to-fine" in r.message
    assert (r.exact_lower, r.exact_upper) == (lp.exact_lower, lp.exact_upper)
    for cert in r.certificates:
        assert verify_polynomial_dominates(cert, prob.support, prob.event).ok


def test_prekopa_applicability_and_options():
    with pytest.raises(InvalidArgument, match="tail events"):
        bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.between(2, 4)), "prekopa")
    with pytest.raises(InvalidArgument, match="discrete supports"):
        bound(MomentProblem((1, 3, 11), Support.interval(0, 6), Event.ge(5)), "prekopa")
    with pytest.raises(InvalidArgument, match="max_pivots must be >= 0"):
        bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), "prekopa", max_pivots=-1)
    # a pivot budget of zero still returns a verified (valid, not sharp) bound
    r = bound(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)), "prekopa", max_pivots=0)
    assert r.certified and r.exact_lower <= F(1, 20) and r.exact_upper >= F(4, 15)


# -- starts from the continuous extremal measure (principal representations) ---------------------


def _witness_measure(prob, result):
    """Sharpness witness in plain Fractions and raw powers: the final basis of the upper side
    carries a nonnegative measure with exactly the given moments and mass ``result.exact_upper``
    on the event (the dual certificate proves nothing larger is possible)."""
    from momentbound.bounds.prekopa import _continuous_start

    ds = DualSimplex(prob)
    start = _continuous_start(ds, prob)
    assert start is not None
    st_, reached = ds.run(start, 600)
    assert reached
    weights = [F(int(w.p), int(w.q)) for w in st_.w]
    assert all(w >= 0 for w in weights)
    for k, mk in enumerate(prob.exact_moments):
        assert sum(w * F(x) ** k for w, x in zip(weights, st_.basis)) == mk
    assert sum(w for w, x in zip(weights, st_.basis) if prob.event.indicator(x)) == result.exact_upper


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(tail_problems(max_n=11, max_order=6))
def test_continuous_start_equals_brute_force(case):
    n, pmf, order, ev = case
    prob = MomentProblem(moments_of(pmf, order), Support.grid(0, n), ev)
    truth = sum(q for x, q in pmf if ev.indicator(x))
    assume("prekopa" in available_methods(prob))
    r = bound(prob, "prekopa", start="continuous")
    assert r.status is Status.OPTIMAL and r.certified
    assert (r.exact_lower, r.exact_upper) == brute_force_lp(range(n + 1), prob.moments, ev)
    assert r.exact_lower <= truth <= r.exact_upper
    check_certificates(r, range(n + 1), ev)


def _sparse_law_on_huge_grid(rng):
    H = int(10 ** rng.integers(4, 12))
    pts = sorted({int(v) for v in rng.integers(0, H + 1, size=int(rng.integers(3, 12)))})
    w = rng.integers(1, 20, size=len(pts))
    pmf = [(x, F(int(v), int(w.sum()))) for x, v in zip(pts, w)]
    order = int(rng.integers(1, 9))
    ev = [Event.gt, Event.ge, Event.lt, Event.le][int(rng.integers(0, 4))](int(rng.integers(0, H + 1)))
    return H, pmf, MomentProblem(moments_of(pmf, order), Support.grid(0, H), ev)


def test_prekopa_on_random_huge_grids_is_sharp_and_agrees_with_lp():
    import numpy as np

    rng = np.random.default_rng(1)
    agree = 0
    for _ in range(24):
        H, pmf, prob = _sparse_law_on_huge_grid(rng)
        truth = sum(q for x, q in pmf if prob.event.indicator(x))
        r = bound(prob, "prekopa")
        assert r.status is Status.OPTIMAL and "continuous-measure start" in r.message
        assert r.exact_lower <= truth <= r.exact_upper
        for cert in r.certificates:
            assert verify_polynomial_dominates(cert, prob.support, prob.event).ok
        _witness_measure(prob, r)
        lp = bound(prob, "lp")
        # both are valid bounds; prekopa is sharp (witness measure above), so never looser
        assert lp.exact_lower <= r.exact_lower and r.exact_upper <= lp.exact_upper
        if lp.status is Status.OPTIMAL:
            assert (r.exact_lower, r.exact_upper) == (lp.exact_lower, lp.exact_upper)
            agree += 1
    assert agree >= 18


@pytest.mark.parametrize("N", [100, 1000])
def test_prekopa_continuous_start_on_the_naive_bayes_grid(N):
    """Table 4 workload: 6 moments of Z_(0,0) on its ~7e13-point grid at N = 1000."""
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = equal_cells_model((2, 2, 2))
    z = naive_bayes_statistic(model, (0, 0, 0))
    lo, hi = z.support(N)
    prob = MomentProblem(tuple(raw_moments(z, model, N, 6).values), Support.grid(lo, hi), Event.gt(0))
    r = bound(prob, "prekopa")
    assert r.status is Status.OPTIMAL and "continuous-measure start" in r.message
    # a handful of pivots at most: the start sits next to the optimum (no one-point-per-pivot walk)
    assert r.diagnostics.iterations <= 10
    lp = bound(prob, "lp")
    assert lp.status is Status.OPTIMAL
    assert (r.exact_lower, r.exact_upper) == (lp.exact_lower, lp.exact_upper)
    for cert in r.certificates:
        assert verify_polynomial_dominates(cert, prob.support, prob.event).ok
    _witness_measure(prob, r)
    _witness_measure(prob.with_event(prob.event.complement()), _Upper(1 - r.exact_lower))


class _Upper:
    def __init__(self, v):
        self.exact_upper = v


def test_prekopa_start_option_is_validated():
    with pytest.raises(InvalidArgument, match="start must be 'auto', 'continuous', 'coarse' or 'structured'"):
        bound(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)), "prekopa", start="nearest")


@pytest.mark.parametrize("N", [100, 1000])
def test_prekopa_on_the_table4_problem_equals_lp_and_holds_the_truth(N):
    from momentbound.studies.method_comparison import table4_problem

    prob, _ = table4_problem(N, 6)
    r = bound(prob, "prekopa")
    lp = bound(prob, "lp")
    assert r.status is Status.OPTIMAL and lp.status is Status.OPTIMAL
    assert (r.exact_lower, r.exact_upper) == (lp.exact_lower, lp.exact_upper)
    _witness_measure(prob, r)
    if N == 100:  # the exact law (another module's algorithm) is cheap here
        from momentbound.exact import prob_z_positive
        from momentbound.model import equal_cells_model

        truth = prob_z_positive(equal_cells_model((2, 2)), N, (0, 0)).positive
        assert r.exact_lower <= truth <= r.exact_upper


def test_continuous_start_on_random_finite_supports_equals_brute_force():
    import numpy as np

    rng = np.random.default_rng(5)
    used = 0
    for _ in range(40):
        pts = sorted({F(int(v), int(rng.integers(1, 4))) for v in rng.integers(-30, 30, size=int(rng.integers(5, 11)))})
        atoms = [pts[i] for i in sorted(set(rng.integers(0, len(pts), size=int(rng.integers(1, len(pts) + 1)))))]
        w = rng.integers(1, 9, size=len(atoms))
        pmf = [(x, F(int(v), int(w.sum()))) for x, v in zip(atoms, w)]
        order = int(rng.integers(1, min(6, len(pts) - 1) + 1))
        ev = [Event.gt, Event.ge, Event.lt, Event.le][int(rng.integers(0, 4))](pts[int(rng.integers(0, len(pts)))])
        prob = MomentProblem(moments_of(pmf, order), Support.finite(pts), ev)
        if "prekopa" not in available_methods(prob):
            continue
        r = bound(prob, "prekopa", start="continuous")
        assert r.status is Status.OPTIMAL
        assert (r.exact_lower, r.exact_upper) == brute_force_lp(pts, prob.moments, ev)
        assert r.exact_lower <= sum(q for x, q in pmf if ev.indicator(x)) <= r.exact_upper
        check_certificates(r, pts, ev)
        used += "no rounded continuous" not in r.message
    assert used >= 20
