"""Exact moments of the confusion matrix (``confusion_moments``, ``estimator_moments(metric=...)``,
``estimator_accuracy(metric=...)``) against brute-force enumeration of every ordered dataset, split by
scikit-learn's own splitters, classified by the toolkit's naive Bayes, tallied by
``sklearn.metrics.confusion_matrix``; all in Fractions."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import LeaveOneOut as SkLeaveOneOut
from sklearn.model_selection import train_test_split

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import GE, HoldOut, KFold, LeaveOneOut, estimator_accuracy, estimator_moments
from momentbound.estimators import make_engine
from momentbound.estimators.confusion import confusion_moments
from momentbound.estimators.metrics import LinearMetric
from momentbound.splitters.bootstrap import Resubstitution

TWO = CellModel((2,), ["1/5", "3/10", "7/20", "3/20"])
THREE = CellModel((2,), ["1/6", "1/12", "1/4", "1/8", "1/4", "1/8"])


def _hard(clf: NaiveBayes, model: CellModel):
    """``predict(table) -> class per input`` (deterministic tie rules), cached by training table."""

    @lru_cache(maxsize=None)
    def predict(table: tuple[int, ...]) -> tuple[int, ...]:
        g = clf.predict_tables(model, np.array([table]))[0]  # (inputs, K)
        assert set(np.unique(g)) <= {0.0, 1.0}
        return tuple(int(np.argmax(row)) for row in g)

    return predict


def brute_force(model: CellModel, N: int, clf: NaiveBayes, splits, weights):
    """``E[C]``, ``E[C C^T]`` of the flattened estimator confusion matrix (``sum_f weight_f C_f``) and
    ``E[G]``, ``E[G G^T]``, ``E[C_i G_i]`` of the population rates of the classifier trained on all N
    points. Datasets with equal ``(C, G)`` are merged (integer probability numerators) before the moments."""
    K, n_in = model.n_classes, model.n_inputs
    cells = model.n_inputs * K
    p = [Fraction(c) for c in model.cells]
    den = math.lcm(*(c.denominator for c in p))
    num = [int(c * den) for c in p]
    predict = _hard(clf, model)
    folds = [([int(i) for i in train], [int(i) for i in test]) for train, test in splits(N)]
    fold_w = weights(N)

    @lru_cache(maxsize=None)
    def matrix(y_true: tuple[int, ...], y_pred: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(int(v) for v in confusion_matrix(y_true, y_pred, labels=list(range(K))).ravel())

    @lru_cache(maxsize=None)
    def trained(cells_sorted: tuple[int, ...]) -> tuple[int, ...]:
        table = [0] * cells
        for c in cells_sorted:
            table[c] += 1
        return predict(tuple(table))

    merged: dict[tuple[Any, ...], int] = {}  # (fold matrices, full-data predictions) -> probability numerator
    for data in itertools.product(range(cells), repeat=N):
        weight = math.prod(num[c] for c in data)
        if weight == 0:
            continue
        key = []
        for train, test in folds:
            pred = trained(tuple(sorted(data[i] for i in train)))
            key.append(matrix(tuple(data[i] % K for i in test), tuple(pred[data[i] // K] for i in test)))
        key.append(trained(tuple(sorted(data))))
        k = tuple(key)
        merged[k] = merged.get(k, 0) + weight
    total = Fraction(1, den**N)
    m1 = np.zeros(K * K, dtype=object) * Fraction(0)
    m2 = np.zeros((K * K, K * K), dtype=object) * Fraction(0)
    g1, g2, joint = m1.copy(), m2.copy(), m1.copy()
    for (*cms, full), weight in merged.items():
        prob = weight * total
        c = sum((w * np.array(cm, dtype=object) for cm, w in zip(cms, fold_w)), np.zeros(K * K, dtype=object))
        g = np.array([sum((p[x * K + a] for x in range(n_in) if full[x] == b), Fraction(0))
                      for a in range(K) for b in range(K)], dtype=object)
        m1 += prob * c
        m2 += prob * np.outer(c, c)
        g1 += prob * g
        g2 += prob * np.outer(g, g)
        joint += prob * c * g
    return m1, m2, g1, g2, joint


def kfold(v: int):
    return lambda N: list(SkKFold(n_splits=v).split(np.zeros(N)))


def loo(N: int):
    return list(SkLeaveOneOut().split(np.zeros(N)))


def holdout(ns: int):
    # the toolkit's HoldOut(test_size=ns): a random test set of ns points; every ordered dataset is
    # enumerated, so scikit-learn's unshuffled split has the same law
    return lambda N: [tuple(train_test_split(np.arange(N), test_size=ns, shuffle=False))]


def pooled(N: int, splits):
    return lambda n: [Fraction(1, N)] * len(splits(n))


CASES = [
    # (id, model, N, momentbound splitter, sklearn splits, fold weights, classifier)
    ("two-3fold-pooled", TWO, 6, KFold(3, average="pooled"), kfold(3), lambda N: [Fraction(1, N)] * 3,
     NaiveBayes(ties="first")),
    ("two-3fold-mean", TWO, 7, KFold(3), kfold(3), lambda N: [Fraction(1, 3 * s) for s in (3, 2, 2)],
     NaiveBayes(ties="sklearn", alpha=1)),
    ("two-loo", TWO, 5, LeaveOneOut(), loo, lambda N: [Fraction(1, N)] * N, NaiveBayes(ties="first")),
    ("two-holdout", TWO, 6, HoldOut(test_size=2), holdout(2), lambda N: [Fraction(1, 2)], NaiveBayes(ties="first")),
    ("three-2fold", THREE, 4, KFold(2, average="pooled"), kfold(2), lambda N: [Fraction(1, N)] * 2,
     NaiveBayes(ties="first")),
    ("three-holdout", THREE, 5, HoldOut(test_fraction=0.4), holdout(2), lambda N: [Fraction(1, 2)],
     NaiveBayes(ties="sklearn", alpha=1)),
    ("two-resubstitution", TWO, 5, Resubstitution(), lambda N: [(np.arange(N), np.arange(N))],
     lambda N: [Fraction(1, N)], NaiveBayes(ties="first")),
]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    _, model, N, est, splits, weights, clf = request.param
    return model, N, est, clf, brute_force(model, N, clf, splits, weights)


def test_confusion_moments_equal_the_enumeration(case):
    model, N, est, clf, (m1, m2, g1, g2, joint) = case
    r = confusion_moments(model, N, est, classifier=clf)
    K = model.n_classes
    flat = [v for row in r.mean for v in row]
    assert all(isinstance(v, Fraction) for v in flat)
    assert flat == list(m1)
    cov = m2 - np.outer(m1, m1)
    assert [list(row) for row in r.covariance] == [list(row) for row in cov]
    assert [v for row in r.ge_mean for v in row] == list(g1)
    assert [list(row) for row in r.ge_covariance] == [list(row) for row in g2 - np.outer(g1, g1)]
    assert [v for row in r.covariance_with_ge for v in row] == list(joint - m1 * g1)
    assert len(r.covariance) == K * K


def test_metrics_and_accuracy_equal_the_enumeration(case):
    """A cost matrix and the errors on one class through estimator_moments / estimator_accuracy."""
    model, N, est, clf, (m1, m2, g1, g2, joint) = case
    K = model.n_classes
    costs = [[(a * 3 + k) % 4 if a != k else 0 for k in range(K)] for a in range(K)]
    engine = make_engine(model, classifier=clf)  # one set of prediction probabilities for every metric
    for metric, weights in ((LinearMetric(costs, name="costs"), [Fraction(costs[a][k]) for a in range(K) for k in range(K)]),
                            (LinearMetric.class_error(1), [Fraction(int(a == 1 != k)) for a in range(K) for k in range(K)])):
        w = np.array(weights, dtype=object)
        mean, second = w.dot(m1), w.dot(m2).dot(w)
        r = estimator_moments(model, N, est, classifier=clf, metric=metric, engine=engine)
        assert (r.mean, r.variance, r.metric) == (mean, second - mean * mean, metric.name)
        acc = estimator_accuracy(model, N, est, classifier=clf, metric=metric, engine=engine)
        gm, gs = w.dot(g1), w.dot(g2).dot(w)
        assert acc.ge_full_mean == gm and acc.ge_full_variance == gs - gm * gm
        assert acc.bias == mean - gm
    # the population rates of GE: balanced error and recall, from the enumerated entries
    prior = [model.prior(a) for a in range(K)]
    bal = sum(g1[a * K + k] / (K * prior[a]) for a in range(K) for k in range(K) if a != k)
    ge = estimator_moments(model, N, GE(), classifier=clf, metric="balanced_error", engine=engine)
    assert ge.mean == bal
    rec = estimator_moments(model, N, GE(), classifier=clf, metric=LinearMetric.recall(0), engine=engine)
    assert rec.mean == g1[0] / prior[0]
    assert rec.variance == (g2[0, 0] - g1[0] ** 2) / prior[0] ** 2


@pytest.mark.parametrize("estimator, splits", [
    (KFold(2, average="pooled"), lambda N: list(SkKFold(n_splits=2).split(np.zeros(N)))),
    (Resubstitution(), lambda N: [(np.arange(N), np.arange(N))]),
], ids=["2fold", "resubstitution"])
def test_random_ties_with_every_coin_enumerated(estimator, splits):
    """The paper's tie rule (a fair coin among tied classes, one coin per test point): every ordered
    dataset and every coin outcome, each pooled confusion matrix from scikit-learn's KFold (or the
    training points themselves) and ``confusion_matrix``; the GE_N rates average the full-data classifier's coin at a fresh point."""
    model, N, K, clf = TWO, 4, 2, NaiveBayes()
    p = [Fraction(c) for c in model.cells]
    folds = splits(N)
    cache: dict[tuple[int, ...], np.ndarray] = {}

    def g(data: tuple[int, ...], idx) -> np.ndarray:
        table = tuple(int(v) for v in np.bincount(np.asarray(data)[idx], minlength=len(p)))
        if table not in cache:
            cache[table] = np.array([[Fraction(v).limit_denominator(K) for v in row]
                                     for row in clf.predict_tables(model, np.array([table]))[0]], dtype=object)
        return cache[table]

    @lru_cache(maxsize=None)
    def matrix(y_true: tuple[int, ...], y_pred: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(int(v) for v in confusion_matrix(y_true, y_pred, labels=list(range(K))).ravel())

    order = [int(i) for _, test in folds for i in test]
    merged: dict[tuple[Any, ...], Fraction] = {}  # (pooled counts, GE_N rates) -> probability
    g1 = np.zeros(K * K, dtype=object) * Fraction(0)
    for data in itertools.product(range(len(p)), repeat=N):
        prob = math.prod(p[c] for c in data)
        x, y = [c // K for c in data], [c % K for c in data]
        rows = {int(i): g(data, train)[x[int(i)]] for train, test in folds for i in test}
        full = g(data, np.arange(N))
        G = tuple(sum((p[xx * K + a] * full[xx][b] for xx in range(model.n_inputs)), Fraction(0))
                  for a in range(K) for b in range(K))
        g1 += prob * np.array(G, dtype=object)
        choices = [[k for k in range(K) if rows[i][k]] for i in order]
        for preds in itertools.product(*choices):
            coin = math.prod(rows[i][k] for i, k in zip(order, preds))
            key = (matrix(tuple(y[i] for i in order), preds), G)
            merged[key] = merged.get(key, Fraction(0)) + prob * coin
    m1 = np.zeros(K * K, dtype=object) * Fraction(0)
    m2 = np.zeros((K * K, K * K), dtype=object) * Fraction(0)
    joint = m1.copy()
    for (cm, G), w in merged.items():
        C, Gv = np.array([Fraction(v, N) for v in cm], dtype=object), np.array(G, dtype=object)
        m1 += w * C
        m2 += w * np.outer(C, C)
        joint += w * C * Gv
    r = confusion_moments(model, N, estimator, classifier=clf)
    assert [v for row in r.mean for v in row] == list(m1)
    assert [list(row) for row in r.covariance] == [list(row) for row in m2 - np.outer(m1, m1)]
    assert [v for row in r.covariance_with_ge for v in row] == list(joint - m1 * g1)
