"""The multimodular kernel for a new (N, p) (moments/modular.py, moments/_modular_kernel.py).

Witnesses: the python-flint integer plan (shares no arithmetic with the kernel: exact
integers there, float64 residues modulo primes here), brute-force enumeration of all count
tables at small N, and the rigorous size bound behind the Chinese remainder step.
"""

import math
import random
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from momentbound.errors import InvalidArgument
from momentbound.model import CellModel, equal_cells_model, second_nb_model
from momentbound.model.statistics import Feature, Statistic, cell_statistic, naive_bayes_statistic
from momentbound.moments import compile_moments, load_kernel
from momentbound.moments import compiled as compiled_mod
from momentbound.moments.polynomial_expectation import scaled_probabilities
from momentbound.moments.modular import ModularPlan, _basis, _prime_list
from test_moments_integer_plan import enum_moments, normalized


def both(f, N, probs):
    a = f(N, probs, engine="modular")
    f._gamma_cache.clear()
    b = f(N, probs, engine="flint")
    assert a.engine == "modular" and b.engine == "flint"
    return a, b


@pytest.mark.parametrize("x", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_kernel_equals_flint_2x2x2_twelve_moments(x):
    z = naive_bayes_statistic(second_nb_model(), x)
    f = compile_moments(z, 12)
    rnd = random.Random(hash(x) % 1000)
    for i in range(6):
        probs = normalized([rnd.randrange(1, 50) for _ in range(8)])
        N = rnd.choice([1, 2, 7, 40, 300, 10**4])
        a, b = both(f, N, probs)
        assert a.values == b.values


def test_kernel_equals_enumeration_small_n():
    m = CellModel((2, 2), normalized([3, 5, 2, 7, 4, 1, 6, 2]))
    z = naive_bayes_statistic(m, (1, 0))
    f = compile_moments(z, 6)
    for N in range(0, 6):
        assert f(N, m.cells, engine="modular").values == enum_moments(z, m.cells, N, 6)


@pytest.mark.parametrize(
    "arities, K, classes",
    [((2,), 2, (0, 1)), ((3,), 2, (0, 1)), ((2, 3), 2, (0, 1)), ((2,), 3, (2, 0)), ((2, 2), 3, (1, 2))],
)
def test_kernel_equals_flint_other_layouts(arities, K, classes):
    m = equal_cells_model(arities, K)
    z = naive_bayes_statistic(m, (1,) * len(arities), classes)
    f = compile_moments(z, 8)
    assert f.modular is not None
    rnd = random.Random(7)
    for _ in range(4):
        probs = normalized([rnd.randrange(1, 30) for _ in range(len(m.cells))])
        a, b = both(f, rnd.choice([3, 50, 1000]), probs)
        assert a.values == b.values


def test_kernel_single_block_statistic():
    m = CellModel((2,), normalized([1, 2, 3, 4]))
    # features of class 0 only (cells 0 and 2): N_0 and N^1_{0,0}, one block, one grid feature
    feats = [Feature("N_0", frozenset({0, 2})), Feature("A", frozenset({0}))]
    s = Statistic.from_terms(4, feats, {(1, 1): 2, (0, 2): -3, (2, 0): 1}, name="one block")
    f = compile_moments(s, 5)
    assert len(f.plan.blocks) == 1 and f.modular is not None
    a, b = both(f, 9, m.cells)
    assert a.values == b.values == enum_moments(s, m.cells, 9, 5)
    # one feature per cell and several cells: more than two blocks, flint only
    g = compile_moments(cell_statistic(m, {(1, 0, 0, 0): 2, (0, 2, 0, 0): -3, (1, 1, 1, 0): 1}), 3)
    assert g.modular is None


def test_kernel_large_n_float_and_huge_denominators():
    f = compile_moments(naive_bayes_statistic(second_nb_model(), (0, 0)), 12)
    floats = [0.1234, 0.05, 0.2, 0.0766, 0.15, 0.1, 0.25, 0.05]
    floats[-1] = 1.0 - math.fsum(floats[:-1])
    a, b = both(f, 10**6, floats)
    assert a.values == b.values and a.rational == b.rational
    # tiny probabilities give scaled integers beyond 2**62 (the slow residue path)
    tiny = normalized([1, 10**30, 3, 10**30, 5, 10**30, 7, 10**30 + 1])
    q, _ = scaled_probabilities(tiny)
    assert max(q) > 2**62
    a, b = both(f, 10**5, tiny)
    assert a.values == b.values


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.lists(st.integers(1, 10**6), min_size=8, max_size=8),
    st.integers(0, 10**7),
)
def test_kernel_equals_flint_random_rationals(weights, N):
    f = compile_moments(naive_bayes_statistic(second_nb_model(), (0, 0)), 7)
    a, b = both(f, N, normalized(weights))
    assert a.values == b.values


