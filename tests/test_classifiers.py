"""The classifier plug-in: naive Bayes's single score/tie implementation, the histogram and majority
rules (exact through their naive Bayes form), scikit-learn classifiers through Monte Carlo.

Witnesses: the scalar Fraction oracle of naive Bayes (tests/oracles/naive_bayes.py), a direct
majority count for the histogram and majority rules, brute-force enumeration of fold count tables
with those direct rules, and scikit-learn's own fits.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from momentbound import CellModel, InvalidArgument, UnknownMethod
from momentbound.classifiers import (
    CLASSIFIERS,
    Classifier,
    HistogramRule,
    MajorityRule,
    NaiveBayes,
    SklearnClassifier,
    as_classifier,
    make_classifier,
)
from momentbound.estimators import GE, HoldOut, KFold, estimator_moments, monte_carlo_moments
from oracles.naive_bayes import points_from_table, predict_distribution

TWO_D = CellModel((2, 2), ["1/10", "3/20", "3/20", "1/10", "1/20", "1/5", "3/20", "1/10"])
THREE = CellModel((3,), ["1/9", "1/9", "1/9", "1/6", "1/12", "1/9", "1/12", "1/9", "1/9"])


def random_tables(model: CellModel, n: int, r: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = rng.multinomial(n, np.full(model.n_cells, 1 / model.n_cells), size=r)
    t[:3] = 0  # empty training sets
    t[3:8, 0::model.n_classes] = 0  # class 0 absent
    return t


@pytest.mark.parametrize("clf", [NaiveBayes(t, a) for t in ("random", "first") for a in (0, 1, "1/2")],
                         ids=lambda c: c.describe())
@pytest.mark.parametrize("model", [TWO_D, THREE], ids=["2x2", "3-class"])
def test_naive_bayes_tables_equal_scalar_oracle(clf, model):
    tables = random_tables(model, 6, 120, 1)
    got = clf.predict_tables(model, tables)
    for r, t in enumerate(tables):
        pts = points_from_table(t, model.arities, model.n_classes)
        for ix, x in enumerate(model.inputs()):
            want = predict_distribution(pts, model.arities, model.n_classes, x, clf.ties, clf.alpha_exact)
            assert got[r, ix].tolist() == [float(v) for v in want]


def majority(counts: np.ndarray, present: np.ndarray, ties: str) -> list[Fraction]:
    """Direct majority vote over class counts (``present``: classes in the training set)."""
    K = len(counts)
    top = counts.max()
    tied = [k for k in range(K) if counts[k] == top]
    if ties == "random":
        return [Fraction(int(k in tied), len(tied)) for k in range(K)]
    cand = [k for k in tied if present[k]] or ([k for k in range(K) if present[k]][:1]) or [0]
    return [Fraction(int(k == cand[0])) for k in range(K)]


def histogram_direct(model: CellModel, table: np.ndarray, ix: int, ties: str) -> list[Fraction]:
    t = np.asarray(table).reshape(model.n_inputs, model.n_classes)
    return majority(t[ix], t.sum(axis=0) > 0, ties)


def majority_direct(model: CellModel, table: np.ndarray, ties: str) -> list[Fraction]:
    t = np.asarray(table).reshape(model.n_inputs, model.n_classes).sum(axis=0)
    return majority(t, t > 0, ties)


@pytest.mark.parametrize("ties", ["random", "first"])
@pytest.mark.parametrize("model", [TWO_D, THREE], ids=["2x2", "3-class"])
def test_histogram_and_majority_tables_equal_direct_votes(model, ties):
    tables = random_tables(model, 5, 200, 2)
    hist = HistogramRule(ties).predict_tables(model, tables)
    maj = MajorityRule(ties).predict_tables(model, tables)
    for r, t in enumerate(tables):
        for ix in range(model.n_inputs):
            assert hist[r, ix].tolist() == [float(v) for v in histogram_direct(model, t, ix, ties)]
            assert maj[r, ix].tolist() == [float(v) for v in majority_direct(model, t, ties)]


def tables_of(n: int, cells: int):
    if cells == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in tables_of(n - first, cells - 1):
            yield (first,) + rest


def table_pmf(table, p) -> Fraction:
    out = Fraction(math.factorial(sum(table)))
    for c, pc in zip(table, p):
        out *= pc**c / math.factorial(c)
    return out


def brute_force_cv(model: CellModel, sizes: tuple[int, ...], predict) -> tuple[Fraction, Fraction]:
    """E[CE], E[CE^2] by enumerating independent fold tables; ``predict(train, ix)`` -> g_x(.)."""
    K, p, N = model.n_classes, model.cells, sum(sizes)
    mean = second = Fraction(0)
    for folds in itertools.product(*(list(tables_of(s, model.n_cells)) for s in sizes)):
        w = math.prod(table_pmf(f, p) for f in folds)
        total = np.sum(folds, axis=0)
        m = var = Fraction(0)
        for f in folds:
            train = total - np.array(f)
            for c, cnt in enumerate(f):
                if cnt:
                    e = 1 - predict(train, c // K)[c % K]
                    m += cnt * e
                    var += cnt * e * (1 - e)  # independent tie coins
        mean += w * m / N
        second += w * (var + m * m) / N**2
    return mean, second


@pytest.mark.parametrize("ties", ["random", "first"])
def test_histogram_and_majority_exact_cv_equal_brute_force(ties):
    model = CellModel((2, 2), TWO_D.cells)
    for clf, predict in [
        (HistogramRule(ties), lambda t, ix: histogram_direct(model, t, ix, ties)),
        (MajorityRule(ties), lambda t, ix: majority_direct(model, t, ties)),
    ]:
        for N, est in [(4, KFold(2)), (3, KFold(3))]:
            r = estimator_moments(model, N, est, classifier=clf)
            mean, second = brute_force_cv(model, est.split(N).fold_sizes, predict)
            assert r.mean == mean, (clf, N, est)
            assert r.variance == second - mean**2, (clf, N, est)
            assert r.classifier == clf


def test_histogram_on_grid_equals_naive_bayes_on_flattened_attribute():
    flat = CellModel((4,), TWO_D.cells)
    for est in (GE(), HoldOut(test_size=2), KFold(3)):
        a = estimator_moments(TWO_D, 7, est, classifier=HistogramRule("first"))
        b = estimator_moments(flat, 7, est, classifier=NaiveBayes("first", 0))
        assert (a.mean, a.variance) == (b.mean, b.variance)


def test_registry_and_translation():
    assert list(CLASSIFIERS) == ["naive-bayes", "histogram", "majority", "sklearn"]
    assert make_classifier("histogram", {"ties": "first"}) == HistogramRule("first")
    with pytest.raises(UnknownMethod, match="unknown classifier 'tree'.*naive-bayes, histogram, majority"):
        make_classifier("tree")
    with pytest.raises(InvalidArgument, match="does not take parameters"):
        make_classifier("majority", {"alpha": 1})
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.tree import DecisionTreeClassifier

    assert as_classifier(CategoricalNB(alpha=1, min_categories=2)) == NaiveBayes("first", 1)
    with pytest.raises(InvalidArgument, match="class_prior"):
        as_classifier(CategoricalNB(class_prior=[0.5, 0.5]))
    with pytest.raises(InvalidArgument, match="fit_prior"):
        as_classifier(CategoricalNB(fit_prior=False))
    with pytest.raises(InvalidArgument, match="force_alpha=True"):
        as_classifier(CategoricalNB(alpha=0, force_alpha=False))
    tree = as_classifier(DecisionTreeClassifier(random_state=0))
    assert isinstance(tree, SklearnClassifier) and isinstance(tree, Classifier)
    assert make_classifier("sklearn:sklearn.tree.DecisionTreeClassifier", {"max_depth": 1}).estimator.max_depth == 1
    with pytest.raises(InvalidArgument, match="no class 'Nope'"):
        make_classifier("sklearn:sklearn.tree.Nope")
    with pytest.raises(InvalidArgument, match="momentbound classifier"):
        as_classifier("nb")


def test_sklearn_classifier_predictions_equal_direct_fits():
    from sklearn.tree import DecisionTreeClassifier

    clf = SklearnClassifier(DecisionTreeClassifier(random_state=0), encoding="onehot")
    tables = random_tables(TWO_D, 9, 30, 4)
    got = clf.predict_tables(TWO_D, tables)
    rows = np.array(list(TWO_D.inputs()))
    onehot = np.concatenate([(rows[:, [j]] == np.arange(2)).astype(float) for j in range(2)], axis=1)
    for r, t in enumerate(tables[8:], start=8):  # tables with both classes
        c = t.reshape(4, 2)
        if (c.sum(axis=0) == 0).any():
            continue
        X = np.repeat(onehot, c.sum(axis=1), axis=0)
        y = np.concatenate([np.repeat([0, 1], c[i]) for i in range(4)])
        pred = DecisionTreeClassifier(random_state=0).fit(X, y).predict(onehot)
        assert got[r].argmax(axis=1).tolist() == pred.tolist()


def test_exact_backend_refuses_sklearn_classifier_with_the_route():
    from sklearn.tree import DecisionTreeClassifier

    with pytest.raises(InvalidArgument, match="backend='montecarlo'"):
        estimator_moments(TWO_D, 10, KFold(2), classifier=DecisionTreeClassifier())


def test_decision_tree_monte_carlo_agrees_with_direct_simulation():
    """A depth-1 tree on ordinal inputs through the Monte Carlo backend against a plain simulation
    of datasets (rows drawn, 2-fold CV with the tree fitted per fold)."""
    from sklearn.tree import DecisionTreeClassifier

    tree = DecisionTreeClassifier(max_depth=1, random_state=0)
    mc = monte_carlo_moments(TWO_D, 12, KFold(2), classifier=tree, draws=600, rng=np.random.default_rng(5))
    rng = np.random.default_rng(6)
    p = np.array([float(c) for c in TWO_D.cells])
    inputs = np.array(list(TWO_D.inputs()), dtype=float)
    ces = []
    for _ in range(600):
        cells = rng.choice(8, size=12, p=p)
        X, y = inputs[cells // 2], cells % 2
        errs = 0
        for test in (slice(0, 6), slice(6, 12)):
            train = np.ones(12, bool)
            train[test] = False
            if len(set(y[train])) == 1:
                pred = np.full(6, y[train][0])
            else:
                pred = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X[train], y[train]).predict(X[test])
            errs += int((pred != y[test]).sum())
        ces.append(errs / 12)
    ces = np.array(ces)
    se = math.hypot(ces.std(ddof=1) / math.sqrt(len(ces)), (mc.mean.upper - mc.mean.lower) / (2 * 1.96))
    assert abs(ces.mean() - mc.mean.estimate) < 4 * se
