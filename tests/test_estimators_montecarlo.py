"""Conditional Monte Carlo estimator moments (momentbound.estimators.montecarlo).

Witness: the exact engine ``estimator_moments(..., backend="exact")`` (itself checked against brute
force over count tables and fold assignments in test_estimators_bruteforce.py). With fixed seeds and
intervals at confidence 0.9999, every exact value must lie in its Monte Carlo interval, and the
intervals must be narrow (so containment is not vacuous).
"""

from __future__ import annotations

import json
import math
from dataclasses import fields

import numpy as np
import pytest
from click.testing import CliRunner

from momentbound.bounds.result import Kind
from momentbound.cli import main
from momentbound.errors import ImpossibleSplit, InvalidArgument, InvalidModel
from momentbound.estimators import GE, HoldOut, KFold, LeaveOneOut, estimator_moments
from momentbound.estimators import simulation as mc
from momentbound.estimators.montecarlo import MonteCarloMoments, monte_carlo_moments
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.model.cells import CellModel
from momentbound.model.paper import independent_1d_model, second_nb_model

ONE_D = independent_1d_model("2/5")
TWO_BY_TWO = second_nb_model()  # 2x2 inputs, 2 classes
THREE_CLASS = CellModel((2,), ["1/10", "1/5", "1/5", "1/4", "1/10", "3/20"], 3)

RANDOM = NaiveBayes()
FIRST = NaiveBayes(ties="first", alpha=1)

FIELDS = ("mean", "variance", "fold_variance", "fold_covariance", "ge_mean", "ge_variance")
CONF = 0.9999
DRAWS = 6000

ESTIMATORS_1D = [GE(), HoldOut(test_size=3), KFold(2), KFold(3), LeaveOneOut()]  # N = 8: (3, 3, 2)
ESTIMATORS_DD = [GE(), HoldOut(test_size=2), KFold(2), KFold(4), LeaveOneOut()]  # N = 6: (2, 2, 1, 1)

CASES = (
    [("1d", ONE_D, 8, e, RANDOM) for e in ESTIMATORS_1D]
    + [("1d", ONE_D, 8, e, FIRST) for e in ESTIMATORS_1D]
    + [("2x2x2", TWO_BY_TWO, 6, e, RANDOM) for e in ESTIMATORS_DD]
    + [("3class", THREE_CLASS, 6, e, FIRST) for e in ESTIMATORS_DD]
)


def _check_against_exact(model, N, est, clf, r):
    e = estimator_moments(model, N, est, classifier=clf, backend="exact")
    assert (r.train_size, r.test_size, r.folds, r.fold_sizes) == (e.train_size, e.test_size, e.folds, e.fold_sizes)
    for name in FIELDS:
        exact = getattr(e, name)
        got = getattr(r, name)
        if exact is None:
            assert got is None, name
            continue
        x = float(exact)
        assert got.lower <= got.estimate <= got.upper, name
        assert got.lower <= x <= got.upper, (name, x, got)
        # not vacuous: the interval is narrow compared with the quantity
        half = (got.upper - got.lower) / 2
        assert half <= 0.25 * abs(x) + 2e-3, (name, x, got)
    assert r.std.lower == pytest.approx(math.sqrt(r.variance.lower))
    assert r.std.upper == pytest.approx(math.sqrt(r.variance.upper))
    assert r.mean_plus_std.estimate == pytest.approx(r.mean.estimate + r.std.estimate)


@pytest.mark.parametrize(
    "label,model,N,est,clf", CASES, ids=[f"{c[0]}-{c[3].describe()}-{c[4].ties}" for c in CASES]
)
def test_contains_exact_values(label, model, N, est, clf):
    r = monte_carlo_moments(model, N, est, classifier=clf, draws=DRAWS, confidence=CONF,
                            rng=np.random.default_rng(20261122))
    assert isinstance(r, MonteCarloMoments)
    assert r.kind is Kind.ESTIMATE and r.backend == "montecarlo" and r.covariance == "exact"
    assert r.draws == DRAWS and r.confidence == CONF
    _check_against_exact(model, N, est, clf, r)


