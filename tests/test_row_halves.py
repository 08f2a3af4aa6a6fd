"""Ideal .632+ (and resubstitution, Err(1), .632) on pairs of half tables (momentbound.exact.row_halves)
against the sums over every count table (momentbound.exact.tables, the splitter's per_table values), and
against the rows route of momentbound.exact.resub_states."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.exact import resub_states, row_halves
from momentbound.exact.tables import TableLaw
from momentbound.model.cells import CellModel
from momentbound.splitters.bootstrap import Point632Plus


def _model(arities, K, seed):
    rng = np.random.default_rng(seed)
    size = int(np.prod(arities)) * K
    return CellModel.normalized(arities, [Fraction(int(v)) for v in rng.integers(1, 9, size=size)], K)


def _table_sums(model, N, exact, clf=None):
    """``(E[.632+], E[.632+^2], E[.632+ GE_N], E[GE_N], E[GE_N^2])`` over every count table, from the
    splitter's own per-table values."""
    law = TableLaw(model if exact else model.to_float(), clf or NaiveBayes(), exact=exact)
    f, _ = Point632Plus().per_table(law, N)
    ge = law.ge(N)
    return [law.expect(N, v) for v in (f, f * f, f * ge, ge, ge * ge)]


def _halves(model, N, statistic="632plus", tail=0.0, clf=None):
    got = row_halves.state_moments(model.to_float(), clf or NaiveBayes(), N, statistic, tail)
    return [got.mean, got.second, got.joint, got.ge_mean, got.ge_second], got


# (arities, K, N, rational): 2-4 classes, 2-4 values, N up to 10
CASES = [((2,), 2, 10, False), ((3,), 2, 5, True), ((4,), 2, 6, False), ((2,), 3, 9, False),
         ((3,), 3, 3, True), ((4,), 3, 4, False), ((2,), 4, 6, False), ((3,), 4, 4, False),
         ((4,), 4, 3, False), ((3,), 3, 5, False)]


@pytest.mark.parametrize("arities,K,N,exact", CASES)
def test_equal_to_every_count_table(arities, K, N, exact):
    model = _model(arities, K, seed=3 * N + K + arities[0])
    got, res = _halves(model, N)
    assert res.route == "row-halves" and res.dropped_mass_bound == 0.0
    for a, b in zip(got, _table_sums(model, N, exact)):
        assert abs(a - float(b)) <= 1e-12 * abs(float(b))


@pytest.mark.parametrize("arities,N,exact", [((2,), 10, False), ((3,), 6, True), ((4,), 9, False),
                                             ((4,), 12, False)])
def test_ties_first_with_two_classes(arities, N, exact):
    """Ties 'first': an empty row and a bootstrap sample without class 0 (Err(1)'s correction at n_1), a
    table without class 0 (GE_N = P[Y = 0])."""
    clf = NaiveBayes(ties="first")
    model = _model(arities, 2, seed=N + arities[0])
    got, res = _halves(model, N, clf=clf)
    assert res.route == "row-halves"
    for a, b in zip(got, _table_sums(model, N, exact, clf)):
        assert abs(a - float(b)) <= 1e-12 * abs(float(b))
    wrong, _ = _halves(model, N)  # the rule of ties 'random' differs
    assert abs(wrong[0] - got[0]) > 1e-6


def test_a_zero_cell_and_the_tail():
    """A cell of probability 0 (its rows dropped) and a skipped tail: within the reported mass."""
    model = CellModel.normalized((3,), [Fraction(v) for v in (3, 0, 1, 2, 5, 1)], 2)
    want = [float(v) for v in _table_sums(model, 7, False)]
    got, _ = _halves(model, 7)
    assert max(abs(a - b) / b for a, b in zip(got, want)) <= 1e-12
    cut, res = _halves(model, 7, tail=1e-6)
    assert 0 < res.dropped_mass_bound <= 1e-6
    assert all(abs(a - b) <= res.dropped_mass_bound for a, b in zip(cut, want))


def test_a_wrong_value_is_caught():
    """One more bootstrap miss in one half state moves the sums far past the 1e-12 tolerance."""
    model = _model((3,), 3, seed=5)
    fm, N = model.to_float(), 5
    A, B = row_halves.half_states(fm, NaiveBayes(), N)
    A.stats[2][0, 1] += 1.0
    total, _ = row_halves.half_moments(A, B, N, 3, "632plus", 0.0)
    want = _table_sums(model, N, False)
    assert abs(total[1] - float(want[0])) > 1e-6


