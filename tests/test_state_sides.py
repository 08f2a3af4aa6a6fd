"""The cross-fold term of the state route (momentbound.exact.binary_states): averaged grids copied
into their side reflected row by row, buffers of dropped sides reused, and the terms of
StratifiedKFold computed first in strips of the first class count (docs/mathematics.md,
"Stratified cross-validation on binary attributes").

Witnesses: the rational sums (Python integers, no reflection trick, no cache) for the float terms;
the same route with an unbounded cache and the usual order for the float moments, bitwise; and the
dry run's replay of the cache for the count of side computations. No wall-clock time is asserted.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

import momentbound.exact.stratified as strat
from momentbound import CellModel
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.binary_states import BinaryStates, side_bytes
from momentbound.exact.class_terms import ClassCountTerms

#: three classes, two binary attributes (cells in CellModel order: inputs in C order, classes within)
MODEL = CellModel((2, 2), [F(3, 20), F(1, 25), F(1, 50), F(1, 20), F(1, 10), F(1, 25),
                           F(1, 20), F(1, 10), F(1, 25), F(1, 10), F(2, 25), F(23, 100)], 3)
CLF = NaiveBayes(ties="first", alpha=1)


@pytest.mark.parametrize("cc, b1, b2", [((2, 3, 1), (2, 1, 1), (1, 1, 2)), ((1, 2, 2), (1, 1, 1), (1, 1, 1))])
def test_reflected_copies_equal_the_rational_sums(cc, b1, b2):
    """Both test points in the other training set: the compiled sum over the sides' row-by-row
    reflected copies against the rational one, which reflects every averaged grid with numpy (the
    four inputs reflect different sets of axes, the last axis included)."""
    exact, fl = ClassCountTerms(MODEL, CLF, "rational"), ClassCountTerms(MODEL, CLF, "float")
    e = exact.two_sets(cc, b1, b2, u_in_1=True, t_in_2=True)
    f = fl.two_sets(cc, b1, b2, u_in_1=True, t_in_2=True)
    np.testing.assert_allclose(f, e.astype(float), rtol=1e-13, atol=1e-16)
    # the comparison can fail: one more shared point of class 0 gives another value
    g = fl.two_sets((cc[0] + 1,) + cc[1:], b1, b2, u_in_1=True, t_in_2=True)
    assert np.abs(g - e.astype(float)).max() > 1e-6


def test_a_small_cache_and_the_local_order_leave_the_moments_bitwise_equal(monkeypatch):
    """A side cache of 40 MiB drops sides (their buffers are overwritten) and the strips of
    :func:`local_key` reorder the terms; the moments, summed in the usual order, are bitwise those of
    the usual run."""
    want = strat.stratified_cv_moments(MODEL, 15, 5, classifier=CLF, arithmetic="float")
    monkeypatch.setattr(strat, "LOCAL_SIDES", float("inf"))
    seen = []
    key = strat.local_key
    monkeypatch.setattr(strat, "local_key", lambda n: (seen.append(n), key(n))[1])
    terms = ClassCountTerms(MODEL, CLF, "float")
    terms.states._sides.limit = 40 * 2**20
    got = strat.stratified_cv_moments(MODEL, 15, 5, classifier=CLF, arithmetic="float", terms=terms)
    assert seen and terms.states._sides.wraps  # reordered, and the ring of side buffers went round
    assert (got.mean, got.variance, got.fold_covariance) == (want.mean, want.variance, want.fold_covariance)
    assert got.fold_means == want.fold_means
    other = strat.stratified_cv_moments(MODEL, 15, 3, classifier=CLF, arithmetic="float", terms=terms)
    assert other.variance != got.variance  # a different route is not mistaken for it


def test_local_key_keeps_neighbours_close():
    """Strips of three values of the first count; within one, the middle counts then the first."""
    assert strat.LOCAL_STRIP == 3
    vectors = [(a, b, 12 - a - b) for a in range(13) for b in range(13 - a)]
    order = sorted(vectors, key=strat.local_key)
    assert sorted(order) == sorted(vectors)
    assert order[:4] == [(0, 0, 12), (1, 0, 11), (2, 0, 10), (0, 1, 11)]
    at = {n: i for i, n in enumerate(order)}
    assert at[(4, 5, 3)] - at[(3, 5, 4)] == 1


def test_the_dry_run_replays_fewer_side_computations_in_strips(monkeypatch):
    """10-fold CV at N = 30: the cache holds about 11 sides (:func:`local_sides`), and the strips
    compute fewer of them again than the usual order (dry runs in one process, no term computed)."""
    monkeypatch.setattr(strat, "WORKERS", 1)
    assert strat.local_sides(MODEL, 30, 10) < strat.LOCAL_SIDES < strat.local_sides(MODEL, 30, 5)
    assert side_bytes(3, 2, 30, 10) == pytest.approx(8 * 4 * 9 * 9**4 * 10**2)
    counts = {}
    for local in (True, False):
        work = strat.StateWork(MODEL, CLF, "float")
        work.local_order = local
        strat.stratified_cv_moments(MODEL, 30, 10, classifier=CLF, arithmetic="float", terms=work)
        counts[local] = work.cells_by_term["averages"]  # the correlations of the sides computed
    assert BinaryStates.SIDE_BYTES == 2048 * 2**20
    assert counts[True] < 0.8 * counts[False]
