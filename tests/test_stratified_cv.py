"""Stratified cross-validation: scikit-learn's allocation and exact moments against brute force.

Witnesses: scikit-learn's own ``StratifiedKFold`` (allocations, and the splits of every
ordered dataset in tests/oracles/stratified.py, whose classifiers are computed directly from
their training points by tests/oracles/naive_bayes.py). Nothing of the package's computation
is reused by the oracle.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold

from momentbound import CellModel
from momentbound.errors import ImpossibleSplit, InvalidArgument
from momentbound.exact import NaiveBayes
from momentbound.exact.shuffle_split import shuffle_split_moments
from momentbound.exact.stratified import repeated_stratified_cv_moments, stratified_cv_moments
from momentbound.splitters import AllocationLaw, first_appearance_orders, stratified_fold_allocation
from oracles.stratified import (
    repeated_covariance_bruteforce,
    shuffle_split_bruteforce,
    shuffled_partitions,
    sklearn_test_folds,
    stratified_cv_bruteforce,
)

MODELS = {
    # one attribute, two classes, unequal priors
    "1d": ((2,), 2, [F(3, 10), F(1, 10), F(1, 5), F(2, 5)]),
    # one attribute with two values, three classes
    "3class": ((2,), 3, [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)]),
    # two binary attributes, two classes
    "2x2": ((2, 2), 2, [F(1, 5), F(1, 20), F(1, 10), F(3, 20), F(1, 10), F(1, 10), F(1, 20), F(1, 4)]),
}


def check(name, N, v, ties, alpha, average="pooled"):
    arities, K, cells = MODELS[name]
    want = stratified_cv_bruteforce(arities, K, cells, N, v, ties, alpha, average)
    got = stratified_cv_moments(
        CellModel(arities, cells, K), N, v, classifier=NaiveBayes(ties=ties, alpha=alpha), average=average
    )
    assert got.exact and isinstance(got.mean, F) and isinstance(got.variance, F)
    assert (got.prob_possible, got.prob_warning) == (want.prob_possible, want.prob_warning)
    assert got.fold_means == want.fold_means
    assert (got.mean, got.variance) == (want.mean, want.variance)
    assert (got.fold_variance, got.fold_covariance) == (want.fold_variance, want.fold_covariance)
    assert math.isclose(got.std, math.sqrt(want.variance), rel_tol=1e-12)
    return got, want


# ----------------------------------------------------------------------------- allocation
def sklearn_allocation(y, v):
    """scikit-learn's per-fold class counts, classes in order of first appearance."""
    y = np.asarray(y)
    _, first = np.unique(y, return_index=True)
    order = np.unique(y)[np.argsort(first)]
    folds, _ = sklearn_test_folds(y, v)
    if folds is None:
        return None
    return np.array([[int((y[test] == k).sum()) for k in order] for test in folds])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 13), min_size=1, max_size=5), st.integers(2, 9), st.randoms(use_true_random=False))
def test_allocation_equals_sklearn(counts, v, rnd):
    y = [k for k, c in enumerate(counts) for _ in range(c)]
    rnd.shuffle(y)
    _, first = np.unique(y, return_index=True)
    encoded = [counts[k] for k in np.unique(y)[np.argsort(first)]]
    want = sklearn_allocation(y, v)
    if want is None:  # scikit-learn raises: n_splits above every class count
        assert all(c < v for c in counts)
        with pytest.raises(ImpossibleSplit, match="greater than the number of members"):
            stratified_fold_allocation(encoded, v)
    else:
        np.testing.assert_array_equal(stratified_fold_allocation(encoded, v), want)


def test_allocation_law_equals_every_label_order():
    """allocations(n) is the law of scikit-learn's fold compositions over all label orders."""
    for counts, v in [((1, 2, 6), 4), ((2, 3), 2), ((3, 1, 2), 2), ((1, 1, 3), 3), ((3, 2, 1, 1), 3)]:
        labels = [k for k, c in enumerate(counts) for _ in range(c)]
        seen: Counter = Counter()
        for y in set(itertools.permutations(labels)):
            folds, _ = sklearn_test_folds(y, v)
            y_arr = np.asarray(y)
            seen[tuple(tuple(int((y_arr[t] == k).sum()) for k in range(len(counts))) for t in folds)] += 1
        total = sum(seen.values())
        want = {key: F(c, total) for key, c in seen.items()}
        got = {a.test: a.probability for a in AllocationLaw(v).allocations(counts)}
        assert got == want