def test_coin_variance_is_needed_for_random_ties():
    """With random ties, Var(CE) without the exact per-draw coin variance misses the exact value."""
    m = mc.TableModel(ONE_D, RANDOM)
    rng = np.random.default_rng(7)
    E, C, _ = mc._cv_draws(m, (2, 2), mc.Simulation(m, 20000, 0.95, rng).iid_folds((2, 2)), 20000, rng)
    st = mc._Stats(20000, CONF)
    exact = float(estimator_moments(ONE_D, 4, KFold(2), backend="exact").variance)
    without_coins = st.variance(E.sum(axis=1) / 4)
    with_coins = st.variance(E.sum(axis=1) / 4, C.sum(axis=1) / 16)
    assert with_coins.lower <= exact <= with_coins.upper
    assert without_coins.upper < exact
    assert np.all(C >= 0) and C.sum() > 0


def test_first_ties_have_no_coin_variance():
    m = mc.TableModel(TWO_BY_TWO, FIRST)
    rng = np.random.default_rng(3)
    _, C, _ = mc._cv_draws(m, (3, 3), mc.Simulation(m, 200, 0.95, rng).iid_folds((3, 3)), 200, rng)
    assert np.all(C == 0)


def test_chunked_draws_agree_with_exact(monkeypatch):
    """Tiny chunks (many passes of the chunk loop) still give intervals containing the exact values."""
    monkeypatch.setattr(mc, "_CHUNK_ENTRIES", 37)
    r = monte_carlo_moments(ONE_D, 8, KFold(3), draws=3000, confidence=CONF, rng=np.random.default_rng(11))
    _check_against_exact(ONE_D, 8, KFold(3), RANDOM, r)
    g = monte_carlo_moments(ONE_D, 8, GE(), draws=3000, confidence=CONF, rng=np.random.default_rng(11))
    _check_against_exact(ONE_D, 8, GE(), RANDOM, g)


def test_hold_out_test_fraction_and_ge_relation():
    """Hold-out with test_fraction = ceil(0.3 * 9) = 3 test points; Lemma 1 from the GE draws."""
    r = monte_carlo_moments(ONE_D, 9, HoldOut(test_fraction=0.3), draws=4000, confidence=CONF,
                            rng=np.random.default_rng(5))
    assert (r.train_size, r.test_size) == (6, 3)
    _check_against_exact(ONE_D, 9, HoldOut(test_fraction=0.3), RANDOM, r)
    # Var(HE) = E[GE(1-GE)]/Ns + Var(GE) = E[GE]/Ns - E[GE^2]/Ns + Var(GE) >= Var(GE)
    assert r.variance.estimate > r.ge_variance.estimate
    assert r.mean == r.ge_mean


def _values(r):
    return [getattr(r, f.name) for f in fields(r) if f.name != "seconds"]


def test_reproducible_with_same_seed():
    a = monte_carlo_moments(TWO_BY_TWO, 6, KFold(4), draws=300, rng=np.random.default_rng(42))
    b = monte_carlo_moments(TWO_BY_TWO, 6, KFold(4), draws=300, rng=np.random.default_rng(42))
    c = monte_carlo_moments(TWO_BY_TWO, 6, KFold(4), draws=300, rng=np.random.default_rng(43))
    assert _values(a) == _values(b)
    assert a.mean.estimate != c.mean.estimate


def test_default_classifier_is_paper_naive_bayes():
    r = monte_carlo_moments(ONE_D, 5, GE(), draws=200, rng=np.random.default_rng(0))
    assert r.classifier == NaiveBayes()