def test_crt_modulus_exceeds_twice_the_numerator():
    """The bound behind n_primes is rigorous: M > 2 |E[Z^k] D^W_k| for every k."""
    f = compile_moments(naive_bayes_statistic(second_nb_model(), (0, 0)), 12)
    mp = f.modular
    for weights, N in [([1] * 8, 10**6), ([999983, 1, 2, 3, 999979, 5, 6, 7], 12345)]:
        probs = normalized(weights)
        q, D = scaled_probabilities(probs)
        n = mp.n_primes(N, D)
        M = _basis(n)[2]
        exact = f(N, probs, engine="flint").rational
        for k, w in enumerate(mp.W):
            num = exact[k] * D**w
            assert num.denominator == 1
            assert 2 * abs(num.numerator) < M
        # and the kernel reproduces those numerators
        assert mp.numerators(q, D, N) == [int(exact[k] * D**w) for k, w in enumerate(mp.W)]


def test_primes_are_distinct_primes_below_two_to_24():
    ps = _prime_list(40)
    assert len(set(ps)) == 40 and all(2**23 < p < 2**24 for p in ps)
    assert all(all(p % d for d in range(2, 200)) for p in ps)


def test_engine_argument_errors():
    f = compile_moments(naive_bayes_statistic(second_nb_model(), (0, 0)), 2)
    with pytest.raises(InvalidArgument, match="engine must be"):
        f(10, second_nb_model().cells, engine="fast")
    g = compile_moments(naive_bayes_statistic(equal_cells_model((2, 2, 2)), (0, 0, 0)), 2)
    assert g.modular is None and not ModularPlan.supported(g.plan)
    with pytest.raises(InvalidArgument, match="engine='flint'"):
        g(10, equal_cells_model((2, 2, 2)).cells, engine="modular")
    assert g(10, equal_cells_model((2, 2, 2)).cells).engine == "flint"


def test_auto_engine_policy():
    load_kernel()
    assert "momentbound.moments._modular_kernel" in sys.modules
    f = compile_moments(naive_bayes_statistic(second_nb_model(), (1, 1)), 6)
    probs = normalized([2, 3, 5, 7, 11, 13, 17, 19])
    first = f(50, probs)
    again = f(60, probs)  # the same p again: the cached N-independent vectors take over
    third = f(70, probs)
    assert (first.engine, again.engine, third.engine) == ("modular", "flint", "flint")
    assert first.values == f(50, probs, engine="flint").values


def test_auto_engine_loads_kernel_after_threshold(monkeypatch):
    """Without the kernel loaded, auto uses flint until KERNEL_AFTER new vectors."""
    monkeypatch.setattr(compiled_mod, "KERNEL_AFTER", 3)
    monkeypatch.setattr(compiled_mod, "_new_vectors", 0)
    monkeypatch.delitem(sys.modules, "momentbound.moments._modular_kernel", raising=False)
    loaded = []
    monkeypatch.setattr(compiled_mod, "load_kernel", lambda: loaded.append(1))
    f = compile_moments(naive_bayes_statistic(second_nb_model(), (0, 1)), 3)
    for i in range(3):
        assert f(20, normalized([i + 1, 2, 3, 4, 5, 6, 7, 9])).engine == "flint"
    assert not loaded
    assert compiled_mod._kernel_wanted() is True and loaded == [1]


@pytest.mark.parametrize("arities", [(2,), (3,), (2, 2), (2, 3)])
def test_naive_bayes_size_bound_covers_the_exact_support(arities):
    m = equal_cells_model(arities)
    z = naive_bayes_statistic(m, (0,) * len(arities))
    mp = compile_moments(z, 2).modular
    for N in (0, 1, 2, 5, 9, 30):
        lo, hi = z.support(N)
        assert max(-lo, hi) <= mp.zmax(N)
