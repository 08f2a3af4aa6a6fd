"""The fast re-evaluation path of compiled moments (moments/integer_plan.py).

Witnesses: brute-force enumeration of all count tables (exact), and the engine's
independent power-table evaluator (``engine.BlockEvaluator`` / ``engine.accumulate``,
which shares no code with the closed-form block vectors), at many probability vectors
evaluated one after another on the same compiled object.
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from momentbound.model import CellModel, equal_cells_model, second_nb_model
from momentbound.model.statistics import cell_statistic, naive_bayes_statistic
from momentbound.moments import compile_moments, raw_moments
from momentbound.moments.polynomial_expectation import (
    BlockEvaluator,
    accumulate,
    finish,
    layout,
    scaled_probabilities,
)
from momentbound.model.enumeration import count_tables, multinomial_pmf
from momentbound.moments.integer_plan import FastPlan, GeneralBlock, OneGridBlock, TwoGridBlock


def reference_gammas(f, probs):
    """The engine's power-table evaluation of the same compiled polynomials."""
    q, D = scaled_probabilities(probs)
    evals = [BlockEvaluator(b, q, gm) for b, gm in zip(f.layout.blocks, f.grid_max)]
    return [accumulate(evals, poly) for poly in f.splits], D


def enum_moments(z, cells, N, order):
    acc = [Fraction(0)] * (order + 1)
    for t in count_tables(len(cells), N):
        w = multinomial_pmf(t, cells)
        if w:
            v = Fraction(z.evaluate(t))
            for k in range(order + 1):
                acc[k] += w * v**k
    return tuple(acc)


def normalized(weights):
    s = sum(weights)
    return [Fraction(w, s) for w in weights]


def test_block_kinds_cover_d_1_2_3():
    kinds = []
    for arities in [(2,), (2, 2), (2, 2, 2)]:
        m = equal_cells_model(arities)
        f = compile_moments(naive_bayes_statistic(m, (0,) * len(arities)), 4)
        kinds.append({type(b) for b in f.plan.blocks})
    assert kinds == [{OneGridBlock}, {TwoGridBlock}, {GeneralBlock}]


@pytest.mark.parametrize(
    "model,x,cls,order",
    [
        (second_nb_model(), (0, 0), (0, 1), 12),
        (CellModel((2, 3), [Fraction(i + 1, 78) for i in range(12)]), (1, 2), (1, 0), 8),
        (CellModel.normalized((2, 2), [i % 5 + 1 for i in range(12)], 3), (0, 1), (2, 0), 8),
        (CellModel((3,), [Fraction(i + 1, 21) for i in range(6)]), (1,), (0, 1), 12),
        (CellModel((2, 2, 2), [Fraction(i + 1, 136) for i in range(16)]), (0, 1, 1), (0, 1), 4),
    ],
)
def test_fast_gammas_equal_power_table_engine_at_many_new_p(model, x, cls, order):
    z = naive_bayes_statistic(model, x, cls)
    f = compile_moments(z, order)
    n = model.n_cells
    for s in range(6):
        # a new probability vector every time, with zero cells and an empty class sometimes
        w = [((7 * c + 3 * s) % 11) * (c % (s + 2) != 0) + (s == 0) for c in range(n)]
        if sum(w) == 0:
            w[0] = 1
        probs = normalized(w)
        q, D = scaled_probabilities(probs)
        ref, D2 = reference_gammas(f, probs)
        assert D == D2
        assert f.plan.gammas(q) == ref
        for N in (0, 1, 7, 1000):
            assert f(N, probs).values == tuple(finish(g, N, D) for g in ref)


@pytest.mark.parametrize(
    "model,x,cls,N,order",
    [
        (second_nb_model(), (1, 1), (0, 1), 6, 6),
        (CellModel((2,), ["1/10", "2/10", "3/10", "4/10"]), (0,), (1, 0), 8, 8),
        (CellModel.normalized((3,), [1, 2, 0, 4, 5, 6, 7, 0, 9], 3), (2,), (2, 1), 5, 5),
        (CellModel((2, 2, 2), [Fraction(i + 1, 136) for i in range(16)]), (1, 0, 1), (1, 0), 4, 4),
    ],
)
def test_fast_path_equals_enumeration_after_other_evaluations(model, x, cls, N, order):
    z = naive_bayes_statistic(model, x, cls)
    f = compile_moments(z, order)
    # evaluate at unrelated probabilities first: nothing stale may leak into the next call
    f(N + 3, normalized(list(range(1, model.n_cells + 1))))
    assert f(N, model.cells).values == enum_moments(z, model.cells, N, order)


