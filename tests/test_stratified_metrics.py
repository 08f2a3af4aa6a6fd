"""Exact linear metrics under the stratified and shuffle splitters against scikit-learn on every
ordered dataset.

Every ordered dataset of ``N <= 6`` points is split by scikit-learn's own splitter (``StratifiedKFold``
without shuffling; for ``RepeatedStratifiedKFold`` every partition its shuffle can draw; for
``ShuffleSplit`` every test subset; for ``StratifiedShuffleSplit`` every test subset of the
compositions its ``_approximate_mode`` gives, on the datasets it accepts), a real ``CategoricalNB(alpha=1)`` is fitted on each training
part and its test predictions are scored by scikit-learn's ``balanced_accuracy_score``,
``recall_score`` (one class, ``zero_division`` left at its default: 0 on a test fold without that
class) and ``confusion_matrix``. The fold scores are rationals with small denominators, recovered
exactly from scikit-learn's floats, and the moments over the datasets (weighted by their
probabilities, conditional on a dataset scikit-learn can split) must equal the exact ones in
Fractions.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn import config_context
from sklearn.metrics import balanced_accuracy_score, confusion_matrix, get_scorer, recall_score
from sklearn.model_selection import ShuffleSplit as SkShuffleSplit
from sklearn.model_selection import StratifiedShuffleSplit as SkStratifiedShuffleSplit
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
from sklearn.naive_bayes import CategoricalNB

from oracles.stratified import approximate_mode_law, shuffled_partitions

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import (
    GE,
    HoldOut,
    LinearMetric,
    StratifiedKFold,
    estimator_accuracy,
    estimator_moments,
)
from momentbound.splitters.bootstrap import Bootstrap
from momentbound.splitters.repeated import RepeatedStratifiedKFold, ShuffleSplit, StratifiedShuffleSplit

#: one attribute, two classes (prior 1/2 of class 0)
BINARY = CellModel((2,), ["3/10", "1/10", "1/5", "2/5"])
#: one attribute with two values, three classes, every cell possible
THREE = CellModel((2,), ["1/6", "1/6", "1/6", "1/12", "1/4", "1/6"], 3)
#: scikit-learn's CategoricalNB(alpha=1): the toolkit's NaiveBayes with scikit-learn's tie rule
NB = NaiveBayes("sklearn", 1)


def _metrics(K: int) -> dict[str, LinearMetric]:
    out = {"balanced_error": LinearMetric.balanced_error(), "confusion[1,0]": LinearMetric.confusion_entry(1, 0)}
    for a in range(K):
        out[f"recall[{a}]"] = LinearMetric.recall(a)
        out[f"class_error_rate[{a}]"] = LinearMetric.class_error_rate(a)
    return out


def _exact(x: float) -> Fraction:
    f = Fraction(x).limit_denominator(10_000)
    assert abs(float(f) - x) < 1e-12
    return f


def _sklearn_scores(y: np.ndarray, pred: np.ndarray, K: int) -> dict[str, Fraction]:
    """scikit-learn's scores of one test set, as the statistics of :func:`_metrics`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zero_division, classes only predicted
        out = {"balanced_error": 1 - _exact(balanced_accuracy_score(y, pred)),
               "confusion[1,0]": Fraction(int(confusion_matrix(y, pred, labels=list(range(K)))[1, 0]), len(y))}
        for a in range(K):
            rec = _exact(recall_score(y, pred, labels=[a], average="macro"))
            out[f"recall[{a}]"] = rec
            out[f"class_error_rate[{a}]"] = 1 - rec
    return out


