"""The sharp discrete LP (lp, lp-dual): exact answers against independent witnesses.

Witnesses: hand-computed oracles (docs/mathematics.md, section 'Closed-form bounds'), brute-force enumeration of every basis
of the discrete moment LP in exact rational arithmetic, true cdfs of known laws (binomial,
the exact law of the naive Bayes statistic), direct evaluation of certificates at every
support point."""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound.bounds import Event, MomentProblem, Status, Support, bound
from momentbound.errors import InfeasibleMoments


def moments_of(pmf, order):
    return tuple(sum(F(p) * F(x) ** k for x, p in pmf) for k in range(order + 1))


def solve_exact(A, b):
    """Gauss-Jordan on Fractions; None if singular."""
    n = len(A)
    M = [list(map(F, row)) + [F(v)] for row, v in zip(A, b)]
    for c in range(n):
        piv = next((r for r in range(c, n) if M[r][c] != 0), None)
        if piv is None:
            return None
        M[c], M[piv] = M[piv], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * bb for a, bb in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def solve_vandermonde(nodes, moments):
    """The weights ``w`` with ``sum_j w_j x_j^k = moments[k]`` on distinct ``nodes``, exactly:
    ``w_j = sum_k moments[k] [x^k] L_j(x)`` for the Lagrange basis ``L_j`` (``L_j(x_i) = 1`` if
    ``i = j`` else 0), the inverse of the Vandermonde matrix without elimination."""
    xs = [x if isinstance(x, int) else F(x) for x in nodes]
    w = []
    for j, xj in enumerate(xs):
        coef, denom = [1], 1  # prod_{i != j} (x - x_i), lowest degree first, and its value at x_j
        for i, xi in enumerate(xs):
            if i != j:
                coef = [(coef[k - 1] if k else 0) - xi * (coef[k] if k < len(coef) else 0) for k in range(len(coef) + 1)]
                denom *= xj - xi
        w.append(sum(F(m) * c for m, c in zip(moments, coef)) / denom)
    return w


def brute_force_lp(points, moments, event):
    """(min, max) of P(E) over laws on `points` with these moments, by enumerating every basis."""
    m1 = len(moments)
    best_lo, best_hi = None, None
    for S in itertools.combinations(points, m1):
        w = solve_vandermonde(S, moments)
        if any(v < 0 for v in w):
            continue
        val = sum(v for v, x in zip(w, S) if event.indicator(x))
        best_lo = val if best_lo is None else min(best_lo, val)
        best_hi = val if best_hi is None else max(best_hi, val)
    return best_lo, best_hi


def check_certificates(result, points, event):
    """Every certificate dominates / is dominated by the indicator at every point (direct evaluation)."""
    for cert in result.certificates:
        for x in points:
            v = cert.evaluate_exact(x)
            ind = int(event.indicator(x))
            assert (v >= ind) if cert.side == "upper" else (v <= ind)


@pytest.mark.parametrize("method", ["lp", "lp-dual"])
def test_oracle_small_exact_instance(method):
    p2 = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    p3 = MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5))
    r2, r3 = bound(p2, method), bound(p3, method)
    assert (r2.exact_lower, r2.exact_upper) == (0, F(1, 3))
    assert (r3.exact_lower, r3.exact_upper) == (F(1, 20), F(4, 15))
    assert r3.status is Status.OPTIMAL and r3.certified
    check_certificates(r3, range(7), p3.event)
    # the certificate's expectation under a law with these moments is the bound
    law = [(1, F(1, 4)), (3, F(1, 2)), (5, F(1, 4))]
    assert moments_of(law, 3) == p3.moments
    up = next(c for c in r3.certificates if c.side == "upper")
    assert sum(q * up.evaluate_exact(x) for x, q in law) == F(4, 15)


@pytest.mark.parametrize("method", ["lp", "lp-dual"])
def test_binomial_40_sixteen_moments(method):
    n, p = 40, F(3, 10)
    pmf = [(k, comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]
    prev = None
    for order in (12, 16):
        for t in (5, 12, 20):
            prob = MomentProblem(moments_of(pmf, order), Support.grid(0, n), Event.le(t))
            truth = sum(q for k, q in pmf if k <= t)
            r = bound(prob, method)
            assert r.status is Status.OPTIMAL and r.certified
            assert r.exact_lower <= truth <= r.exact_upper
            check_certificates(r, range(n + 1), prob.event)
            for cert in r.certificates:  # E[p] under the true law equals the certificate's value
                assert sum(q * cert.evaluate_exact(x) for x, q in pmf) == cert.value
            if t == 12:
                if prev is not None:
                    assert prev[0] <= r.exact_lower and r.exact_upper <= prev[1]
                prev = (r.exact_lower, r.exact_upper)


def test_infeasible_on_grid_but_not_on_interval():
    # mean 1/2 and variance 1/100 fit on [0, 2] but not on {0, 1, 2} (minimum variance 1/4)
    p = MomentProblem((1, F(1, 2), F(1, 4) + F(1, 100)), Support.grid(0, 2), Event.ge(1))
    with pytest.raises(InfeasibleMoments, match="proven by an exactly verified Farkas polynomial") as info:
        bound(p, "lp")
    assert info.value.condition == "discrete-support"
    r = bound(MomentProblem(p.moments, Support.interval(0, 2), p.event), "lp")
    assert r.certified


def test_interval_support_exchange_contains_sharp_value():
    # SumOfSquares example: the sharp bound is 1/37; the interval LP is exact up to its shift
    p = MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5))
    r = bound(p, "lp")
    assert r.certified and F(1, 37) <= r.exact_upper <= F(1, 37) + F(1, 10**9)
    assert r.exact_lower == 0