def test_float_cells_use_exact_dyadic_values():
    m = second_nb_model().to_float()
    z = naive_bayes_statistic(m, (0, 1))
    f = compile_moments(z, 12)
    probs = [0.1, 0.15, 0.1, 0.15, 0.1, 0.15, 0.1, 0.15]
    q, D = scaled_probabilities(probs)
    assert f.plan.gammas(q) == reference_gammas(f, probs)[0]
    ms = f(10**6, probs)
    ex = f(10**6, [Fraction(p) for p in probs])
    assert ms.values == tuple(float(v) for v in ex.values)


def test_non_naive_bayes_layouts():
    """Statistics whose blocks are not the classes of Z: cell polynomials (one-cell
    blocks, no total feature), sums of two Z's (two grid features with off-diagonal
    exponents), and products."""
    m = second_nb_model()
    z1 = naive_bayes_statistic(m, (0, 0))
    z2 = naive_bayes_statistic(m, (1, 0))
    s = cell_statistic(m, {(2, 0, 0, 1, 0, 0, 0, 0): 1, (0, 1, 1, 0, 0, 0, 0, 0): -2})
    probs = normalized([3, 1, 4, 1, 5, 9, 2, 6])
    for stat, order, N in ((z1 + z2, 3, 4), (s, 4, 5), (z1 * z2 - 2 * z1, 2, 3)):
        f = compile_moments(stat, order)
        q, _ = scaled_probabilities(probs)
        assert f.plan.gammas(q) == reference_gammas(f, probs)[0]
        assert f(N, probs).values == enum_moments(stat, probs, N, order)


def test_plan_is_built_from_the_layout_only():
    z = naive_bayes_statistic(second_nb_model(), (0, 0))
    f = compile_moments(z, 3)
    plan = FastPlan(layout(z), f.splits, f.grid_max)
    q, _ = scaled_probabilities(second_nb_model().cells)
    assert plan.gammas(q) == f.plan.gammas(q)


rational = st.integers(min_value=0, max_value=12)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(rational, min_size=8, max_size=8).filter(lambda w: sum(w) > 0), st.integers(0, 5))
def test_property_random_rational_cells_2x2(weights, N):
    probs = normalized(weights)
    z = naive_bayes_statistic(equal_cells_model((2, 2)), (0, 1))
    f = compile_moments(z, 5)
    assert f(N, probs).values == enum_moments(z, probs, N, 5)
    q, _ = scaled_probabilities(probs)
    f12 = compile_moments(z, 12)
    assert f12.plan.gammas(q) == reference_gammas(f12, probs)[0]


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 10**6), min_size=8, max_size=8), st.integers(0, 10**6))
def test_property_large_denominators_order_12(weights, N):
    probs = normalized(weights)
    z = naive_bayes_statistic(equal_cells_model((2, 2)), (1, 1))
    f = compile_moments(z, 12)
    ref, D = reference_gammas(f, probs)
    assert f(N, probs).values == tuple(finish(g, N, D) for g in ref)
    model = CellModel((2, 2), probs)
    assert raw_moments(z, model, N, 12).values == f(N, probs).values


def test_two_grid_features_with_unequal_exponents():
    """Grid exponent pairs (e1, e2) with e1 != e2 (no symmetrised monomials)."""
    from momentbound.model.statistics import Statistic

    m = second_nb_model()
    z = naive_bayes_statistic(m, (1, 0))
    # features: N_0, N_1, A_0, B_0, A_1, B_1 (see the naive Bayes layout)
    terms = {(0, 1, 2, 1, 0, 0): 1, (0, 0, 1, 3, 0, 1): -3, (1, 0, 0, 0, 0, 2): 2, (0, 0, 0, 0, 0, 0): 5}
    stat = Statistic.from_terms(m.n_cells, z.features, terms, name="custom")
    f = compile_moments(stat, 3)
    assert any(isinstance(b, TwoGridBlock) for b in f.plan.blocks)
    probs = normalized([2, 7, 1, 8, 2, 8, 1, 8])
    q, _ = scaled_probabilities(probs)
    assert f.plan.gammas(q) == reference_gammas(f, probs)[0]
    assert f(4, probs).values == enum_moments(stat, probs, 4, 3)
