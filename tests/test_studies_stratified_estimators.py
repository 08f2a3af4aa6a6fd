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


@pytest.mark.parametrize("index, N, folds", [(0, 6, (2, 3)), (2, 4, (2, 3))])
def test_stratified_frame_against_enumeration(index, N, folds) -> None:
    """Independent witness of the study's numbers at small N: KFold by enumerating every product of
    fold tables, StratifiedKFold by running every ordered dataset through scikit-learn's splitter,
    the missing-class probability by enumerating every training sequence."""
    from oracles.estimators import BruteForce
    from oracles.stratified import stratified_cv_bruteforce

    from momentbound.studies.stratified import stratified_frame

    name, model = stratified_models()[index]
    df = stratified_frame(model, N, folds, model_label=name)
    bf = BruteForce.from_model(model, "first", 1)
    priors = [Fraction(model.prior(k)) for k in range(model.n_classes)]
    for _, row in df.iterrows():
        v = int(row["folds"])
        plain = bf.kfold_moments(N, v)
        strat = stratified_cv_bruteforce(model.arities, model.n_classes, model.cells, N, v, "first", 1)
        assert (row["kfold_mean"], row["kfold_variance"]) == pytest.approx((float(plain.mean), float(plain.variance)),
                                                                           abs=1e-12)
        assert (row["stratified_mean"], row["stratified_variance"]) == pytest.approx(
            (float(strat.mean), float(strat.variance)), abs=1e-12)
        train = N - N // v
        missing = sum(math.prod(priors[k] for k in seq)
                      for seq in itertools.product(range(model.n_classes), repeat=train)
                      if len(set(seq)) < model.n_classes)
        assert row["kfold_train_missing_class"] == pytest.approx(float(missing), abs=1e-15)


@pytest.fixture(scope="module")
def estimators_quick():
    return run_study("estimators", quick=True)


def test_estimators_quick_study(tmp_path, estimators_quick) -> None:
    res = estimators_quick
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
    assert (df["backend"] == "exact").all() and (df["rms_lower"] == df["rms"]).all()
    assert [c.figure for c in res.checks] == ["Braga-Neto & Dougherty 2005"] * 2 + ["Braga-Neto & Dougherty 2010"] + [
        "Efron & Tibshirani 1997"] * 2 + ["Kohavi 1995", "Bates, Hastie & Tibshirani 2024"]
    assert all(isinstance(c.verdict, Verdict) for c in res.checks)
    # coverage of the naive CV interval: the four CV rows of each model, with Monte Carlo intervals
    cov = df[df["coverage_ge_full"].notna()]
    assert sorted(set(cov["estimator"])) == ["10-fold", "5-fold", "stratified 10-fold", "stratified 5-fold"]
    for col in ("coverage_ge_full", "coverage_expected_ge_full"):
        assert ((cov[f"{col}_lower"] <= cov[col]) & (cov[col] <= cov[f"{col}_upper"])).all()
    # the Bates et al. verdict follows the intervals: reproduced iff every upper end is below 95%
    upper = cov[["coverage_ge_full_upper", "coverage_expected_ge_full_upper"]].to_numpy()
    lower = cov[["coverage_ge_full_lower", "coverage_expected_ge_full_lower"]].to_numpy()
    bates = res.checks[-1]
    assert bates.reproduced == bool((upper < 0.95).all())
    if not bates.reproduced:
        assert bates.verdict is (Verdict.NOT_REPRODUCED if (lower >= 0.95).any() else Verdict.INCONCLUSIVE)
    assert "coverage of GE_N" in bates.evidence and not res.notes
    files = res.save(tmp_path)
    assert files.csv.read_text().startswith("model,")


def test_estimators_study_rejects_a_holdout_size_of_n() -> None:
    with pytest.raises(InvalidArgument, match="holdout_sizes must be below N = 20"):
        run_study("estimators", quick=True, holdout_sizes=(3, 20))