class Scorer:
    """scikit-learn's CategoricalNB fitted on training cell counts and scored on test rows (cached:
    the predictions depend on the training part through its cell counts only)."""

    def __init__(self, model: CellModel) -> None:
        self.model, self.K, self.C = model, model.n_classes, len(model.cells)
        cells = np.arange(self.C)
        self.X, self.y = (cells // self.K)[:, None], cells % self.K
        self._predict: dict[tuple[int, ...], np.ndarray] = {}
        self._scores: dict[tuple, dict[str, Fraction]] = {}

    def predictions(self, train: np.ndarray) -> np.ndarray:
        """The prediction at every cell's input of CategoricalNB fitted on the rows ``train`` (cells)."""
        key = tuple(np.bincount(train, minlength=self.C))
        if key not in self._predict:
            clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=list(self.model.arities))
            self._predict[key] = clf.fit(self.X[train], self.y[train]).predict(self.X)
        return self._predict[key]

    def scores(self, parts: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, Fraction]:
        """scikit-learn's scores of the predictions on the test rows of ``parts`` ((train, test) cells), pooled."""
        y = np.concatenate([self.y[te] for _, te in parts])
        pred = np.concatenate([self.predictions(tr)[te] for tr, te in parts])
        key = tuple(sorted(zip(y.tolist(), pred.tolist())))  # the scores see the (label, prediction) pairs only
        if key not in self._scores:
            with config_context(skip_parameter_validation=True, assume_finite=True):
                self._scores[key] = _sklearn_scores(y, pred, self.K)
        return self._scores[key]  # type: ignore[return-value]

    def population(self, full: np.ndarray, metric: LinearMetric) -> Fraction:
        """The statistic's population value for CategoricalNB fitted on all the rows ``full``."""
        key = (tuple(np.bincount(full, minlength=self.C)), metric)
        if key not in self._scores:
            pred = self.predictions(full)
            L = metric.matrix_for(self.K, [self.model.prior(a) for a in range(self.K)])
            self._scores[key] = sum((Fraction(self.model.cells[c]) * L[self.y[c]][pred[c]] for c in range(self.C)),
                                    Fraction(0))
        return self._scores[key]  # type: ignore[return-value]


def _datasets(model: CellModel, N: int):
    probs = [Fraction(c) for c in model.cells]
    support = [c for c in range(len(probs)) if probs[c]]
    for seq in itertools.product(support, repeat=N):
        yield np.array(seq), math.prod((probs[c] for c in seq), start=Fraction(1))


def _moments(rows: list[tuple[Fraction, Fraction, Fraction]]) -> tuple[Fraction, Fraction, Fraction]:
    """(mean, variance, covariance with the population value) of weighted rows (weight, value, population)."""
    mass = sum(w for w, _, _ in rows)
    mean = sum(w * x for w, x, _ in rows) / mass
    second = sum(w * x * x for w, x, _ in rows) / mass
    ge = sum(w * g for w, _, g in rows) / mass
    joint = sum(w * x * g for w, x, g in rows) / mass
    return mean, second - mean * mean, joint - mean * ge


def _stratified_rows(model: CellModel, N: int, v: int, average: str) -> dict[str, list]:
    scorer = Scorer(model)
    metrics = _metrics(model.n_classes)
    rows: dict[str, list] = {name: [] for name in metrics}
    splits: dict[tuple[int, ...], list | None] = {}  # scikit-learn's folds depend on the labels only
    for seq, w in _datasets(model, N):
        labels = tuple(scorer.y[seq])
        if labels not in splits:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # "The least populated class ..."
                    splits[labels] = list(SkStratifiedKFold(v).split(np.zeros(N), np.array(labels)))
            except ValueError:  # scikit-learn cannot split it: the exact moments condition on a split
                splits[labels] = None
        if splits[labels] is None:
            continue
        folds = [(seq[tr], seq[te]) for tr, te in splits[labels]]  # type: ignore[union-attr]
        per_fold = [scorer.scores([f]) for f in folds] if average == "folds" else None
        pooled = scorer.scores(folds) if average == "pooled" else None
        for name, metric in metrics.items():
            value = (sum((s[name] for s in per_fold), Fraction(0)) / v if per_fold is not None
                     else pooled[name])  # type: ignore[index]
            rows[name].append((w, value, scorer.population(seq, metric)))
    return rows


@pytest.mark.parametrize("model, N, v, average", [
    (BINARY, 6, 3, "folds"),  # folds of 2: a fold often lacks a class
    (BINARY, 5, 2, "pooled"),
    (THREE, 4, 2, "folds"),  # classes with a single member: some folds lack them, some training parts too
], ids=["binary-folds", "binary-pooled", "three-folds"])
def test_stratified_kfold_metrics_equal_scikit_learn_on_every_dataset(model, N, v, average):
    rows = _stratified_rows(model, N, v, average)
    split = StratifiedKFold(v, average=average)
    for name, metric in _metrics(model.n_classes).items():
        mean, var, cov = _moments(rows[name])
        got = estimator_accuracy(model, N, split, classifier=NB, metric=metric)
        assert isinstance(got.mean, Fraction), name
        assert (got.mean, got.variance, got.covariance_with_ge) == (mean, var, cov), name
        assert got.metric == metric.name


