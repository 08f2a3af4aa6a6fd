"""``scoring=`` on LeaveOneOut, the repeated k-folds and the shuffle-splits, and the pooled AUC.

* The pooled AUC (``roc_auc_pooled``) of the fold count tables of scikit-learn's own splits equals
  ``roc_auc_score(y, cross_val_predict(CategoricalNB(alpha=1), X, y, cv=..., method="predict_proba")[:, 1])``
  dataset by dataset (``KFold``, ``StratifiedKFold``, ``LeaveOneOut``).
* Each splitter's ``score_folds`` against a simulation of scikit-learn's procedure with its own
  splitter (``RepeatedKFold``, ``RepeatedStratifiedKFold``, ``ShuffleSplit``, ``StratifiedShuffleSplit``,
  ``LeaveOneOut``): ``|z| <= 4`` for the mean and the variance of the fold-mean score and for the
  fraction of datasets with an undefined fold. The model has three possible cells, so that scikit-learn
  fits and scores few distinct (test, train) pairs.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn import model_selection as ms
from sklearn.metrics import roc_auc_score
from sklearn.naive_bayes import CategoricalNB

from conftest import sklearn_fold_scores

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators.scoring import fold_scores, monte_carlo_scores, scoring_setup
from momentbound.splitters import (KFold, LeaveOneOut, RepeatedKFold, RepeatedStratifiedKFold, ShuffleSplit,
                                   StratifiedKFold, StratifiedShuffleSplit)

MODEL = CellModel((2,), ["3/5", "3/20", "0", "1/4"])
FOUR = CellModel((2,), ["1/2", "1/20", "3/10", "3/20"])
NB = NaiveBayes("sklearn", 1)


def _data(model: CellModel, N: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    K, C = model.n_classes, len(model.cells)
    seq = rng.choice(C, size=N, p=np.array([float(c) for c in model.cells]))
    return seq, (seq // K)[:, None], seq % K


@pytest.mark.parametrize("cv, ours", [(ms.KFold(4), KFold(4)), (ms.StratifiedKFold(3), StratifiedKFold(3)),
                                      (ms.LeaveOneOut(), LeaveOneOut())])
def test_pooled_auc_is_roc_auc_of_cross_val_predict(cv, ours):
    setup = scoring_setup(FOUR, NB, "roc_auc_pooled")
    rng = np.random.default_rng(3)
    C, checked = len(FOUR.cells), 0
    while checked < 12:
        seq, X, y = _data(FOUR, 12, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                folds = list(cv.split(X, y))
                proba = ms.cross_val_predict(CategoricalNB(alpha=1, min_categories=[2]), X, y, cv=cv,
                                             method="predict_proba")
            except ValueError:
                continue
        expected = roc_auc_score(y, proba[:, 1]) if len(set(y)) == 2 else math.nan
        test = np.array([[np.bincount(seq[te], minlength=C) for _, te in folds]])
        train = np.array([[np.bincount(seq[tr], minlength=C) for tr, _ in folds]])
        got = fold_scores(setup, test, train, "roc_auc_pooled", rng)[0, 0]
        assert (math.isnan(expected) and math.isnan(got)) or abs(got - expected) < 1e-12, (seq, got, expected)
        checked += 1


CASES = {  # ours, scikit-learn's (with a seed of its own), N
    "repeated-kfold": (RepeatedKFold(2, 2), lambda s: ms.RepeatedKFold(n_splits=2, n_repeats=2, random_state=s), 8),
    "repeated-stratified": (RepeatedStratifiedKFold(2, 2),
                            lambda s: ms.RepeatedStratifiedKFold(n_splits=2, n_repeats=2, random_state=s), 8),
    "shuffle-split": (ShuffleSplit(3, 2), lambda s: ms.ShuffleSplit(n_splits=3, test_size=2, random_state=s), 8),
    "stratified-shuffle-split": (StratifiedShuffleSplit(3, 4),
                                 lambda s: ms.StratifiedShuffleSplit(n_splits=3, test_size=4, random_state=s), 8),
    "loo": (LeaveOneOut(), lambda s: ms.LeaveOneOut(), 7),
}
NAMES = ("balanced_accuracy", "f1")


def _z(a: float, se_a: float, b: float, se_b: float) -> float:
    se = math.hypot(se_a, se_b)
    return 0.0 if se == 0 and a == b else (a - b) / se


@pytest.mark.parametrize("case", list(CASES))
def test_score_folds_agree_with_scikit_learn_splitters(case):
    ours, make, N = CASES[case]
    rng = np.random.default_rng(21)
    cache: dict = {}
    sim: dict[str, list[float]] = {name: [] for name in NAMES}
    while len(sim[NAMES[0]]) < 400:
        seq, X, y = _data(MODEL, N, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                folds = list(make(int(rng.integers(2**31))).split(X, y))
            except ValueError:  # scikit-learn cannot split it: the toolkit conditions on splittable data
                continue
        per_fold = [sklearn_fold_scores(MODEL, X, y, seq, tr, te, NAMES, cache) for tr, te in folds]
        for name in NAMES:
            sim[name].append(float(np.mean([f[name] for f in per_fold])))
    for name in NAMES:
        r = monte_carlo_scores(MODEL, N, ours, scoring=name, classifier=NB, draws=20_000,
                               rng=np.random.default_rng(5))
        x = np.array(sim[name])
        ok = ~np.isnan(x)
        xs = x[ok]
        se = lambda i: (i.upper - i.lower) / 2 / 1.959964  # noqa: E731
        assert abs(_z(xs.mean(), xs.std(ddof=1) / math.sqrt(xs.size), r.mean.estimate, se(r.mean))) <= 4, name
        dev = (xs - xs.mean()) ** 2
        assert abs(_z(xs.var(ddof=1), dev.std(ddof=1) / math.sqrt(xs.size), r.variance.estimate,
                      se(r.variance))) <= 4, name
        q = 1 - ok.mean()
        pooled = (q * x.size + r.undefined.estimate * r.draws) / (x.size + r.draws)
        spread = math.sqrt(pooled * (1 - pooled) * (1 / x.size + 1 / r.draws))
        assert spread == 0 or abs(q - r.undefined.estimate) / spread <= 4, name


@pytest.mark.parametrize("splitter, words", [
    (ShuffleSplit(10**9, 2), "at most 10,000 splits"),
    (RepeatedKFold(2, math.inf), "repeats must be finite"),
    (RepeatedStratifiedKFold(2, 10**6), "at most 10,000 repeats"),
])
def test_repetitions_are_refused_before_any_work(splitter, words):
    from momentbound.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=words):
        monte_carlo_scores(MODEL, 8, splitter, scoring="f1", classifier=NB, draws=200, rng=np.random.default_rng(0))


def test_the_sorted_mann_whitney_of_the_pooled_auc_equals_the_pairwise_one():
    from momentbound.estimators.scoring import _mann_whitney, _mann_whitney_sorted

    rng = np.random.default_rng(0)
    for M in (1, 2, 5, 40):
        score = rng.integers(0, 4, (300, M)) / 3  # many ties
        pos, neg = rng.integers(0, 3, (300, M)).astype(float), rng.integers(0, 3, (300, M)).astype(float)
        dense, ranked = _mann_whitney(pos, neg, score), _mann_whitney_sorted(pos, neg, score)
        assert np.array_equal(np.isnan(dense), np.isnan(ranked))
        assert np.allclose(dense[~np.isnan(dense)], ranked[~np.isnan(ranked)], rtol=0, atol=1e-14)
