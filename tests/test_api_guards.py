"""Entry points of the exact estimator moments refuse out-of-reach sizes before any work.

Each case below used to run for tens of seconds and then end in a MemoryError (dense
``(N + 1) x (N + 1)`` tables, or per-class laws cached for every class size up to ``N``).
"""

from __future__ import annotations

import pytest

from momentbound.errors import InvalidArgument
from momentbound.estimators import (
    HoldOut,
    KFold,
    LeaveOneOut,
    ShuffleSplit,
    StratifiedKFold,
    estimator_accuracy,
    estimator_moments,
)
from momentbound.exact.shuffle_split import shuffle_split_moments
from momentbound.exact.stratified import agreement_law_bytes, cached_law_bytes, stratified_cv_moments
from momentbound.model.paper import independent_1d_model, second_nb_model

ONE = independent_1d_model()


@pytest.mark.parametrize("estimator", [LeaveOneOut(), KFold(10), StratifiedKFold(10)])
def test_cross_validation_at_huge_N_is_refused_with_the_montecarlo_route(estimator):
    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        estimator_moments(ONE, 100_000, estimator)


def test_one_attribute_cross_terms_are_timed_before_they_run():
    # N = 10,000: the training sets of two folds share 8,000 points; dense 8,001^2 walks
    with pytest.raises(InvalidArgument, match="would take about"):
        estimator_moments(ONE, 10_000, KFold(10))
    # the same size without cross terms (one hold-out split) is not refused by that estimate
    assert estimator_moments(ONE, 10_000, HoldOut(test_size=100)).mean > 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: stratified_cv_moments(ONE, 20_000, 10),  # binary: the state grids (about 3 GiB)
        lambda: shuffle_split_moments(ONE, 20_000, 10, 5),
        lambda: stratified_cv_moments(second_nb_model(), 400, 5),
    ],
)
def test_class_count_terms_refuse_laws_beyond_the_memory_limit(call):
    with pytest.raises(InvalidArgument, match="GiB of per-class agreement laws"):
        call()


def test_law_memory_estimate_counts_the_cached_grids():
    # one binary attribute, two classes: (N + 2)^3 / 3 cells per class and input pair
    assert agreement_law_bytes(ONE, 100) == pytest.approx(8 * 102**3 / 3 * 2 * 3)
    # binary attributes keep state grids instead: (N / K + 1)^(d K) entries, 3 K + 2^d K^2 of them
    assert cached_law_bytes(ONE, 100) == pytest.approx(8 * 51**2 * (6 + 2 * 4))
    assert cached_law_bytes(second_nb_model(), 30) > cached_law_bytes(ONE, 30)


@pytest.mark.parametrize("estimator", [KFold(10), LeaveOneOut(), HoldOut(test_size=100)])
def test_accuracy_against_GE_N_refuses_dense_tables_beyond_the_limit(estimator):
    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        estimator_accuracy(ONE, 100_000, estimator)


def test_sweep_passes_max_seconds_to_every_point():
    from momentbound.estimators import sweep

    # 2x2x2 at N = 30: the cross terms take a second or so; a limit of a millisecond refuses
    # them before any work, and None runs them (the same values as one call)
    with pytest.raises(InvalidArgument, match="max_seconds=None"):
        sweep(second_nb_model(), "folds", [3], N=30, max_seconds=1e-3)
    res = sweep(second_nb_model(), "folds", [3], N=30, max_seconds=None)
    one = estimator_moments(second_nb_model(), 30, KFold(3), max_seconds=None)
    assert res.rows[0].variance == one.variance
