"""``estimate --metric`` under the stratified splitters, in this process (``run_in_process``, fds 1
and 2 included; ``estimate`` runs as a real subprocess in ``test_cli_subprocess.py``): one JSON
document equal to the API in exact rationals (a fold's recall and balanced error, scored as scikit-learn scores the
fold), with ``--against ge-full``; the splitters that cannot fix the class counts still refuse."""

from __future__ import annotations

import json
from fractions import Fraction

from conftest import run_in_process

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import LinearMetric, StratifiedKFold, estimator_accuracy, estimator_moments

CELLS = ("9/50", "2/25", "1/50", "18/25")
MODEL_ARGS = ["--arities", "2", "--cells", ",".join(CELLS), "--N", "8", "--ties", "sklearn", "--alpha", "1"]


def _run(*args: str) -> dict:
    done = run_in_process(["estimate", *MODEL_ARGS, *args, "--json"])
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


def test_stratified_balanced_error_json_equals_the_api_exactly():
    model = CellModel((2,), list(CELLS))
    clf = NaiveBayes("sklearn", 1)
    doc = _run("--splitter", "stratified-cv", "--folds", "4", "--metric", "balanced_error")
    api = estimator_moments(model, 8, StratifiedKFold(4), classifier=clf, metric=LinearMetric.balanced_error())
    assert doc["metric"] == "balanced_error"
    assert (Fraction(doc["mean_exact"]), Fraction(doc["variance_exact"])) == (api.mean, api.variance)
    doc = _run("--splitter", "stratified-cv", "--folds", "4", "--metric", "recall:0", "--against", "ge-full")
    acc = estimator_accuracy(model, 8, StratifiedKFold(4), classifier=clf, metric=LinearMetric.recall(0))
    assert doc["metric"] == "recall[0]"
    assert Fraction(doc["mean_exact"]) == acc.mean
    assert Fraction(doc["covariance_with_ge_exact"]) == acc.covariance_with_ge


def test_splitters_without_fixed_class_counts_still_refuse_by_name():
    done = run_in_process(["estimate", *MODEL_ARGS, "--splitter", "holdout", "--test-size", "4", "--metric",
                           "balanced_error"])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "stratified-cv" in done.stderr and "--scoring" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