def _sk_simulation(model, N: int, R: int, seed: int) -> dict[str, tuple]:
    """Per simulated dataset: (estimate, GE_N) of resubstitution, hold-out 10/20, 10-fold, stratified
    10-fold and leave-one-out, with CategoricalNB(alpha=1) (ties to the first class), whose predictions
    depend on the training points through their count table only. scikit-learn's StratifiedKFold
    splits the data; KFold (blocks of 2), leave-one-out and a random hold-out half are index slices."""
    import warnings

    import numpy as np
    from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
    from sklearn.naive_bayes import CategoricalNB

    p = np.array([float(c) for c in model.cells])
    wrong = np.array([[p[1], p[0]], [p[3], p[2]]])  # P[X = x, Y != k]
    cache: dict = {}

    def predict(X, y):
        key = tuple(np.bincount(2 * X[:, 0] + y, minlength=4))
        if key not in cache:
            cache[key] = CategoricalNB(alpha=1, force_alpha=True, min_categories=[2]).fit(X, y).predict(
                np.array([[0], [1]]))
        return cache[key]

    def cv_rate(X, y, splits):
        return sum(int((predict(X[a], y[a])[X[b, 0]] != y[b]).sum()) for a, b in splits) / len(y)

    rng = np.random.default_rng(seed)
    out: dict[str, list] = {k: [] for k in ("resubstitution", "hold-out 10/20", "10-fold", "stratified 10-fold",
                                            "leave-one-out")}
    ge = []
    for r in range(R):
        cells = rng.choice(4, size=N, p=p)
        X, y = (cells // 2)[:, None], cells % 2
        full = predict(X, y)
        ge.append(float(wrong[0, full[0]] + wrong[1, full[1]]))
        out["resubstitution"].append(float((full[X[:, 0]] != y).mean()))
        perm = rng.permutation(N)
        te, tr = perm[:10], perm[10:]
        out["hold-out 10/20"].append(float((predict(X[tr], y[tr])[X[te, 0]] != y[te]).mean()))
        idx = np.arange(N)
        out["10-fold"].append(cv_rate(X, y, [(idx[(idx // 2) != i], idx[(idx // 2) == i]) for i in range(10)]))
        with warnings.catch_warnings():  # "the least populated class has only k members"
            warnings.simplefilter("ignore", UserWarning)
            strat = list(SkStratifiedKFold(10).split(X, y))
        out["stratified 10-fold"].append(cv_rate(X, y, strat))
        out["leave-one-out"].append(cv_rate(X, y, [(idx[idx != i], idx[idx == i]) for i in range(N)]))
    G = np.array(ge)
    return {k: (np.array(v), G) for k, v in out.items()}


@pytest.mark.slow
def test_estimators_rows_against_scikit_learn_simulation(estimators_quick) -> None:
    """Independent witness of the study's numbers: bias, mean square and covariance with GE_N of five
    rows of the paper model, from datasets run through scikit-learn (within 4 standard errors)."""
    import numpy as np

    from momentbound.studies.estimators import estimator_models

    label, model, _ = estimator_models()[0]
    df = estimators_quick.data.set_index(["model", "estimator"])
    R = 1500
    for name, (est, G) in _sk_simulation(model, 20, R, seed=3).items():
        row = df.loc[(label, name)]
        d = est - G
        bias_se = d.std(ddof=1) / math.sqrt(R)
        assert abs(d.mean() - row["bias"]) <= 4 * bias_se + 1e-9, (name, d.mean(), row["bias"])
        ms_se = (d**2).std(ddof=1) / math.sqrt(R)
        assert abs((d**2).mean() - row["rms"] ** 2) <= 4 * ms_se + 1e-9, (name, (d**2).mean(), row["rms"] ** 2)
        prod = (est - est.mean()) * (G - G.mean())
        cov = row["correlation_with_ge"] * row["std"] * G.std(ddof=1)
        assert abs(prod.mean() - cov) <= 4 * prod.std(ddof=1) / math.sqrt(R) + 2e-4, (name, prod.mean(), cov)
        assert abs(est.mean() - row["mean"]) <= 4 * est.std(ddof=1) / math.sqrt(R) + 1e-9
