"""Closed-form bounds: exact oracle values and verified certificates."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from momentbound.bounds import Event, MomentProblem, Status, Support, bound, verify_polynomial_dominates
from momentbound.errors import InvalidArgument


def _check(r, prob):
    assert r.certified
    for cert in r.certificates:
        assert verify_polynomial_dominates(cert, prob.support, prob.event).ok


@pytest.mark.parametrize("mu, s2, t", [(0, 1, 2), (F(1, 2), F(1, 3), 3), (-1, 4, 0)])
def test_cantelli_on_the_real_line(mu, s2, t):
    mu, s2, t = F(mu), F(s2), F(t)
    prob = MomentProblem((1, mu, s2 + mu * mu), Support.real(), Event.ge(t))
    r = bound(prob, "closed-form")
    assert r.exact_upper == s2 / (s2 + (t - mu) ** 2)
    if t - mu >= 0:
        assert r.exact_lower == 0
    assert "upper: cantelli" in r.message
    _check(r, prob)
    # P(X > 0) with mu > 0: infimum mu^2/(s2 + mu^2) (Cantelli)
    prob = MomentProblem((1, 2, 5), Support.real(), Event.gt(0))
    r = bound(prob, "closed-form")
    assert r.exact_lower == F(4, 5)
    _check(r, prob)


def test_two_sided_chebyshev():
    prob = MomentProblem((1, 1, 2), Support.real(), Event.outside(-1, 3))
    r = bound(prob, "closed-form")
    assert r.exact_upper == F(1, 4) and "chebyshev-two-sided" in r.message
    _check(r, prob)


def test_sum_of_squares_example():
    prob = MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5))
    r = bound(prob, "closed-form")
    assert r.exact_upper == F(1, 37)
    up = next(c for c in r.certificates if c.side == "upper")
    # the certificate is the documented one, (12x - 11)^2 / 37^2
    for x in (0, 1, F(11, 12), 4, 5):
        assert up.evaluate_exact(x) == (12 * F(x) - 11) ** 2 / 37**2
    _check(r, prob)


@pytest.mark.parametrize("mu, m2, t, a, b", [(3, 11, 5, 0, 6), (1, 2, 3, 0, 4), (F(1, 2), F(1, 2), 1, 0, 1)])
def test_two_moment_interval_formula(mu, m2, t, a, b):
    prob = MomentProblem((1, mu, m2), Support.interval(a, b), Event.ge(t))
    s2 = F(m2) - F(mu) ** 2
    expected = min(s2 / (s2 + (t - F(mu)) ** 2), (F(mu) - a) / (t - F(a)),
                   1 - (F(m2) - (t + b) * F(mu) + t * b) / ((t - F(a)) * (b - a)))
    r = bound(prob, "closed-form")
    assert r.exact_upper == min(1, expected)
    _check(r, prob)
    lp = bound(prob, "lp")  # the semi-infinite LP agrees up to its certificate shift
    assert abs(float(lp.exact_upper) - float(r.exact_upper)) < 1e-7


def test_chebyshev_markov_stieltjes_standard_normal():
    for ev in (Event.le(0), Event.lt(0)):
        prob = MomentProblem((1, 0, 1, 0, 3), Support.real(), ev)
        r = bound(prob, "closed-form")
        assert r.exact_lower <= F(1, 6) <= r.exact_lower + F(1, 10**30)
        assert r.exact_upper - F(1, 10**30) <= F(5, 6) <= r.exact_upper
        _check(r, prob)
    prob = MomentProblem((1, 0, 1, 0, 3), Support.real(), Event.gt(0))
    r = bound(prob, "closed-form")
    assert abs(r.exact_lower - F(1, 6)) < F(1, 10**30) and abs(r.exact_upper - F(5, 6)) < F(1, 10**30)


def test_chebyshev_markov_stieltjes_jump_is_christoffel():
    # moments of the uniform law on {-1, 0, 1}: the canonical representation is the law itself
    prob = MomentProblem((1, 0, F(2, 3), 0, F(2, 3)), Support.real(), Event.le(0))
    r = bound(prob, "closed-form")
    assert abs(r.exact_lower - F(1, 3)) < F(1, 10**30) and abs(r.exact_upper - F(2, 3)) < F(1, 10**30)


def test_not_applicable():
    with pytest.raises(InvalidArgument, match="closed-form' does not apply"):
        bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.between(1, 4)), "closed-form")


def test_boros_prekopa_three_moments_index_at_the_top_of_the_grid():
    """Regression: the formula's index i = n - 1 made the basis {0, i, i+1, n} repeat n
    (ZeroDivisionError inside applies()); the bound must still contain the truth and the LP."""
    from fractions import Fraction as F

    from momentbound.bounds import Event, MomentProblem, Support, bound

    # an admissible moment sequence on {0..4} where the m = 3 lower index is i = n - 1 = 3
    problem = MomentProblem((1, F(5, 2), F(15, 2), F(45, 2), F(135, 2)), Support.grid(0, 4), Event.ge(1))
    closed = bound(problem, method="closed-form")
    sharp = bound(problem, method="lp")
    assert closed.certified
    assert closed.lower <= sharp.lower + 1e-12 and sharp.upper <= closed.upper + 1e-12
    names = {r.method for r in bound(problem, method="all")}
    assert {"closed-form", "lp", "prekopa"} <= names
