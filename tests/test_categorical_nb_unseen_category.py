"""scikit-learn's CategoricalNB without min_categories: one answer in every backend, before any work.

Without min_categories a test fold holding a category unseen in training gets a NaN fold score in
cross_val_score; momentbound refuses that classifier with the reason in the exact and the Monte Carlo
backends alike (the Monte Carlo run used to stop at the first such fold), and models it exactly once
min_categories equals the arities.
"""

from __future__ import annotations

import json
import math
import subprocess

import pytest

from conftest import run_in_process

BASE = ["estimate", "--cells", "1/5,3/10,1/5,3/10", "--N", "12", "--estimator", "cv", "--folds", "3",
        "--classifier", "sklearn:sklearn.naive_bayes.CategoricalNB"]


def _run(*args: str) -> subprocess.CompletedProcess:
    # in this process, file descriptors included (estimate with a scikit-learn classifier runs as a
    # real process in test_cli_subprocess.py)
    return run_in_process([*args, "--json"])


@pytest.mark.parametrize("backend", [["--backend", "exact"], ["--backend", "montecarlo", "--draws", "2000"]])
def test_without_min_categories_refused_with_the_reason_in_every_backend(backend):
    proc = _run(*BASE, *backend)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert "without min_categories" in proc.stderr and "NaN fold score" in proc.stderr
    assert "min_categories=[2]" in proc.stderr and "Traceback" not in proc.stderr


def test_with_min_categories_exact_and_monte_carlo_agree():
    exact = _run(*BASE, "--param", "min_categories=2")
    mc = _run(*BASE, "--param", "min_categories=2", "--backend", "montecarlo", "--draws", "10000", "--seed", "4")
    assert exact.returncode == 0 and mc.returncode == 0, exact.stderr + mc.stderr
    e, m = json.loads(exact.stdout), json.loads(mc.stdout)
    assert e["classifier"]["name"] == m["classifier"]["name"] == "naive-bayes"
    se = math.sqrt(e["variance"] / 10000)
    assert abs(m["mean"] - e["mean"]) < 4 * se


def test_api_refuses_a_wrapped_categorical_nb_before_work():
    from sklearn.naive_bayes import CategoricalNB

    from momentbound import CellModel
    from momentbound.classifiers import SklearnClassifier
    from momentbound.errors import InvalidArgument
    from momentbound.estimators import estimator_moments
    from momentbound.splitters import KFold

    model = CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])
    with pytest.raises(InvalidArgument, match="NaN fold score"):
        estimator_moments(model, 12, KFold(3), classifier=SklearnClassifier(CategoricalNB()), backend="montecarlo",
                          draws=100)
