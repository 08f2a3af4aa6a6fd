"""The paper's studies at tiny N against brute-force enumeration of the real procedures.

Witness: an independent naive Bayes written here with exact Fractions (scores as in
scikit-learn's CategoricalNB with alpha = 0, ties broken by a fair coin at every
prediction), evaluated on every training count table (hold-out) or on every ordered
dataset with the scikit-learn KFold fold layout (cross-validation). Coins are averaged
analytically: given the data, each test prediction errs with probability m in {0, 1/2, 1}
independently, so E[err | data] = sum m and E[err^2 | data] = (sum m)^2 + sum m (1 - m).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from momentbound.errors import InvalidArgument, UnknownMethod
from momentbound.model import equal_cells_model, fig1_model, independent_1d_model, second_nb_model
from momentbound.studies import ClaimCheck, Verdict, run_study, study_names
from momentbound.studies.claims import (
    check_argmin_in,
    check_argmin_in_intervals,
    check_less_than_intervals,
    check_trend_intervals,
    check_u_shape_intervals,
    check_constant,
    check_less_than,
    check_rise_after_min,
    check_trend,
    check_u_shape,
)
from momentbound.studies.fig1 import bayes_error, local_maxima

from _witness_studies import _fold_sizes, _pmf, _tables, brute_cv, brute_ge, brute_holdout

TOL = 1e-9


# ----------------------------------------------------------------------------- the studies
def test_registry_names_and_unknown_study() -> None:
    assert study_names() == ("fig1", "holdout", "cv", "size", "nb_holdout", "nb_cv", "nb_size", "stratified",
                             "estimators", "bias_variance", "tables")
    with pytest.raises(UnknownMethod, match="unknown study 'fig99'"):
        run_study("fig99")


def test_holdout_study_matches_brute_force(tmp_path) -> None:
    res = run_study("holdout", N=6, test_sizes=(1, 2, 3, 4, 5))
    model = independent_1d_model("2/5", 2)
    for _, row in res.data.iterrows():
        mean, var = brute_holdout(model, 6, int(row["test_size"]))
        assert row["mean"] == pytest.approx(float(mean), abs=TOL)
        assert row["variance"] == pytest.approx(float(var), abs=TOL)
        assert row["mean_plus_std"] == pytest.approx(float(mean) + math.sqrt(var), abs=TOL)
    assert [c.figure for c in res.checks] == ["Fig. 2", "Fig. 3", "Fig. 3", "Fig. 4"]
    assert all(isinstance(c.verdict, Verdict) for c in res.checks)
    # files: CSV round-trips the data, PNG is a PNG, the checks JSON has the verdicts
    files = res.save(tmp_path)
    import pandas as pd

    back = pd.read_csv(files.csv)
    assert np.allclose(back["variance"], res.data["variance"])
    assert files.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads(files.checks.read_text())
    assert [c["verdict"] for c in doc["checks"]] == [c.verdict.value for c in res.checks]
    assert doc["sources"][0]["backend"] == "exact"
    # the figure: labelled axes, legends, parameters in the title
    axes = res.figure.get_axes()
    assert len(axes) == 3
    for ax in axes:
        assert ax.get_xlabel() == "size of hold-out set (%)" and ax.get_ylabel()
        assert ax.get_legend() is not None
    assert "N = 6" in res.figure._suptitle.get_text() and "prior = 2/5" in res.figure._suptitle.get_text()


def test_cv_study_matches_brute_force_and_lemma2() -> None:
    res = run_study("cv", N=6, folds=(2, 3, 4, 6))
    model = independent_1d_model("2/5", 2)
    for _, row in res.data.iterrows():
        want = brute_cv(model, 6, int(row["folds"]))
        for key in ("mean", "variance", "fold_variance", "fold_covariance"):
            assert row[key] == pytest.approx(float(want[key]), abs=TOL), (row["folds"], key)
    two = res.data[res.data["folds"] == 2].iloc[0]
    # printed Lemma 2 at 2 folds: classifiers on disjoint training sets are independent -> 0
    assert two["paper_fold_covariance"] == pytest.approx(0.0, abs=1e-15)
    assert two["fold_covariance"] > 1e-3
    lemma = [c for c in res.checks if "strongly positively correlated" in c.claim]
    assert len(lemma) == 1 and lemma[0].reproduced
    assert len(res.checks) == 6


def test_fig1_study_matches_brute_force_ge_and_bayes() -> None:
    res = run_study("fig1", N=5, c_points=3, priors=("1/10", "1/2"))
    assert len(res.data) == 6
    for _, row in res.data.iterrows():
        model = fig1_model(Fraction(row["prior"]).limit_denominator(100), Fraction(row["c"]).limit_denominator(100))
        assert row["ge_random"] == pytest.approx(float(brute_ge(model, 5)), abs=TOL)
        assert row["bayes"] == pytest.approx(float(bayes_error(model)), abs=0)
    # Bayes error in closed form: min(p, 1 - p) for c <= 1 - 2 min(p, 1-p), else (1 - c)/2
    assert bayes_error(fig1_model("1/10", "1/2")) == Fraction(1, 10)
    assert bayes_error(fig1_model("1/10", "9/10")) == Fraction(1, 20)
    assert len(res.checks) == 4 and {c.figure for c in res.checks} == {"Fig. 1"}


def test_size_study_matches_brute_force_means() -> None:
    res = run_study("size", sizes=(8, 9), test_size=3, folds=4)
    model = independent_1d_model("2/5", 2)
    for _, row in res.data.iterrows():
        N = int(row["N"])
        assert row["ge_mean"] == pytest.approx(float(brute_ge(model, N)), abs=TOL)
        assert row["he_mean"] == pytest.approx(float(brute_ge(model, N - 3)), abs=TOL)
        ce = sum(Fraction(s, N) * brute_ge(model, N - s) for s in _fold_sizes(N, 4))
        assert row["ce_mean"] == pytest.approx(float(ce), abs=TOL)


def test_nb_holdout_study_closed_form_and_brute_force() -> None:
    res = run_study("nb_holdout", N=4, test_sizes=(1, 2, 3))
    eq = res.data[res.data["model"] == "equal"]
    # all cells equal: GE = 1/2 for every classifier, so E[HE] = 1/2 and Var(HE) = 1/(4 Ns)
    assert np.allclose(eq["mean"], 0.5, atol=1e-15)
    assert np.allclose(eq["variance"], 0.25 / eq["test_size"], atol=1e-12)
    second = res.data[res.data["model"] == "second"]
    for _, row in second.iterrows():
        mean, var = brute_holdout(second_nb_model(), 4, int(row["test_size"]))
        assert row["mean"] == pytest.approx(float(mean), abs=TOL)
        assert row["variance"] == pytest.approx(float(var), abs=TOL)
    assert [c.figure for c in res.checks] == [f"Fig. {i}" for i in range(14, 20)]
    assert res.checks[0].reproduced  # E[HE] = 0.5 exactly


def test_nb_cv_study_matches_brute_force() -> None:
    res = run_study("nb_cv", N=3, folds=(2, 3), backend="exact")
    for _, row in res.data.iterrows():
        want = brute_cv(second_nb_model(), 3, int(row["folds"]))
        for key in ("mean", "variance", "fold_variance", "fold_covariance"):
            assert row[key] == pytest.approx(float(want[key]), abs=TOL), (row["folds"], key)


def test_study_validation_errors() -> None:
    with pytest.raises(InvalidArgument, match="test_sizes values must be >= 1 and <= 5"):
        run_study("holdout", N=6, test_sizes=(0, 3))
    with pytest.raises(InvalidArgument, match="folds needs at least 2 distinct values"):
        run_study("cv", N=6, folds=(3,))
    with pytest.raises(InvalidArgument, match="priors must lie strictly between 0 and 1"):
        run_study("fig1", N=4, c_points=3, priors=("1",))
    with pytest.raises(InvalidArgument, match="sizes values must be >= 20"):
        run_study("size", sizes=(5, 20))
    with pytest.raises(InvalidArgument, match="c_points must be an integer >= 3"):
        run_study("fig1", N=4, c_points=2)


# ----------------------------------------------------------------------------- claim checks
X = np.arange(1.0, 8.0)


def test_check_trend_verdicts() -> None:
    up = check_trend(X, X**2, direction="increasing", figure="F", claim="c")
    assert up.reproduced and "6 of 6 steps" in up.evidence
    down = check_trend(X, X**2, direction="decreasing", figure="F", claim="c")
    assert down.verdict is Verdict.NOT_REPRODUCED
    wiggly = check_trend(X, [1, 3, 2, 4, 3, 5, 4], direction="increasing", figure="F", claim="c")
    assert not wiggly.reproduced and "3 of 6 steps" in wiggly.evidence
    with pytest.raises(InvalidArgument, match="direction must be"):
        check_trend(X, X, direction="up", figure="F", claim="c")


def test_check_argmin_u_shape_constant_less_than_rise() -> None:
    y = (X - 4.0) ** 2
    assert check_argmin_in(X, y, lo=3, hi=5, figure="F", claim="c").reproduced
    miss = check_argmin_in(X, y, lo=5, hi=7, figure="F", claim="c")
    assert not miss.reproduced and "minimum 0 at x=4" in miss.evidence
    assert check_u_shape(X, y, figure="F", claim="c").reproduced
    assert not check_u_shape(X, X, figure="F", claim="c").reproduced
    assert check_rise_after_min(X, y, figure="F", claim="c").reproduced
    assert not check_rise_after_min(X, -X, figure="F", claim="c").reproduced
    assert check_constant(X, np.full(7, 0.5), value=0.5, atol=1e-12, figure="F", claim="c").reproduced
    off = check_constant(X, np.full(7, 0.5) + X * 1e-3, value=0.5, atol=1e-12, figure="F", claim="c")
    assert not off.reproduced and "x=7" in off.evidence
    assert check_less_than(X, X, X + 1, figure="F", claim="c").reproduced
    bad = check_less_than(X, X, 5 * np.ones(7), figure="F", claim="c", names=("a", "b"))
    assert not bad.reproduced and "a < b at 4 of 7 points" in bad.evidence
    with pytest.raises(InvalidArgument, match="same length"):
        check_u_shape(X, X[:3], figure="F", claim="c")
    with pytest.raises(InvalidArgument, match="NaN"):
        check_u_shape(X, X * np.nan, figure="F", claim="c")


def test_local_maxima_and_claim_line() -> None:
    assert local_maxima([0, 1, 2, 3, 4], [0, 2, 1, 1, 0]) == [1.0]
    assert local_maxima([0, 1, 2], [0, 1, 2]) == []
    line = ClaimCheck("Fig. 9", "claim", Verdict.NOT_REPRODUCED, "numbers").line()
    assert line == "[not reproduced] Fig. 9: claim -- numbers"
    assert equal_cells_model((2, 2)).n_cells == 8


def _prob_z_positive_brute(N: int) -> Fraction:
    """P[Z_(0,0) > 0] for the equal-cells 2x2x2 model by enumerating every count table."""
    model = equal_cells_model((2, 2))
    total = Fraction(0)
    for t in _tables(N, 8):
        # cell order (a1, a2, k): index = (a1 * 2 + a2) * 2 + k
        n = [sum(t[i] for i in range(8) if i % 2 == k) for k in range(2)]
        a1 = [sum(t[(0 * 2 + a2) * 2 + k] for a2 in range(2)) for k in range(2)]
        a2 = [sum(t[(a * 2 + 0) * 2 + k] for a in range(2)) for k in range(2)]
        z = n[1] * a1[0] * a2[0] - n[0] * a1[1] * a2[1]
        if z > 0:
            total += _pmf(model, t)
    return total


def test_tables_study_exact_row_and_sharp_lp_verdict() -> None:
    res = run_study("tables", sizes=(6,), methods=("lp",), draws=(100, 1000))
    df = res.data
    truth = float(_prob_z_positive_brute(6))
    exact = df[(df["method"] == "exact") & (df["table"] == "4/6")].iloc[0]
    assert exact["exact"] == pytest.approx(truth, abs=1e-12)
    lp = df[df["method"] == "lp"].iloc[0]
    assert lp["lower"] <= truth <= lp["upper"] and lp["certified"]
    t5 = df[df["table"] == "5"]
    assert list(t5["draws"]) == [100, 1000]
    claims = {c.claim: c for c in res.checks}
    paper_lp = claims["LP bounds 0.34-0.62 from 6 moments (paper)"]
    assert "sharp LP" in paper_lp.evidence
    # the sharp LP from six moments is wider than the paper's 0.34-0.62 at this N
    assert paper_lp.verdict is Verdict.NOT_REPRODUCED
    assert claims["every method reported as a bound contains the true value"].reproduced


def test_nb_size_study_matches_brute_force_and_notes_the_range() -> None:
    res = run_study("nb_size", sizes=(2, 4), folds=2, cv_backend="exact", exact_max_N=None)
    model = second_nb_model()
    for _, row in res.data.iterrows():
        N = int(row["N"])
        he_mean, he_var = brute_holdout(model, N, N // 2)
        assert row["he_mean"] == pytest.approx(float(he_mean), abs=TOL)
        assert row["he_std"] == pytest.approx(math.sqrt(he_var), abs=1e-9)
        cv = brute_cv(model, N, 2)
        assert row["ce_mean"] == pytest.approx(float(cv["mean"]), abs=TOL)
        assert row["ce_mean_plus_std"] == pytest.approx(float(cv["mean"]) + math.sqrt(cv["variance"]), abs=1e-9)
        assert row["ge_mean"] == pytest.approx(float(brute_ge(model, N)), abs=TOL)
    assert res.notes and "N = 5000" in res.notes[0]
    assert [c.figure for c in res.checks] == ["Fig. 25"] * 3


def test_check_argmin_in_with_relative_tolerance() -> None:
    y = np.array([5.0, 2.0, 1.0, 1.00005, 3.0, 4.0, 6.0])
    strict = check_argmin_in(X, y, lo=4, hi=6, figure="F", claim="c")
    assert not strict.reproduced
    near = check_argmin_in(X, y, lo=4, hi=6, figure="F", claim="c", rel_tol=1e-4)
    assert near.reproduced and "best inside the range 1.0001 at x=4" in near.evidence
    far = check_argmin_in(X, y, lo=5, hi=7, figure="F", claim="c", rel_tol=1e-4)
    assert not far.reproduced and "200% above" in far.evidence


# ----------------------------------------------------------------------------- Monte Carlo backend
def _inside(row, col: str, value: float) -> bool:
    return row[f"{col}_lower"] - 1e-12 <= value <= row[f"{col}_upper"] + 1e-12


def test_nb_cv_montecarlo_intervals_contain_brute_force_and_exact(tmp_path) -> None:
    # 99.9% intervals at a fixed seed: the witness values must lie inside every one of them
    res = run_study("nb_cv", N=4, folds=(2, 4), backend="montecarlo", draws=20_000, confidence=0.999,
                    seed=7, check_N=6, check_folds=(2, 3, 6))
    for _, row in res.data.iterrows():
        want = brute_cv(second_nb_model(), 4, int(row["folds"]))
        for key in ("mean", "variance", "fold_variance", "fold_covariance"):
            assert _inside(row, key, float(want[key])), (row["folds"], key, float(want[key]))
            assert row[f"{key}_lower"] < row[f"{key}_upper"]
    assert "15 of 15 exact values lie inside" in " ".join(res.notes)
    assert {(s.backend, s.kind, s.draws, s.confidence, s.seed) for s in res.sources} == {
        ("montecarlo", "estimate", 20_000, 0.999, 7)}
    assert {c.verdict for c in res.checks} <= set(Verdict)
    files = res.save(tmp_path)
    header = files.csv.read_text().splitlines()[0].split(",")
    assert {"mean", "mean_lower", "mean_upper", "variance_lower", "variance_upper"} <= set(header)
    doc = json.loads(files.checks.read_text())
    assert doc["sources"][0]["draws"] == 20_000 and doc["sources"][0]["seed"] == 7
    assert doc["parameters"]["backend"] == "montecarlo"
    # the figure draws the confidence bands (one PolyCollection per panel)
    assert sum(len(ax.collections) > 0 for ax in res.figure.axes) >= 5
    # same seed, same numbers; another seed, other numbers
    again = run_study("nb_cv", N=4, folds=(2, 4), backend="montecarlo", draws=20_000, confidence=0.999,
                      seed=7, check_N=None)
    assert again.data["variance"].tolist() == res.data["variance"].tolist()
    other = run_study("nb_cv", N=4, folds=(2, 4), backend="montecarlo", draws=20_000, seed=8, check_N=None)
    assert other.data["variance"].tolist() != res.data["variance"].tolist()


def test_nb_size_exact_cv_up_to_cv_exact_max_n() -> None:
    res = run_study("nb_size", sizes=(2, 4), folds=2, cv_backend="montecarlo", exact_max_N=None,
                    cv_exact_max_N=2, draws=2000, seed=1)
    assert list(res.data["ce_backend"]) == ["exact", "montecarlo"]
    assert ("cv_exact_max_N", 2) in res.parameters


def test_nb_size_cv_by_monte_carlo_where_exact_exceeds_the_memory_limit(monkeypatch) -> None:
    from momentbound.probability import exact_backend

    monkeypatch.setattr(exact_backend, "physical_memory", lambda: 1000.0)  # an 800-byte limit
    res = run_study("nb_size", sizes=(2, 14), folds=2, cv_backend="montecarlo", exact_max_N=None,
                    cv_exact_max_N=14, draws=2000, seed=1)
    assert list(res.data["ce_backend"]) == ["exact", "montecarlo"]  # N = 2 is rational: no cross terms held
    assert list(res.data["he_backend"]) == ["exact", "exact"]
    (note,) = [n for n in res.notes if "memory limit" in n]
    assert "N=14" in note and "max_memory" in note


def test_nb_size_montecarlo_contains_brute_force() -> None:
    # hold-out exact at N = 2, Monte Carlo at N = 4 (above exact_max_N); CV Monte Carlo throughout
    res = run_study("nb_size", sizes=(2, 4), folds=2, cv_backend="montecarlo", exact_max_N=2,
                    cv_exact_max_N=None, draws=20_000, confidence=0.999, seed=11)
    model = second_nb_model()
    assert list(res.data["he_backend"]) == ["exact", "montecarlo"]
    assert list(res.data["ce_backend"]) == ["montecarlo", "montecarlo"]
    for _, row in res.data.iterrows():
        N = int(row["N"])
        he_mean, he_var = brute_holdout(model, N, N // 2)
        assert _inside(row, "he_mean", float(he_mean))
        assert _inside(row, "he_std", math.sqrt(he_var))
        cv = brute_cv(model, N, 2)
        assert _inside(row, "ce_mean", float(cv["mean"]))
        assert _inside(row, "ce_mean_plus_std", float(cv["mean"]) + math.sqrt(cv["variance"]))
        assert _inside(row, "ge_mean", float(brute_ge(model, N)))
        assert row["gap_mean_plus_std_lower"] <= row["gap_mean_plus_std"] <= row["gap_mean_plus_std_upper"]
    exact_row = res.data.iloc[0]
    assert exact_row["he_mean_lower"] == exact_row["he_mean"] == exact_row["he_mean_upper"]
    curves = {(s.curve, s.backend): s for s in res.sources}
    assert curves[("ce_mean", "montecarlo")].draws == 20_000 and curves[("ce_mean", "montecarlo")].seed == 11
    assert curves[("he_mean", "exact")].draws is None and curves[("he_mean", "exact")].kind == "exact"
    assert "N=4: montecarlo" in " ".join(res.notes)


def test_montecarlo_study_validation_errors() -> None:
    with pytest.raises(InvalidArgument, match="seed must be a non-negative integer"):
        run_study("nb_cv", quick=True, seed=-1)
    with pytest.raises(InvalidArgument, match="draws must be an integer >= 200"):
        run_study("nb_cv", quick=True, draws=199)
    with pytest.raises(InvalidArgument, match=r"confidence must be a number in \(0, 1\)"):
        run_study("nb_size", quick=True, confidence=1.5)
    with pytest.raises(InvalidArgument, match="exact_max_N must be an integer >= 1"):
        run_study("nb_size", quick=True, exact_max_N=0)


XS = np.array([2.0, 5.0, 10.0, 20.0, 50.0])


def test_interval_claim_verdicts() -> None:
    est = np.array([5.0, 3.0, 1.0, 3.0, 5.0])
    narrow = (est, est - 0.1, est + 0.1)
    wide = (est, est - 3.0, est + 3.0)
    inside = check_argmin_in_intervals(XS, *narrow, lo=7, hi=15, figure="F", claim="c")
    assert inside.verdict is Verdict.REPRODUCED and "x=10" in inside.evidence
    outside = check_argmin_in_intervals(XS, *narrow, lo=30, hi=60, figure="F", claim="c")
    assert outside.verdict is Verdict.NOT_REPRODUCED
    unsure = check_argmin_in_intervals(XS, *wide, lo=7, hi=15, figure="F", claim="c")
    assert unsure.verdict is Verdict.INCONCLUSIVE and "overlap" in unsure.evidence
    assert unsure.line().startswith("[inconclusive at this precision] F: c")
    assert check_u_shape_intervals(XS, *narrow, figure="F", claim="c").verdict is Verdict.REPRODUCED
    assert check_u_shape_intervals(XS, *wide, figure="F", claim="c").verdict is Verdict.INCONCLUSIVE
    mono = (XS, XS - 0.1, XS + 0.1)
    assert check_u_shape_intervals(XS, *mono, figure="F", claim="c").verdict is Verdict.NOT_REPRODUCED
    assert check_trend_intervals(XS, *mono, direction="increasing", figure="F", claim="c").reproduced
    assert check_trend_intervals(XS, *mono, direction="decreasing", figure="F",
                                 claim="c").verdict is Verdict.NOT_REPRODUCED
    flat = (np.ones(5), np.zeros(5), 2 * np.ones(5))
    assert check_trend_intervals(XS, *flat, direction="increasing", figure="F",
                                 claim="c").verdict is Verdict.INCONCLUSIVE
    low, high = (XS, XS - 0.1, XS + 0.1), (XS + 1, XS + 0.5, XS + 1.5)
    assert check_less_than_intervals(XS, low, high, figure="F", claim="c").reproduced
    assert check_less_than_intervals(XS, high, low, figure="F", claim="c").verdict is Verdict.NOT_REPRODUCED
    touching = (XS + 0.2, XS - 1, XS + 1)
    res = check_less_than_intervals(XS, low, touching, figure="F", claim="c", names=("a", "b"))
    assert res.verdict is Verdict.INCONCLUSIVE and "overlapping at x=2" in res.evidence
    with pytest.raises(InvalidArgument, match="inside its interval"):
        check_trend_intervals(XS, XS, XS + 1, XS + 2, direction="increasing", figure="F", claim="c")
    with pytest.raises(InvalidArgument, match="points inside and outside"):
        check_argmin_in_intervals(XS, *narrow, lo=0, hi=100, figure="F", claim="c")