@st.composite
def grid_problems(draw, max_n=8, max_order=5):
    n = draw(st.integers(2, max_n))
    weights = draw(st.lists(st.integers(0, 12), min_size=n + 1, max_size=n + 1).filter(lambda w: sum(w) > 0))
    tot = sum(weights)
    pmf = [(x, F(w, tot)) for x, w in enumerate(weights) if w]
    order = draw(st.integers(1, min(max_order, n)))
    kind = draw(st.sampled_from(["gt", "ge", "lt", "le", "between", "outside"]))
    a = draw(st.integers(-1, n + 1))
    if kind in ("between", "outside"):
        b = draw(st.integers(a, n + 1))
        ev = Event.between(a, b) if kind == "between" else Event.outside(a, b)
    else:
        half = draw(st.booleans())
        t = F(a) + (F(1, 2) if half else 0)
        ev = {"gt": Event.gt, "ge": Event.ge, "lt": Event.lt, "le": Event.le}[kind](t)
    return n, pmf, order, ev


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(grid_problems())
def test_lp_equals_brute_force_basis_enumeration(case):
    n, pmf, order, ev = case
    prob = MomentProblem(moments_of(pmf, order), Support.grid(0, n), ev, pmf=tuple(pmf))
    truth = sum(q for x, q in pmf if ev.indicator(x))
    lo, hi = brute_force_lp(range(n + 1), prob.moments, ev)
    for method in ("lp", "lp-dual"):
        r = bound(prob, method)
        assert r.certified and r.status is Status.OPTIMAL, r.message
        assert (r.exact_lower, r.exact_upper) == (lo, hi)
        assert r.exact_lower <= truth <= r.exact_upper
        check_certificates(r, range(n + 1), ev)


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(grid_problems(max_n=10, max_order=6))
def test_more_moments_never_loosen_the_sharp_bound(case):
    n, pmf, order, ev = case
    if order >= n:
        order = n - 1
    full = moments_of(pmf, order + 1)
    r_small = bound(MomentProblem(full[: order + 1], Support.grid(0, n), ev), "lp")
    r_big = bound(MomentProblem(full, Support.grid(0, n), ev), "lp")
    assert r_small.exact_lower <= r_big.exact_lower and r_big.exact_upper <= r_small.exact_upper


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(grid_problems(max_n=8, max_order=4))
def test_sharp_discrete_lp_never_looser_than_interval_methods(case):
    n, pmf, order, ev = case
    mom = moments_of(pmf, order)
    grid = bound(MomentProblem(mom, Support.grid(0, n), ev), "lp")
    interval_problem = MomentProblem(mom, Support.interval(0, n), ev)
    for method in ("lp", "closed-form"):
        try:
            r = bound(interval_problem, method)
        except Exception as exc:  # closed-form may not apply
            assert "does not apply" in str(exc)
            continue
        assert r.certified
        assert r.exact_lower <= grid.exact_lower and grid.exact_upper <= r.exact_upper


def _z_problem(N, order):
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = equal_cells_model((2, 2, 2))
    z = naive_bayes_statistic(model, (0, 0, 0))
    lo, hi = z.support(N)
    return model, MomentProblem(tuple(raw_moments(z, model, N, order).values), Support.grid(lo, hi), Event.gt(0))


def test_naive_bayes_statistic_n10_against_exact_law():
    from momentbound.exact import z_distribution

    model, prob = _z_problem(10, 6)
    law = z_distribution(model, 10, (0, 0, 0), arithmetic="rational")
    pmf = [(F(z), F(q)) for z, q in zip(law.values, law.probs)]
    assert moments_of(pmf, 6) == prob.moments  # the moment engine agrees with the exact law
    truth = F(law.prob_positive())
    r = bound(prob, "lp")
    assert r.status is Status.OPTIMAL and r.exact_lower <= truth <= r.exact_upper
    for cert in r.certificates:
        assert sum(q * cert.evaluate_exact(x) for x, q in pmf) == cert.value


@pytest.mark.slow
def test_naive_bayes_statistic_n100_twelve_moments():
    from momentbound.exact import prob_z_positive

    model, prob = _z_problem(100, 12)
    truth = prob_z_positive(model, 100, (0, 0, 0)).positive
    r = bound(prob, "lp-dual")
    assert r.status is Status.OPTIMAL and r.certified
    assert r.lower <= float(truth) <= r.upper
    r6 = bound(prob.truncated(6), "lp-dual")
    assert r6.exact_lower <= r.exact_lower and r.exact_upper <= r6.exact_upper
