"""Raw, central, joint moments and cumulants: exact equality with brute-force enumeration
of all count tables, closed forms for large N, and property tests."""

import doctest
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import momentbound.moments.compiled as compiled_module
import momentbound.moments.core as core_module
import momentbound.moments.polynomial_expectation as engine_module
from momentbound.errors import InvalidArgument
from momentbound.model import CellModel, equal_cells_model, second_nb_model
from momentbound.model.statistics import cell_statistic, naive_bayes_statistic
from momentbound.moments import (
    central_moments,
    compile_moments,
    cumulants,
    expectation,
    joint_moments,
    raw_moments,
    standardized_moments,
)
from momentbound.model.enumeration import expectation_by_enumeration

# (model, x, classes, N, order): d = 1, 2, 3; K = 2 and 3; several arities
CASES = [
    (CellModel((2,), ["1/10", "2/10", "3/10", "4/10"]), (0,), (0, 1), 8, 6),
    (CellModel((3,), [Fraction(i + 1, 21) for i in range(6)]), (1,), (1, 0), 7, 5),
    (equal_cells_model((2, 2)), (0, 0), (0, 1), 8, 5),
    (second_nb_model(), (1, 0), (0, 1), 7, 6),
    (CellModel((2, 3), [Fraction(i + 1, 78) for i in range(12)]), (1, 2), (0, 1), 4, 4),
    (CellModel((2, 2, 2), [Fraction(i + 1, 136) for i in range(16)]), (0, 1, 1), (0, 1), 4, 4),
    (CellModel((3,), [Fraction(i + 1, 45) for i in range(9)], 3), (2,), (2, 0), 5, 4),
    (CellModel.normalized((2, 2), [i % 5 + 1 for i in range(12)], 3), (0, 1), (1, 2), 4, 4),
]


def enum_moments(z, model, N, order):
    def f(counts):
        v = z.evaluate(counts)
        return [Fraction(v) ** k for k in range(order + 1)]

    # one pass over the tables, all orders at once
    from momentbound.model.enumeration import count_tables, multinomial_pmf

    acc = [Fraction(0)] * (order + 1)
    for t in count_tables(model.n_cells, N):
        w = multinomial_pmf(t, model.cells)
        if w:
            for k, v in enumerate(f(t)):
                acc[k] += w * v
    return tuple(acc)


@pytest.mark.parametrize("model,x,cls,N,order", CASES)
def test_raw_moments_equal_enumeration_exactly(model, x, cls, N, order):
    z = naive_bayes_statistic(model, x, cls)
    for n in sorted({0, 1, 2, N}):
        ms = raw_moments(z, model, n, order)
        assert ms.exact and ms.N == n
        assert ms.values == enum_moments(z, model, n, order)


@pytest.mark.parametrize("model,x,cls,N,order", CASES[:4])
def test_central_moments_and_cumulants_against_enumeration(model, x, cls, N, order):
    z = naive_bayes_statistic(model, x, cls)
    N = min(N, 5)
    ms = raw_moments(z, model, N, order)
    mu = ms.mean
    direct = [expectation_by_enumeration(lambda c: (z.evaluate(c) - mu) ** k, model, N) for k in range(order + 1)]
    assert list(ms.central()) == direct
    k = ms.cumulants()
    assert k[1] == mu and k[2] == direct[2] and k[3] == direct[3]
    if order >= 4:
        assert k[4] == direct[4] - 3 * direct[2] ** 2


def test_binomial_cell_count_closed_forms():
    # a single cell count is Binomial(N, p): exact cumulants N p, N p q, N p q (q - p)
    m = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
    s = cell_statistic(m, {(1, 0, 0, 0): 1})
    p, q, N = Fraction(3, 10), Fraction(7, 10), 1000
    k = raw_moments(s, m, N, 4).cumulants()
    assert k[1] == N * p and k[2] == N * p * q and k[3] == N * p * q * (q - p)
    assert k[4] == N * p * q * (1 - 6 * p * q)


