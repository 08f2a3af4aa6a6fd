"""The brute-force witness itself, checked against closed forms."""

import math
from fractions import Fraction

import pytest

from momentbound.errors import InvalidArgument
from momentbound.model import CellModel
from momentbound.model.enumeration import (
    count_tables,
    expectation_by_enumeration,
    multinomial_pmf,
    n_count_tables,
)


@pytest.mark.parametrize("C,N", [(1, 0), (1, 5), (2, 3), (3, 4), (5, 3)])
def test_count_tables_complete_and_distinct(C, N):
    tables = list(count_tables(C, N))
    assert len(tables) == len(set(tables)) == math.comb(N + C - 1, C - 1) == n_count_tables(C, N)
    assert all(sum(t) == N and len(t) == C and min(t) >= 0 for t in tables)


def test_pmf_sums_to_one_and_binomial_mean():
    probs = [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]
    assert sum(multinomial_pmf(t, probs) for t in count_tables(3, 5)) == 1
    m = CellModel((2,), ["1/10", "2/10", "3/10", "4/10"])
    # E[N_c] = N p_c and Var = N p (1-p): closed forms
    assert expectation_by_enumeration(lambda n: n[2], m, 6) == Fraction(18, 10)
    assert expectation_by_enumeration(lambda n: n[2] ** 2, m, 6) == Fraction(18, 10) ** 2 + 6 * Fraction(3, 10) * Fraction(7, 10)


def test_float_pmf():
    assert abs(multinomial_pmf((2, 1), (0.5, 0.5)) - 0.375) < 1e-15


def test_invalid_inputs():
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer"):
        list(count_tables(2, -1))
    with pytest.raises(InvalidArgument, match="n_cells must be at least 1"):
        list(count_tables(0, 2))
    with pytest.raises(InvalidArgument, match="same length"):
        multinomial_pmf((1, 2), (Fraction(1),))
    with pytest.raises(InvalidArgument, match="N must be a non-negative integer"):
        list(count_tables(2, 1.5))
