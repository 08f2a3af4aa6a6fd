"""Comparing two naive Bayes classifiers on different attributes: McNemar's exact rejection
probability against brute force over every dataset and tie coin, Monte Carlo against exact, and a
direct simulation with scikit-learn's CategoricalNB (one column each) and splitters."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from momentbound.classifiers import NaiveBayes
from momentbound.errors import InvalidArgument
from momentbound.estimators.comparison import compare_classifiers, mcnemar_rejects
from momentbound.model.cells import CellModel

# cells (x0, x1, y), y fastest. SYM is unchanged by swapping x0 and x1: both classifiers have the
# same expected error. In ASYM attribute 1 is the better predictor.
SYM_CELLS = [0.2, 0.05, 0.1, 0.1, 0.1, 0.1, 0.05, 0.3]
ASYM_CELLS = [0.3, 0.05, 0.05, 0.1, 0.15, 0.1, 0.05, 0.2]
SYM = CellModel((2, 2), [str(c) for c in SYM_CELLS])
ASYM = CellModel((2, 2), [str(c) for c in ASYM_CELLS])


def _reject(D: int, k: int, level: float, variant: str) -> bool:
    if D == 0:
        return False
    if variant == "exact":
        return stats.binomtest(k, D, 0.5).pvalue <= level
    return bool(stats.chi2.sf((abs(k - (D - k)) - 1) ** 2 / D, 1) < level)


@pytest.mark.parametrize("variant", ["exact", "chi2"])
def test_mcnemar_rejection_region_matches_scipy(variant):
    for ns, level in ((12, 0.05), (30, 0.1)):
        region = mcnemar_rejects(ns, level, variant)
        for D in range(ns + 1):
            for k in range(D + 1):
                assert region[D, k] == _reject(D, k, level, variant), (ns, D, k)


def _brute_force_mcnemar(cells: list[float], N: int, ns: int, level: float, variant: str) -> float:
    nb = NaiveBayes()
    p = np.array(cells)

    def marginal_predictions(seq: tuple[int, ...], j: int) -> np.ndarray:
        counts = np.zeros((2, 2), dtype=int)
        for c in seq:
            x = (c // 2 >> 1, c // 2 & 1)
            counts[x[j], c % 2] += 1
        return np.array([[float(v) for v in nb.predict_proba(counts, (x,))] for x in range(2)])

    # region[n01, n10], from scipy's tests (independent of mcnemar_rejects)
    region = np.array([[a + b <= ns and _reject(a + b, a, level, variant) for b in range(ns + 1)]
                       for a in range(ns + 1)], dtype=float)
    total = 0.0
    for train in itertools.product(range(8), repeat=N - ns):
        pa, pb = marginal_predictions(train, 0), marginal_predictions(train, 1)
        p_train = math.prod(p[c] for c in train)
        for test in itertools.product(range(8), repeat=ns):
            law = np.zeros((ns + 1, ns + 1))  # law[n01, n10]
            law[0, 0] = 1.0
            for c in test:
                x0, x1, y = c // 4, (c // 2) % 2, c % 2
                ga, gb = pa[x0, y], pb[x1, y]
                q01, q10 = (1 - ga) * gb, ga * (1 - gb)
                new = law * (1 - q01 - q10)
                new[1:, :] += law[:-1, :] * q01
                new[:, 1:] += law[:, :-1] * q10
                law = new
            total += p_train * math.prod(p[c] for c in test) * float((law * region).sum())
    return total


@pytest.mark.parametrize("variant", ["exact", "chi2"])
def test_mcnemar_exact_matches_brute_force(variant):
    truth = _brute_force_mcnemar(ASYM_CELLS, 5, 3, 0.3, variant)
    r = compare_classifiers(ASYM, 5, "mcnemar", (0,), (1,), test_size=3, variant=variant, level=0.3,
                            rng=np.random.default_rng(0))
    assert r.exact and r.draws is None
    assert r.rejection.estimate == pytest.approx(truth, abs=1e-12)
    assert truth > 0.01  # the test can reject here: the comparison is not vacuous


def test_mcnemar_monte_carlo_agrees_with_exact_and_symmetry_gives_equal_errors():
    exact = compare_classifiers(SYM, 16, "mcnemar", (0,), (1,), test_size=8, level=0.1,
                                rng=np.random.default_rng(0))
    assert exact.exact
    assert exact.ge_a.estimate == pytest.approx(exact.ge_b.estimate, abs=1e-12)
    hits = 0
    for seed in range(20):
        mc = compare_classifiers(SYM, 16, "mcnemar", (0,), (1,), test_size=8, level=0.1, exact=False,
                                 draws=2000, rng=np.random.default_rng(seed))
        hits += exact.rejection.estimate in mc.rejection
    assert hits >= 16


def _sk_predict(cache: dict, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """CategoricalNB(alpha=1) on one column: prediction at x = 0, 1 (cached by the count table)."""
    from sklearn.naive_bayes import CategoricalNB

    key = tuple(np.bincount(2 * x + y, minlength=4))
    if key not in cache:
        fit = CategoricalNB(alpha=1, force_alpha=True, min_categories=[2]).fit(x[:, None], y)
        cache[key] = fit.predict(np.array([[0], [1]]))
    return cache[key]


def test_direct_simulation_with_scikit_learn():
    from sklearn.model_selection import KFold, train_test_split

    rng = np.random.default_rng(11)
    caches: tuple[dict, dict] = ({}, {})
    N, R = 30, 800
    mcnemar_hits = 0
    five_hits = 0
    crit = stats.t.ppf(1 - 0.05 / 2, 5)
    for r in range(R):
        cells = rng.choice(8, size=N, p=ASYM_CELLS)
        X = np.stack([cells // 4, (cells // 2) % 2], axis=1)
        y = cells % 2
        # McNemar (exact binomial) on a shared hold-out set of 15 points, ASYM: power
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=15, random_state=r)
        wrong = [(_sk_predict(caches[j], Xtr[:, j], ytr)[Xte[:, j]] != yte) for j in range(2)]
        n01 = int((wrong[0] & ~wrong[1]).sum())
        n10 = int((~wrong[0] & wrong[1]).sum())
        mcnemar_hits += _reject(n01 + n10, n01, 0.05, "exact")
        # 5x2cv on SYM: size
        if r < 400:
            cells = rng.choice(8, size=N, p=SYM_CELLS)
            X = np.stack([cells // 4, (cells // 2) % 2], axis=1)
            y = cells % 2
            p = np.empty((5, 2))
            for i in range(5):
                for j, (a, b) in enumerate(KFold(2, shuffle=True, random_state=10 * r + i).split(X)):
                    err = [float((_sk_predict(caches[c], X[a, c], y[a])[X[b, c]] != y[b]).mean()) for c in range(2)]
                    p[i, j] = err[0] - err[1]
            denom = math.sqrt(((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1).mean())
            five_hits += (abs(p[0, 0]) / denom > crit) if denom > 0 else (p[0, 0] != 0)
    ours = compare_classifiers(ASYM, N, "mcnemar", (0,), (1,), test_size=15, ties="first", alpha=1,
                               draws=5000, rng=np.random.default_rng(1))
    c = ours.rejection.estimate
    se = math.sqrt(c * (1 - c) / R) + (ours.rejection.upper - ours.rejection.lower) / 3.92
    assert abs(mcnemar_hits / R - c) <= 4 * se, (mcnemar_hits / R, c)
    five = compare_classifiers(SYM, N, "5x2cv", (0,), (1,), ties="first", alpha=1, draws=5000,
                               rng=np.random.default_rng(2))
    c = five.rejection.estimate
    se = math.sqrt(c * (1 - c) / 400 + c * (1 - c) / 5000)
    assert abs(five_hits / 400 - c) <= 4 * se, (five_hits / 400, c)


@pytest.mark.parametrize("kwargs, word", [
    (dict(test="anova"), "test"),
    (dict(attributes_a=(2,)), "attributes_a"),
    (dict(attributes_b=()), "attributes_b"),
    (dict(test_size=None), "test_size"),
    (dict(test_size=20), "test_size"),
    (dict(test="5x2cv"), "test_size"),
    (dict(variant="fisher"), "variant"),
    (dict(level=0.0), "level"),
    (dict(draws=5), "draws"),
    (dict(ties="last"), "ties"),
])
def test_bad_arguments_are_refused(kwargs, word):
    args = dict(test="mcnemar", attributes_a=(0,), attributes_b=(1,), test_size=5)
    args.update(kwargs)
    with pytest.raises(InvalidArgument, match=word):
        compare_classifiers(SYM, 20, args.pop("test"), args.pop("attributes_a"), args.pop("attributes_b"),
                            rng=np.random.default_rng(0), **args)
