"""The vectorised scikit-learn scorers against scikit-learn itself, on every ordered dataset.

For every ordered dataset of ``N <= 6`` points, scikit-learn's own splitter makes the folds, a real
``CategoricalNB`` is fitted on each training part and scored by ``sklearn.metrics.get_scorer(name)``
(a raising scorer is ``nan``, as ``cross_val_score``'s ``error_score=nan``); the fold-mean score
must equal :func:`fold_scores` on the same fold tables on every dataset, ``nan`` included. The
population values are checked against scikit-learn's metrics with the cell probabilities as sample
weights, and the Monte Carlo intervals against the exact expectations over the datasets.
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn import config_context
from sklearn.metrics import (balanced_accuracy_score, f1_score, precision_score, recall_score,
                             roc_auc_score)
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import CategoricalNB

from conftest import sklearn_fold_scores

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators.scoring import (SCORINGS, fold_scores, full_scores, monte_carlo_scores,
                                            scoring_setup)
from momentbound.splitters import KFold, StratifiedKFold

BINARY = CellModel((2,), ["3/10", "1/10", "1/5", "2/5"])
# three classes on two inputs, three cells empty (few distinct folds for scikit-learn to score)
THREE = CellModel((2,), ["2/5", "1/5", "0", "0", "0", "2/5"])
CASES = {  # model, N, folds (the three-class test folds hold 3 points: every class can appear)
    "binary": (BINARY, 4, 2),
    "three": (THREE, 6, 2),
}
#: scikit-learn's fold scores by model and (test, train) multisets, shared by the splitters
_CACHE: dict[tuple, dict[str, float]] = {}
NB = NaiveBayes("sklearn", 1)


def _scorers(K: int) -> list[str]:
    return [s for s in SCORINGS if K == 2 or s not in ("recall", "precision", "f1", "roc_auc")]


def _cell_xy(model: CellModel) -> tuple[np.ndarray, np.ndarray]:
    K = model.n_classes
    cells = np.arange(len(model.cells))
    return (cells // K)[:, None], cells % K


def _brute(model: CellModel, N: int, v: int, stratified: bool):
    """Per ordered dataset: its probability, the fold test/train tables scikit-learn's splitter makes,
    and scikit-learn's per-fold scores (cached on the multisets each fit and score sees)."""
    K, C = model.n_classes, len(model.cells)
    Xc, yc = _cell_xy(model)
    probs = [Fraction(c) for c in model.cells]
    splitter = SkStratifiedKFold(v) if stratified else SkKFold(v)
    names = _scorers(K)
    rows = []
    support = [c for c in range(C) if probs[c] > 0]
    for seq in itertools.product(support, repeat=N):
        seq = np.array(seq)
        X, y = Xc[seq], yc[seq]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                folds = list(splitter.split(X, y))
            except ValueError:  # scikit-learn cannot split it (the toolkit conditions on splittable data)
                continue
        tests, trains, fold_values = [], [], []
        for train_idx, test_idx in folds:
            te = np.bincount(seq[test_idx], minlength=C)
            tr = np.bincount(seq[train_idx], minlength=C)
            tests.append(te)
            trains.append(tr)
            fold_values.append(sklearn_fold_scores(model, X, y, seq, train_idx, test_idx, names, _CACHE))
        weight = np.prod([probs[c] for c in seq])
        rows.append((seq, weight, np.array(tests), np.array(trains),
                     {name: np.mean([f[name] for f in fold_values]) for name in names}))
    return rows


@pytest.fixture(scope="module", params=[(case, strat) for case in CASES for strat in (False, True)],
                ids=lambda p: f"{p[0]}-{'stratified' if p[1] else 'kfold'}")
def brute(request):
    case, stratified = request.param
    model, N, v = CASES[case]
    return model, N, v, stratified, _brute(model, N, v, stratified)


def test_fold_scores_equal_scikit_learn_on_every_dataset(brute):
    model, N, v, stratified, rows = brute
    setup = scoring_setup(model, NB)
    test = np.array([r[2] for r in rows])
    train = np.array([r[3] for r in rows])
    rng = np.random.default_rng(0)  # unused: the sklearn tie rule predicts deterministically
    undefined_seen = 0
    for name in _scorers(model.n_classes):
        ours = fold_scores(setup, test, train, name, rng).mean(axis=1)
        theirs = np.array([r[4][name] for r in rows])
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=name)
        ok = ~np.isnan(theirs)
        if name.startswith("roc_auc"):  # scikit-learn integrates the curve by trapezoids in floats
            np.testing.assert_allclose(ours[ok], theirs[ok], rtol=0, atol=1e-12, err_msg=name)
        else:
            np.testing.assert_array_equal(ours[ok], theirs[ok], err_msg=name)
        undefined_seen += int((~ok).sum())
    assert undefined_seen > 0  # the folds without a class are part of what is checked


