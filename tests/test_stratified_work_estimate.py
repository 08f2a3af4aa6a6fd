"""The work estimates of the exact class-count routes count the work the routes do.

Witness: the term caches of real runs (every term a route computes is cached once, so the cache's
entries are the terms computed); the estimate is those terms' units priced per unit, checked by
recomputing the price. No wall-clock time is asserted.
"""

from __future__ import annotations

import pytest

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.exact.shuffle_split import shuffle_split_moments
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_moments
from momentbound.exact.stratified import (DRY_RUN_LIMIT, AtLeast, StateWork, TermWork, auto_arithmetic,
                                          dry_run_budget, repeated_stratified_cv_moments, stratified_cv_moments,
                                          term_work, unit_prices)
from momentbound.model.cells import CellModel
from momentbound.splitters.repeated import RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold

TWO = CellModel((2,), ["3/10", "1/5", "1/10", "2/5"])
# float cells: float arithmetic at every N (the exact models run in rational arithmetic up to N = 12)
THREE = CellModel((2,), [1 / 6, 1 / 12, 1 / 4, 1 / 6, 1 / 4, 1 / 12])
TWO_ATTR = CellModel((2, 2), [0.125, 0.0625, 0.0625, 0.125, 0.125, 0.1875, 0.125, 0.1875])

ROUTES = {
    "skf": (lambda m, N, t: stratified_cv_moments(m, N, 3, classifier=t.clf, arithmetic=t.mode, terms=t),
            lambda: StratifiedKFold(3)),
    "rskf": (lambda m, N, t: repeated_stratified_cv_moments(m, N, 2, 5, classifier=t.clf, arithmetic=t.mode,
                                                            terms=t),
             lambda: RepeatedStratifiedKFold(2, 5)),
    "ss": (lambda m, N, t: shuffle_split_moments(m, N, 2, 5, classifier=t.clf, arithmetic=t.mode, terms=t),
           lambda: ShuffleSplit(5, 2)),
    "sss": (lambda m, N, t: shuffle_split_moments(m, N, 3, 5, classifier=t.clf, arithmetic=t.mode, terms=t,
                                                  stratified=True),
            lambda: StratifiedShuffleSplit(5, 3)),
}


@pytest.mark.parametrize("route, model, N", [("skf", TWO, 9), ("skf", THREE, 6), ("skf", TWO_ATTR, 7),
                                             ("rskf", TWO, 6), ("rskf", THREE, 5), ("ss", TWO, 7),
                                             ("ss", TWO_ATTR, 6), ("sss", THREE, 7)])
def test_the_dry_run_counts_the_terms_the_route_computes(route, model, N):
    """The terms a dry run records are the entries of the real run's caches, kind by kind; the
    estimate is their units priced with PER_UNIT."""
    run, make = ROUTES[route]
    mode = auto_arithmetic(model, N)
    real = ClassCountTerms(model, NaiveBayes(), mode)
    run(model, N, real)
    dry = term_work(model, NaiveBayes(), mode)
    run(model, N, dry)
    assert dry.distinct() == {"decide": len(real._errs), "err1": len(real._err1),
                              "err2": len(real._err2), "two_sets": len(real._cross)}
    assert dry.distinct()["err1"] > 0 and (mode == "rational") == (model is TWO)
    assert isinstance(dry, StateWork) == (real.states is not None)
    units, prices = dry.all_units(), unit_prices(model, mode)
    priced = sum(units[k] * prices[k] for k in dry.KINDS)
    assert make().estimated_seconds(model, N) == pytest.approx(priced, rel=1e-12)


def test_units_follow_the_grid_sizes():
    """The units of single terms by hand: the decisions and err1 of a training composition m cost
    I d K P(m) and I K P(m) cells (P(m) = prod_c (m_c + 1)^d), once; err2 I (I + 1) / 2 K P (S + K)."""
    work = TermWork(TWO, NaiveBayes(), "float")
    work.err1((3, 1))
    # decisions (I d K P) and err1 (I K P) at P = 4 * 2 = 8, I = 2, K = 2, d = 1
    assert work.cells_by_term == {"decide": 2 * 1 * 2 * 8, "err1": 2 * 2 * 8}
    work.err1((3, 1))  # cached: a call, no new work
    assert work.units["calls"] == 2 and work.cells_by_term["err1"] == 32
    work.err2((1, 1))  # I (I + 1) / 2 = 3 input pairs of K P (S + K) cells, P = 4, S = 4
    assert work.cells_by_term["err2"] == 3 * 2 * 4 * (4 + 2)


def test_hopeless_runs_are_refused_from_a_short_dry_run():
    """RepeatedStratifiedKFold on three classes and two binary attributes at N = 36 (a run of many
    minutes): the dry run stops at its budget (DRY_RUN_LIMIT, or the guard's limit inside
    estimator_moments), and the refusal says the run takes more than that."""
    m = CellModel((2, 2), ["1/12"] * 12)
    with dry_run_budget(30):
        seconds = RepeatedStratifiedKFold(5, 10).estimated_seconds(m, 36)
    assert isinstance(seconds, AtLeast) and 30 < seconds < 31 and DRY_RUN_LIMIT > 120
    with pytest.raises(InvalidArgument, match=r"would take more than 1.2e\+02 s \(limit 120 s\).*montecarlo"):
        estimator_moments(m, 36, RepeatedStratifiedKFold(5, 10))
    small = StratifiedKFold(3).estimated_seconds(TWO, 9)  # a full count, not a bound
    assert not isinstance(small, AtLeast) and 0 < small < 1
