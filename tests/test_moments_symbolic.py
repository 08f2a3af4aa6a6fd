"""Symbolic path == compiled path == brute-force enumeration, exactly."""

import doctest
from fractions import Fraction

import pytest
import sympy

import momentbound.moments.symbolic as symbolic_module
from momentbound.errors import InvalidArgument
from momentbound.model import CellModel, second_nb_model
from momentbound.model.statistics import naive_bayes_statistic
from momentbound.moments import compile_moments, expectation_by_enumeration, substitute, symbolic_moment

CASES = [
    (CellModel((2,), ["1/10", "2/10", "3/10", "4/10"]), (0,), (0, 1), 4),
    (CellModel((3,), [Fraction(i + 1, 21) for i in range(6)]), (2,), (1, 0), 3),
    (second_nb_model(), (1, 0), (0, 1), 2),
    (CellModel((3,), [Fraction(i + 1, 45) for i in range(9)], 3), (1,), (2, 0), 3),
    (CellModel((2, 2, 2), [Fraction(i + 1, 136) for i in range(16)]), (1, 0, 1), (0, 1), 1),
]


@pytest.mark.parametrize("model,x,cls,kmax", CASES)
def test_symbolic_equals_compiled_equals_enumeration(model, x, cls, kmax):
    z = naive_bayes_statistic(model, x, cls)
    f = compile_moments(z, kmax)
    for k in range(kmax + 1):
        poly = symbolic_moment(z, k)
        assert isinstance(poly, sympy.Poly)
        for N in (0, 2, 4) if model.n_cells <= 9 else (0, 3):
            want = expectation_by_enumeration(lambda c: Fraction(z.evaluate(c)) ** k, model, N)
            assert substitute(poly, N, model.cells) == want == f(N, model.cells).values[k]


def test_symbolic_polynomial_in_N_and_cells_at_new_probabilities():
    m = CellModel((2,), ["1/4"] * 4)
    z = naive_bayes_statistic(m, (1,))
    poly = symbolic_moment(z, 2)
    N, p0, p1, p2, p3 = poly.gens
    assert str(N) == "N" and poly.total_degree() == 4
    # E[(A - B)^2] with A ~ Bin(N, p2), B ~ Bin(N, p3) jointly multinomial:
    # Var(A - B) + (E[A - B])^2, Var(A - B) = N p2 (1-p2) + N p3 (1-p3) + 2 N p2 p3
    Ns = sympy.Symbol("N", integer=True, nonnegative=True)
    a, b = poly.gens[3], poly.gens[4]
    closed = Ns * a * (1 - a) + Ns * b * (1 - b) + 2 * Ns * a * b + (Ns * (a - b)) ** 2
    assert sympy.expand(poly.as_expr() - closed.subs(Ns, N)) == 0
    other = [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)]
    assert substitute(poly, 9, other) == compile_moments(z, 2)(9, other).values[2]


def test_invalid():
    z = naive_bayes_statistic(second_nb_model(), (0, 0))
    with pytest.raises(InvalidArgument, match="k must be a non-negative integer"):
        symbolic_moment(z, -1)
    with pytest.raises(InvalidArgument, match="must be a Statistic"):
        symbolic_moment("Z", 1)
    with pytest.raises(InvalidArgument, match="one per cell"):
        substitute(symbolic_moment(z, 1), 3, ["1/2", "1/2"])


def test_doctests():
    assert doctest.testmod(symbolic_module).failed == 0
