"""Pieces shared by the sums over the rows of one attribute (:mod:`momentbound.exact.resub_states`'
``rows`` route and :mod:`momentbound.exact.row_halves`): the result type of the sufficient-statistic
routes, the ideal bootstrap's per-row prediction table and its price.

With one attribute and ``alpha = 0`` the class-``k`` score at ``x`` is ``T[x, k] / N``: the prediction at
``x`` is a function of the row ``T[x, .]`` alone, and so is the ideal bootstrap's (the bootstrap sample's
row given the data's row is multinomial), ``docs/mathematics.md``, "Resubstitution on sufficient statistics".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from momentbound.classifiers.naive_bayes import decision_shares
from momentbound.model.cells import CellModel

__all__ = ["ROWS_NS", "StateMoments", "W_CHUNK", "bootstrap_row_table", "compositions_at_most",
           "row_bootstrap_applies"]

#: CPU nanoseconds of the rows route per unit of its parts, fitted on 16 resubstitution runs (one
#: attribute of 2-8 values, 2-4 classes, N = 14-600) and 20 Err(1)/.632 runs (measured / estimated
#: 0.80-1.45; 0.73-1.22 on 10 other runs, ``benchmarks/bench_resub_rows_estimate.py``): per split and
#: pair of inputs, per split, input and class, per grid cell of the decision shares (times K^2 V), per
#: conditional matrix and per entry of one, per term of the bootstrap-row table, per grid cell and
#: class of Err(1). The bootstrap-row table's price is the one with the default BLAS threads (0.96-1.45
#: measured on two cores under load 2-3 at N = 100-400, two classes, where it dominates; 0.58-0.62 with
#: one thread), ``benchmarks/bench_632plus_halves_estimate.py``; the row-halves route shares it. Ties
#: ``first`` (two classes) build no table: their miss laws cost ``first_cells`` per grid cell and class
#: (0.96-1.05 us measured at N = 300-400 under load 4.6-5.4)
ROWS_NS = {"split_pairs": 4.04e4, "split_inputs": 4.15e4, "decisions": 11.2, "matrices": 3.66e3,
           "conditionals": 27.4, "row_table": 1.15, "err1_cells": 41.3, "first_cells": 1000.0}

#: float entries of one block of bootstrap-row weights (:func:`bootstrap_row_table`)
W_CHUNK = 4_000_000


@dataclass(frozen=True)
class StateMoments:
    """``E[est]``, ``E[est^2]`` (tie coins included) and ``E[est GE_N]`` of one statistic, with
    ``E[GE_N]`` and ``E[GE_N^2]`` from the same sums."""

    mean: float
    second: float
    joint: float
    route: str
    dropped_mass_bound: float = 0.0
    ge_mean: float | None = None
    ge_second: float | None = None
    #: .632+ on pairs of half tables: ``E[v]`` and ``E[v v']`` of ``v = (err, Err(1), gamma)``, the inputs of
    #: its delta-method approximation (:func:`momentbound.exact.row_halves.delta_inputs`)
    delta_inputs: Any = None


def row_bootstrap_applies(model: CellModel, clf: Any) -> bool:
    """One attribute and ``alpha = 0``: the prediction at ``x`` is the largest count of the row
    ``T[x, .]`` (ties ``random``; two classes also ``first``, :func:`momentbound.exact.tables.bootstrap_fast`)."""
    from momentbound.exact.tables import fast_bootstrap_applies

    if model.d != 1 or clf.alpha_exact != 0:
        return False
    return clf.ties == "random" or fast_bootstrap_applies(model, clf)


def bootstrap_row_table(clf: Any, N: int, K: int) -> np.ndarray:
    """``W[b, y]``: the probability that the classifier of a bootstrap sample predicts ``y`` at an
    input whose row without the left-out point is ``b`` (``sum(b) <= N - 1``; dense ``(N,) * K + (K,)``).

    With one attribute and ``alpha = 0`` the class-``k`` score at ``x`` is ``S[x, k] / N``, so the
    prediction depends on the sample's row only, the first ``K`` components of
    ``Multinomial(N; b / (N - 1), 1 - sum(b) / (N - 1))``."""
    from math import lgamma

    rows = np.array(compositions_at_most(N, K), dtype=np.int64)  # sample rows s, sum(s) <= N
    g, scale = decision_shares(clf, (K,), [N] * K, [rows[:, k:k + 1] for k in range(K)])
    D = (g / scale).T  # (len(rows), K)
    lf = np.array([lgamma(i + 1) for i in range(N + 1)])
    rest_s = N - rows.sum(axis=1)
    coef = lf[N] - lf[rows].sum(axis=1) - lf[rest_s]
    bases = np.array(compositions_at_most(N - 1, K), dtype=np.int64)
    W = np.zeros((N,) * K + (K,))
    counts = np.concatenate([rows, rest_s[:, None]], axis=1).astype(float)
    step = max(1, W_CHUNK // len(rows))
    for start in range(0, len(bases), step):
        b = bases[start:start + step].astype(float)
        probs = np.concatenate([b, (N - 1 - b.sum(axis=1))[:, None]], axis=1) / (N - 1)
        logp = np.log(np.where(probs > 0, probs, 1.0)) - 1e30 * (probs == 0)  # a zero-probability category
        weight = np.exp(coef[None, :] + logp @ counts.T)  # (bases, rows): exp(-huge) = 0 where impossible
        W[tuple(bases[start:start + step].T)] = weight @ D
    return W


def compositions_at_most(n: int, K: int) -> list[tuple[int, ...]]:
    """Every ``K``-vector of nonnegative integers with sum at most ``n``."""
    if K == 0:
        return [()]
    return [(a,) + rest for a in range(n + 1) for rest in compositions_at_most(n - a, K - 1)]
