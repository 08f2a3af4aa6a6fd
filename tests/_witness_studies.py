"""Brute-force witnesses for the studies' tests (an independent naive Bayes in Fractions).

Scores as scikit-learn's CategoricalNB with alpha = 0 (an absent class scores 0), ties broken
by a fair coin at every prediction; coins are averaged analytically: given the data each test
prediction errs with probability m in {0, 1/2, 1}, independently of the others.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from momentbound.model import CellModel


@lru_cache(maxsize=100_000)
def _error_probs(model: CellModel, counts: tuple[int, ...]) -> tuple[tuple[Fraction, ...], ...]:
    """m[x][y] = P[prediction at input x != y] for the classifier trained on ``counts`` (a pure
    function of the model and the counts, so computed once per training table)."""
    K, inputs = model.n_classes, list(model.inputs())
    N = sum(counts)
    cls = [sum(counts[i * K + k] for i in range(len(inputs))) for k in range(K)]
    out = []
    for x in inputs:
        scores = []
        for k in range(K):
            if cls[k] == 0:
                scores.append(Fraction(0))
                continue
            s = Fraction(cls[k], N)
            for j, v in enumerate(x):
                njvk = sum(counts[i * K + k] for i, z in enumerate(inputs) if z[j] == v)
                s *= Fraction(njvk, cls[k])
            scores.append(s)
        top = max(scores)
        tied = [k for k in range(K) if scores[k] == top]
        out.append(tuple(1 - (Fraction(1, len(tied)) if y in tied else Fraction(0)) for y in range(K)))
    return tuple(out)


def _tables(n: int, cells: int):
    """Every count table of n points in ``cells`` cells."""
    if cells == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _tables(n - first, cells - 1):
            yield (first,) + rest


def _pmf(model: CellModel, counts: tuple[int, ...]) -> Fraction:
    n = sum(counts)
    coef = math.factorial(n)
    w = Fraction(1)
    for c, p in zip(counts, model.cells):
        coef //= math.factorial(c)
        w *= Fraction(p) ** c
    return coef * w


def brute_holdout(model: CellModel, N: int, ns: int) -> tuple[Fraction, Fraction]:
    """E[HE], Var(HE): every training table x every test table, coins averaged exactly."""
    C = model.n_cells
    e1 = e2 = Fraction(0)
    tests = [(t, _pmf(model, t)) for t in _tables(ns, C)]
    for train in _tables(N - ns, C):
        w = _pmf(model, train)
        m = [v for row in _error_probs(model, train) for v in row]  # m per cell (x, y)
        for test, wt in tests:
            s = sum(c * mi for c, mi in zip(test, m))
            v = sum(c * mi * (1 - mi) for c, mi in zip(test, m))
            e1 += w * wt * s / ns
            e2 += w * wt * (s * s + v) / (ns * ns)
    return e1, e2 - e1 * e1


def _fold_sizes(N: int, v: int) -> list[int]:
    return [N // v + (1 if i < N % v else 0) for i in range(v)]


@lru_cache(maxsize=100_000)
def _fold_terms(model: CellModel, counts: tuple[int, ...], test: tuple[int, ...]) -> tuple[Fraction, Fraction]:
    """Expected errors of a fold with these test cells, trained on ``counts``, and the sum of their
    coin variances."""
    m = [val for row in _error_probs(model, counts) for val in row]
    return sum(m[c] for c in test), sum(m[c] * (1 - m[c]) for c in test)


def brute_cv(model: CellModel, N: int, v: int) -> dict[str, Fraction]:
    """E[CE], Var(CE), mean Var(HE_i), mean Cov(HE_i, HE_j) over every ordered dataset."""
    C = model.n_cells
    sizes = _fold_sizes(N, v)
    bounds = np.cumsum([0] + sizes)
    acc = {"ce1": Fraction(0), "ce2": Fraction(0)}
    he1 = [Fraction(0)] * v
    he2 = [Fraction(0)] * v
    cross = {}
    for seq in itertools.product(range(C), repeat=N):
        w = Fraction(1)
        for c in seq:
            w *= Fraction(model.cells[c])
        if w == 0:
            continue
        s_f, v_f = [], []
        for i in range(v):
            test = seq[bounds[i]: bounds[i + 1]]
            train = seq[: bounds[i]] + seq[bounds[i + 1]:]
            s, var = _fold_terms(model, tuple(train.count(c) for c in range(C)), test)
            s_f.append(s)
            v_f.append(var)
        total = sum(s_f)
        acc["ce1"] += w * total / N
        acc["ce2"] += w * (total * total + sum(v_f)) / (N * N)
        for i in range(v):
            he1[i] += w * s_f[i] / sizes[i]
            he2[i] += w * (s_f[i] ** 2 + v_f[i]) / sizes[i] ** 2
            for j in range(v):
                if i != j:  # coins of different folds are independent
                    cross[(i, j)] = cross.get((i, j), Fraction(0)) + w * s_f[i] * s_f[j] / (sizes[i] * sizes[j])
    fold_var = sum(he2[i] - he1[i] ** 2 for i in range(v)) / v
    fold_cov = sum(cross[(i, j)] - he1[i] * he1[j] for (i, j) in cross) / len(cross)
    return {
        "mean": acc["ce1"],
        "variance": acc["ce2"] - acc["ce1"] ** 2,
        "fold_variance": fold_var,
        "fold_covariance": fold_cov,
    }


@lru_cache(maxsize=None)
def brute_ge(model: CellModel, n: int) -> Fraction:
    total = Fraction(0)
    K = model.n_classes
    for t in _tables(n, model.n_cells):
        m = _error_probs(model, t)
        total += _pmf(model, t) * sum(
            Fraction(model.cells[ix * K + y]) * m[ix][y] for ix in range(model.n_inputs) for y in range(K)
        )
    return total


