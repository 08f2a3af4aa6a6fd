"""The fold values of the class rates (``recall(a)``, ``class_error_rate(a)``, ``balanced_error``) in
coverage and :func:`statistic_folds`: each test set scored with its own class counts, as scikit-learn's
``recall_score`` and ``balanced_accuracy_score`` score it.

* the vectorised fold values equal :meth:`LinearMetric.test_set_weights` in Fractions on random
  confusion matrices (classes absent from a test set included);
* ``metric="balanced_error"`` is one minus ``scoring="balanced_accuracy"`` fold by fold and in its
  population value, on the same datasets;
* ``interval_coverage(metric="balanced_error")`` (a name, as the docs write it) runs under the stratified
  and the plain splitters.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators.coverage import interval_coverage
from momentbound.estimators.metrics import LinearMetric
from momentbound.estimators.scoring import linear_fold_values, statistic_folds
from momentbound.splitters import KFold, StratifiedKFold

MODEL = CellModel((3,), ["3/10", "1/20", "1/10", "1/10", "1/5", "1/4"])  # class 1 has prior 2/5

METRICS = [LinearMetric.recall(0), LinearMetric.recall(1), LinearMetric.class_error_rate(1),
           LinearMetric.balanced_error(), LinearMetric.error(), LinearMetric.confusion_entry(1, 0)]


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.name)
def test_fold_values_are_test_set_weights(metric: LinearMetric, K: int) -> None:
    rng = np.random.default_rng(K)
    conf = rng.integers(0, 4, size=(200, K, K))
    conf[::7, 1, :] = 0  # test sets without class 1
    conf[::11, 0, :] = 0
    conf[conf.sum(axis=(1, 2)) == 0, 0, 0] = 1
    counts = conf.sum(axis=2)
    got = linear_fold_values(metric, conf.astype(float), counts)
    B = metric.base_matrix(K)
    for m in range(conf.shape[0]):
        w, c = metric.test_set_weights(counts[m])
        want = c + sum(w[a] * B[a][k] * int(conf[m, a, k]) for a in range(K) for k in range(K))
        assert got[m] == pytest.approx(float(Fraction(want)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("splitter", [StratifiedKFold(4), KFold(4)], ids=["stratified", "plain"])
def test_balanced_error_is_one_minus_balanced_accuracy(splitter) -> None:
    clf = NaiveBayes("sklearn", 1)
    kw = dict(classifier=clf, draws=3_000, max_seconds=None)
    ours, pop = statistic_folds(MODEL, 20, splitter, LinearMetric.balanced_error(), rng=np.random.default_rng(5), **kw)
    theirs, pop_sk = statistic_folds(MODEL, 20, splitter, "balanced_accuracy", rng=np.random.default_rng(5), **kw)
    assert not np.isnan(ours).any()
    np.testing.assert_allclose(ours, 1 - theirs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pop, 1 - pop_sk, rtol=0, atol=1e-12)
    rec, _ = statistic_folds(MODEL, 20, splitter, LinearMetric.recall(1), rng=np.random.default_rng(5), **kw)
    sk_rec, _ = statistic_folds(MODEL, 20, splitter, "recall", rng=np.random.default_rng(5), **kw)
    defined = ~np.isnan(sk_rec)  # scikit-learn's recall scorer raises when a training part lacks class 1
    assert 0.5 < defined.mean() < 1
    np.testing.assert_allclose(rec[defined], sk_rec[defined], rtol=0, atol=1e-12)


def test_coverage_of_balanced_error_by_name() -> None:
    kw = dict(classifier=NaiveBayes("sklearn", 1), draws=2_000, nominal=0.9)
    by_name = interval_coverage(MODEL, 30, "naive-cv", StratifiedKFold(5), metric="balanced_error",
                                rng=np.random.default_rng(2), **kw)
    by_object = interval_coverage(MODEL, 30, "naive-cv", StratifiedKFold(5), metric=LinearMetric.balanced_error(),
                                  rng=np.random.default_rng(2), **kw)
    assert by_name.statistic == "balanced_error" and by_name.coverage == by_object.coverage
    assert 0.3 < by_name.coverage.estimate < 1.0
    plain = interval_coverage(MODEL, 30, "naive-cv", KFold(5), metric="balanced_error", rng=np.random.default_rng(2),
                              **kw)
    assert 0.3 < plain.coverage.estimate < 1.0


def test_cli_coverage_of_balanced_error_under_stratified_folds() -> None:
    import json

    from conftest import run_in_process

    done = run_in_process(["coverage", "--arities", "3", "--cells", ",".join(str(c) for c in MODEL.cells), "--N", "30",
                           "--method", "naive-cv", "--folds", "5", "--stratified", "--ties", "first", "--alpha", "1",
                           "--draws", "2000", "--seed", "2", "--nominal", "0.9", "--metric", "balanced_error", "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    api = interval_coverage(MODEL, 30, "naive-cv", StratifiedKFold(5), metric="balanced_error",
                            classifier=NaiveBayes("first", 1), draws=2_000, nominal=0.9, rng=np.random.default_rng(2))
    assert doc["statistic"] == "balanced_error"
    assert doc["coverage"] == pytest.approx(api.coverage.estimate, abs=1e-12)
