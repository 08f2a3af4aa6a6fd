"""The quick variants of the 'stratified' and 'estimators' studies: data, invariants, claim checks."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators import estimator_moments
from momentbound.splitters import KFold, StratifiedKFold
from momentbound.studies import Verdict, run_study
from momentbound.studies.stratified import missing_class_probability, stratified_models


def test_missing_class_probability_by_enumeration() -> None:
    priors = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    for n in (1, 2, 4):
        brute = sum(
            math.prod(priors[k] for k in seq) for seq in itertools.product(range(3), repeat=n) if len(set(seq)) < 3
        )
        assert missing_class_probability(priors, n) == brute


def test_stratified_quick_study(tmp_path) -> None:

    res = run_study("stratified", quick=True)
    df = res.data
    assert set(df["model"]) == {name for name, _ in stratified_models()}
    # one row recomputed directly from the splitters
    name, model = stratified_models()[2]
    row = df[(df["model"] == name) & (df["folds"] == 2)].iloc[0]
    nb = NaiveBayes(ties="first", alpha=1)
    n = int(row["N"])
    assert row["kfold_mean"] == pytest.approx(float(estimator_moments(model, n, KFold(2), classifier=nb).mean), abs=1e-12)
    strat = estimator_moments(model, n, StratifiedKFold(2), classifier=nb)
    assert row["stratified_variance"] == pytest.approx(float(strat.variance), abs=1e-12)
    # the claims follow the data
    var_claim, mean_claim = res.checks[0], res.checks[1]
    assert var_claim.reproduced == bool((df["stratified_variance"] < df["kfold_variance"]).all())
    assert mean_claim.reproduced == bool((df["mean_difference"] > 0).all())
    files = res.save(tmp_path)
    assert files.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_estimators_quick_study(tmp_path) -> None:
    res = run_study("estimators", quick=True)
    df = res.data
    assert len(df) == 2 * 11 and set(df["N"]) == {20}
    exact = df[df["backend"] == "exact"]
    # RMS^2 = bias^2 + Var(est - GE_N); the estimate's bias is its mean minus E[GE_N]
    assert (exact["rms"] ** 2).to_numpy() == pytest.approx(
        (exact["bias"] ** 2 + exact["deviation_std"] ** 2).to_numpy(), abs=1e-12)
    assert exact["bias"].to_numpy() == pytest.approx((exact["mean"] - exact["ge_full_mean"]).to_numpy(), abs=1e-12)
    # 10-fold at N = 20 has folds of 2: not leave-one-out
    for m in set(df["model"]):
        part = df[df["model"] == m].set_index("estimator")
        assert part.loc["leave-one-out", "rms"] != pytest.approx(part.loc["10-fold", "rms"], abs=1e-6)
        # every class has >= 10 members when N = 20: StratifiedKFold(10) always splits; its RMS is near KFold's
        assert abs(part.loc["stratified 10-fold", "rms"] - part.loc["10-fold", "rms"]) < 0.05
    mc = df[df["backend"] == "montecarlo"]
    assert len(mc) == 4 and (mc["rms_lower"] <= mc["rms"]).all() and (mc["rms"] <= mc["rms_upper"]).all()
    assert [c.figure for c in res.checks] == ["Braga-Neto & Dougherty 2005"] * 2 + ["Braga-Neto & Dougherty 2010"] + [
        "Efron & Tibshirani 1997"] * 2 + ["Kohavi 1995"]
    assert all(isinstance(c.verdict, Verdict) for c in res.checks)
    assert any("Bates" in n and "not checked" in n for n in res.notes)
    files = res.save(tmp_path)
    assert files.csv.read_text().startswith("model,")


def test_estimators_study_rejects_a_holdout_size_of_n() -> None:
    with pytest.raises(InvalidArgument, match="holdout_sizes must be below N = 20"):
        run_study("estimators", quick=True, holdout_sizes=(3, 20))
