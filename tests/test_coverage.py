"""Coverage of users' confidence intervals: exact sums against brute force over every dataset,
Monte Carlo against the exact value, and a direct simulation of points with scikit-learn's
splitters and CategoricalNB, within 4 standard errors."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators.coverage import binomial_interval, interval_coverage
from momentbound.model.cells import CellModel
from momentbound.splitters import HoldOut, KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

# one attribute with 2 values, 2 classes; cells (x, y) in the order (0,0), (0,1), (1,0), (1,1)
MODEL = CellModel((2,), ["0.3", "0.2", "0.15", "0.35"])
P = np.array([0.3, 0.2, 0.15, 0.35])
WRONG = np.array([[0.2, 0.3], [0.35, 0.15]])  # P[X = x, Y != y]


def _brute_force(N: int, ns: int, method: str, nominal: float) -> dict[str, float]:
    """Coverage by enumerating every sequence of N points and every tie coin on the test points."""
    nb = NaiveBayes()
    lo, hi = binomial_interval(np.arange(ns + 1), ns, nominal, method)

    cache: dict = {}

    def predict(seq: tuple[int, ...]) -> list[list[float]]:
        key = tuple(np.bincount(np.array(seq, dtype=int), minlength=4))
        if key not in cache:
            counts = np.array(key).reshape(2, 2)
            cache[key] = [[float(v) for v in nb.predict_proba(counts, (x,))] for x in range(2)]
        return cache[key]

    def ge(g: list[list[float]]) -> float:
        return sum(g[x][y] * WRONG[x, y] for x in range(2) for y in range(2))

    seqs = list(itertools.product(range(4), repeat=N))
    probs = [math.prod(P[c] for c in s) for s in seqs]
    mu = sum(pr * ge(predict(s)) for s, pr in zip(seqs, probs))
    out = dict.fromkeys(("ge-train", "expected-ge-full", "ge-full"), 0.0)
    for s, pr in zip(seqs, probs):
        g_train, full = predict(s[: N - ns]), ge(predict(s))
        train = ge(g_train)
        # law of the number of test errors (independent coin per test point)
        law = np.array([1.0])
        for c in s[N - ns:]:
            x, y = divmod(c, 2)
            e = 1.0 - g_train[x][y]
            law = np.convolve(law, [1.0 - e, e])
        for target, point in (("ge-train", train), ("expected-ge-full", mu), ("ge-full", full)):
            inside = (lo <= point + 1e-12) & (point - 1e-12 <= hi)
            out[target] += pr * float(law @ inside)
    out["mu"] = mu
    return out


@pytest.mark.parametrize("method", ["clopper-pearson", "wald"])
def test_holdout_exact_coverage_matches_brute_force(method):
    truth = _brute_force(6, 3, method, 0.9)
    for target in ("ge-train", "expected-ge-full"):
        r = interval_coverage(MODEL, 6, method, HoldOut(test_size=3), target=target, nominal=0.9,
                              rng=np.random.default_rng(0))
        assert r.exact and r.draws is None
        assert r.coverage.estimate == pytest.approx(truth[target], abs=1e-12)
        assert r.expected_ge_full == pytest.approx(truth["mu"], abs=1e-12)
    # GE_N needs the test points too: Monte Carlo, within 4 standard errors of the exact sum
    mc = interval_coverage(MODEL, 6, method, HoldOut(test_size=3), target="ge-full", nominal=0.9,
                           draws=20_000, rng=np.random.default_rng(1))
    se = math.sqrt(truth["ge-full"] * (1 - truth["ge-full"]) / 20_000)
    assert not mc.exact and abs(mc.coverage.estimate - truth["ge-full"]) <= 4 * se


def test_holdout_monte_carlo_agrees_with_exact_sum():
    kw = dict(target="ge-train", nominal=0.95)
    exact = interval_coverage(MODEL, 30, "clopper-pearson", HoldOut(test_size=10), rng=np.random.default_rng(0), **kw)
    assert exact.exact
    hits = 0
    for seed in range(20):
        mc = interval_coverage(MODEL, 30, "clopper-pearson", HoldOut(test_size=10), draws=2000, exact=False,
                               rng=np.random.default_rng(seed), **kw)
        hits += exact.coverage.estimate in mc.coverage
    assert hits >= 16  # 95% intervals: fewer than 16 of 20 has probability < 0.3%


def _sk_predictions(cache: dict, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """CategoricalNB(alpha=1) fitted on the points, its prediction at x = 0, 1 (cached by count table:
    naive Bayes depends on the training points through their counts only)."""
    from sklearn.naive_bayes import CategoricalNB

    key = tuple(np.bincount(2 * X[:, 0] + y, minlength=4))
    if key not in cache:
        clf = CategoricalNB(alpha=1, force_alpha=True, min_categories=[2]).fit(X, y)
        cache[key] = clf.predict(np.array([[0], [1]]))
    return cache[key]


def _sk_ge(pred: np.ndarray) -> float:
    return float(WRONG[0, pred[0]] + WRONG[1, pred[1]])


def test_direct_simulation_with_scikit_learn_splitters():
    from sklearn.model_selection import KFold as SkKFold
    from sklearn.model_selection import ShuffleSplit as SkShuffleSplit
    from sklearn.model_selection import train_test_split

    clf = NaiveBayes("first", 1)
    rng = np.random.default_rng(7)
    cache: dict = {}
    N, R, z = 20, 800, stats.norm.ppf(0.95)
    hits = {"cp": 0, "cv": 0, "nb": 0}
    for r in range(R):
        cells = rng.choice(4, size=N, p=P)
        X, y = (cells // 2)[:, None], cells % 2
        full = _sk_ge(_sk_predictions(cache, X, y))
        # hold-out, Clopper-Pearson at 90%
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=8, random_state=r)
        k = int((_sk_predictions(cache, Xtr, ytr)[Xte[:, 0]] != yte).sum())
        lo, hi = binomial_interval(np.array([k]), 8, 0.9, "clopper-pearson")
        hits["cp"] += bool(lo[0] <= full <= hi[0])
        # naive CV interval of KFold(4) at 90%
        rates = [float((_sk_predictions(cache, X[a], y[a])[X[b, 0]] != y[b]).mean())
                 for a, b in SkKFold(4, shuffle=True, random_state=r).split(X)]
        half = z * np.std(rates, ddof=1) / 2
        hits["cv"] += bool(abs(np.mean(rates) - full) <= half)
        # Nadeau-Bengio over ShuffleSplit(5, test_size=4) at 90%
        rates = [float((_sk_predictions(cache, X[a], y[a])[X[b, 0]] != y[b]).mean())
                 for a, b in SkShuffleSplit(5, test_size=4, random_state=r).split(X)]
        half = stats.t.ppf(0.95, 4) * math.sqrt((1 / 5 + 4 / 16) * np.var(rates, ddof=1))
        hits["nb"] += bool(abs(np.mean(rates) - full) <= half)
    ours = {
        "cp": interval_coverage(MODEL, N, "clopper-pearson", HoldOut(test_size=8), nominal=0.9, classifier=clf,
                                draws=10_000, rng=np.random.default_rng(1)),
        "cv": interval_coverage(MODEL, N, "naive-cv", KFold(4), nominal=0.9, classifier=clf, draws=10_000,
                                rng=np.random.default_rng(2)),
        "nb": interval_coverage(MODEL, N, "nadeau-bengio", ShuffleSplit(5, 4), nominal=0.9, classifier=clf,
                                draws=10_000, rng=np.random.default_rng(3)),
    }
    for key, r in ours.items():
        c = r.coverage.estimate
        se = math.sqrt(c * (1 - c) / R + c * (1 - c) / r.draws)
        assert abs(hits[key] / R - c) <= 4 * se, (key, hits[key] / R, c)


def test_stratified_naive_cv_against_scikit_learn_simulation():
    """The naive CV interval of StratifiedKFold(4) and the Nadeau-Bengio interval of
    StratifiedShuffleSplit(5, 4): scikit-learn's own splitters and CategoricalNB on simulated
    datasets, against GE_N and against the constant E[GE_N]."""
    from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold
    from sklearn.model_selection import StratifiedShuffleSplit as SkStratifiedShuffleSplit

    clf = NaiveBayes("first", 1)
    rng = np.random.default_rng(17)
    cache: dict = {}
    N, R, z = 20, 1000, stats.norm.ppf(0.95)
    ours = {t: interval_coverage(MODEL, N, "naive-cv", StratifiedKFold(4), target=t, nominal=0.9, classifier=clf,
                                 draws=10_000, rng=np.random.default_rng(5))
            for t in ("ge-full", "expected-ge-full")}
    ours.update({("nb", t): interval_coverage(MODEL, N, "nadeau-bengio", StratifiedShuffleSplit(5, 4), target=t,
                                              nominal=0.9, classifier=clf, draws=10_000, rng=np.random.default_rng(6))
                 for t in ("ge-full", "expected-ge-full")})
    mu = ours["expected-ge-full"].expected_ge_full
    hits = dict.fromkeys(ours, 0)
    for r in range(R):
        cells = rng.choice(4, size=N, p=P)
        X, y = (cells // 2)[:, None], cells % 2
        full = _sk_ge(_sk_predictions(cache, X, y))
        with warnings.catch_warnings():  # "the least populated class has only 3 members"
            warnings.simplefilter("ignore", UserWarning)
            splits = list(SkStratifiedKFold(4, shuffle=True, random_state=r).split(X, y))
        rates = [float((_sk_predictions(cache, X[a], y[a])[X[b, 0]] != y[b]).mean()) for a, b in splits]
        half = z * np.std(rates, ddof=1) / 2
        hits["ge-full"] += bool(abs(np.mean(rates) - full) <= half)
        hits["expected-ge-full"] += bool(abs(np.mean(rates) - mu) <= half)
        # a class with fewer than 2 of the 20 points (which scikit-learn refuses) has probability < 1e-5
        rates = [float((_sk_predictions(cache, X[a], y[a])[X[b, 0]] != y[b]).mean())
                 for a, b in SkStratifiedShuffleSplit(5, test_size=4, random_state=r).split(X, y)]
        half = stats.t.ppf(0.95, 4) * math.sqrt((1 / 5 + 4 / 16) * np.var(rates, ddof=1))
        hits[("nb", "ge-full")] += bool(abs(np.mean(rates) - full) <= half)
        hits[("nb", "expected-ge-full")] += bool(abs(np.mean(rates) - ours[("nb", "expected-ge-full")].expected_ge_full)
                                                 <= half)
    for key, res in ours.items():
        c = res.coverage.estimate
        se = math.sqrt(c * (1 - c) / R + c * (1 - c) / res.draws)
        assert abs(hits[key] / R - c) <= 4 * se, (key, hits[key] / R, c)
    # every dataset of 20 points has a class of >= 10 members: E[GE_N] is the unconditional one
    plain = interval_coverage(MODEL, N, "naive-cv", KFold(4), target="expected-ge-full", classifier=clf,
                              draws=200, rng=np.random.default_rng(0))
    assert mu == pytest.approx(plain.expected_ge_full, abs=1e-12)


def test_stratified_expected_ge_is_conditional_on_a_split():
    """Three classes, N = 4, v = 3: datasets without a class of 3 members cannot be split."""
    from fractions import Fraction as F

    from momentbound.estimators import estimator_accuracy

    model = CellModel((2,), [F(1, 6), F(1, 6), F(1, 6), F(1, 12), F(1, 4), F(1, 6)], 3)
    res = interval_coverage(model, 4, "naive-cv", StratifiedKFold(3), target="expected-ge-full",
                            draws=200, rng=np.random.default_rng(0))
    acc = estimator_accuracy(model, 4, StratifiedKFold(3))
    assert res.expected_ge_full == pytest.approx(float(acc.ge_full_mean), abs=1e-12)
    assert acc.ge_full_mean != estimator_accuracy(model, 4, KFold(3)).ge_full_mean


def test_naive_cv_undercovers_and_wald_is_below_clopper_pearson():
    kw = dict(nominal=0.95, draws=4000)
    cv = interval_coverage(MODEL, 40, "naive-cv", KFold(10), rng=np.random.default_rng(0), **kw)
    assert cv.coverage.upper < 0.95
    cp = interval_coverage(MODEL, 40, "clopper-pearson", HoldOut(test_size=20), target="ge-train",
                           rng=np.random.default_rng(0), **kw)
    wald = interval_coverage(MODEL, 40, "wald", HoldOut(test_size=20), target="ge-train",
                             rng=np.random.default_rng(0), **kw)
    assert cp.coverage.estimate >= 0.95 > wald.coverage.estimate


@pytest.mark.parametrize("args, kwargs, word", [
    (("tight", HoldOut(test_size=3)), {}, "method"),
    (("wald", KFold(3)), {}, "HoldOut"),
    (("naive-cv", HoldOut(test_size=3)), {}, "KFold or StratifiedKFold"),
    (("naive-cv", KFold(3)), {"target": "ge-train"}, "ge-train"),
    (("wald", HoldOut(test_size=3)), {"target": "truth"}, "target"),
    (("wald", HoldOut(test_size=3)), {"nominal": 1.5}, "nominal"),
    (("nadeau-bengio", ShuffleSplit(math.inf, 3)), {}, "splits"),
    (("naive-cv", KFold(3)), {"exact": True}, "exact"),
    (("wald", HoldOut(test_size=3)), {"draws": 10}, "draws"),
])
def test_bad_arguments_are_refused(args, kwargs, word):
    with pytest.raises(InvalidArgument, match=word):
        interval_coverage(MODEL, 12, *args, rng=np.random.default_rng(0), **kwargs)
