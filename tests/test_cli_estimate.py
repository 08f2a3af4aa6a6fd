"""`momentbound estimate` and `momentbound sweep` through click's CliRunner."""

from __future__ import annotations

import json
from fractions import Fraction

import pandas as pd
import pytest
from click.testing import CliRunner

from momentbound import CellModel
from momentbound.cli import main
from momentbound.estimators import GE, HoldOut, KFold, estimator_moments
from momentbound.classifiers.naive_bayes import NaiveBayes

CELLS = "0.2,0.3,0.2,0.3"
MODEL = CellModel((2,), ["0.2", "0.3", "0.2", "0.3"])


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_estimate_json_cv():
    res = run("estimate", "--arities", "2", "--cells", CELLS, "--N", "8", "--estimator", "cv",
              "--folds", "3", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    for key in ("splitter", "mean", "variance", "std", "fold_variance", "fold_covariance", "kind", "seconds"):
        assert key in doc
    r = estimator_moments(MODEL, 8, KFold(3))
    assert doc["splitter"]["name"] == "cv" and doc["kind"] == "exact" and doc["folds"] == 3
    assert doc["fold_sizes"] == [3, 3, 2]
    assert Fraction(doc["mean_exact"]) == r.mean and Fraction(doc["variance_exact"]) == r.variance
    assert Fraction(doc["fold_covariance_exact"]) == r.fold_covariance
    assert doc["mean"] == float(r.mean) and doc["mean_lower"] == doc["mean_upper"] == doc["mean"]
    assert doc["std"] == pytest.approx(r.std)


def test_estimate_options_reach_the_api():
    res = run("estimate", "--cells", CELLS, "--N", "6", "--estimator", "holdout", "--test-fraction", "0.5",
              "--ties", "first", "--alpha", "1", "--json")
    doc = json.loads(res.output)
    r = estimator_moments(MODEL, 6, HoldOut(test_size=3), classifier=NaiveBayes(ties="first", alpha=1))
    assert doc["test_size"] == 3 and doc["train_size"] == 3 and doc["ties"] == "first"
    assert Fraction(doc["variance_exact"]) == r.variance
    assert doc["alpha"] == 1.0 and doc["alpha_exact"] == "1"
    ge = json.loads(run("estimate", "--cells", CELLS, "--N", "5", "--estimator", "ge", "--json").output)
    assert Fraction(ge["mean_exact"]) == estimator_moments(MODEL, 5, GE()).mean
    paper = json.loads(run("estimate", "--cells", CELLS, "--N", "6", "--estimator", "cv", "--folds", "2",
                           "--covariance", "paper", "--json").output)
    assert paper["fold_covariance_exact"] == "0" and paper["fold_covariance"] == 0.0
    assert paper["covariance"] == "paper"


def test_estimate_table():
    res = run("estimate", "--cells", CELLS, "--N", "6", "--estimator", "loo")
    assert res.exit_code == 0
    assert "LeaveOneOut()" in res.output and "fold covariance" in res.output and "EXACT" in res.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--N", "5", "--estimator", "cv", "--folds", "6"], "ImpossibleSplit: --folds 6 is more folds than points (--N 5); choose --folds <= 5"),
        (["--N", "5", "--estimator", "repeated-cv", "--folds", "6"], "ImpossibleSplit: --folds 6 is more folds"),
        (["--N", "5", "--estimator", "cv"], "needs --folds"),
        (["--N", "5", "--estimator", "holdout", "--test-size", "5"], "leaves no training point"),
        (["--N", "5", "--estimator", "holdout"], "HoldOut needs exactly one of --test-size (a number of points) or --test-fraction"),
        (["--N", "5", "--estimator", "ge", "--folds", "2"], "--folds does not apply to --splitter ge"),
        (["--N", "1", "--estimator", "loo"], "leave-one-out needs N >= 2"),
        (["--N", "5", "--estimator", "ge", "--backend", "nope"], "UnknownMethod: unknown backend 'nope'"),
        (["--N", "5", "--estimator", "ge", "--alpha", "-1"], "alpha must be >= 0"),
        (["--N", "5", "--estimator", "holdout", "--test-size", "1", "--covariance", "paper"],
         "only concerns cross-validation"),
    ],
)
def test_estimate_errors(args, message):
    res = CliRunner().invoke(main, ["estimate", "--cells", CELLS, *args])
    assert res.exit_code != 0
    assert message in res.output


