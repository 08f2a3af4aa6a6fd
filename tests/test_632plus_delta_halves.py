"""The delta-method approximation of ideal .632+ past the count-table limit: the mean and second
moments of ``(err, Err(1), gamma)`` from pairs of half tables (momentbound.exact.row_halves.delta_inputs)
against the sums over every count table (momentbound.exact.tables) and, past the table limit, against the
rows route of momentbound.exact.resub_states; the closed-form gradient of .632+ against central
differences."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_accuracy, make_engine
from momentbound.exact import resub_states, row_halves
from momentbound.exact.tables import MAX_TABLES, TableLaw, table_count
from momentbound.model.cells import CellModel
from momentbound.splitters.bootstrap import Point632Plus, _delta, plus_gradient, plus_value


def _model(arities, K, seed):
    rng = np.random.default_rng(seed)
    size = int(np.prod(arities)) * K
    return CellModel.normalized(arities, [Fraction(int(v)) for v in rng.integers(1, 9, size=size)], K)


def _table_inputs(model, N, clf):
    """``E[v]`` and ``E[v v']`` of ``v = (err, Err(1), gamma)`` over every count table (float)."""
    law = TableLaw(model.to_float(), clf, exact=False)
    parts = [law.resubstitution(N)[0], law.bootstrap(N), law.no_information(N)]
    mean = np.array([law.expect(N, x) for x in parts])
    second = np.array([[law.expect(N, x * y) for y in parts] for x in parts])
    return mean, second


CASES = [((3,), 3, 5, "random"), ((3,), 2, 8, "first"), ((4,), 2, 7, "random"), ((2,), 4, 4, "random"),
         ((5,), 2, 6, "first"), ((4,), 3, 4, "random")]


@pytest.mark.parametrize("arities,K,N,ties", CASES)
def test_delta_inputs_equal_the_count_tables(arities, K, N, ties):
    model = _model(arities, K, seed=sum(arities) + K + N)
    clf = NaiveBayes(ties=ties)
    mean, second = row_halves.delta_inputs(model.to_float(), clf, N)
    tm, ts = _table_inputs(model, N, clf)
    assert np.allclose(mean, tm, rtol=1e-12, atol=0) and np.allclose(second, ts, rtol=1e-12, atol=0)
    # the delta itself, against the splitter's own on the count tables (rational for this exact model)
    ref = Point632Plus().delta(make_engine(model, classifier=clf), N)
    got = _delta(mean, second - np.outer(mean, mean))
    assert got == pytest.approx(ref, rel=1e-10, abs=0)
    if K == 2:  # a wrong value is caught: the other tie rule moves Err(1) (and gamma) by far more
        other = row_halves.delta_inputs(model.to_float(), NaiveBayes(ties="random" if ties == "first" else "first"), N)
        assert np.abs(other[1] - second).max() > 1e-6


def test_plus_gradient_against_central_differences():
    def f(v):
        return float(plus_value(np.array([v[0]]), np.array([v[1]]), np.array([v[2]]))[0])

    h = 1e-6
    for point in ((0.2, 0.35, 0.6), (0.2, 0.7, 0.6), (0.4, 0.3, 0.6), (0.5, 0.6, 0.45), (0.1, 0.12, 0.9)):
        v = np.array(point)
        numeric = np.array([(f(v + h * e) - f(v - h * e)) / (2 * h) for e in np.eye(3)])
        assert np.allclose(plus_gradient(*point), numeric, rtol=1e-6, atol=1e-8), point
    # the weights of the linear branch are not those of the overfitting branch
    assert not np.allclose(plus_gradient(0.2, 0.35, 0.6), [0.368, 0.632, 0.0])


def test_past_the_table_limit():
    """Model (4 values, 3 classes) at N = 14 (past the 3e6 count tables): the reported approximation is the
    delta of the half tables' inputs, whose means and Err(1) second moment equal the rows route's sums."""
    model = _model((4,), 3, seed=1).to_float()
    N = 14
    clf = NaiveBayes()
    assert table_count(N, model.n_cells) > MAX_TABLES
    acc = estimator_accuracy(model, N, Point632Plus())
    assert acc.route == "row-halves" and acc.approximation is not None and acc.approximation.kind == "approximation"
    mean, second = row_halves.delta_inputs(model, clf, N)
    want = _delta(mean, second - np.outer(mean, mean))
    assert (acc.approximation.mean, acc.approximation.variance) == pytest.approx(want, rel=1e-12)
    # without the exact moments on the engine: the delta builds its own half tables
    fresh = Point632Plus().delta(make_engine(model, classifier=clf), N)
    assert fresh == pytest.approx(want, rel=1e-12)
    row = acc.as_row()
    assert row["approximation_mean"] == acc.approximation.mean and row["approximation_kind"] == "approximation"
    assert abs(acc.approximation.mean - acc.mean) > 1e-3  # a separate value, not the exact mean
    resub = resub_states.state_moments(model, clf, N, "resubstitution")
    err1 = resub_states.state_moments(model, clf, N, "bootstrap")
    assert resub.route == err1.route == "rows"
    assert mean[0] == pytest.approx(resub.mean, rel=1e-12) and mean[1] == pytest.approx(err1.mean, rel=1e-12)
    assert second[1, 1] == pytest.approx(err1.second, rel=1e-12)  # Err(1) has no tie coins


def test_guards_before_any_work(monkeypatch):
    model = _model((4,), 3, seed=1).to_float()
    engine = make_engine(model)
    monkeypatch.setattr(resub_states, "MAX_SECONDS", 1e-6)
    with pytest.raises(InvalidArgument, match="delta-method.*N=14.*limit"):
        Point632Plus().delta(engine, 14)
    monkeypatch.setattr(resub_states, "MAX_SECONDS", 60.0)
    monkeypatch.setattr(resub_states, "MAX_MEMORY", 2**20)
    with pytest.raises(InvalidArgument, match="GiB"):
        Point632Plus().delta(engine, 14)
    assert "_delta_inputs" not in engine.__dict__ or 14 not in engine.__dict__["_delta_inputs"]
    with pytest.raises(InvalidArgument, match="pairs of half tables need one attribute"):
        row_halves.delta_inputs(model, NaiveBayes(alpha=1), 4)


def test_err1_and_632_rows_route_equal_the_count_tables_where_both_run():
    """The rows route that Err(1) and .632 take when the pairs of tables are refused (three classes, N = 12,
    tests/test_row_halves.py) equals every count table at N = 4, where the count tables still run."""
    from momentbound.splitters.bootstrap import Bootstrap, Point632

    model = _model((4,), 3, seed=2).to_float()
    for est in (Bootstrap(), Point632()):
        acc = estimator_accuracy(model, 4, est)
        assert acc.route == "count-tables"
        rows = resub_states.state_moments(model, NaiveBayes(), 4, est.state_statistic)
        assert rows.route == "rows"
        assert rows.mean == pytest.approx(acc.mean, rel=1e-12)
        assert rows.second - rows.mean**2 == pytest.approx(acc.variance, rel=1e-10)
        assert rows.joint - rows.mean * rows.ge_mean == pytest.approx(acc.covariance_with_ge, rel=1e-9)


def test_three_class_bootstrap_past_the_pairs_of_tables_takes_the_rows_route():
    """One binary attribute, three classes, alpha = 0, N = 40 (1.2e6 tables, their pairs refused; alpha = 1
    is still refused, tests/test_accuracy_bruteforce.py): the rows route's exact moments against the
    library's simulation (tables drawn, Err(1) of each by bootstrap draws); a wrong value (.632's mean) is
    caught."""
    from statistics import NormalDist

    from momentbound.splitters.bootstrap import Bootstrap, Point632

    model = CellModel((2,), [Fraction(1, 6), Fraction(1, 6), Fraction(1, 6), Fraction(1, 12), Fraction(1, 4),
                             Fraction(1, 6)], 3)
    exact = estimator_accuracy(model, 40, Bootstrap())
    assert exact.route == "rows"
    mc = estimator_accuracy(model, 40, Bootstrap(), backend="montecarlo", draws=20_000, rng=np.random.default_rng(5))
    z95 = NormalDist().inv_cdf(0.975)
    for field in ("mean", "variance", "covariance_with_ge", "mean_square"):
        iv = getattr(mc, field)
        assert abs(iv.estimate - getattr(exact, field)) <= 3 * (iv.upper - iv.lower) / (2 * z95), field
    se = (mc.mean.upper - mc.mean.lower) / (2 * z95)
    assert abs(mc.mean.estimate - estimator_accuracy(model, 40, Point632()).mean) > 10 * se
