"""KFold's recall, class error rates and balanced error: scikit-learn's per-fold scores, exact.

Each fold's recall divides by that fold's count of the class, so the statistic is linear only given
the class counts of the folds. One unshuffled partition of i.i.d. points has the law of one shuffled
partition, so ``KFold(v)`` takes the class-count route of ``RepeatedKFold(v, 1)``. The witness is
every ordered dataset split by scikit-learn's own ``KFold`` (no shuffle), a real ``CategoricalNB``
fitted on each training part and scored by ``recall_score`` / ``balanced_accuracy_score`` (a fold
without the class scores 0, scikit-learn's default ``zero_division``).
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from conftest import run_in_process
from sklearn.model_selection import KFold as SkKFold
from test_stratified_metrics import BINARY, NB, THREE, Scorer, _datasets, _metrics

from momentbound.errors import InvalidArgument
from momentbound.estimators import KFold, estimator_accuracy, estimator_moments


@pytest.mark.parametrize("model, N, v, average", [
    (BINARY, 5, 2, "folds"),
    (BINARY, 5, 2, "pooled"),  # folds of 3 and 2 points
    (BINARY, 6, 3, "folds"),
    (THREE, 4, 2, "folds"),  # three classes: folds without a class
], ids=["binary-5-2", "binary-pooled", "binary-6-3", "three-4-2"])
def test_every_ordered_dataset_with_scikit_learns_kfold(model, N, v, average):
    scorer = Scorer(model)
    metrics = _metrics(model.n_classes)
    folds = list(SkKFold(v).split(np.zeros(N)))
    acc = {name: [Fraction(0)] * 3 for name in metrics}  # E[m], E[m^2], E[m GE]
    for seq, w in _datasets(model, N):
        parts = [(seq[tr], seq[te]) for tr, te in folds]
        if average == "folds":
            scores = [scorer.scores([p]) for p in parts]
            values = {n: sum((s[n] for s in scores), Fraction(0)) / v for n in scores[0]}
        else:
            values = scorer.scores(parts)
        for name, metric in metrics.items():
            x = values[name]
            for k, y in enumerate((x, x * x, x * scorer.population(seq, metric))):
                acc[name][k] += w * y
    for name, metric in metrics.items():
        mean, second, joint = acc[name]
        got = estimator_accuracy(model, N, KFold(v, average=average), classifier=NB, metric=metric)
        assert isinstance(got.mean, Fraction), name
        assert (got.mean, got.variance) == (mean, second - mean * mean), name
        assert got.covariance_with_ge == joint - mean * got.ge_full_mean, name
        assert got.route == ("class-counts" if metric.prior_weighted else None), name
    # the check can fail: the pooled statistic differs from the mean of the fold scores at N = 5
    if (N, v, average) == (5, 2, "folds"):
        pooled = estimator_moments(model, N, KFold(v, average="pooled"), classifier=NB, metric=metrics["recall[0]"])
        assert pooled.mean != acc["recall[0]"][0]


def test_the_class_count_route_is_guarded_and_refuses_other_backends():
    with pytest.raises(InvalidArgument, match="would take") as err:
        estimator_moments(BINARY, 300, KFold(10), metric="recall:1", max_seconds=1)
    assert "KFold(v=10)" in str(err.value) and "Repeated" not in str(err.value)
    with pytest.raises(InvalidArgument, match="backend='exact', not 'sampling'"):
        estimator_moments(BINARY, 8, KFold(2), metric="balanced_error", backend="sampling")
    with pytest.raises(InvalidArgument, match="covariance='exact'"):
        estimator_moments(BINARY, 8, KFold(2), metric="balanced_error", covariance="paper")


def test_command_line_equals_the_api():
    args = ["--arities", "2", "--cells", "3/10,1/10,1/5,2/5", "--N", "7", "--classifier", "naive-bayes", "--ties", "sklearn",
            "--alpha", "1", "--splitter", "cv", "--folds", "3", "--metric", "balanced_error", "--json"]
    done = run_in_process(["estimate", *args])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    api = estimator_moments(BINARY, 7, KFold(3), classifier=NB, metric="balanced_error")
    assert (Fraction(doc["mean_exact"]), Fraction(doc["variance_exact"])) == (api.mean, api.variance)
    assert doc["route"] == "class-counts"
    assert api.repetition_covariance is None  # one partition: no terms between partitions are computed