def test_three_classes_depend_on_order_of_first_appearance():
    """With three classes the multiset of fold compositions depends on which class comes first."""
    a = sklearn_allocation([0] + [1] * 2 + [2] * 6, 4)
    b = sklearn_allocation([0] + [2] * 6 + [1] * 2, 4)  # classes 1 and 2 swap first appearance
    as_classes = lambda alloc, order: sorted(tuple(row[order.index(k)] for k in range(3)) for row in alloc.tolist())  # noqa: E731
    assert as_classes(a, [0, 1, 2]) != as_classes(b, [0, 2, 1])
    assert len(AllocationLaw(4).allocations((1, 2, 6))) > 2


def test_first_appearance_orders_plackett_luce():
    counts = (2, 1, 3)
    labels = [k for k, c in enumerate(counts) for _ in range(c)]
    seen: Counter = Counter()
    for y in set(itertools.permutations(labels)):
        seen[tuple(dict.fromkeys(y))] += 1
    total = sum(seen.values())
    assert dict(first_appearance_orders(counts)) == {k: F(c, total) for k, c in seen.items()}


def test_splitter_validation_and_flags():
    s = AllocationLaw(3)
    assert s.possible((3, 1)) and s.warns((3, 1)) and not s.warns((3, 4, 0))
    assert not s.possible((2, 2))
    with pytest.raises(ImpossibleSplit, match="n_splits <= 2"):
        s.allocations((2, 2))
    for bad in (1, 0, 2.0, True, "3"):
        with pytest.raises(InvalidArgument, match="n_splits"):
            AllocationLaw(bad)
    for bad in ((), (0, 0), (-1, 3), (1.5, 2), "ab"):
        with pytest.raises(InvalidArgument, match="class_counts"):
            stratified_fold_allocation(bad, 2)
    assert sum(a.probability for a in AllocationLaw(4).allocations((5, 2, 7))) == 1


# ----------------------------------------------------------------------------- exact vs brute force
RULES = [("first", 0), ("first", 1), ("random", 0), ("random", 1)]


@pytest.mark.parametrize("ties, alpha, v", [r + (v,) for r, v in zip(RULES, [2, 3, 4, 5])])
def test_one_attribute_two_classes(ties, alpha, v):
    got, want = check("1d", 6, v, ties, alpha)
    if v == 5:  # scikit-learn raises on some datasets and warns on the others
        assert 0 < got.prob_warning < got.prob_possible < 1  # (6, 0) and (0, 6) do not warn


@pytest.mark.parametrize("ties, alpha, v", [r + (v,) for r, v in zip(RULES, [2, 3, 3, 2])])
def test_one_attribute_three_classes(ties, alpha, v):
    got, _ = check("3class", 5, v, ties, alpha)
    assert 0 < got.prob_warning < got.prob_possible


@pytest.mark.parametrize("ties, alpha", RULES)
def test_two_attributes(ties, alpha):
    check("2x2", 4, 2, ties, alpha)


def test_fold_average_differs_from_pooled_with_unequal_folds():
    folds, _ = check("1d", 5, 2, "first", 1, average="folds")
    pooled = stratified_cv_moments(
        CellModel(*MODELS["1d"][::2], MODELS["1d"][1]), 5, 2, classifier=NaiveBayes(ties="first", alpha=1),
        average="pooled",
    )
    default = stratified_cv_moments(
        CellModel(*MODELS["1d"][::2], MODELS["1d"][1]), 5, 2, classifier=NaiveBayes(ties="first", alpha=1)
    )
    assert default.mean == folds.mean  # the default is the mean of the fold errors
    assert folds.mean != pooled.mean and folds.fold_means == pooled.fold_means


