"""scikit-learn's splitters in momentbound: translation, the allocation rules against scikit-learn's
own splitters, and the Monte Carlo moments against real ``cross_val_score`` runs."""

from __future__ import annotations

import math
import warnings
import zlib
from fractions import Fraction

import numpy as np
import pytest
from sklearn import model_selection as ms

from conftest import cross_val_error

from momentbound import CellModel, InvalidArgument
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import (
    KFold,
    LeaveOneOut,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
    as_splitter,
    estimator_moments,
    monte_carlo_moments,
)
from momentbound.splitters.repeated import _approximate_mode, _labels_by_counts, _stratified_allocation
from momentbound.exact.allocation import fold_allocation


def test_translation_of_scikit_learn_objects():
    assert as_splitter(10) == StratifiedKFold(10)  # check_cv(10, y, classifier=True)
    assert as_splitter(ms.KFold(4, shuffle=True, random_state=0)) == KFold(4)
    assert as_splitter(ms.StratifiedKFold(3)) == StratifiedKFold(3)
    assert as_splitter(ms.RepeatedStratifiedKFold(n_splits=5, n_repeats=7)) == RepeatedStratifiedKFold(5, 7)
    assert as_splitter(ms.RepeatedKFold(n_splits=2, n_repeats=3)) == RepeatedKFold(2, 3)
    assert as_splitter(ms.ShuffleSplit(6, test_size=0.25)) == ShuffleSplit(6, 0.25)
    assert as_splitter(ms.StratifiedShuffleSplit(2, test_size=5)) == StratifiedShuffleSplit(2, 5)
    assert as_splitter(ms.LeaveOneOut()) == LeaveOneOut()
    for bad, what in [(ms.GroupKFold(3), "GroupKFold"), (ms.TimeSeriesSplit(), "TimeSeriesSplit"),
                      (ms.ShuffleSplit(3, train_size=0.5), "train_size"), ("cv", "momentbound splitter")]:
        with pytest.raises(InvalidArgument, match=what):
            as_splitter(bad)
    assert RepeatedKFold(3, math.inf).params() == {"folds": 3, "repeats": None, "average": "folds"}
    with pytest.raises(InvalidArgument, match="repeats must be a positive integer or math.inf"):
        RepeatedKFold(3, 0)


