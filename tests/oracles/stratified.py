"""Brute-force moments of stratified cross-validation over every ordered dataset (test oracle).

Every ordered dataset of ``N`` points (each point a cell ``(x, y)``) is enumerated with its
probability ``prod_t p[x_t, y_t]``. scikit-learn's own ``StratifiedKFold(v)`` (``shuffle=False``)
splits it from its labels; datasets where scikit-learn raises are counted as impossible and
left out (the moments are conditional on the split being possible), datasets where it warns
are counted. Every fold's classifier is computed directly from its list of training points
(``naive_bayes``), and each test point is misclassified with probability
``e_t = 1 - g_{x_t}(y_t | T)``; the tie coins of different predictions are independent, so
given the dataset the fold error count has mean ``sum e_t`` and variance ``sum e_t (1 - e_t)``,
and different folds' counts are conditionally independent. Sums are exact (integers over known
denominators, then ``Fraction``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from sklearn.model_selection import StratifiedKFold as SkStratifiedKFold

from oracles.naive_bayes import cells_of, predict_distribution


@dataclass(frozen=True)
class StratifiedResult:
    mean: Fraction
    variance: Fraction
    fold_means: tuple[Fraction, ...]
    fold_variance: Fraction
    fold_covariance: Fraction
    prob_possible: Fraction
    prob_warning: Fraction


def sklearn_test_folds(y: Sequence[int], v: int) -> tuple[list[np.ndarray] | None, bool]:
    """scikit-learn's test index arrays for labels ``y`` (``None`` where it raises) and whether it warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            folds = [test for _, test in SkStratifiedKFold(n_splits=v).split(np.zeros(len(y)), np.asarray(y))]
        except ValueError:
            return None, False
    warned = any(issubclass(w.category, UserWarning) and "least populated" in str(w.message) for w in caught)
    return folds, warned


def stratified_cv_bruteforce(
    arities: Sequence[int],
    n_classes: int,
    cells: Sequence,
    N: int,
    v: int,
    ties: str,
    alpha=0,
    average: str = "pooled",
) -> StratifiedResult:
    """Exact moments of the StratifiedKFold(v) CV error of naive Bayes by enumeration."""
    arities = tuple(arities)
    K = n_classes
    cell_list = cells_of(arities, K)
    p = [Fraction(c) for c in cells]
    assert sum(p) == 1 and len(p) == len(cell_list)
    q = math.lcm(*(pc.denominator for pc in p))
    num = {cell: int(pc * q) for cell, pc in zip(cell_list, p)}
    lcm_k = math.lcm(*range(1, K + 1))
    support = {y: [cell for cell in cell_list if cell[1] == y and num[cell]] for y in range(K)}
    cell_index = {cell: i for i, cell in enumerate(cell_list)}
    alpha = Fraction(alpha)
    cache: dict[tuple[tuple[int, ...], tuple], int] = {}

    def err_scaled(train: tuple[int, ...], cell) -> int:
        """``L * P[cell's point is misclassified]`` by the classifier of the training table."""
        key = (train, cell)
        if key not in cache:
            points = [c for c, cnt in zip(cell_list, train) for _ in range(cnt)]
            g = predict_distribution(points, arities, K, cell[0], ties, alpha)
            e = (1 - g[cell[1]]) * lcm_k
            assert e.denominator == 1
            cache[key] = int(e)
        return cache[key]

    denom_total = Fraction(1, q**N)
    s1 = [Fraction(0)] * v
    s2 = [Fraction(0)] * v
    sp = [[Fraction(0)] * v for _ in range(v)]
    ce1 = ce2 = Fraction(0)
    p_ok = p_warn = Fraction(0)
    for y in itertools.product(range(K), repeat=N):
        if any(not support[c] for c in y):
            continue
        folds, warned = sklearn_test_folds(y, v)
        if folds is None:
            continue
        sizes = [len(f) for f in folds]
        a1 = [0] * v  # sum_w w * L * mu_i
        a2 = [0] * v  # sum_w w * L^2 * (mu_i^2 + var_i)
        ap = [[0] * v for _ in range(v)]
        wsum = 0
        for xs in itertools.product(*(support[c] for c in y)):
            w = math.prod(num[cell] for cell in xs)
            wsum += w
            idx = [cell_index[cell] for cell in xs]
            table = [0] * len(cell_list)
            for c in idx:
                table[c] += 1
            mus = []
            for i, test in enumerate(folds):
                train = table[:]
                for t in test:
                    train[idx[t]] -= 1
                tkey = tuple(train)
                es = [err_scaled(tkey, xs[t]) for t in test]
                mu = sum(es)
                var = sum(e * (lcm_k - e) for e in es)
                mus.append(mu)
                a1[i] += w * mu
                a2[i] += w * (mu * mu + var)
            for i in range(v):
                for j in range(v):
                    if i != j:
                        ap[i][j] += w * mus[i] * mus[j]
        py = wsum * denom_total
        p_ok += py
        if warned:
            p_warn += py
        wts = [Fraction(s, N) if average == "pooled" else Fraction(1, v) for s in sizes]
        for i in range(v):
            he1 = Fraction(a1[i], lcm_k * sizes[i]) * denom_total
            he2 = Fraction(a2[i], lcm_k**2 * sizes[i] ** 2) * denom_total
            s1[i] += he1
            s2[i] += he2
            ce1 += wts[i] * he1
            ce2 += wts[i] ** 2 * he2
            for j in range(v):
                if i != j:
                    hh = Fraction(ap[i][j], lcm_k**2 * sizes[i] * sizes[j]) * denom_total
                    sp[i][j] += hh
                    ce2 += wts[i] * wts[j] * hh
    mean = ce1 / p_ok
    variance = ce2 / p_ok - mean**2
    fm = [s / p_ok for s in s1]
    fold_var = sum((s2[i] / p_ok - fm[i] ** 2 for i in range(v)), Fraction(0)) / v
    fold_cov = sum(
        (sp[i][j] / p_ok - fm[i] * fm[j] for i in range(v) for j in range(v) if i != j), Fraction(0)
    ) / (v * (v - 1))
    return StratifiedResult(mean, variance, tuple(fm), fold_var, fold_cov, p_ok, p_warn)
