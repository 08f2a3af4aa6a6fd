"""LinearMetric: validation, refusals of statistics that are not linear for a splitter, the float
routes (the reduced-state cross kernels are the error's: another loss takes the per-pair route with
the same numbers), and the 0-1 error path left as it was."""

from __future__ import annotations

from fractions import Fraction

import pytest

from momentbound import CellModel
from momentbound.errors import InvalidArgument
from momentbound.estimators import (
    GE,
    HoldOut,
    KFold,
    LeaveOneOut,
    LinearMetric,
    confusion_moments,
    estimator_accuracy,
    estimator_moments,
    make_engine,
)
from momentbound.probability.exact_backend import ExactBackend
from momentbound.splitters.bootstrap import Bootstrap, Point632Plus

MODEL = CellModel((2,), ["1/5", "3/10", "7/20", "3/20"])
#: two attributes: the float exact backend serves the error's cross terms by the reduced-state kernels
MODEL2 = CellModel((2, 2), ["1/10", "1/20", "1/8", "1/10", "3/40", "1/5", "1/5", "3/20"])


@pytest.mark.parametrize(
    "build, fragment",
    [
        (lambda: LinearMetric([[0, 1, 2], [1, 0]]), "square K x K"),
        (lambda: LinearMetric([[0, "x"], [1, 0]]), "loss[0][1]"),
        (lambda: LinearMetric(), "loss matrix"),
        (lambda: LinearMetric([[0, 1], [1, 0]], rule="recall"), "builds its own"),
        (lambda: LinearMetric.confusion_entry(-1, 0), "class index"),
    ],
)
def test_bad_metrics_are_refused_by_name(build, fragment: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        build()
    assert fragment in str(err.value)


def test_a_class_beyond_the_model_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="names class 2, but the model has 2 classes"):
        estimator_moments(MODEL, 5, KFold(2), metric=LinearMetric.confusion_entry(2, 0))
    with pytest.raises(InvalidArgument, match="3 x 3"):
        estimator_moments(MODEL, 5, GE(), metric=LinearMetric([[0, 1, 1], [1, 0, 1], [1, 1, 0]]))


@pytest.mark.parametrize(
    "estimator, metric, fragment",
    [
        (HoldOut(2), LinearMetric.recall(0), "backend='montecarlo'"),
        (LeaveOneOut(), "balanced_error", "not linear"),
        (Point632Plus(), LinearMetric.confusion_entry(0, 1), "backend='montecarlo'"),
        (Bootstrap(50), LinearMetric.class_error(0), "no exact route"),
        (KFold(2), "precision", "not linear"),
    ],
)
def test_statistics_that_are_not_linear_for_the_splitter_name_the_monte_carlo_route(estimator, metric, fragment) -> None:
    for call in (estimator_moments, estimator_accuracy):
        with pytest.raises(InvalidArgument) as err:
            call(MODEL, 6, estimator, metric=metric)
        assert fragment in str(err.value)
    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        confusion_moments(MODEL, 6, Point632Plus())


def test_montecarlo_backend_does_not_take_a_linear_metric() -> None:
    with pytest.raises(InvalidArgument, match="0-1 error"):
        estimator_moments(MODEL, 6, KFold(2), backend="montecarlo", metric=LinearMetric.class_error(0))


def test_the_error_metric_is_the_default_path_bit_for_bit() -> None:
    for est in (GE(), KFold(3), LeaveOneOut()):
        plain = estimator_moments(MODEL, 6, est)
        named = estimator_moments(MODEL, 6, est, metric="error")
        matrix = estimator_moments(MODEL, 6, est, metric=LinearMetric([[0, 1], [1, 0]]))
        assert (plain.mean, plain.variance) == (named.mean, named.variance) == (matrix.mean, matrix.variance)
        assert plain.metric == "error" and matrix.metric == "custom"


def test_a_non_indicator_loss_uses_its_squares_on_one_point() -> None:
    """With L = 2 (1 - I) every moment scales: mean by 2, variance by 4 (the same-point term uses L^2)."""
    engine = make_engine(MODEL)
    twice = LinearMetric([[0, 2], [2, 0]])
    for est in (GE(), KFold(3), LeaveOneOut()):
        one = estimator_moments(MODEL, 6, est, engine=engine)
        two = estimator_moments(MODEL, 6, est, metric=twice, engine=engine)
        assert two.mean == 2 * one.mean and two.variance == 4 * one.variance
        acc1 = estimator_accuracy(MODEL, 6, est, engine=engine)
        acc2 = estimator_accuracy(MODEL, 6, est, metric=twice, engine=engine)
        assert acc2.covariance_with_ge == 4 * acc1.covariance_with_ge and acc2.metric == "custom"


def test_the_reduced_state_route_and_the_per_pair_route_agree_in_floats() -> None:
    """The error's cross terms come from the reduced-state kernels; the same loss written as a matrix
    takes the per-pair cross probabilities."""
    engine = make_engine(MODEL2, backend=ExactBackend(arithmetic="float"))
    assert engine.backend.cross_error_matrix(MODEL2, 2, 1, 1, engine.classifier) is not None
    err = estimator_moments(MODEL2, 6, KFold(2, average="pooled"), engine=engine, backend=engine.backend)
    same = estimator_moments(MODEL2, 6, KFold(2, average="pooled"), engine=engine, backend=engine.backend,
                             metric=LinearMetric([[0, 1], [1, 0]]))
    assert isinstance(err.variance, float)
    assert same.mean == pytest.approx(err.mean, abs=1e-12)
    assert same.variance == pytest.approx(err.variance, abs=1e-12)
    conf = confusion_moments(MODEL2, 6, KFold(2, average="pooled"), backend=ExactBackend(arithmetic="float"))
    off = (1, 2)
    assert sum(conf.covariance[i][j] for i in off for j in off) == pytest.approx(err.variance, abs=1e-12)


def test_population_rates_of_ge() -> None:
    """Recall and class error rate of the classifier trained on N points add to 1; the balanced error
    is the mean of the class error rates."""
    engine = make_engine(MODEL)
    rec = [estimator_moments(MODEL, 6, GE(), engine=engine, metric=LinearMetric.recall(a)).mean for a in (0, 1)]
    rate = [estimator_moments(MODEL, 6, GE(), engine=engine, metric=LinearMetric.class_error_rate(a)).mean
            for a in (0, 1)]
    bal = estimator_moments(MODEL, 6, GE(), engine=engine, metric=LinearMetric.balanced_error()).mean
    assert [r + e for r, e in zip(rec, rate)] == [1, 1]
    assert bal == (rate[0] + rate[1]) / 2 and isinstance(bal, Fraction)