@pytest.mark.parametrize("statistic", ["resubstitution", "bootstrap", "632"])
@pytest.mark.parametrize("K,ties", [(3, "random"), (2, "first")])
def test_linear_statistics_equal_the_rows_route(statistic, K, ties):
    """The same half tables give resubstitution, Err(1) and .632: equal to the rows route's sums."""
    model = _model((3,), K, seed=7)
    N = 12 if K == 3 else 20
    clf = NaiveBayes(ties=ties)
    rows = resub_states.state_moments(model, clf, N, statistic)
    assert rows.route == "rows"
    got, _ = _halves(model, N, statistic, clf=clf)
    for a, b in zip(got, (rows.mean, rows.second, rows.joint, rows.ge_mean, rows.ge_second)):
        assert abs(a - b) <= 1e-12 * abs(b)


def test_the_estimators_take_the_route_past_the_table_limit():
    from momentbound.estimators import estimator_accuracy, make_engine
    from momentbound.exact.tables import MAX_TABLES, table_count

    model = _model((4,), 3, seed=1).to_float()
    N = 14
    assert table_count(N, model.n_cells) > MAX_TABLES
    acc = estimator_accuracy(model, N, Point632Plus())
    assert acc.route == "row-halves" and acc.approximation is not None  # the delta, on the same half tables
    direct = row_halves.state_moments(model, NaiveBayes(), N, tail=1e-13)
    assert acc.mean == pytest.approx(direct.mean, rel=1e-12)
    assert acc.variance == pytest.approx(direct.second - direct.mean**2, rel=1e-10)
    engine = make_engine(model)
    assert direct.ge_mean == pytest.approx(float(engine.ge_first(N)), rel=1e-12)
    assert direct.ge_second == pytest.approx(float(engine.ge_second(N)), rel=1e-12)


def test_refusals_before_any_work():
    model = _model((4,), 3, seed=1)
    assert resub_states.route(model, NaiveBayes(ties="first"), "632plus", 10) is None  # three classes
    assert resub_states.route(model, NaiveBayes(alpha=1), "632plus", 10) is None
    assert resub_states.route(_model((2, 2), 2, seed=1), NaiveBayes(), "632plus", 10) is None
    with pytest.raises(InvalidArgument, match="max_seconds=None"):
        resub_states.state_moments(model, NaiveBayes(), 60, "632plus", max_seconds=1.0)
    with pytest.raises(InvalidArgument, match="GiB"):
        resub_states.state_moments(model, NaiveBayes(), 60, "632plus", max_seconds=None, max_memory=2**20)
    with pytest.raises(InvalidArgument, match="statistic must be one of"):
        row_halves.half_moments(*row_halves.half_states(model.to_float(), NaiveBayes(), 2), 2, 3, "plus", 0.0)


def test_below_the_table_limit_when_the_generic_bootstrap_refuses():
    """Three classes: the count tables' Err(1) sums over every pair of tables, refused at N = 12 (1.35e6
    tables); .632+ takes the half tables there, Err(1) and .632 the rows route, whose moments (and joint
    terms with GE_N) agree with the library's simulation (tables drawn, Err(1) of each by bootstrap draws,
    a route that never sums rows); alpha = 1 has no route and is still refused."""
    from statistics import NormalDist

    from momentbound.estimators import estimator_accuracy
    from momentbound.splitters.bootstrap import Bootstrap, Point632

    def se_of(interval):  # the 95% interval's half width over z
        return (interval.upper - interval.lower) / (2 * NormalDist().inv_cdf(0.975))

    model = _model((4,), 3, seed=2).to_float()
    acc = estimator_accuracy(model, 12, Point632Plus())
    assert acc.route == "row-halves"
    exact = {}
    for est in (Bootstrap(), Point632()):
        exact[est.name] = got = estimator_accuracy(model, 12, est)
        assert got.route == "rows"
        mc = estimator_accuracy(model, 12, est, backend="montecarlo", draws=20_000, rng=np.random.default_rng(3))
        for field in ("mean", "variance", "covariance_with_ge", "mean_square"):
            iv = getattr(mc, field)
            assert abs(iv.estimate - getattr(got, field)) <= 3 * se_of(iv), (est, field)
    # a wrong value is caught: .632 lies outside the simulated Err(1)'s interval
    assert abs(mc.mean.estimate - exact["bootstrap"].mean) > 10 * se_of(mc.mean)
    with pytest.raises(InvalidArgument, match="montecarlo"):
        estimator_accuracy(model, 12, Bootstrap(), classifier=NaiveBayes(alpha=1))