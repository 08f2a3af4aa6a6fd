"""`estimate` and `sweep` with the splitter and classifier plug-ins (in-process CLI runs; the real
subprocess runs are in test_cli_subprocess.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from momentbound.cli import main
from momentbound.estimators import StratifiedKFold, estimator_moments
from momentbound.classifiers import NaiveBayes
from momentbound import CellModel

ONE_D = ["--cells", "0.2,0.3,0.2,0.3"]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def doc(*args: str) -> dict:
    res = run(*args, "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_stratified_cv_matches_the_api_and_names_its_plugins():
    d = doc("estimate", *ONE_D, "--N", "12", "--estimator", "stratified-cv", "--folds", "3", "--ties", "first",
            "--alpha", "1")
    exact = estimator_moments(CellModel((2,), ["0.2", "0.3", "0.2", "0.3"]), 12, StratifiedKFold(3),
                              classifier=NaiveBayes("first", 1))
    assert d["mean_exact"] == str(exact.mean) and d["variance"] == pytest.approx(float(exact.variance))
    assert d["splitter"] == {"name": "stratified-cv", "description": "StratifiedKFold(v=3)", "params": {"average": "folds", "folds": 3}}
    assert d["classifier"]["name"] == "naive-bayes" and d["classifier"]["params"]["ties"] == "first"
    assert d["split_probability"] == 1.0


@pytest.mark.parametrize("args, name", [
    (["--estimator", "repeated-cv", "--folds", "2", "--repeats", "inf", "--backend", "montecarlo", "--seed", "1",
      "--draws", "400"], "repeated-cv"),
    (["--estimator", "shuffle-split", "--splits", "3", "--test-size", "4"], "shuffle-split"),
    (["--estimator", "resubstitution"], "resubstitution"),
    (["--estimator", "632"], "632"),
    (["--estimator", "oob", "--bootstraps", "5", "--backend", "montecarlo", "--seed", "2", "--draws", "300"], "oob"),
    (["--estimator", "cv", "--folds", "2", "--classifier", "histogram"], "cv"),
    (["--estimator", "cv", "--folds", "2", "--classifier", "majority", "--ties", "first"], "cv"),
])
def test_every_estimator_family_runs(args, name):
    d = doc("estimate", *ONE_D, "--N", "12", *args)
    assert d["splitter"]["name"] == name and 0 <= d["mean"] <= 1 or d["mean"] is None


def test_sklearn_classifier_through_monte_carlo():
    d = doc("estimate", "--arities", "2,2", "--cells", ",".join(["0.1", "0.15"] * 4), "--N", "12",
            "--estimator", "cv", "--folds", "2", "--classifier", "sklearn:sklearn.tree.DecisionTreeClassifier",
            "--param", "max_depth=1", "--param", "random_state=0", "--backend", "montecarlo", "--draws", "200",
            "--seed", "3")
    assert d["classifier"]["params"]["param.max_depth"] == 1 and d["mean_lower"] <= d["mean"] <= d["mean_upper"]
    res = run("estimate", *ONE_D, "--N", "12", "--estimator", "cv", "--folds", "2", "--classifier",
              "sklearn:sklearn.tree.DecisionTreeClassifier")
    assert res.exit_code == 2 and "--backend montecarlo" in res.output  # the CLI names its options


def test_against_ge_full_fields():
    d = doc("estimate", *ONE_D, "--N", "12", "--estimator", "cv", "--folds", "3", "--against", "ge-full")
    for field in ("ge_full_mean", "ge_full_variance", "bias", "rms", "covariance_with_ge", "correlation_with_ge"):
        assert isinstance(d[field], float), field
    assert d["rms"] ** 2 == pytest.approx(d["bias"] ** 2 + d["deviation_variance"])


@pytest.mark.parametrize("args, splitter", [
    (["--estimator", "stratified-cv", "--folds", "3"], StratifiedKFold(3)),
    (["--estimator", "stratified-shuffle-split", "--splits", "4", "--test-size", "5"], None),
])
def test_against_ge_full_exact_for_stratified_splitters(args, splitter):
    """The stratified splitters' accuracy against GE_N is exact (the library's numbers)."""
    from momentbound.estimators import StratifiedShuffleSplit, estimator_accuracy

    splitter = splitter or StratifiedShuffleSplit(4, 5)
    d = doc("estimate", *ONE_D, "--N", "12", *args, "--against", "ge-full")
    acc = estimator_accuracy(CellModel((2,), ["0.2", "0.3", "0.2", "0.3"]), 12, splitter)
    assert d["backend"] == "exact"
    assert d["covariance_with_ge"] == pytest.approx(float(acc.covariance_with_ge), abs=1e-15)
    assert d["ge_full_mean"] == pytest.approx(float(acc.ge_full_mean), abs=1e-15)


@pytest.mark.parametrize("args, needle", [
    (["--estimator", "cv"], "needs --folds"),
    (["--estimator", "cv", "--folds", "2", "--repeats", "3"], "--repeats does not apply"),
    (["--estimator", "repeated-cv", "--folds", "2", "--repeats", "0"], "positive integer or"),
    (["--estimator", "oob"], "needs --bootstraps"),
    (["--estimator", "cv", "--folds", "2", "--classifier", "tree"], "unknown classifier 'tree'"),
    (["--estimator", "cv", "--folds", "2", "--param", "nokey"], "KEY=VALUE"),
    (["--estimator", "cv", "--folds", "2", "--classifier", "histogram", "--alpha", "1"], "--alpha applies"),
])
def test_bad_plugin_arguments_are_one_line_errors(args, needle):
    res = run("estimate", *ONE_D, "--N", "12", *args)
    assert res.exit_code == 2 and needle in res.output
    assert "Traceback" not in res.output


def test_sweep_takes_the_same_options():
    d = doc("sweep", *ONE_D, "--over", "N", "--values", "8,12", "--estimator", "stratified-cv", "--folds", "2",
            "--classifier", "histogram")
    assert len(d["rows"]) == 2