@pytest.mark.parametrize("draws", [1, 2, 5, 199, 0, -3, 2.5, True, "1000"])
def test_bad_draws(draws):
    with pytest.raises(InvalidArgument, match="draws must be an integer >= 200"):
        monte_carlo_moments(ONE_D, 8, GE(), draws=draws, rng=np.random.default_rng(0))


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, "0.9", True, float("nan")])
def test_bad_confidence(confidence):
    with pytest.raises(InvalidArgument, match=r"confidence must be a number in \(0, 1\)"):
        monte_carlo_moments(ONE_D, 8, GE(), confidence=confidence, rng=np.random.default_rng(0))


@pytest.mark.parametrize("rng", [None, 42, np.random.RandomState(0)])
def test_bad_rng(rng):
    with pytest.raises(InvalidArgument, match="rng must be a numpy.random.Generator"):
        monte_carlo_moments(ONE_D, 8, GE(), rng=rng)


def test_bad_model_estimator_classifier_and_split():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidModel, match="model must be a momentbound.CellModel"):
        monte_carlo_moments([0.2, 0.3, 0.2, 0.3], 8, GE(), rng=rng)
    with pytest.raises(InvalidArgument, match="estimator must be a momentbound splitter"):
        monte_carlo_moments(ONE_D, 8, "cv", rng=rng)
    with pytest.raises(InvalidArgument, match="classifier must be a momentbound classifier"):
        monte_carlo_moments(ONE_D, 8, GE(), classifier="nb", rng=rng)
    with pytest.raises(ImpossibleSplit, match="more folds"):
        monte_carlo_moments(ONE_D, 8, KFold(9), rng=rng)
    with pytest.raises(ImpossibleSplit, match="leaves no training point"):
        monte_carlo_moments(ONE_D, 4, HoldOut(test_size=4), rng=rng)
    with pytest.raises(InvalidArgument, match="N must be"):
        monte_carlo_moments(ONE_D, "8", GE(), rng=rng)


# ----------------------------------------------------------------------------- CLI
CELLS = "0.2,0.3,0.2,0.3"


def _run(*args):
    return CliRunner().invoke(main, ["estimate", "--cells", CELLS, *args])


def test_cli_montecarlo_json_contains_exact_and_is_reproducible():
    args = ["--N", "8", "--estimator", "cv", "--folds", "3", "--json"]
    mc_args = args + ["--backend", "montecarlo", "--seed", "3", "--draws", "4000"]
    res = _run(*mc_args)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["backend"] == "montecarlo" and doc["kind"] == "estimate"
    assert doc["draws"] == 4000 and doc["confidence"] == 0.95
    exact = json.loads(_run(*args).output)
    for name in ("mean", "variance", "fold_covariance"):
        # 95% intervals with a fixed seed around the point estimate; the exact value as a float
        assert doc[f"{name}_lower"] <= exact[name] <= doc[f"{name}_upper"], name
        assert doc[f"{name}_lower"] <= doc[name] <= doc[f"{name}_upper"], name
    again = json.loads(_run(*mc_args).output)
    again.pop("seconds"), doc.pop("seconds")
    assert again == doc


def test_cli_montecarlo_table():
    res = _run("--N", "10", "--estimator", "holdout", "--test-size", "3", "--backend", "montecarlo",
               "--seed", "1", "--draws", "500")
    assert res.exit_code == 0, res.output
    assert "montecarlo / ESTIMATE" in res.output and "500 / 0.95" in res.output


def test_cli_montecarlo_errors():
    res = _run("--N", "8", "--estimator", "ge", "--backend", "montecarlo", "--draws", "1")
    assert res.exit_code == 2 and "--draws must be at least 200" in res.output
    res = _run("--N", "8", "--estimator", "ge", "--draws", "100")
    assert res.exit_code == 2 and "--draws only applies to --backend montecarlo" in res.output
    res = _run("--N", "8", "--estimator", "cv", "--folds", "2", "--backend", "montecarlo",
               "--covariance", "paper")
    assert res.exit_code == 2 and "use --covariance exact" in res.output
