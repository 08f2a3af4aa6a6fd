"""Bird polynomial: exponent closed form vs exhaustive search, the sign property by
direct evaluation of W, moments of W vs enumeration, the degree cap."""

import doctest
import itertools
import random

import numpy as np
import pytest

import momentbound.moments.bird as bird_module
from momentbound.errors import DegreeCapExceeded, InvalidArgument
from momentbound.model import CellModel, second_nb_model
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.moments.bird import (
    DEFAULT_DEGREE_CAP,
    bird_coefficients,
    bird_exponent,
    bird_exponent_bruteforce,
    bird_exponent_paper,
    bird_moments,
    bird_polynomial,
)
from momentbound.model.enumeration import expectation_by_enumeration


def property_holds(a, r):
    """W > 0 iff x > 0 and y > 0, by evaluating W itself in exact integers."""
    for x, y in itertools.product(range(-a, a + 1), repeat=2):
        if (bird_polynomial(x, y, a, r) > 0) != (x > 0 and y > 0):
            return False
    return True


def test_spec_values():
    assert bird_exponent(10) == 3 and bird_exponent(100) == 28 and bird_exponent(200) == 56
    assert bird_exponent_bruteforce(100) == 28


@pytest.mark.slow
def test_closed_form_equals_exhaustive_search_up_to_300():
    for a in range(1, 301):
        assert bird_exponent(a) == bird_exponent_bruteforce(a), a


def test_paper_closed_form_is_valid_but_not_minimal_at_a5():
    diffs = [a for a in range(3, 301) if bird_exponent_paper(a) != bird_exponent(a)]
    assert diffs == [5]
    assert bird_exponent_paper(5) == 2 and bird_exponent(5) == 1
    # at a = 5, r = 1 works because (5 + 1)^1 = 2 * (5 - 2)^1 makes W = 0 at (1, -2)
    assert bird_polynomial(1, -2, 5, 1) == 0


@pytest.mark.parametrize("a", list(range(1, 25)) + [40])
def test_sign_property_by_direct_evaluation(a):
    r = bird_exponent(a)
    assert property_holds(a, r)
    assert property_holds(a, r + 3)  # monotone in r
    if r > 0:
        assert not property_holds(a, r - 1)


def test_coefficients_reproduce_polynomial_and_vectorised_evaluation():
    rng = random.Random(7)
    a, r = 12, bird_exponent(12)
    coeffs = bird_coefficients(a, r)
    for _ in range(50):
        x, y = rng.randint(-a, a), rng.randint(-a, a)
        assert sum(c * x**i * y**j for (i, j), c in coeffs.items()) == bird_polynomial(x, y, a, r)
    xs = np.arange(-a, a + 1, dtype=object)
    W = bird_polynomial(xs[:, None], xs[None, :], a, r)
    assert ((W > 0) == ((xs[:, None] > 0) & (xs[None, :] > 0))).all()


@pytest.mark.parametrize("N", [2, 3, 4])
def test_bird_moments_equal_enumeration(N):
    m = second_nb_model()
    X, Y = naive_bayes_statistic(m, (0, 0)), naive_bayes_statistic(m, (1, 0))
    b = bird_moments(X, Y, m, N, 2, degree_cap=100)
    assert b.a == max(-X.support(N)[0], X.support(N)[1]) and b.r == bird_exponent(b.a)
    assert b.degree == b.r + 3
    for k in range(3):
        want = expectation_by_enumeration(
            lambda c: bird_polynomial(X.evaluate(c), Y.evaluate(c), b.a, b.r) ** k, m, N
        )
        assert b.moments.values[k] == want
    # P[W > 0] = P[X > 0, Y > 0] (the point of W), by enumeration
    pw = expectation_by_enumeration(lambda c: int(bird_polynomial(X.evaluate(c), Y.evaluate(c), b.a, b.r) > 0), m, N)
    pxy = expectation_by_enumeration(lambda c: int(X.evaluate(c) > 0 and Y.evaluate(c) > 0), m, N)
    assert pw == pxy


def test_bird_moments_three_classes_explicit_a_r():
    m = CellModel.normalized((3,), [1, 2, 3, 4, 5, 6, 7, 8, 9], 3)
    X, Y = naive_bayes_statistic(m, (0,), (0, 2)), naive_bayes_statistic(m, (2,), (1, 0))
    b = bird_moments(X, Y, m, 3, 2, a=3, r=2)
    for k in range(3):
        want = expectation_by_enumeration(lambda c: bird_polynomial(X.evaluate(c), Y.evaluate(c), 3, 2) ** k, m, 3)
        assert b.moments.values[k] == want


def test_degree_cap():
    m = second_nb_model()
    X, Y = naive_bayes_statistic(m, (0, 0)), naive_bayes_statistic(m, (1, 0))
    with pytest.raises(DegreeCapExceeded, match="grows linearly in a") as info:
        bird_moments(X, Y, m, 10, 2)  # a = 147, r = 41: degree 44, 88 > 36
    assert info.value.cap == DEFAULT_DEGREE_CAP == 36 and info.value.degree == 2 * (bird_exponent(147) + 3)
    assert "Frechet" in str(info.value) and "SDP" in str(info.value)
    with pytest.raises(DegreeCapExceeded, match="degree_cap=5"):
        bird_moments(X, Y, m, 2, 2, degree_cap=5)


def test_invalid_inputs():
    for bad in (0, -3, 1.5, True, "7"):
        with pytest.raises(InvalidArgument, match="a must be a positive integer"):
            bird_exponent(bad)
    with pytest.raises(InvalidArgument, match="needs a >= 3"):
        bird_exponent_paper(2)
    with pytest.raises(InvalidArgument, match="r must be a non-negative integer"):
        bird_polynomial(1, 1, 5, -1)
    with pytest.raises(InvalidArgument, match="r must be a non-negative integer"):
        bird_coefficients(5, 1.5)
    m = second_nb_model()
    X = naive_bayes_statistic(m, (0, 0))
    with pytest.raises(InvalidArgument, match="degree_cap must be a positive integer"):
        bird_moments(X, X, m, 2, 1, degree_cap=0)
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer"):
        bird_moments(X, X, m, -1, 1)


def test_doctests():
    assert doctest.testmod(bird_module).failed == 0


def test_certified_ball_path_agrees_with_exact_integers(monkeypatch):
    exact = [bird_exponent(a) for a in (50, 300, 3000)]
    paper = [bird_exponent_paper(a) for a in (50, 300, 3000)]
    monkeypatch.setattr(bird_module, "_EXACT_BITS", 0)  # force arb for every comparison
    assert [bird_exponent(a) for a in (50, 300, 3000)] == exact
    assert [bird_exponent_paper(a) for a in (50, 300, 3000)] == paper
