"""``estimate --metric`` with the ideal bootstrap, .632 and repeated k-fold: one JSON document (in this
process, ``run_in_process``) equal to the API in exact rationals, and refusals naming the command line's options."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import PAPER_CELLS, run_in_process

from momentbound import CellModel

MODEL_ARGS = ["--arities", "2", "--cells", "3/10,1/10,1/5,2/5", "--N", "6"]
MODEL = CellModel((2,), ["3/10", "1/10", "1/5", "2/5"])


def test_repeated_kfold_recall_json_equals_the_api():
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import LinearMetric, estimator_moments
    from momentbound.splitters.repeated import RepeatedKFold

    args = [*MODEL_ARGS, "--splitter", "repeated-cv", "--folds", "3", "--repeats", "4", "--ties", "first",
            "--metric", "recall:1", "--json"]
    done = run_in_process(["estimate", *args])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    api = estimator_moments(MODEL, 6, RepeatedKFold(3, 4), classifier=NaiveBayes("first", 0),
                            metric=LinearMetric.recall(1))
    assert doc["metric"] == "recall[1]"
    assert (Fraction(doc["mean_exact"]), Fraction(doc["variance_exact"])) == (api.mean, api.variance)


@pytest.mark.parametrize("splitter, cls", [("bootstrap", "Bootstrap"), ("632", "Point632")])
def test_bootstrap_metrics_on_the_command_line_equal_the_api(splitter, cls):
    from momentbound.classifiers import NaiveBayes
    from momentbound.estimators import LinearMetric, estimator_accuracy
    from momentbound.splitters import bootstrap

    done = run_in_process(["estimate", *MODEL_ARGS, "--splitter", splitter, "--ties", "first",
                           "--metric", "balanced_error", "--against", "ge-full", "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    api = estimator_accuracy(MODEL, 6, getattr(bootstrap, cls)(), classifier=NaiveBayes("first", 0),
                             metric=LinearMetric.balanced_error())
    assert Fraction(doc["mean_exact"]) == api.mean
    assert Fraction(doc["covariance_with_ge_exact"]) == api.covariance_with_ge


@pytest.mark.parametrize("extra, fragments", [
    (["--splitter", "632plus", "--metric", "recall:0"], ("no-information", "--scoring", "--backend montecarlo")),
    (["--splitter", "bootstrap", "--bootstraps", "20", "--metric", "confusion:0:1"], ("no --bootstraps",)),
    (["--splitter", "oob", "--bootstraps", "20", "--metric", "balanced_error"], ("majority vote", "--splitter ge")),
])
def test_refusals_name_command_line_options(extra, fragments):
    done = run_in_process(["estimate", "--arities", "2", "--cells", ",".join(PAPER_CELLS), "--N", "6", *extra])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in done.stderr, (fragment, done.stderr)
    assert "backend='montecarlo'" not in done.stderr and "B=None" not in done.stderr


def test_a_long_repeated_kfold_is_refused_with_command_line_options():
    done = run_in_process(["estimate", "--arities", "2", "--cells", "9/50,2/25,1/50,18/25", "--N", "400",
                           "--splitter", "repeated-cv", "--folds", "5", "--metric", "balanced_error",
                           "--max-seconds", "5"])
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--backend montecarlo" in done.stderr and "--max-seconds none" in done.stderr, done.stderr