def test_cross_val_score_itself_on_some_datasets(brute):
    """The per-fold route above is cross_val_score's (error_score=nan) on a sample of datasets."""
    model, N, v, stratified, rows = brute
    Xc, yc = _cell_xy(model)
    cv = SkStratifiedKFold(v) if stratified else SkKFold(v)
    for i in np.random.default_rng(1).choice(len(rows), 8, replace=False):
        seq, _, _, _, values = rows[i]
        for name in ("f1_macro", "roc_auc_ovr") if model.n_classes > 2 else ("recall", "roc_auc"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = cross_val_score(CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities)),
                                      Xc[seq], yc[seq], cv=cv, scoring=name).mean()
            assert (np.isnan(got) and np.isnan(values[name])) or got == pytest.approx(values[name], abs=1e-12)


def _population_sklearn(model: CellModel, table: np.ndarray, name: str) -> float:
    """The population metric by scikit-learn: one weighted sample per cell, weight its probability."""
    K = model.n_classes
    Xc, yc = _cell_xy(model)
    w = np.array([float(Fraction(c)) for c in model.cells])
    X = np.repeat(Xc, table, axis=0)
    y = np.repeat(yc, table)
    clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities)).fit(X, y)
    with config_context(skip_parameter_validation=True):
        return _weighted_metric(clf, Xc, yc, w, K, name)


def _weighted_metric(clf, Xc, yc, w, K, name):
    if name.startswith("roc_auc"):
        if len(clf.classes_) < 2:
            return 0.5
        proba = np.zeros((len(yc), K))
        proba[:, clf.classes_] = clf.predict_proba(Xc)
        if K == 2:
            return float(roc_auc_score(yc, proba[:, 1], sample_weight=w))
        return float(roc_auc_score(yc, proba, multi_class="ovr", sample_weight=w))
    pred = clf.predict(Xc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "accuracy":
            return float(np.sum(w * (pred == yc)))
        if name == "balanced_accuracy":
            return float(balanced_accuracy_score(yc, pred, sample_weight=w))
        func = {"recall": recall_score, "precision": precision_score, "f1": f1_score}[name.removesuffix("_macro")]
        average = "macro" if name.endswith("_macro") else "binary"
        return float(func(yc, pred, sample_weight=w, average=average, labels=None))


@pytest.mark.parametrize("case", list(CASES))
def test_population_values_are_scikit_learns_weighted_metrics(case):
    model, N, _, = CASES[case]
    setup = scoring_setup(model, NB)
    C = len(model.cells)
    support = [c for c in range(C) if model.cells[c] > 0]
    tables = np.array([np.bincount(c, minlength=C) for c in itertools.combinations_with_replacement(support, N)])
    for name in _scorers(model.n_classes):
        ours = full_scores(setup, tables, name)
        theirs = np.array([_population_sklearn(model, t, name) for t in tables])
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12, err_msg=name)


def test_monte_carlo_intervals_hold_the_exact_expectations(brute):
    """About 40 intervals in all: each at level 0.999 (Bonferroni for a family-wise 0.05)."""
    model, N, v, stratified, rows = brute
    setup = scoring_setup(model, NB)
    weights = np.array([float(r[1]) for r in rows])
    full = np.array([np.bincount(r[0], minlength=len(model.cells)) for r in rows])
    splitter = StratifiedKFold(v) if stratified else KFold(v)
    names = _scorers(model.n_classes)[::2] if stratified else _scorers(model.n_classes)[1::2]
    for name in names:
        score = np.array([r[4][name] for r in rows])
        ok = ~np.isnan(score)
        p_ok = weights[ok].sum()
        exact_mean = float(weights[ok] @ score[ok] / p_ok)
        exact_var = float(weights[ok] @ (score[ok] - exact_mean) ** 2 / p_ok)
        pop = full_scores(setup, full, name)
        exact_pop = float(weights[ok] @ pop[ok] / p_ok)
        exact_undefined = 1 - p_ok / weights.sum()
        r = monte_carlo_scores(model, N, splitter, scoring=name, classifier=NB, draws=10_000, confidence=0.999,
                               rng=np.random.default_rng(7))
        for label, interval, value in (("mean", r.mean, exact_mean), ("variance", r.variance, exact_var),
                                       ("population", r.ge_full_mean, exact_pop),
                                       ("undefined", r.undefined, exact_undefined)):
            assert interval.lower - 1e-12 <= value <= interval.upper + 1e-12, (name, label, interval, value)