def sklearn_fold_counts(y: np.ndarray, v: int, K: int) -> list[list[int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        folds = ms.StratifiedKFold(v).split(np.zeros(len(y)), y)
        return sorted(np.bincount(y[test], minlength=K).tolist() for _, test in folds)


@pytest.mark.parametrize("K, v", [(2, 2), (2, 5), (3, 3), (3, 4), (4, 3)])
def test_stratified_allocation_matches_scikit_learn(K, v):
    """Fold class compositions of every dataset: order of first appearance, sorted labels, j mod v."""
    rng = np.random.default_rng(K * 10 + v)
    for _ in range(150):
        N = int(rng.integers(v, 4 * v + 3))
        y = rng.integers(0, K, size=N)
        if np.all(np.bincount(y, minlength=K)[np.unique(y)] < v):
            continue  # scikit-learn raises
        alloc = _stratified_allocation(y[None, :], K, v)[0]  # (v, K)
        assert sorted(alloc.tolist()) == sklearn_fold_counts(y, v, K)
        labels = _labels_by_counts(y[None, :], np.cumsum(alloc, axis=0).T[None], rng)[0]
        got = sorted(np.bincount(y[labels == i], minlength=K).tolist() for i in range(v))
        assert got == sklearn_fold_counts(y, v, K)


def test_fold_allocation_blocks():
    assert fold_allocation(np.array([3, 2]), 2).tolist() == [[2, 1], [1, 1]]
    # with three classes the order of first appearance changes the compositions
    a = sorted(fold_allocation(np.array([1, 1, 2]), 3).tolist())
    b = sorted(fold_allocation(np.array([2, 1, 1]), 3)[:, [1, 2, 0]].tolist())
    assert a != b


def test_approximate_mode_matches_scikit_learn():
    from sklearn.utils.extmath import _approximate_mode as sk_mode

    rng = np.random.default_rng(0)
    for _ in range(300):
        counts = rng.integers(0, 9, size=(1, 4))
        if counts.sum() < 2:
            continue
        n = int(rng.integers(1, counts.sum() + 1))
        ours = _approximate_mode(counts, n, rng)[0]
        # ties are broken at random by both: compare the deterministic part and the totals
        theirs = sk_mode(counts[0], n, 0)
        assert ours.sum() == theirs.sum() == n
        assert np.all(np.abs(ours - theirs) <= 1)
        assert np.all(ours >= counts[0] * n // counts.sum())


# ----------------------------------------------------------------------------- real scikit-learn runs
MODELS = {
    "1d": CellModel((2,), ["1/5", "3/10", "1/5", "3/10"]),
    "2x2": CellModel((2, 2), ["1/10", "3/20", "3/20", "1/10", "1/20", "1/5", "3/20", "1/10"]),
    "3class": CellModel((3,), [Fraction(1, 6) if x == y else Fraction(1, 12) for x in range(3) for y in range(3)], 3),
}


def sklearn_errors(model: CellModel, N: int, make_cv, runs: int, seed: int) -> np.ndarray:
    from sklearn.naive_bayes import CategoricalNB

    rng = np.random.default_rng(seed)
    p = np.array([float(c) for c in model.cells])
    inputs = np.array(list(model.inputs()))
    K = model.n_classes
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "the least populated class ..."
        while len(out) < runs:
            cells = rng.choice(len(p), size=N, p=p)
            X, y = inputs[cells // K], cells % K
            try:
                error = cross_val_error(lambda: CategoricalNB(alpha=1, min_categories=list(model.arities)), X, y,
                                        make_cv(rng), check=len(out) < 5)
            except ValueError:  # a split scikit-learn refuses: the moments are conditional on possible ones
                continue
            out.append(error)
    return np.array(out)


CASES = [
    ("cv=5", lambda rng: 5, 5, None),
    ("RepeatedStratifiedKFold", lambda rng: ms.RepeatedStratifiedKFold(n_splits=5, n_repeats=3,
                                                                       random_state=int(rng.integers(2**31))),
     RepeatedStratifiedKFold(5, 3), None),
    ("ShuffleSplit", lambda rng: ms.ShuffleSplit(4, test_size=6, random_state=int(rng.integers(2**31))),
     ShuffleSplit(4, 6), None),
]


# Every splitter and every model once against real scikit-learn runs, without the full product:
# the splitter's sampler and the classifier's kernel are separate pieces of the Monte Carlo
# engine. Three classes go through both stratified splitters (the fold compositions then depend
# on the order in which the classes first appear), the two-attribute model through ShuffleSplit.
PAIRS = [("1d", "cv=5"), ("3class", "cv=5"), ("3class", "RepeatedStratifiedKFold"), ("2x2", "ShuffleSplit")]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "label"), PAIRS)
def test_monte_carlo_agrees_with_cross_val_score(name, label):
    """N = 30 (folds of 6 points: the mean of the fold scores is the pooled error)."""
    model, (_, make_cv, splitter, _) = MODELS[name], next(c for c in CASES if c[0] == label)
    runs = 250
    ce = sklearn_errors(model, 30, make_cv, runs, seed=zlib.crc32(f"{name}|{label}".encode()))
    mc = monte_carlo_moments(model, 30, splitter, classifier=NaiveBayes("first", 1), draws=10_000,
                             rng=np.random.default_rng(7))
    m, var = ce.mean(), ce.var(ddof=1)
    se_m = math.hypot(math.sqrt(var / runs), (mc.mean.upper - mc.mean.lower) / 3.92)
    se_v = math.hypot(math.sqrt((np.mean((ce - m) ** 4) - var**2) / runs), (mc.variance.upper - mc.variance.lower) / 3.92)
    assert abs(m - mc.mean.estimate) < 4 * se_m, (m, mc.mean)
    assert abs(var - mc.variance.estimate) < 4 * se_v, (var, mc.variance)


def test_repeated_limits_and_identities():
    """R = 1 is one partition; the variance decreases with R towards the repetition covariance."""
    model = MODELS["1d"]
    clf = NaiveBayes("first", 1)
    rng = lambda: np.random.default_rng(3)  # noqa: E731 - same draws for every R
    one = monte_carlo_moments(model, 20, RepeatedKFold(4, 1), classifier=clf, draws=4000, rng=rng())
    ten = monte_carlo_moments(model, 20, RepeatedKFold(4, 10), classifier=clf, draws=4000, rng=rng())
    inf = monte_carlo_moments(model, 20, RepeatedKFold(4, math.inf), classifier=clf, draws=4000, rng=rng())
    assert one.variance.estimate == pytest.approx(one.single_variance.estimate)
    assert inf.variance.estimate == pytest.approx(inf.repetition_covariance.estimate)
    assert one.variance.estimate > ten.variance.estimate > inf.variance.estimate
    # one partition of RepeatedKFold has the law of KFold: the exact KFold moments lie in the intervals
    exact = estimator_moments(model, 20, KFold(4), classifier=clf)
    assert one.mean.lower <= float(exact.mean) <= one.mean.upper
    assert one.single_variance.lower <= float(exact.variance) <= one.single_variance.upper
