"""The Monte Carlo scores against a simulation of scikit-learn's own procedure.

Thousands of ordered datasets are drawn point by point; scikit-learn's ``StratifiedKFold`` (what
``cross_val_score(clf, X, y, cv=v)`` uses for a classifier) splits each, ``CategoricalNB`` is fitted
on every training part and scored by ``get_scorer(name)`` (``nan`` when the scorer raises, as
``cross_val_score``'s ``error_score=nan``). A fitted ``CategoricalNB`` and its scores depend only on
the multisets of training and test points, so each distinct (test, train) pair is fitted and scored
once (the brute-force test checks this route against ``cross_val_score`` itself). For every scorer
the mean and the variance of the fold-mean score, and the fraction of datasets with a ``nan`` fold,
must agree with :func:`monte_carlo_scores` within ``|z| <= 3``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold

from conftest import sklearn_fold_scores

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators.scoring import SCORINGS, monte_carlo_scores
from momentbound.splitters import StratifiedKFold

CASES = {  # model, N, folds, datasets (three cells each: few distinct folds for scikit-learn to score)
    "binary-imbalanced": (CellModel((2,), ["3/5", "3/20", "0", "1/4"]), 8, 4, 3000),
    "three-classes": (CellModel((2,), ["2/5", "1/4", "0", "0", "0", "7/20"]), 9, 3, 3000),
}


def _z_fraction(q1: float, n1: int, q2: float, n2: int) -> float:
    """The pooled two-proportion z statistic (its plug-in form fails for rare events: a fraction
    observed as 0 would have standard error 0)."""
    pooled = (q1 * n1 + q2 * n2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return 0.0 if se == 0 else (q1 - q2) / se


def _z(a: float, se_a: float, b: float, se_b: float) -> float:
    """The z statistic of two independent estimates (0 when both are exact and equal)."""
    se = math.hypot(se_a, se_b)
    return 0.0 if se == 0 and a == b else (a - b) / se


def _sklearn_scores(model: CellModel, N: int, v: int, datasets: int, names: list[str]) -> dict[str, np.ndarray]:
    K, C = model.n_classes, len(model.cells)
    p = np.array([float(c) for c in model.cells])
    rng = np.random.default_rng(11)
    cv = SkStratifiedKFold(v)
    inputs = np.array(list(np.ndindex(*model.arities)))  # the attribute values of every input
    cache: dict[tuple, dict[str, float]] = {}
    out: dict[str, list[float]] = {name: [] for name in names}
    drawn = 0
    while drawn < datasets:
        seq = rng.choice(C, size=N, p=p)
        X, y = inputs[seq // K], seq % K
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                folds = list(cv.split(X, y))
            except ValueError:  # scikit-learn cannot split it; the toolkit conditions on splittable data
                continue
        drawn += 1
        per_fold = []
        for train, test in folds:
            per_fold.append(sklearn_fold_scores(model, X, y, seq, train, test, names, cache))
        for name in names:
            out[name].append(float(np.mean([f[name] for f in per_fold])))
    return {name: np.array(values) for name, values in out.items()}


@pytest.mark.parametrize("case", list(CASES))
def test_cross_val_score_simulation_agrees(case):
    model, N, v, datasets = CASES[case]
    names = [s for s in SCORINGS if model.n_classes == 2 or s not in ("recall", "precision", "f1", "roc_auc")]
    sim = _sklearn_scores(model, N, v, datasets, names)
    for name in names:
        x = sim[name]
        ok = ~np.isnan(x)
        r = monte_carlo_scores(model, N, StratifiedKFold(v), scoring=name, classifier=NaiveBayes("sklearn", 1),
                               draws=20_000, rng=np.random.default_rng(5))
        def se(interval):  # the standard error behind a 95% interval
            return (interval.upper - interval.lower) / 2 / 1.959964

        q = 1 - ok.mean()
        z_nan = _z_fraction(q, x.size, r.undefined.estimate, r.draws)
        xs = x[ok]
        n = xs.size
        z_mean = _z(xs.mean(), xs.std(ddof=1) / math.sqrt(n), r.mean.estimate, se(r.mean))
        dev = (xs - xs.mean()) ** 2
        z_var = _z(xs.var(ddof=1), dev.std(ddof=1) / math.sqrt(n), r.variance.estimate, se(r.variance))
        assert max(abs(z_nan), abs(z_mean), abs(z_var)) <= 3, (name, z_nan, z_mean, z_var)
