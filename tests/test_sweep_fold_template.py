"""``sweep(over="folds", estimator=...)`` and ``sweep --over folds --splitter NAME``: the folds ``v`` of
any splitter that has them are swept (stratified, repeated), each row equal to that splitter's own
moments; splitters without folds, a fixed ``--folds`` and ``loo`` with such a splitter are refused
before any work."""

from __future__ import annotations

import json

import pytest

from conftest import run_in_process

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_moments, sweep
from momentbound.estimators.metrics import LinearMetric
from momentbound.splitters import KFold, LeaveOneOut, StratifiedKFold

CELLS = ["1/2", "1/20", "3/10", "3/20"]
MODEL = CellModel((2,), CELLS)
CLF = NaiveBayes("first")


@pytest.mark.parametrize("metric", [None, LinearMetric.balanced_error()], ids=["error", "balanced_error"])
def test_rows_are_the_splitters_own_moments(metric) -> None:
    extra = {} if metric is None else {"metric": metric}
    result = sweep(MODEL, "folds", [2, 3, 5], N=15, estimator=StratifiedKFold(5, average="pooled"), classifier=CLF,
                   **extra)
    for v, row in zip((2, 3, 5), result.rows):
        own = estimator_moments(MODEL, 15, StratifiedKFold(v, average="pooled"), classifier=CLF, **extra)
        assert (row.mean, row.variance) == (own.mean, own.variance)
    plain = sweep(MODEL, "folds", [3], N=15, classifier=CLF).rows[0]
    assert plain.mean == estimator_moments(MODEL, 15, KFold(3), classifier=CLF).mean != result.rows[1].mean


def test_refusals() -> None:
    with pytest.raises(InvalidArgument, match="LeaveOneOut\\(\\) has no v"):
        sweep(MODEL, "folds", [2], N=15, estimator=LeaveOneOut())
    with pytest.raises(InvalidArgument, match="'loo' is leave-one-out.*estimator=None"):
        sweep(MODEL, "folds", [2, "loo"], N=15, estimator=StratifiedKFold(2))
    with pytest.raises(InvalidArgument, match="over='folds'"):
        sweep(MODEL, "holdout", [3], N=15, estimator=StratifiedKFold(2))


BASE = ["sweep", "--arities", "2", "--cells", ",".join(CELLS), "--ties", "first", "--N", "15", "--over", "folds"]


def test_cli() -> None:
    done = run_in_process([*BASE, "--values", "2,3", "--splitter", "stratified-cv", "--metric", "balanced_error",
                           "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    api = sweep(MODEL, "folds", [2, 3], N=15, estimator=StratifiedKFold(2), classifier=CLF,
                metric=LinearMetric.balanced_error())
    assert [r["splitter"]["name"] for r in doc["rows"]] == ["stratified-cv"] * 2
    assert [r["mean"] for r in doc["rows"]] == pytest.approx([float(r.mean) for r in api.rows], rel=1e-14)
    for extra, message in ((["--values", "2", "--splitter", "stratified-cv", "--folds", "3"], "drop --folds"),
                           (["--values", "2", "--splitter", "loo"], "loo has none"),
                           (["--values", "2,loo", "--splitter", "stratified-cv"], "without --splitter")):
        done = run_in_process([*BASE, *extra, "--json"])
        assert done.returncode == 2 and done.stdout == "" and message in done.stderr, done.stderr