def test_large_N_float_model_closed_form_mean_and_no_overflow():
    # E[Z] = (N)_3 (pi_l a1 a2 - pi_k b1 b2) + (N)_2 (pi_l a12 - pi_k b12) for d = 2
    m = CellModel((2, 2), [0.12, 0.13, 0.08, 0.17, 0.1, 0.15, 0.1, 0.15])
    z = naive_bayes_statistic(m, (0, 0))
    N = 10**6
    ms = raw_moments(z, m, N, 12)
    assert not ms.exact and all(math.isfinite(v) for v in ms.values)
    c = [Fraction(v) for v in m.cells]
    pk, pl = sum(c[0::2]), sum(c[1::2])
    a1, a2, a12 = c[0] + c[2], c[0] + c[4], c[0]
    b1, b2, b12 = c[1] + c[3], c[1] + c[5], c[1]
    ff3, ff2 = N * (N - 1) * (N - 2), N * (N - 1)
    mean = ff3 * (pl * a1 * a2 - pk * b1 * b2) + ff2 * (pl * a12 - pk * b12)
    assert ms.mean == float(mean)
    # floats are the correctly rounded exact moments of the float cells
    exact = raw_moments(z, m, N, 12, exact=True)
    assert exact.exact and ms.values == tuple(float(v) for v in exact.values)
    var = exact.central()[2]
    assert var > 0 and ms.variance == float(var)


def test_float_and_exact_model_agree():
    m = second_nb_model()
    z = naive_bayes_statistic(m, (0, 0))
    ex = raw_moments(z, m, 50, 6)
    fl = raw_moments(z, m.to_float(), 50, 6)
    assert all(math.isclose(float(a), b, rel_tol=1e-12) for a, b in zip(ex.values, fl.values))
    assert raw_moments(z, m, 50, 6, exact=False).values == tuple(float(v) for v in ex.values)


def test_compiled_matches_raw_and_caches():
    m = second_nb_model()
    z = naive_bayes_statistic(m, (0, 1))
    f = compile_moments(z, 5)
    assert compile_moments(z, 5) is f
    for N in (0, 3, 6):
        assert f(N, m.cells).values == enum_moments(z, m, N, 5)
    other = ["1/16", "3/16"] * 4
    m2 = CellModel((2, 2), other)
    assert f(5, other).values == enum_moments(z, m2, 5, 5)
    assert f(5, [float(Fraction(v)) for v in other], exact=True).values == f(5, other).values
    with pytest.raises(InvalidArgument, match="one entry per cell"):
        f(5, ["1/2", "1/2"])


@pytest.mark.parametrize(
    "model,x1,x2,cls",
    [
        (second_nb_model(), (0, 0), (1, 0), (0, 1)),
        (CellModel((3,), [Fraction(i + 1, 21) for i in range(6)]), (0,), (2,), (0, 1)),
        (CellModel.normalized((2, 2), [i % 5 + 1 for i in range(12)], 3), (0, 1), (1, 1), (2, 1)),
    ],
)
def test_joint_moments_equal_enumeration(model, x1, x2, cls):
    X = naive_bayes_statistic(model, x1, cls)
    Y = naive_bayes_statistic(model, x2, (cls[1], cls[0]))
    N = 4
    J = joint_moments(X, Y, model, N, 3, 2)
    assert J.shape == (4, 3) and J.exact
    for i in range(4):
        for j in range(3):
            want = expectation_by_enumeration(lambda c: X.evaluate(c) ** i * Y.evaluate(c) ** j, model, N)
            assert J[i, j] == want
    # the margins are the raw moments
    assert tuple(J[i, 0] for i in range(4)) == raw_moments(X, model, N, 3).values


def test_expectation_of_products():
    m = second_nb_model()
    X, Y = naive_bayes_statistic(m, (0, 0)), naive_bayes_statistic(m, (1, 1))
    W = X * Y * Y - 3 * X + 7
    assert expectation(W, m, 3) == expectation_by_enumeration(W.evaluate, m, 3)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(
    weights=st.lists(st.integers(min_value=0, max_value=9), min_size=8, max_size=8).filter(lambda w: sum(w) > 0),
    x=st.tuples(st.integers(0, 1), st.integers(0, 1)),
    N=st.integers(min_value=0, max_value=5),
)
def test_property_random_rational_models(weights, x, N):
    m = CellModel.normalized((2, 2), weights)
    z = naive_bayes_statistic(m, x)
    assert raw_moments(z, m, N, 4).values == enum_moments(z, m, N, 4)


