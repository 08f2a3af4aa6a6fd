"""Class-count terms on per-class states of binary attributes (momentbound.exact.binary_states).

Witnesses: every ordered dataset of a three-class model with two binary attributes split by
scikit-learn's own StratifiedKFold, its shuffled partitions and every ShuffleSplit test subset
(tests/oracles/stratified.py, classifiers computed from their training points); and, term by term,
the agreement-grid sums of ClassCountTerms, which sum over the agreement vectors at each pair of
inputs instead of the per-class states (equal in Fractions). No wall-clock time is asserted.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.binary_states import applies
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.exact.shuffle_split import shuffle_split_moments
from momentbound.exact.stratified import StateWork, repeated_stratified_cv_moments, stratified_cv_moments
from oracles.stratified import repeated_covariance_bruteforce, shuffle_split_bruteforce, stratified_cv_bruteforce

ARITIES, K = (2, 2), 3
#: three classes, two binary attributes (cells in CellModel order: inputs in C order, classes within)
CELLS = [F(3, 20), F(1, 25), F(1, 50), F(1, 20), F(1, 10), F(1, 25),
         F(1, 20), F(1, 10), F(1, 25), F(1, 10), F(2, 25), F(23, 100)]
MODEL = CellModel(ARITIES, CELLS, K)


def grid_terms(model: CellModel, clf: NaiveBayes, mode: str, loss=None) -> ClassCountTerms:
    """The agreement-grid sums (the route of attributes of any arity)."""
    terms = ClassCountTerms(model, clf, mode, loss)
    terms.states = None
    return terms


def test_applies_to_binary_attributes_only():
    assert applies((2,)) and applies((2, 2, 2)) and not applies((2, 3)) and not applies(())
    assert ClassCountTerms(CellModel((3,), [F(1, 6)] * 6), NaiveBayes(), "float").states is None


@pytest.mark.parametrize("ties, alpha", [("first", 1), ("random", 0), ("sklearn", 1)])
def test_terms_equal_the_agreement_grid_sums(ties, alpha):
    """Every kind of term, Fraction for Fraction, at compositions with every class present and absent."""
    clf = NaiveBayes(ties=ties, alpha=alpha)
    states, grid = ClassCountTerms(MODEL, clf, "rational"), grid_terms(MODEL, clf, "rational")
    assert states.states is not None
    for m in [(2, 1, 3), (0, 2, 2), (3, 0, 0)]:
        assert states.err1(m) == grid.err1(m)
        assert (states.err2(m) == grid.err2(m)).all()
    for cc, b1, b2 in [((1, 2, 0), (1, 1, 2), (2, 0, 1)), ((2, 1, 1), (1, 1, 1), (1, 1, 1)), ((0, 0, 1), (2, 1, 0), (0, 2, 1))]:
        for flags in [(False, False, False), (True, False, False), (False, True, False), (True, True, False),
                      (False, False, True)]:
            got = states.two_sets(cc, b1, b2, u_in_1=flags[0], t_in_2=flags[1], same_point=flags[2])
            want = grid.two_sets(cc, b1, b2, u_in_1=flags[0], t_in_2=flags[1], same_point=flags[2])
            assert (got == want).all(), (cc, b1, b2, flags)


def test_float_terms_equal_the_rational_ones():
    """The compiled float sums against the exact ones (1e-12), on a composition large enough for blocks."""
    clf = NaiveBayes(ties="first", alpha=1)
    exact, fl = ClassCountTerms(MODEL, clf, "rational"), ClassCountTerms(MODEL, clf, "float")
    for cc, b1, b2 in [((3, 2, 4), (1, 2, 1), (2, 1, 1)), ((3, 2, 4), (1, 1, 1), (1, 1, 1))]:
        for flags in [(True, True, False), (True, False, False), (False, False, True), (False, False, False)]:
            e = exact.two_sets(cc, b1, b2, u_in_1=flags[0], t_in_2=flags[1], same_point=flags[2])
            f = fl.two_sets(cc, b1, b2, u_in_1=flags[0], t_in_2=flags[1], same_point=flags[2])
            np.testing.assert_allclose(f, e.astype(float), rtol=1e-12, atol=1e-15)


def test_a_wrong_term_is_caught():
    """The comparison above can fail: one private point fewer changes the cross term."""
    clf = NaiveBayes(ties="first", alpha=1)
    t = ClassCountTerms(MODEL, clf, "rational")
    a = t.two_sets((2, 1, 1), (1, 1, 1), (1, 1, 1), u_in_1=True, t_in_2=True)
    b = t.two_sets((2, 1, 1), (1, 1, 1), (1, 1, 0), u_in_1=True, t_in_2=True)
    assert (a != b).any()


def test_loss_matrix_terms_equal_the_agreement_grid_sums():
    loss = [[0, 1, 2], [1, 0, 1], [F(1, 2), 3, 0]]
    clf = NaiveBayes(ties="first", alpha=1)
    states, grid = ClassCountTerms(MODEL, clf, "rational", loss), grid_terms(MODEL, clf, "rational", loss)
    assert states.err1((2, 2, 1)) == grid.err1((2, 2, 1))
    assert (states.err2((2, 2, 1)) == grid.err2((2, 2, 1))).all()
    got = states.two_sets((1, 1, 1), (1, 0, 1), (0, 1, 1), u_in_1=True, t_in_2=True)
    assert (got == grid.two_sets((1, 1, 1), (1, 0, 1), (0, 1, 1), u_in_1=True, t_in_2=True)).all()


@pytest.mark.parametrize("ties, alpha, average", [("first", 1, "folds"), ("random", 0, "pooled")])
def test_stratified_kfold_equals_every_ordered_dataset(ties, alpha, average):
    """Three classes, two binary attributes, N = 4: scikit-learn's StratifiedKFold(2) on each of the
    12^4 ordered datasets."""
    want = stratified_cv_bruteforce(ARITIES, K, CELLS, 4, 2, ties, alpha, average)
    got = stratified_cv_moments(MODEL, 4, 2, classifier=NaiveBayes(ties=ties, alpha=alpha), average=average)
    assert got.exact and (got.mean, got.variance) == (want.mean, want.variance)
    assert got.fold_means == want.fold_means and got.fold_covariance == want.fold_covariance
    assert got.prob_possible == want.prob_possible


def test_repeated_covariance_equals_every_shuffled_partition():
    mean, cov = repeated_covariance_bruteforce(ARITIES, K, CELLS, 4, 2, "first", 1, "folds")
    r = repeated_stratified_cv_moments(MODEL, 4, 2, math.inf, classifier=NaiveBayes(ties="first", alpha=1))
    assert (r.mean, r.repeat_covariance) == (mean, cov)


def test_shuffle_split_equals_every_test_subset():
    mean, var1, cov = shuffle_split_bruteforce(ARITIES, K, CELLS, 4, 2, "random", 0)
    r = shuffle_split_moments(MODEL, 4, 2, 3, classifier=NaiveBayes(ties="random", alpha=0))
    assert (r.mean, r.split_variance, r.split_covariance) == (mean, var1, cov)


def test_state_work_units_by_hand():
    """One attribute, two classes (I = 2, d = 1): err1 of m = (3, 1) counts the decisions and V,
    (d + I) K P + P cells with P = 4 * 2, then K P; a cross term of C = (1, 1) and folds (1, 1)
    counts I^2 |k| |l| P(C) kernel entries for its shifted sums, each mirror pair once when both
    sides are one (n (n + 1) / 2 pairs of the n = I |k| (input, class) pairs)."""
    work = StateWork(CellModel((2,), ["3/10", "1/5", "1/10", "2/5"]), NaiveBayes(), "float")
    work.err1((3, 1))
    assert work.cells_by_term == {"decide": 3 * 2 * 8 + 8, "err1": 2 * 8}
    work.err1((3, 1))
    assert work.units["calls"] == 2 and work.cells_by_term["err1"] == 16
    work.cross((1, 1), (1, 1), (1, 1))
    assert work.cells_by_term["two_sets"] == 4 + 4 * 5 / 2 * 4
