"""``estimate --backend auto``: the exact moments where the exact route accepts the work, else the
Monte Carlo ones of the same seed; the JSON's ``backend`` says which and ``auto_reason`` why."""

from __future__ import annotations

import json

import pytest

from conftest import run_in_process

BASE = ["estimate", "--arities", "2", "--cells", "1/2,1/20,3/10,3/20", "--ties", "first"]


def _doc(args: list[str]) -> dict:
    done = run_in_process([*BASE, *args, "--json"])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return json.loads(done.stdout)


def test_exact_where_it_fits() -> None:
    auto = _doc(["--N", "20", "--splitter", "cv", "--folds", "5", "--backend", "auto", "--seed", "1"])
    exact = _doc(["--N", "20", "--splitter", "cv", "--folds", "5"])
    assert auto["backend"] == "exact" and auto["auto_reason"] is None
    assert auto["mean_exact"] == exact["mean_exact"] and auto["variance_exact"] == exact["variance_exact"]


@pytest.mark.parametrize("against", [[], ["--against", "ge-full"]], ids=["moments", "accuracy"])
def test_monte_carlo_past_the_table_limit(against: list[str]) -> None:
    # 600 points in 4 cells: 3.6e7 count tables, past the exact route's 3e6 limit, and the pairs of half
    # tables that sum .632+ past it are estimated at about 360 s, past the command's 120 s limit
    args = ["--N", "600", "--splitter", "632plus", "--seed", "3", "--draws", "200", *against]
    auto = _doc([*args, "--backend", "auto"])
    simulated = _doc([*args, "--backend", "montecarlo"])
    assert auto["backend"] == "montecarlo" and "row-halves route" in auto["auto_reason"] and auto["route"] is None
    assert simulated["auto_reason"] is None
    for key in ("mean", "mean_lower", "mean_upper", "draws"):
        if key in simulated:
            assert auto[key] == simulated[key], key


def test_refusals() -> None:
    done = run_in_process(["sweep", "--arities", "2", "--cells", "1/2,1/20,3/10,3/20", "--N", "20", "--over", "folds",
                           "--values", "2,3", "--backend", "auto", "--json"])
    assert done.returncode == 2 and done.stdout == "" and "--backend auto applies to estimate" in done.stderr
    done = run_in_process([*BASE, "--N", "20", "--splitter", "cv", "--folds", "5", "--backend", "auto",
                           "--covariance", "paper", "--json"])
    assert done.returncode == 2 and "--covariance exact" in done.stderr


def test_bootstraps_are_simulated_whatever_n() -> None:
    # 20 bootstrap samples are simulated whatever N (in this process, fds 1 and 2 included;
    # estimate runs as a real process in test_cli_subprocess.py)
    done = run_in_process([*BASE, "--N", "20", "--splitter", "632plus", "--bootstraps", "20", "--backend", "auto",
                           "--seed", "3", "--draws", "200", "--json"])
    assert done.returncode == 0 and done.stderr == ""
    doc = json.loads(done.stdout)
    assert doc["backend"] == "montecarlo" and "simulated" in doc["auto_reason"] and doc["route"] is None


def test_a_metric_the_simulation_lacks_keeps_the_exact_refusal() -> None:
    import numpy as np

    from momentbound import CellModel
    from momentbound.errors import InvalidArgument
    from momentbound.estimators import estimator_accuracy, estimator_moments
    from momentbound.splitters import Resubstitution

    model = CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])
    for call in (lambda: estimator_moments(model, 600, Resubstitution(), backend="auto", metric="balanced_error"),
                 lambda: estimator_accuracy(model, 600, Resubstitution(), backend="auto", metric="balanced_error",
                                            rng=np.random.default_rng(0))):
        with pytest.raises(InvalidArgument, match="count tables"):
            call()
    done = run_in_process([*BASE, "--N", "600", "--splitter", "resubstitution", "--metric", "balanced_error",
                           "--backend", "auto", "--json"])
    assert done.returncode == 2 and "count tables" in done.stderr and "not --metric balanced_error" in done.stderr
