"""Statistics: the naive Bayes Z_x against a direct count-table implementation, support
bounds against brute force, algebra, sympy expressions and validation."""

import doctest
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

import momentbound.model.statistics as statistics_module
from momentbound.errors import InvalidArgument
from momentbound.model import CellModel, equal_cells_model, second_nb_model
from momentbound.model.statistics import Statistic, cell_statistic, naive_bayes_statistic
from momentbound.model.enumeration import count_tables


def z_direct(model, counts, x, k, l):
    """Z_x^{k,l} straight from the definition on a count array (independent code)."""
    arr = np.array(counts, dtype=object).reshape(model.arities + (model.n_classes,))
    d = model.d
    n_k = int(arr[..., k].sum())
    n_l = int(arr[..., l].sum())
    prod_k = prod_l = 1
    for j in range(d):
        idx = [slice(None)] * d
        idx[j] = x[j]
        prod_k *= int(np.sum(arr[tuple(idx) + (k,)]))
        prod_l *= int(np.sum(arr[tuple(idx) + (l,)]))
    return n_l ** (d - 1) * prod_k - n_k ** (d - 1) * prod_l


MODELS = [
    (CellModel((2,), ["1/10", "2/10", "3/10", "4/10"]), (1,), (0, 1), 6),
    (CellModel((3,), [Fraction(i + 1, 21) for i in range(6)]), (2,), (1, 0), 5),
    (second_nb_model(), (1, 0), (0, 1), 5),
    (CellModel((2, 3), [Fraction(i + 1, 78) for i in range(12)]), (1, 2), (0, 1), 3),
    (equal_cells_model((2, 2, 2)), (0, 1, 1), (0, 1), 3),
    (CellModel((3,), [Fraction(1, 9)] * 9, 3), (2,), (2, 0), 4),
    (CellModel((2, 2), [Fraction(1, 12)] * 12, 3), (0, 1), (1, 2), 3),
]


@pytest.mark.parametrize("model,x,cls,N", MODELS)
def test_evaluate_matches_definition(model, x, cls, N):
    z = naive_bayes_statistic(model, x, cls)
    assert z.degree == 2 * model.d - 1
    for counts in itertools.islice(count_tables(model.n_cells, N), 0, None, 7):
        assert z.evaluate(counts) == z_direct(model, counts, x, *cls)


@pytest.mark.parametrize("model,x,cls,N", MODELS)
def test_support_matches_brute_force(model, x, cls, N):
    z = naive_bayes_statistic(model, x, cls)
    for n in range(N + 1):
        vals = [z_direct(model, c, x, *cls) for c in count_tables(model.n_cells, n)]
        assert z.support(n) == (min(vals), max(vals))


def test_support_large_N_attained_and_symmetric():
    m = equal_cells_model((2, 2))
    z = naive_bayes_statistic(m, (0, 0))
    lo, hi = z.support(10_000)
    assert lo == -hi
    # attained: n_k points in cell (x, k), the rest of class l in a disagreeing cell
    n = max(range(10_001), key=lambda v: (10_000 - v) * v * v)
    counts = [0] * 8
    counts[m.index((0, 0), 0)] = n
    counts[m.index((1, 1), 1)] = 10_000 - n
    assert z.evaluate(counts) == hi == (10_000 - n) * n * n


def test_support_generic_statistic_by_enumeration_and_limit():
    m = CellModel((2,), ["1/4"] * 4)
    s = cell_statistic(m, {(1, 0, 0, 0): 1, (0, 1, 1, 0): -2})
    assert s.support(3) == (-4, 3)
    with pytest.raises(InvalidArgument, match="count tables"):
        s.support(10_000)


def test_expr_and_feature_expr_agree_with_evaluate():
    m = second_nb_model()
    z = naive_bayes_statistic(m, (0, 1))
    syms = sympy.symbols("N_0:8", integer=True, nonnegative=True)
    counts = (3, 1, 4, 1, 5, 9, 2, 6)
    assert z.expr.subs(dict(zip(syms, counts))) == z.evaluate(counts)
    assert len(z.feature_expr.free_symbols) == 6


def test_algebra():
    m = second_nb_model()
    x = naive_bayes_statistic(m, (0, 0))
    y = naive_bayes_statistic(m, (1, 1))
    c = (2, 0, 1, 3, 0, 4, 1, 1)
    vx, vy = x.evaluate(c), y.evaluate(c)
    assert (x * y).evaluate(c) == vx * vy
    assert (x + 3).evaluate(c) == vx + 3 and (3 - x).evaluate(c) == 3 - vx
    assert (x - y).evaluate(c) == vx - vy and (-x).evaluate(c) == -vx
    assert (x**3).evaluate(c) == vx**3 and (x**0).evaluate(c) == 1
    assert (2 * x).evaluate(c) == 2 * vx
    assert (x - x).terms == ()
    with pytest.raises(InvalidArgument, match="power must be a non-negative integer"):
        x ** -1
    with pytest.raises(InvalidArgument, match="combine with statistics or integers"):
        x + 0.5
    other = naive_bayes_statistic(CellModel((2,), ["1/4"] * 4), (0,))
    with pytest.raises(InvalidArgument, match="different numbers of cells"):
        x * other


def test_cell_statistic():
    m = CellModel((2,), ["1/4"] * 4)
    s = cell_statistic(m, {(1, 0, 0, 0): 1, (0, 2, 0, 0): -3})
    assert s.evaluate((2, 1, 0, 1)) == -1 and s.degree == 2
    with pytest.raises(InvalidArgument, match="one entry per feature"):
        cell_statistic(m, {(1, 0): 1})
    with pytest.raises(InvalidArgument, match="non-negative"):
        cell_statistic(m, {(-1, 0, 0, 0): 1})


def test_invalid_inputs():
    m = second_nb_model()
    with pytest.raises(InvalidArgument, match=r"x\[1\] must be in 0..1, got 2"):
        naive_bayes_statistic(m, (0, 2))
    with pytest.raises(InvalidArgument, match="one value per attribute"):
        naive_bayes_statistic(m, (0,))
    with pytest.raises(InvalidArgument, match="integer attribute value"):
        naive_bayes_statistic(m, (0, 0.5))
    with pytest.raises(InvalidArgument, match="x must be a tuple"):
        naive_bayes_statistic(m, "00")
    with pytest.raises(InvalidArgument, match="two different classes"):
        naive_bayes_statistic(m, (0, 0), (1, 1))
    with pytest.raises(InvalidArgument, match=r"indices in 0..1, got 2"):
        naive_bayes_statistic(m, (0, 0), (0, 2))
    with pytest.raises(InvalidArgument, match="pair of class indices"):
        naive_bayes_statistic(m, (0, 0), (0, 1, 2))
    with pytest.raises(InvalidArgument, match="integer class index"):
        naive_bayes_statistic(m, (0, 0), (0, 1.0))
    z = naive_bayes_statistic(m, (0, 0))
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer, got -1"):
        z.support(-1)
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer"):
        z.support(2.5)
    with pytest.raises(InvalidArgument, match="one entry per cell"):
        z.evaluate((1, 2))


def test_doctests():
    assert doctest.testmod(statistics_module).failed == 0
