"""Exact stratified CV moments against real scikit-learn ``cross_val_score`` runs (simulation).

``cross_val_score(CategoricalNB(...), X, y, cv=5)`` splits with ``StratifiedKFold(5)`` (what
``check_cv`` gives a classifier); its error is ``1 - mean(scores)``, the exact result with
``average="folds"`` and the tie rule ``first`` (scikit-learn's argmax over the classes seen in
training).
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB

from conftest import cross_val_error

from momentbound import CellModel
from momentbound.exact import NaiveBayes
from momentbound.exact.stratified import stratified_cv_moments

THREE = CellModel((3,), [Fraction(1, 6) if x == y else Fraction(1, 12) for x in range(3) for y in range(3)], 3)


@pytest.mark.slow
def test_three_class_cross_val_score():
    N, v, runs = 30, 5, 1500
    clf = NaiveBayes(ties="first", alpha=1)
    exact = stratified_cv_moments(THREE, N, v, classifier=clf, average="folds", arithmetic="float")
    rng = np.random.default_rng(20261125)
    p = np.array([float(THREE.p((x,), y)) for x in range(3) for y in range(3)])
    ce = np.empty(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn: "least populated class ..."
        for r in range(runs):
            cells = rng.choice(9, size=N, p=p)
            X, y = (cells // 3)[:, None], cells % 3
            ce[r] = cross_val_error(lambda: CategoricalNB(alpha=1, min_categories=[3]), X, y, v, check=r < 5)
    mean, var = ce.mean(), ce.var(ddof=1)
    se_mean = np.sqrt(var / runs)
    se_var = np.sqrt((np.mean((ce - mean) ** 4) - var**2) / runs)
    assert abs(mean - exact.mean) < 4 * se_mean, (mean, exact.mean, se_mean)
    assert abs(var - exact.variance) < 4 * se_var, (var, exact.variance, se_var)
