"""``estimate --metric STATISTIC``: exact linear statistics of the confusion matrix from the command line
(one JSON document, run in this process with ``run_in_process``, equal to the API in exact
rationals), and refusals that name the fix."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import PAPER_CELLS, paper_model, run_in_process

MODEL_ARGS = ["--arities", "2", "--cells", ",".join(PAPER_CELLS), "--N", "10"]


def test_metric_json_equals_the_api_exactly():
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import KFold, LinearMetric, estimator_moments

    args = [*MODEL_ARGS, "--splitter", "cv", "--folds", "5", "--ties", "first", "--metric", "confusion:0:1", "--json"]
    done = run_in_process(["estimate", *args])
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    doc = json.loads(done.stdout)
    api = estimator_moments(paper_model(), 10, KFold(5), classifier=NaiveBayes("first", 0),
                            metric=LinearMetric.confusion_entry(0, 1))
    assert doc["metric"] == "confusion[0,1]"
    assert Fraction(doc["mean_exact"]) == api.mean
    assert Fraction(doc["variance_exact"]) == api.variance


def test_population_rates_of_ge():
    # x carries no information about y in this model, so the prediction is independent of the class
    # and the balanced error of the trained classifier is exactly 1/2 on every dataset
    done = run_in_process(["estimate", *MODEL_ARGS, "--splitter", "ge", "--metric", "balanced_error", "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["mean_exact"], doc["variance_exact"]) == ("1/2", "0")


@pytest.mark.parametrize(("extra", "message"), [
    (["--splitter", "cv", "--folds", "5", "--metric", "bogus"], "--metric must be one of"),
    (["--splitter", "holdout", "--test-size", "3", "--metric", "recall:0"], "use --splitter ge"),
    (["--splitter", "cv", "--folds", "5", "--metric", "error", "--backend", "montecarlo"], "drop --backend montecarlo"),
    (["--splitter", "cv", "--folds", "5", "--metric", "error", "--scoring", "f1"], "not both"),
])
def test_metric_refusals_name_the_fix(extra, message):
    done = run_in_process(["estimate", *MODEL_ARGS, *extra])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