def test_the_recall_scorer_is_recall_of_class_one():
    """cross_val_score(..., scoring="recall") on a binary target scores recall_score(pos_label=1)."""
    scorer = Scorer(BINARY)
    seq = np.array([0, 1, 3, 2, 3, 1])
    clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=[2]).fit(scorer.X[seq], scorer.y[seq])
    for test in ([0, 1, 3], [1, 1, 2], [0, 2]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert get_scorer("recall")(clf, scorer.X[test], scorer.y[test]) == float(
                _sklearn_scores(scorer.y[test], clf.predict(scorer.X[test]), 2)["recall[1]"])


def test_repeated_stratified_limit_equals_every_shuffled_partition():
    """Cov of two independent shuffled partitions of the same data: E[m(D)^2] - E^2, m(D) the mean
    statistic over every partition StratifiedKFold(shuffle=True) can draw."""
    model, N, v = BINARY, 5, 2
    scorer = Scorer(model)
    metrics = {"balanced_error": LinearMetric.balanced_error(), "recall[0]": LinearMetric.recall(0)}
    mass = Fraction(0)
    first = dict.fromkeys(metrics, Fraction(0))
    square = dict.fromkeys(metrics, Fraction(0))
    for seq, w in _datasets(model, N):
        parts = shuffled_partitions(list(scorer.y[seq]), v)
        if parts is None:
            continue
        mass += w
        for name in metrics:
            m = sum((sum((scorer.scores([(seq[lab != i], seq[lab == i])])[name] for i in range(v)), Fraction(0)) / v
                     for lab in parts), Fraction(0)) / len(parts)
            first[name] += w * m
            square[name] += w * m * m
    for name, metric in metrics.items():
        mean = first[name] / mass
        got = estimator_moments(model, N, RepeatedStratifiedKFold(v, math.inf), classifier=NB, metric=metric)
        assert (got.mean, got.variance) == (mean, square[name] / mass - mean * mean), name


@pytest.mark.parametrize("model, N, ns", [(BINARY, 5, 2), (THREE, 4, 2)], ids=["binary", "three"])
def test_shuffle_split_metrics_equal_every_test_subset(model, N, ns):
    """One ShuffleSplit split over every ordered dataset and every test subset: the recall divides by the
    class count of a random test set, linear given it (the route sums over the compositions)."""
    scorer = Scorer(model)
    metrics = {"balanced_error": LinearMetric.balanced_error(), "recall[1]": LinearMetric.recall(1),
               "class_error_rate[0]": LinearMetric.class_error_rate(0)}
    subsets = [np.array(t) for t in itertools.combinations(range(N), ns)]
    # scikit-learn's ShuffleSplit draws a uniform permutation: every test subset is equally likely
    drawn = {tuple(sorted(te)) for _, te in SkShuffleSplit(200, test_size=ns, random_state=0).split(np.zeros(N))}
    assert drawn == {tuple(t) for t in subsets}
    rows: dict[str, list] = {name: [] for name in metrics}
    for seq, w in _datasets(model, N):
        for name in metrics:
            values = [scorer.scores([(np.delete(seq, t), seq[t])])[name] for t in subsets]
            m = sum(values, Fraction(0)) / len(values)
            m2 = sum((x * x for x in values), Fraction(0)) / len(values)
            rows[name].append((w, m, m2))
    for name, metric in metrics.items():
        mass = sum(w for w, _, _ in rows[name])
        mean = sum(w * m for w, m, _ in rows[name]) / mass
        var1 = sum(w * m2 for w, _, m2 in rows[name]) / mass - mean * mean
        cov = sum(w * m * m for w, m, _ in rows[name]) / mass - mean * mean
        one = estimator_moments(model, N, ShuffleSplit(1, ns), classifier=NB, metric=metric)
        two = estimator_moments(model, N, ShuffleSplit(2, ns), classifier=NB, metric=metric)
        assert (one.mean, one.variance) == (mean, var1), name
        assert two.variance == (var1 + cov) / 2, name


def test_stratified_shuffle_split_metrics_equal_every_split():
    """One StratifiedShuffleSplit split and two independent ones, over every ordered dataset scikit-learn
    splits: the training composition follows scikit-learn's ``_approximate_mode`` law, the test points
    of each class a uniform subset of it."""
    model, N, ns = BINARY, 5, 2
    scorer = Scorer(model)
    metrics = {"balanced_error": LinearMetric.balanced_error(), "recall[0]": LinearMetric.recall(0)}
    mass = Fraction(0)
    acc = {name: [Fraction(0)] * 3 for name in metrics}  # E[m], E[HE^2], E[m^2]
    tests_of: dict[tuple[int, ...], list | None] = {}
    for seq, w in _datasets(model, N):
        y = tuple(int(c) for c in scorer.y[seq])
        if y not in tests_of:
            try:
                next(SkStratifiedShuffleSplit(1, test_size=ns, random_state=0).split(np.zeros(N), np.array(y)))
            except ValueError:
                tests_of[y] = None
            else:
                present = sorted(set(y))
                counts = [y.count(k) for k in present]
                tests = []
                for train, pr in approximate_mode_law(counts, N - ns).items():
                    per_class = [list(itertools.combinations([i for i, c in enumerate(y) if c == k], counts[j] - train[j]))
                                 for j, k in enumerate(present)]
                    n_sub = math.prod(len(x) for x in per_class)
                    tests += [(np.array(sorted(i for part in choice for i in part)), pr / n_sub)
                              for choice in itertools.product(*per_class)]
                tests_of[y] = tests
        if tests_of[y] is None:
            continue
        mass += w
        for name in metrics:
            values = [(pr, scorer.scores([(np.delete(seq, t), seq[t])])[name]) for t, pr in tests_of[y]]  # type: ignore[union-attr]
            m = sum((pr * x for pr, x in values), Fraction(0))
            acc[name][0] += w * m
            acc[name][1] += w * sum((pr * x * x for pr, x in values), Fraction(0))
            acc[name][2] += w * m * m
    for name, metric in metrics.items():
        mean, second, between = (x / mass for x in acc[name])
        one = estimator_moments(model, N, StratifiedShuffleSplit(1, ns), classifier=NB, metric=metric)
        limit = estimator_moments(model, N, StratifiedShuffleSplit(math.inf, ns), classifier=NB, metric=metric)
        assert (one.mean, one.variance, limit.variance) == (mean, second - mean * mean, between - mean * mean), name
        assert one.split_probability == mass


def test_splitters_say_which_metrics_are_exact():
    """The class-count routes take every rule; a hold-out keeps refusing the ratios, finite bootstraps every metric."""
    for est in (StratifiedKFold(2), RepeatedStratifiedKFold(2, 2), ShuffleSplit(2, 2), GE()):
        estimator_moments(BINARY, 5, est, metric="balanced_error")
    with pytest.raises(InvalidArgument, match="scoring='balanced_accuracy'"):
        estimator_moments(BINARY, 5, HoldOut(2), metric="balanced_error")
    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        estimator_moments(BINARY, 5, Bootstrap(20), metric=LinearMetric.recall(0))


def test_a_non_indicator_loss_uses_its_squares_on_one_point():
    """L = 2 (1 - I) under the class-count route: the mean doubles and the variance quadruples."""
    for est in (StratifiedKFold(2), ShuffleSplit(2, 2)):
        one = estimator_moments(BINARY, 5, est, classifier=NB)
        two = estimator_moments(BINARY, 5, est, classifier=NB, metric=LinearMetric([[0, 2], [2, 0]]))
        costs = estimator_moments(BINARY, 5, est, classifier=NB, metric=LinearMetric([[0, 3], [1, 0]]))
        assert (two.mean, two.variance) == (2 * one.mean, 4 * one.variance)
        assert costs.mean == one.mean + 2 * estimator_moments(
            BINARY, 5, est, classifier=NB, metric=LinearMetric.confusion_entry(0, 1)).mean