@settings(derandomize=True, max_examples=15, deadline=None)
@given(
    weights=st.lists(st.integers(min_value=1, max_value=20), min_size=6, max_size=6),
    N=st.integers(min_value=1, max_value=6),
)
def test_property_three_classes_d1(weights, N):
    m = CellModel.normalized((2,), weights, 3)
    z = naive_bayes_statistic(m, (1,), (2, 1))
    ms = raw_moments(z, m, N, 3)
    assert ms.values == enum_moments(z, m, N, 3)
    # variance is non-negative and the support contains the mean
    lo, hi = z.support(N)
    assert ms.central()[2] >= 0 and lo <= ms.mean <= hi


def test_free_functions_and_errors():
    assert central_moments([Fraction(1), Fraction(2), Fraction(5)]) == [1, 0, 1]
    assert cumulants([Fraction(1), Fraction(2), Fraction(5)]) == [0, 2, 1]
    s = standardized_moments([Fraction(1), Fraction(0), Fraction(4), Fraction(8), Fraction(48)])
    assert s == [1.0, 0.0, 1.0, 1.0, 3.0]
    with pytest.raises(InvalidArgument, match="variance is zero"):
        standardized_moments([Fraction(1), Fraction(2), Fraction(4)])
    with pytest.raises(InvalidArgument, match="m0 = 1"):
        cumulants([Fraction(2), Fraction(1)])
    m = second_nb_model()
    z = naive_bayes_statistic(m, (0, 0))
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer, got -3"):
        raw_moments(z, m, -3, 2)
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer"):
        raw_moments(z, m, 2.0, 2)
    with pytest.raises(InvalidArgument, match="order must be a non-negative integer, got -1"):
        raw_moments(z, m, 3, -1)
    with pytest.raises(InvalidArgument, match="order must be a non-negative integer"):
        raw_moments(z, m, 3, 1.5)
    with pytest.raises(InvalidArgument, match="statistic has 4 cells but the model has 8"):
        raw_moments(naive_bayes_statistic(CellModel((2,), ["1/4"] * 4), (0,)), m, 3, 2)
    with pytest.raises(InvalidArgument, match="must be a Statistic"):
        raw_moments("Z", m, 3, 2)
    with pytest.raises(InvalidArgument, match="max_j must be a non-negative integer"):
        joint_moments(z, z, m, 3, 1, -1)
    with pytest.raises(InvalidArgument, match="order must be a non-negative integer"):
        compile_moments(z, -2)


def test_doctests():
    for mod in (core_module, compiled_module, engine_module):
        assert doctest.testmod(mod).failed == 0


def test_compiled_validates_probabilities():
    from momentbound.errors import InvalidProbability

    f = compile_moments(naive_bayes_statistic(second_nb_model(), (0, 0)), 2)
    with pytest.raises(InvalidProbability, match="must be non-negative"):
        f(3, ["-1/8", "3/8"] + ["1/8"] * 6)
    with pytest.raises(InvalidProbability, match="must sum to 1"):
        f(3, ["1/8"] * 7 + ["1/4"])
    with pytest.raises(InvalidProbability, match="finite"):
        f(3, [float("nan")] + [0.125] * 7)


def test_zero_probability_cells_and_empty_class():
    # class 1 has prior 0: N_1 = 0 almost surely; several zero cells in class 0
    m = CellModel((2, 2), ["1/2", 0, 0, 0, "1/2", 0, 0, 0])
    z = naive_bayes_statistic(m, (1, 0))
    assert raw_moments(z, m, 5, 4).values == enum_moments(z, m, 5, 4)
    m2 = CellModel((3,), ["1/3", 0, 0, "1/3", "1/3", 0], 2)
    z2 = naive_bayes_statistic(m2, (1,), (1, 0))
    assert raw_moments(z2, m2, 6, 3).values == enum_moments(z2, m2, 6, 3)


def test_constant_and_cell_polynomial_statistics():
    m = second_nb_model()
    z = naive_bayes_statistic(m, (0, 0))
    c = (z - z) + 3
    assert raw_moments(c, m, 4, 3).values == (1, 3, 9, 27)
    s = cell_statistic(m, {(2, 0, 0, 1, 0, 0, 0, 0): 1, (0, 1, 1, 0, 0, 0, 0, 0): -2})
    assert raw_moments(s, m, 4, 3).values == enum_moments(s, m, 4, 3)
