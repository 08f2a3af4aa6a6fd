"""Resubstitution, Err(1) and .632 on sufficient statistics (momentbound.exact.resub_states) against
exact Fraction sums over every count table (momentbound.exact.tables), and through the splitters."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.exact import resub_states, tables
from momentbound.exact.resub_states import route, state_moments
from momentbound.exact.tables import TableLaw
from momentbound.model.cells import CellModel


def _model(arities, K, seed):
    rng = np.random.default_rng(seed)
    size = int(np.prod(arities)) * K
    return CellModel.normalized(arities, [Fraction(int(v)) for v in rng.integers(1, 9, size=size)], K)


def _table_sums(model, clf, N, statistic):
    """Exact ``(E[est], E[est^2], E[est GE_N])`` summed over every count table of ``N`` points."""
    law = TableLaw(model, clf, exact=True)
    r, v = law.resubstitution(N)
    a = Fraction(632, 1000)
    if statistic == "resubstitution":
        value, coin = r, v
    elif statistic == "bootstrap":
        value, coin = law.bootstrap(N), 0 * r
    else:
        value, coin = (1 - a) * r + a * law.bootstrap(N), (1 - a) ** 2 * v
    return (law.expect(N, value), law.expect(N, value * value + coin), law.expect(N, value * law.ge(N)))


CASES = [
    ((4,), 3, 5, "resubstitution", NaiveBayes(), "rows"),
    ((4,), 3, 5, "resubstitution", NaiveBayes(ties="first", alpha=1), "rows"),
    ((3,), 2, 6, "bootstrap", NaiveBayes(), "rows"),
    ((3,), 2, 6, "632", NaiveBayes(ties="first"), "rows"),
    ((3,), 3, 3, "bootstrap", NaiveBayes(), "rows"),
    ((4,), 3, 3, "632", NaiveBayes(), "rows"),
    ((2,), 3, 4, "632", NaiveBayes(), "rows"),
    ((2, 3), 2, 5, "resubstitution", NaiveBayes(), "class-states"),
    ((2, 3), 2, 5, "resubstitution", NaiveBayes(ties="first", alpha=1), "class-states"),
    ((2, 2, 2), 2, 4, "resubstitution", NaiveBayes(alpha=Fraction(1, 2)), "class-states"),
]


@pytest.mark.parametrize("arities,K,N,statistic,clf,way", CASES)
def test_equal_to_every_count_table(arities, K, N, statistic, clf, way):
    model = _model(arities, K, seed=N + K + len(arities))
    got = state_moments(model, clf, N, statistic)
    assert got.route == way
    want = _table_sums(model, clf, N, statistic)
    for a, b in zip((got.mean, got.second, got.joint), want):
        assert abs(a - float(b)) < 1e-12
    assert got.dropped_mass_bound < 1e-13


@pytest.mark.parametrize("arities,K,N,clf", [((2, 3), 2, 6, NaiveBayes()), ((4,), 3, 6, NaiveBayes(alpha=1)),
                                             ((2, 2, 2), 2, 5, NaiveBayes(ties="first"))])
def test_ge_moments_equal_the_engine(arities, K, N, clf):
    """E[GE_N] and E[GE_N^2] of the same sums against the prediction-probability engine (another route)."""
    from momentbound.estimators import make_engine

    model = _model(arities, K, seed=11).to_float()
    got = state_moments(model, clf, N)
    engine = make_engine(model, classifier=clf)
    assert abs(got.ge_mean - float(engine.ge_first(N))) < 1e-12
    assert abs(got.ge_second - float(engine.ge_second(N))) < 1e-12


def test_a_wrong_tie_rule_is_caught():
    model = _model((2, 3), 2, seed=3)
    got = state_moments(model, NaiveBayes(ties="first"), 5)
    want = _table_sums(model, NaiveBayes(), 5, "resubstitution")
    assert abs(got.mean - float(want[0])) > 1e-8  # far outside the 1e-12 of the comparisons above


def test_routes_and_refusals():
    assert route(_model((2, 3), 3, 1), NaiveBayes(), "resubstitution", 10) is None  # several attributes, K = 3
    assert route(_model((3,), 2, 1), NaiveBayes(alpha=1), "bootstrap", 10) is None  # Err(1) needs alpha = 0
    assert route(_model((3,), 3, 1), NaiveBayes(ties="first"), "bootstrap", 10) is None  # 'first': two classes
    assert route(_model((3,), 2, 1), NaiveBayes(ties="sklearn"), "resubstitution", 10) is None
    with pytest.raises(InvalidArgument, match="statistic must be one of"):
        route(_model((3,), 2, 1), NaiveBayes(), "oob", 10)
    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        state_moments(_model((2, 3), 3, 1), NaiveBayes(), 10)
    with pytest.raises(InvalidArgument, match="max_seconds=None"):
        state_moments(_model((2, 3), 2, 1), NaiveBayes(), 40, max_seconds=1.0)
    with pytest.raises(InvalidArgument, match="GiB"):
        state_moments(_model((2, 3), 2, 1), NaiveBayes(), 40, max_seconds=None, max_memory=1e6)


@pytest.mark.parametrize("splitter_name,arities,K", [("Resubstitution", (2, 3), 2), ("Point632", (3,), 2),
                                                     ("Resubstitution", (3,), 3)])
def test_splitters_take_the_route_past_the_table_limit(monkeypatch, splitter_name, arities, K):
    from momentbound.estimators import estimator_accuracy
    from momentbound.splitters import bootstrap

    model = _model(arities, K, seed=7).to_float()
    splitter = getattr(bootstrap, splitter_name)()
    N = 6
    tabled = estimator_accuracy(model, N, splitter)
    assert tabled.route == "count-tables"
    monkeypatch.setattr(tables, "MAX_TABLES", 10)
    summed = estimator_accuracy(model, N, splitter)
    assert summed.route in ("rows", "class-states") and summed.as_row()["route"] == summed.route
    for name in ("mean", "variance", "covariance_with_ge", "rms"):
        assert abs(float(getattr(summed, name)) - float(getattr(tabled, name))) < 1e-12, name


def test_estimator_moments_records_the_route(monkeypatch):
    from momentbound.estimators import estimator_moments
    from momentbound.splitters.bootstrap import Point632Plus, Resubstitution

    model = _model((2, 3), 2, seed=2).to_float()
    monkeypatch.setattr(tables, "MAX_TABLES", 10)
    assert estimator_moments(model, 6, Resubstitution()).route == "class-states"
    with pytest.raises(InvalidArgument, match="montecarlo"):  # .632+ is not a sum of per-point terms
        estimator_moments(model, 6, Point632Plus())


def test_work_estimate_grows_with_N():
    model = _model((2, 3), 2, seed=1)
    assert resub_states.work_estimate(model, 40) > 10 * resub_states.work_estimate(model, 20)


@pytest.mark.parametrize("arities,K,N,weights,statistic", [
    ((2, 3), 2, 5, [1, 0, 2, 5, 0, 2, 3, 1, 6, 0, 1, 4], "resubstitution"),
    ((2, 2), 2, 5, [1, 0, 3, 0, 2, 0, 1, 0], "resubstitution"),  # class 1 never occurs
    ((4,), 3, 3, [1, 0, 2, 5, 0, 2, 0, 0, 6, 0, 1, 4], "bootstrap"),  # an input that never occurs
    ((3,), 2, 5, [1, 0, 0, 5, 2, 2], "632"),
])
def test_cells_of_probability_zero(arities, K, N, weights, statistic):
    model = CellModel.normalized(arities, [Fraction(v) for v in weights], K)
    got = state_moments(model, NaiveBayes(), N, statistic)
    for a, b in zip((got.mean, got.second, got.joint), _table_sums(model, NaiveBayes(), N, statistic)):
        assert abs(a - float(b)) < 1e-12


def test_the_estimators_read_the_module_limit(monkeypatch):
    from momentbound.estimators import estimator_moments
    from momentbound.splitters.bootstrap import Resubstitution

    model = _model((2, 3), 2, seed=2).to_float()
    monkeypatch.setattr(tables, "MAX_TABLES", 10)
    monkeypatch.setattr(resub_states, "MAX_SECONDS", 1e-9)
    with pytest.raises(InvalidArgument, match="MAX_SECONDS"):
        estimator_moments(model, 6, Resubstitution())
