"""Resubstitution (and, on one attribute, the ideal bootstrap) by sums over sufficient statistics.

Naive Bayes sees its training table ``T`` only through the class totals ``n_k`` and, per class, the
marginal counts of every attribute. Resubstitution is ``r(T) = (1/N) sum_c T[c] e_c(T)`` with
``e_c`` a function of those statistics, so its moments need far fewer terms than the
``C(N + cells - 1, cells - 1)`` count tables (docs/mathematics.md, "Resubstitution on sufficient
statistics"). Two routes:

``"rows"`` (one attribute, any number of classes)
    Given the class totals ``n``, class ``k``'s points fall on the inputs as
    ``Multinomial(n_k, P[X = . | Y = k])``, independently across classes, and the prediction at
    ``x`` depends on the row ``T[x, .]`` only. So ``N r = sum_x phi(T[x, .])`` and ``GE_N =
    sum_x psi_x(T[x, .])`` are sums of row functions; ``E[phi(row_x) f(row_x')]`` is the row law
    of ``x`` against ``f`` pushed through the conditional law of row ``x'`` (per class
    ``Binomial(n_k - r_k, theta_{x'k} / (1 - theta_{xk}))``): one small matrix product per class.
    With ``alpha = 0`` the prediction at ``x`` is the largest count of the row, so the ideal
    bootstrap's ``q_c`` is a function of the row of ``x_c`` too (the bootstrap sample's row is
    multinomial given it): ``Err(1)`` and .632 take the same route (ties ``random``, any number of
    classes; two classes also ``first``, :func:`momentbound.exact.tables.bootstrap_fast`).

``"class-states"`` (two classes, any number of attributes)
    Per class ``k`` and total ``n_k``, the law ``L_k`` of the marginal counts and the moments
    ``A_k[m, x] = E[T[x, k] 1{M = m}]``, ``B_k[m, x, x'] = E[T[x, k] T[x', k] 1{M = m}]`` are built
    by adding one point at a time. Given the state pair ``(m_0, m_1)`` every prediction is fixed and
    ``E[(N r)^2 1{m_0, m_1}] = sum g_x g_x' B_0 L_1 + (1 - g_x)(1 - g_x') L_0 B_1 + 2 (A_0 g)(A_1 (1 - g))``;
    a compiled kernel runs over the state pairs of every class split. Pairs of probability below
    ``tail / (number of pairs)`` are skipped, their mass is summed into ``dropped_mass_bound``
    (the results move by at most twice that).

``"row-halves"`` (ideal .632+; one attribute, ``alpha = 0``, where ``Err(1)`` takes the rows)
    .632+ is a nonlinear function of row sums (resubstitution, ``Err(1)``, the class totals and the
    predicted counts): its moments are summed over the tables as pairs of half tables,
    :mod:`momentbound.exact.row_halves`.

Arithmetic is float64 (score comparisons are exact integer comparisons).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, prange
from scipy.special import gammaln
from scipy.stats import binom, multinomial

from momentbound.classifiers.naive_bayes import decision_shares, keys_fit_int64, score_keys
from momentbound.errors import InvalidArgument
from momentbound import guard
from momentbound.model.cells import CellModel
from momentbound.exact.bootstrap_rows import (ROWS_NS, W_CHUNK, StateMoments, bootstrap_row_table, compositions_at_most,
                                             row_bootstrap_applies)

__all__ = ["StateMoments", "route", "work_estimate", "memory_estimate", "state_moments", "STATISTICS",
           "MAX_SECONDS", "NS_PER_OP"]

#: statistics this module sums: resubstitution, the ideal bootstrap ``Err(1)``, .632 and ideal .632+
#: (the last on pairs of half tables, :mod:`momentbound.exact.row_halves`)
STATISTICS = ("resubstitution", "bootstrap", "632", "632plus")
#: default limit on the estimated CPU seconds (:func:`work_estimate` times :data:`NS_PER_OP`)
MAX_SECONDS = 60.0
#: CPU nanoseconds per unit of :func:`work_estimate` of each route. class-states: the estimate counts
#: every state pair, measured 0.29 (two attributes of 2 and 3 values, two classes, N = 40: 6.6e10
#: estimated, 18.9 s CPU); rows and row-halves: the estimate is already in nanoseconds (:data:`ROWS_NS`,
#: :func:`momentbound.exact.row_halves.delta_seconds` and :func:`~momentbound.exact.row_halves.pair_seconds`)
NS_PER_OP = {"rows": 1.0, "class-states": 0.3, "row-halves": 1.0}
#: default limit on the bytes held
MAX_MEMORY = 2 * 2**30
#: bytes of binomial laws and conditional matrices the rows route keeps for the splits that share them
ROW_CACHE = 2**28
WEIGHT = 0.632


def _two_class_ok(model: CellModel, clf: Any, N: int) -> bool:
    return (model.n_classes == 2 and clf.ties in ("random", "first")
            and keys_fit_int64(clf.alpha_exact, model.arities, N, 2))


def route(model: CellModel, clf: Any, statistic: str, N: int) -> str | None:
    """The route for ``statistic`` (one of :data:`STATISTICS`), or ``None`` when none applies."""
    if statistic not in STATISTICS:
        raise InvalidArgument(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    if clf.ties not in ("random", "first"):
        return None
    if statistic == "632plus":
        from momentbound.exact import row_halves

        return "row-halves" if row_halves.applies(model, clf) else None
    if model.d == 1:
        if statistic == "resubstitution":
            return "rows" if keys_fit_int64(clf.alpha_exact, model.arities, N, model.n_classes) else None
        return "rows" if row_bootstrap_applies(model, clf) else None
    if statistic == "resubstitution" and _two_class_ok(model, clf, N):
        return "class-states"
    return None


def _splits(N: int, K: int) -> list[tuple[int, ...]]:
    if K == 1:
        return [(N,)]
    return [(a,) + rest for a in range(N + 1) for rest in _splits(N - a, K - 1)]


def _grid_dims(model: CellModel) -> int:
    return sum(a - 1 for a in model.arities)


def work_estimate(model: CellModel, N: int, statistic: str = "resubstitution", clf: Any = None) -> float:
    """Work of :func:`state_moments`, priced by :data:`NS_PER_OP`: multiply-adds of the class-states route
    (before its skipped pairs), nanoseconds of the rows route."""
    K, V = model.n_classes, model.n_inputs
    if statistic == "632plus":  # nanoseconds: the bootstrap-row table, the half tables and every pair
        from momentbound.exact import row_halves

        return 1e9 * (row_halves.delta_seconds(model, N, clf) + row_halves.pair_seconds(model, N, clf))
    if model.d == 1:  # nanoseconds (:data:`ROWS_NS`)
        splits = math.comb(N + K - 1, K - 1)
        cells = sum(math.prod(v + 1 for v in n) for n in _splits(N, K))
        total = (ROWS_NS["split_pairs"] * splits * V * V + ROWS_NS["split_inputs"] * splits * V * K
                 + ROWS_NS["decisions"] * cells * K * K * V
                 + ROWS_NS["matrices"] * (N + 1) * V * V * K
                 + ROWS_NS["conditionals"] * sum((n + 1) ** 2 for n in range(N + 1)) * V * (V - 1) * K)
        if statistic != "resubstitution":
            total += ROWS_NS["err1_cells"] * cells * K
            if clf is not None and clf.ties == "first":  # two classes: the trinomial miss law of every cell
                total += ROWS_NS["first_cells"] * cells * K
            else:  # the bootstrap-row table: every base row against every sample row
                total += ROWS_NS["row_table"] * math.comb(N - 1 + K, K) * math.comb(N + K, K) * (2 * K + 4)
        return total
    D = _grid_dims(model)
    states = [_states(model, n) for n in range(N + 1)]
    pairs = sum(states[a] * states[N - a] for a in range(N + 1))
    build = 2 * sum((n + 1) ** D * V * (1 + V + V * V) for n in range(N + 1))
    return pairs * (2 * V * V + 12 * V) + build


def _states(model: CellModel, n: int) -> int:
    return math.prod(math.comb(n + a - 1, a - 1) for a in model.arities)


def memory_estimate(model: CellModel, N: int, statistic: str = "resubstitution", clf: Any = None) -> float:
    """Bytes held at the peak (per-class state moments of every total, two dense levels; .632+: the half
    tables, ``N + 1`` more columns with ties ``first``, assumed without ``clf``)."""
    V, K = model.n_inputs, model.n_classes
    if statistic == "632plus":  # the bootstrap-row table and the half tables
        from momentbound.exact import row_halves

        first = K == 2 and (clf is None or clf.ties == "first")
        width = 4 + 2 * K + (N + 1 if first else 0)  # ties 'first' adds N + 1 columns (two classes)
        return (8.0 * (N ** K * K + math.comb(N + K, K) * (2 * K + 2) + 2 * max(W_CHUNK, math.comb(N + K, K)))
                + row_halves.BYTES_PER_HALF * (width + 1) * row_halves.half_work(model, N))
    if model.d == 1:
        grid = max(math.prod(v + 1 for v in n) for n in _splits(N, K))
        table = 0.0
        if statistic != "resubstitution":  # W, the sample rows and two blocks of weights
            table = 8.0 * (N ** K * K + math.comb(N + K, K) * (2 * K + 2) + 2 * max(W_CHUNK, math.comb(N + K, K)))
        shared = min(ROW_CACHE, 8.0 * sum((n + 1) ** 2 for n in range(N + 1)) * V * V * K)
        return 8.0 * grid * (4 * V + 8) + 8.0 * K * (N + 1) ** 2 + table + shared
    D = _grid_dims(model)
    per = 1 + V + V * V
    kept = sum(_states(model, n) for n in range(N + 1)) * (per + V) * 8.0 * 2
    return kept + 4 * 8.0 * (N + 1) ** D * per


def lift_seconds() -> str:
    lim = guard.active()
    if lim is not None and lim.cli:
        return "max_seconds=None"  # the command line's --max-seconds none
    return ("momentbound.exact.resub_states.state_moments(..., max_seconds=None) (estimators: raise "
            "momentbound.exact.resub_states.MAX_SECONDS)")


def state_moments(
    model: CellModel, clf: Any, N: int, statistic: str = "resubstitution", *, tail: float = 1e-13,
    max_seconds: float | None = MAX_SECONDS, max_memory: float | None = MAX_MEMORY,
) -> StateMoments:
    """Exact (float) ``E[est]``, ``E[est^2]`` and ``E[est GE_N]`` of resubstitution, ``Err(1)`` or .632.

    Refuses (``InvalidArgument``) before any work when no route applies, or when the estimated CPU
    seconds (:func:`work_estimate` times :data:`NS_PER_OP`) or bytes (:func:`memory_estimate`) exceed
    ``max_seconds`` / ``max_memory`` (``None``: no limit).
    """
    way = route(model, clf, statistic, N)
    if way is None:
        raise InvalidArgument(
            f"no sufficient-statistic route for {statistic} with this model (d = {model.d}, K = "
            f"{model.n_classes}) and {clf.describe()}: resubstitution needs one attribute or two classes "
            "(ties 'random' or 'first'); Err(1) and .632 need one attribute and alpha = 0 (ties 'random', "
            "or 'first' with two classes), and so does .632+; "
            "use backend='montecarlo'"
        )
    work = work_estimate(model, N, statistic, clf)
    seconds = work * NS_PER_OP[way] * 1e-9
    if max_seconds is not None and seconds > max_seconds:
        raise InvalidArgument(
            f"the exact {statistic} on sufficient statistics at N={N} ({way} route) would take about "
            f"{seconds:.2g} s on one core (limit {max_seconds:g} s); use {guard.option('backend', 'montecarlo')} "
            f"(or {guard.option('backend', 'auto')}), a smaller {guard.option('N')}, or {lift_seconds()} to run it "
            "anyway"
        )
    memory = memory_estimate(model, N, statistic, clf)
    if max_memory is not None and memory > max_memory:
        raise InvalidArgument(
            f"the exact {statistic} on sufficient statistics at N={N} ({way} route) would hold about "
            f"{memory / 2**30:.3g} GiB (limit {max_memory / 2**30:.3g} GiB); use {guard.option('backend', 'montecarlo')} "
            f"or a smaller {guard.option('N')}"
        )
    fm = model.to_float() if model.is_exact else model
    if way == "row-halves":
        from momentbound.exact import row_halves

        return row_halves.state_moments(fm, clf, N, statistic, tail)
    if way == "rows":
        return _rows(fm, clf, N, statistic)
    return _class_states(fm, clf, N, tail)


# ----------------------------------------------------------------------------- one attribute
def _apply_cond(f: np.ndarray, mats: list[np.ndarray]) -> np.ndarray:
    """``sum_{r'} prod_k M_k[r_k, r'_k] f[r', ...]`` (one matrix per leading axis)."""
    for k, M in enumerate(mats):
        f = np.moveaxis(np.tensordot(M, f, axes=([1], [k])), 0, k)
    return f


def _binomial_rows(trials: np.ndarray, n: int, rho: float) -> np.ndarray:
    """``M[i, j] = P[Binomial(trials[i], rho) = j]`` for ``j = 0..n`` (0 past ``trials[i]``), from log
    factorials in one vectorised pass (equal to ``scipy.stats.binom.pmf`` to about 1e-13 relative)."""
    rho = min(max(float(rho), 0.0), 1.0)
    t = np.asarray(trials, dtype=np.int64)[:, None]
    j = np.arange(n + 1)[None, :]
    ok = j <= t
    if rho == 0.0 or rho == 1.0:  # a point mass at 0 or at the number of trials
        return ((j == (0 if rho == 0.0 else t)) & ok).astype(float)
    lf = gammaln(np.arange(max(n, int(t.max(initial=0))) + 1) + 1.0)
    rest = np.where(ok, t - j, 0)
    logm = lf[t] - lf[np.minimum(j, t)] - lf[rest] + j * math.log(rho) + rest * math.log1p(-rho)
    return np.where(ok, np.exp(logm), 0.0)


def _cond_matrix(n: int, rho: float) -> np.ndarray:
    """``M[r, r'] = P[Binomial(n - r, rho) = r']``."""
    return _binomial_rows(n - np.arange(n + 1), n, rho)


def _row_values(fm: CellModel, clf: Any, n: tuple[int, ...], statistic: str,
                W: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """On the grid of rows ``r`` (``prod_k [0, n_k]``): the decision ``D[..., y]``, the statistic's
    per-row value ``phi(r) = sum_y r_y q_y(r)`` and its coin variance."""
    K = len(n)
    axes = np.meshgrid(*[np.arange(v + 1) for v in n], indexing="ij")
    g, scale = decision_shares(clf, fm.arities, list(n), [a[..., None] for a in axes])
    D = np.moveaxis(g / scale, 0, -1)  # grid + (K,)
    r = np.stack(axes, axis=-1).astype(float)
    err = 1.0 - D
    resub = (r * err).sum(axis=-1)
    coin = (r * err * D).sum(axis=-1)
    if statistic == "resubstitution":
        return D, resub, coin
    N = sum(n)
    if clf.ties == "random":
        W = bootstrap_row_table(clf, N, K) if W is None else W
        q = np.zeros(r.shape)
        for y in range(K):
            b = [a - (k == y) for k, a in enumerate(axes)]
            ok = b[y] >= 0
            idx = tuple(np.where(ok, bk, 0) for bk in b)
            q[..., y] = np.where(ok, 1.0 - W[idx + (y,)], 0.0)
    else:  # two classes, ties 'first'
        from momentbound.exact.tables import bootstrap_fast

        flat = np.stack([axes[0], axes[1], n[0] - axes[0], n[1] - axes[1]], axis=-1).reshape(-1, 4)
        q = bootstrap_fast(fm, clf, flat, N)[:, :2].reshape(r.shape)
    err1 = (r * q).sum(axis=-1)
    if statistic == "bootstrap":
        return D, err1, np.zeros_like(err1)
    return D, (1 - WEIGHT) * resub + WEIGHT * err1, (1 - WEIGHT) ** 2 * coin


def _rows(fm: CellModel, clf: Any, N: int, statistic: str) -> StateMoments:
    V, K = fm.n_inputs, fm.n_classes
    P = fm.as_array(float).reshape(V, K)
    pi = P.sum(axis=0)
    theta = np.divide(P, pi, out=np.zeros_like(P), where=pi > 0)
    w = P.sum(axis=1, keepdims=True) - P  # P[X = x, Y != y]
    mean = second = joint = ge1 = ge2 = 0.0
    W = (bootstrap_row_table(clf, N, K) if statistic != "resubstitution" and clf.ties == "random" else None)
    # a class's binomial law and conditional matrices depend on its count only: shared by the splits
    # with that count (three or more classes), kept while they fit in ROW_CACHE bytes (oldest dropped)
    cache: dict[tuple[int, ...], np.ndarray] = {}
    held = [0]

    def kept(key: tuple[int, ...], make: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in cache:
            value = make()
            while cache and held[0] + value.nbytes > ROW_CACHE:
                held[0] -= cache.pop(next(iter(cache))).nbytes
            cache[key] = value
            held[0] += value.nbytes
        return cache[key]

    def binomial(n: int, x: int, k: int) -> np.ndarray:
        return kept((n, x, k), lambda: _binomial_rows(np.array([n]), n, theta[x, k])[0])

    def cond(n: int, x: int, y: int, k: int) -> np.ndarray:
        rho = theta[y, k] / (1.0 - theta[x, k]) if theta[x, k] < 1 else 0.0
        return kept((n, x, y, k), lambda: _cond_matrix(n, rho))

    for n in _splits(N, K):
        pn = float(multinomial.pmf(n, N, pi)) if N > 0 else 1.0
        if not pn > 0:
            continue
        D, phi, coin = _row_values(fm, clf, n, statistic, W)
        psi = np.einsum("...k,xk->...x", D, w)  # GE contribution of every input
        laws = []
        for x in range(V):
            law = np.ones(())
            for k in range(K):
                law = np.multiply.outer(law, binomial(n[k], x, k))
            laws.append(law)
        m1 = s2 = j2 = g1 = g2 = 0.0
        for x in range(V):
            lx = laws[x]
            m1 += float((lx * phi).sum())
            s2 += float((lx * (phi * phi + coin)).sum())
            j2 += float((lx * phi * psi[..., x]).sum())
            g1 += float((lx * psi[..., x]).sum())
            g2 += float((lx * psi[..., x] ** 2).sum())
            others = [y for y in range(V) if y != x]
            if not others:
                continue
            stacked = np.stack([phi] + [psi[..., y] for y in others], axis=-1)
            for i, y in enumerate(others):
                mats = [cond(n[k], x, y, k) for k in range(K)]
                pushed = _apply_cond(stacked[..., [0, 1 + i]], mats)
                s2 += float((lx * phi * pushed[..., 0]).sum())
                j2 += float((lx * phi * pushed[..., 1]).sum())
                g2 += float((lx * psi[..., x] * pushed[..., 1]).sum())
        mean += pn * m1
        second += pn * s2
        joint += pn * j2
        ge1 += pn * g1
        ge2 += pn * g2
    return StateMoments(mean / N, second / (N * N), joint / N, "rows", ge_mean=ge1, ge_second=ge2)


# ----------------------------------------------------------------------------- two classes, any d
def _signatures(model: CellModel) -> np.ndarray:
    """``(X, D)``: the marginal-count increments of a point at each input (last value of every
    attribute implicit)."""
    rows = []
    for x in model.inputs():
        sig: list[int] = []
        for xj, a in zip(x, model.arities):
            sig += [int(xj == v) for v in range(a - 1)]
        rows.append(sig)
    return np.array(rows, dtype=np.int64).reshape(model.n_inputs, -1)


@dataclass
class _ClassLevel:
    L: np.ndarray  # (S,)
    A: np.ndarray  # (S, X)
    B: np.ndarray  # (S, X, X)
    agree: np.ndarray  # (S, X, d): A_j(x) of every state


def _class_levels(model: CellModel, k: int, N: int) -> list[_ClassLevel]:
    """``L``, ``A``, ``B`` of the marginal state of ``n`` class-``k`` points, ``n = 0..N`` (states of
    positive probability only)."""
    X, D = model.n_inputs, _grid_dims(model)
    P = model.as_array(float).reshape(X, -1)[:, k]
    prior = P.sum()
    theta = P / prior if prior > 0 else np.zeros(X)
    sig = _signatures(model)
    inputs = list(model.inputs())
    L = np.ones((1,) * D)
    A = np.zeros((1,) * D + (X,))
    B = np.zeros((1,) * D + (X, X))
    out = [_compact(model, L, A, B, 0, inputs)]
    for n in range(1, N + 1):
        shape = (n + 1,) * D
        L2, A2, B2 = np.zeros(shape), np.zeros(shape + (X,)), np.zeros(shape + (X, X))
        for z in range(X):
            if theta[z] == 0:
                continue
            t = theta[z]
            sl = tuple(slice(s, s + n) for s in sig[z])
            L2[sl] += t * L
            A2[sl] += t * A
            A2[sl + (z,)] += t * L
            B2[sl] += t * B
            B2[sl + (z, slice(None))] += t * A
            B2[sl + (slice(None), z)] += t * A
            B2[sl + (z, z)] += t * L
        L, A, B = L2, A2, B2
        out.append(_compact(model, L, A, B, n, inputs))
    return out


def _compact(model: CellModel, L: np.ndarray, A: np.ndarray, B: np.ndarray, n: int, inputs: list) -> _ClassLevel:
    idx = np.nonzero(L > 0)
    coords = np.stack(idx, axis=-1) if L.ndim else np.zeros((1, 0), dtype=np.int64)
    S = coords.shape[0]
    agree = np.empty((S, len(inputs), model.d), dtype=np.int64)
    start = 0
    for j, a in enumerate(model.arities):
        block = coords[:, start:start + a - 1]
        last = n - block.sum(axis=1)
        for xi, x in enumerate(inputs):
            agree[:, xi, j] = last if x[j] == a - 1 else block[:, x[j]]
        start += a - 1
    return _ClassLevel(L[idx], A[idx], B[idx], agree)


def _base_keys(clf: Any, model: CellModel, level: _ClassLevel, n_k: int) -> np.ndarray:
    """``n_k prod_j (q A_j + p)`` for every state and input (the key without the other class's factor)."""
    keys = score_keys(clf.alpha_exact, model.arities, [n_k], [level.agree])[0]
    return np.asarray(keys, dtype=np.int64)


def _den(clf: Any, model: CellModel, n_k: int) -> int:
    a = clf.alpha_exact
    p, q = a.numerator, a.denominator
    if n_k == 0:
        return 1
    return math.prod(q * n_k + p * ar for ar in model.arities)


@njit(cache=True, parallel=True)
def _pair_sums(L0, A0, B0, k0, L1, A1, B1, k1, lim0, tail1, tie, pge0, pge1):  # pragma: no cover - compiled
    """Per class-0 state: sums over the class-1 states (sorted by ``L1`` descending, cut where
    ``L1 < lim0[i]``) of ``(N r)``, ``(N r)^2``, coin, ``(N r) GE``, the skipped mass, ``GE`` and ``GE^2``."""
    S0, X = A0.shape
    S1 = L1.shape[0]
    out = np.zeros((S0, 7))
    for i in prange(S0):
        G = np.zeros((X, X))
        g = np.zeros(X)
        m = 0.0
        sq = 0.0
        coin = 0.0
        jn = 0.0
        w1 = 0.0
        w2 = 0.0
        l0 = L0[i]
        lim = lim0[i]
        stop = S1
        for j in range(S1):
            if L1[j] < lim:
                stop = j
                break
            l1 = L1[j]
            ge = 0.0
            s0 = 0.0
            s1 = 0.0
            cn = 0.0
            for x in range(X):
                a = k0[i, x]
                b = k1[j, x]
                gx = 1.0 if b > a else (tie if b == a else 0.0)
                g[x] = gx
                ge += pge0[x] * gx + pge1[x] * (1.0 - gx)
                s0 += A0[i, x] * gx
                s1 += A1[j, x] * (1.0 - gx)
                cn += (A0[i, x] * l1 + l0 * A1[j, x]) * gx * (1.0 - gx)
            b1 = 0.0
            for x in range(X):
                hx = 1.0 - g[x]
                if g[x] != 0.0:
                    for y in range(X):
                        G[x, y] += l1 * g[x] * g[y]
                if hx != 0.0:
                    for y in range(X):
                        b1 += B1[j, x, y] * hx * (1.0 - g[y])
            v = l1 * s0 + l0 * s1
            m += v
            jn += v * ge
            w1 += l1 * ge
            w2 += l1 * ge * ge
            coin += cn
            sq += l0 * b1 + 2.0 * s0 * s1
        for x in range(X):
            for y in range(X):
                sq += B0[i, x, y] * G[x, y]
        out[i, 0] = m
        out[i, 1] = sq
        out[i, 2] = coin
        out[i, 3] = jn
        out[i, 4] = l0 * tail1[stop] if stop < S1 else 0.0
        out[i, 5] = l0 * w1
        out[i, 6] = l0 * w2
    return out


def _class_states(fm: CellModel, clf: Any, N: int, tail: float) -> StateMoments:
    X = fm.n_inputs
    P = fm.as_array(float).reshape(X, 2)
    pi = P.sum(axis=0)
    levels = [_class_levels(fm, k, N) for k in range(2)]
    base = [[_base_keys(clf, fm, lv, n) for n, lv in enumerate(levels[k])] for k in range(2)]
    order1 = [np.argsort(-lv.L, kind="stable") for lv in levels[1]]
    pairs = sum(len(levels[0][a].L) * len(levels[1][N - a].L) for a in range(N + 1))
    thr = tail / max(pairs, 1)
    tie = 0.5 if clf.ties == "random" else 0.0
    totals = np.zeros(7)
    for a in range(N + 1):
        b = N - a
        ps = float(binom.pmf(a, N, pi[0]))
        if not ps > 0:
            continue
        lv0, lv1 = levels[0][a], levels[1][b]
        o = order1[b]
        L1, A1, B1 = lv1.L[o], lv1.A[o], lv1.B[o]
        k0 = base[0][a] * _den(clf, fm, b)
        k1 = base[1][b][o] * _den(clf, fm, a)
        if clf.ties == "first":  # an absent class is never chosen over a present one
            if a == 0:
                k0 = np.full_like(k0, -1)
            if b == 0:
                k1 = np.full_like(k1, -1)
        tail1 = np.concatenate([np.cumsum(L1[::-1])[::-1], [0.0]])
        with np.errstate(divide="ignore"):
            lim0 = np.where(lv0.L > 0, thr / (ps * lv0.L), np.inf)
        out = _pair_sums(lv0.L, lv0.A, lv0.B, k0, L1, A1, B1, k1, lim0, tail1, tie,
                         np.ascontiguousarray(P[:, 0]), np.ascontiguousarray(P[:, 1]))
        totals += ps * out.sum(axis=0)
    m, sq, coin, jn, dropped, g1, g2 = totals
    return StateMoments(m / N, (sq + coin) / (N * N), jn / N, "class-states", float(dropped), float(g1), float(g2))