@pytest.mark.slow
@pytest.mark.parametrize("ties, alpha, v", [("first", 1, 3), ("random", 0, 4)])
def test_one_attribute_two_classes_n8(ties, alpha, v):
    check("1d", 8, v, ties, alpha)


@pytest.mark.slow
@pytest.mark.parametrize("ties, alpha", [("first", 1), ("random", 0)])
def test_three_classes_order_dependent_allocations(ties, alpha):
    """N = 6, v = 4: class counts such as (1, 2, 3) give compositions that depend on the order of
    first appearance, and (2, 2, 2) cannot be split."""
    got, _ = check("3class", 6, 4, ties, alpha)
    assert 0 < got.prob_possible < 1


@pytest.mark.slow
@pytest.mark.parametrize("ties, alpha", [("first", 0), ("random", 1)])
def test_two_attributes_n5(ties, alpha):
    check("2x2", 5, 2, ties, alpha)


# ----------------------------------------------------------------------------- other checks
def test_float_arithmetic_matches_rational():
    arities, K, cells = MODELS["3class"]
    model = CellModel(arities, cells, K)
    clf = NaiveBayes(ties="first", alpha=1)
    exact = stratified_cv_moments(model, 9, 3, classifier=clf, arithmetic="rational")
    flt = stratified_cv_moments(model, 9, 3, classifier=clf, arithmetic="float")
    assert isinstance(flt.mean, float) and not flt.exact
    for a, b in [(flt.mean, exact.mean), (flt.variance, exact.variance),
                 (flt.fold_covariance, exact.fold_covariance), (flt.prob_warning, exact.prob_warning)]:
        assert math.isclose(a, float(b), rel_tol=1e-11, abs_tol=1e-15)
    # Var(CE) = Var(HE)/v + (v-1)/v Cov(HE_i, HE_j) for equal folds
    assert exact.variance == exact.fold_variance / 3 + F(2, 3) * exact.fold_covariance


def test_errors():
    model = CellModel(*MODELS["1d"][::2], MODELS["1d"][1])
    with pytest.raises(ImpossibleSplit, match="cannot split any dataset"):
        stratified_cv_moments(model, 3, 4)
    with pytest.raises(InvalidArgument, match="average"):
        stratified_cv_moments(model, 6, 2, average="mean")
    with pytest.raises(InvalidArgument, match="arithmetic"):
        stratified_cv_moments(model, 6, 2, arithmetic="exact")
    with pytest.raises(InvalidArgument, match="classifier"):
        stratified_cv_moments(model, 6, 2, classifier="nb")
    with pytest.raises(InvalidArgument, match="N must be"):
        stratified_cv_moments(model, 1, 2)
    with pytest.raises(InvalidArgument, match="rational"):
        stratified_cv_moments(model.to_float(), 6, 2, arithmetic="rational")


# ----------------------------------------------------------------------------- repeated
def test_shuffled_partitions_cover_sklearn_draws():
    """Every partition StratifiedKFold(shuffle=True) draws is one of the enumerated ones."""
    y = [0, 1, 1, 0, 2, 1, 0, 1, 2]
    allowed = {tuple(lab) for lab in shuffled_partitions(y, 3)}
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for seed in range(300):
            lab = np.empty(len(y), dtype=int)
            for i, (_, test) in enumerate(SkStratifiedKFold(3, shuffle=True, random_state=seed).split(np.zeros(9), y)):
                lab[test] = i
            seen.add(tuple(lab))
    assert seen <= allowed and len(seen) > len(allowed) // 2


