"""The coverage of the naive CV interval of another statistic than the error (``scoring=``, ``metric=``).

* ``scoring="f1"``: scikit-learn's procedure on 400 datasets (its ``StratifiedKFold``, ``CategoricalNB``
  scored fold by fold, the interval ``mean +- z s / sqrt(v)`` of the fold scores) against the
  population F1 of ``CategoricalNB`` fitted on all the points, computed from the model's cells and the
  classifier's predictions of every input: the fraction covered and the fraction of datasets with an
  undefined fold agree with :func:`interval_coverage` (pooled two-proportion ``|z| <= 4``).
* ``metric=LinearMetric.error()`` follows its own route (the fold values of a loss matrix) and agrees
  with the coverage of the 0-1 error's interval.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
from sklearn.naive_bayes import CategoricalNB

from conftest import sklearn_fold_scores

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators.coverage import interval_coverage
from momentbound.estimators.metrics import LinearMetric
from momentbound.splitters import KFold, StratifiedKFold

MODEL = CellModel((2,), ["3/5", "3/20", "0", "1/4"])


def _z_fraction(q1: float, n1: int, q2: float, n2: int) -> float:
    pooled = (q1 * n1 + q2 * n2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return 0.0 if se == 0 else (q1 - q2) / se


def _population_f1(clf: CategoricalNB) -> float:
    cells = np.array([float(c) for c in MODEL.cells]).reshape(2, 2)  # (input, class)
    positive = clf.predict(np.array([[0], [1]])) == 1
    tp = float(cells[positive, 1].sum())
    return 2 * tp / (cells[:, 1].sum() + cells[positive].sum())


def test_naive_cv_interval_of_f1_covers_as_in_scikit_learn():
    N, v, D = 10, 2, 400
    z = NormalDist().inv_cdf(0.975)
    rng = np.random.default_rng(9)
    p = np.array([float(c) for c in MODEL.cells])
    cache: dict = {}
    covered, undefined = [], 0
    while len(covered) + undefined < D:
        seq = rng.choice(4, size=N, p=p)
        X, y = (seq // 2)[:, None], seq % 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                folds = list(SkStratifiedKFold(v).split(X, y))
            except ValueError:
                continue
            scores = np.array([sklearn_fold_scores(MODEL, X, y, seq, tr, te, ["f1"], cache)["f1"] for tr, te in folds])
            full = CategoricalNB(alpha=1, force_alpha=True, min_categories=[2]).fit(X, y)
        if np.isnan(scores).any():
            undefined += 1
            continue
        half = z * scores.std(ddof=1) / math.sqrt(v)
        covered.append(abs(scores.mean() - _population_f1(full)) <= half)
    r = interval_coverage(MODEL, N, "naive-cv", StratifiedKFold(v), scoring="f1", classifier=NaiveBayes("sklearn", 1),
                          draws=20_000, rng=np.random.default_rng(1))
    assert r.statistic == "f1" and 0.05 < r.coverage.estimate < 0.95  # neither trivial nor certain
    assert abs(_z_fraction(float(np.mean(covered)), len(covered), r.coverage.estimate, round(r.draws * (1 - r.undefined)))) <= 4
    assert abs(_z_fraction(undefined / D, D, r.undefined, r.draws)) <= 4


def test_the_error_as_a_linear_metric_has_the_error_coverage():
    model = CellModel((2,), ["1/2", "1/20", "3/10", "3/20"])
    kwargs = dict(draws=20_000, classifier=NaiveBayes(alpha=1))
    error = interval_coverage(model, 20, "naive-cv", KFold(4), rng=np.random.default_rng(3), **kwargs)
    linear = interval_coverage(model, 20, "naive-cv", KFold(4), rng=np.random.default_rng(4),
                               metric=LinearMetric.error(), **kwargs)
    assert linear.statistic == "error" and linear.undefined == 0.0
    assert abs(_z_fraction(error.coverage.estimate, 20_000, linear.coverage.estimate, 20_000)) <= 4
    assert abs(error.mean_width - linear.mean_width) < 0.01