def test_estimate_bad_cells():
    res = CliRunner().invoke(main, ["estimate", "--cells", "0.2,0.3,0.2", "--N", "4", "--estimator", "ge"])
    assert res.exit_code == 2 and "InvalidModel" in res.output


def test_sweep_folds_csv_and_json(tmp_path):
    out = tmp_path / "cv.csv"
    res = run("sweep", "--cells", CELLS, "--N", "6", "--over", "folds", "--values", "2-3,loo",
              "--out", str(out), "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert [r["folds"] for r in doc["rows"]] == [2, 3, 6]
    frame = pd.read_csv(out)
    assert list(frame["folds"]) == [2, 3, 6]
    for row, v in zip(frame.itertuples(), (2, 3, 6)):
        r = estimator_moments(MODEL, 6, KFold(v))
        assert row.variance == pytest.approx(float(r.variance), rel=1e-12)
        assert row.fold_covariance == pytest.approx(float(r.fold_covariance), rel=1e-12)


def test_sweep_table_holdout_and_n(tmp_path):
    res = run("sweep", "--cells", CELLS, "--N", "6", "--over", "holdout", "--values", "1,0.5",
              "--no-progress")
    assert res.exit_code == 0, res.output
    assert "sweep over holdout" in res.output and "0.5" in res.output
    res = run("sweep", "--cells", CELLS, "--over", "N", "--values", "4,6", "--estimator", "cv", "--folds", "2",
              "--json")
    rows = json.loads(res.output)["rows"]
    assert [r["N"] for r in rows] == [4, 6] and all(r["folds"] == 2 for r in rows)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--over", "folds", "--values", "2"], "needs --N"),
        (["--over", "N", "--values", "4", "--N", "4"], "drop --N"),
        (["--over", "folds", "--N", "4", "--values", "2,x"], "--values entry 2 must be an integer or loo, got 'x'"),
        (["--over", "folds", "--N", "4", "--values", "2,9"], "numbers of folds must be at most 4 at --N 4"),
        (["--over", "folds", "--N", "4", "--values", "2", "--estimator", "cv", "--folds", "3"], "drop --folds"),
        (["--over", "holdout", "--N", "4", "--values", "2", "--estimator", "cv"], "apply to --over folds and --over N"),
    ],
)
def test_sweep_errors(args, message):
    res = CliRunner().invoke(main, ["sweep", "--cells", CELLS, *args])
    assert res.exit_code != 0
    assert message in res.output


def test_estimate_sampling_backend_is_seeded():
    args = ["estimate", "--cells", CELLS, "--N", "10", "--estimator", "cv", "--folds", "2",
            "--backend", "sampling", "--seed", "3", "--json"]
    first, second = json.loads(run(*args).output), json.loads(run(*args).output)
    assert first["kind"] == "estimate" and first["backend"] == "sampling"
    assert first["mean"] == second["mean"]  # same seed, same draws
    exact = estimator_moments(MODEL, 10, KFold(2))
    assert first["mean_lower"] <= float(exact.mean) <= first["mean_upper"]
    assert first["mean_lower"] <= first["mean"] <= first["mean_upper"] and first["mean_exact"] is None
    res = CliRunner().invoke(main, ["estimate", "--cells", CELLS, "--N", "5", "--estimator", "ge",
                                    "--seed", "1"])
    assert res.exit_code != 0 and "--seed only applies to --backend sampling" in res.output