@pytest.mark.parametrize(
    "name, N, v, ties, alpha, average",
    [("1d", 5, 2, "first", 0, "pooled"), ("1d", 5, 2, "random", 1, "folds"), ("3class", 4, 2, "first", 1, "pooled"),
     ("3class", 4, 2, "random", 0, "pooled")],
)
def test_repeated_covariance_equals_every_shuffled_partition(name, N, v, ties, alpha, average):
    arities, K, cells = MODELS[name]
    mean, cov = repeated_covariance_bruteforce(arities, K, cells, N, v, ties, alpha, average)
    model = CellModel(arities, cells, K)
    clf = NaiveBayes(ties=ties, alpha=alpha)
    limit = repeated_stratified_cv_moments(model, N, v, math.inf, classifier=clf, average=average)
    assert (limit.mean, limit.repeat_covariance, limit.variance) == (mean, cov, cov)
    three = repeated_stratified_cv_moments(model, N, v, 3, classifier=clf, average=average)
    assert three.variance == three.single.variance / 3 + F(2, 3) * cov
    assert 0 < cov < three.variance < three.single.variance


@pytest.mark.slow
def test_repeated_covariance_three_folds():
    arities, K, cells = MODELS["1d"]
    mean, cov = repeated_covariance_bruteforce(arities, K, cells, 6, 3, "first", 1)
    r = repeated_stratified_cv_moments(CellModel(arities, cells, K), 6, 3, 10, classifier=NaiveBayes(ties="first", alpha=1))
    assert (r.mean, r.repeat_covariance) == (mean, cov)


def test_repeated_validation():
    model = CellModel(*MODELS["1d"][::2], MODELS["1d"][1])
    for bad in (0, 1.5, True, "2", -math.inf):
        with pytest.raises(InvalidArgument, match="repeats"):
            repeated_stratified_cv_moments(model, 5, 2, bad)


# ----------------------------------------------------------------------------- shuffle split
@pytest.mark.parametrize(
    "name, N, ns, ties, alpha",
    [("1d", 5, 2, "first", 1), ("1d", 5, 3, "random", 0), ("3class", 4, 2, "first", 0)],
)
def test_shuffle_split_equals_every_test_subset(name, N, ns, ties, alpha):
    arities, K, cells = MODELS[name]
    mean, var1, cov = shuffle_split_bruteforce(arities, K, cells, N, ns, ties, alpha)
    model = CellModel(arities, cells, K)
    clf = NaiveBayes(ties=ties, alpha=alpha)
    r = shuffle_split_moments(model, N, ns, 4, classifier=clf)
    assert (r.mean, r.split_variance, r.split_covariance) == (mean, var1, cov)
    assert r.variance == var1 / 4 + F(3, 4) * cov and 0 < cov < r.variance < var1
    assert shuffle_split_moments(model, N, ns, math.inf, classifier=clf).variance == cov


def test_shuffle_split_validation():
    model = CellModel(*MODELS["1d"][::2], MODELS["1d"][1])
    with pytest.raises(ImpossibleSplit, match="test_size"):
        shuffle_split_moments(model, 5, 5)
    with pytest.raises(InvalidArgument, match="test_size"):
        shuffle_split_moments(model, 5, 0.5)
    with pytest.raises(InvalidArgument, match="n_splits"):
        shuffle_split_moments(model, 5, 2, 0)


def test_tail_leaves_out_only_a_reported_sliver_of_the_class_counts(paper):
    # float sums without the least probable class counts: within 2 * tail of the full sums,
    # also where the split itself is improbable (v = 90: P[possible] ~ 2e-11)
    model = paper
    for v in (10, 90):
        full = stratified_cv_moments(model, 100, v, classifier=NaiveBayes(), arithmetic="float", tail=0)
        cut = stratified_cv_moments(model, 100, v, classifier=NaiveBayes(), arithmetic="float", tail=1e-9)
        assert full.dropped_mass_bound == 0.0
        assert 0 < cut.dropped_mass_bound <= 1e-9 * float(full.prob_possible)
        assert abs(cut.mean - full.mean) <= 2e-9
        assert abs(cut.variance - full.variance) <= 4e-9
        assert cut.prob_possible == pytest.approx(full.prob_possible, rel=1e-12)
    # exact arithmetic sums every class count whatever the tail
    exact = stratified_cv_moments(model, 8, 2, arithmetic="rational", tail=0.5)
    assert exact.dropped_mass_bound == 0.0
    with pytest.raises(InvalidArgument, match="tail must be"):
        stratified_cv_moments(model, 8, 2, tail=-1)
