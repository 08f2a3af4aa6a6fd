"""Ideal .632+ (and resubstitution, ``Err(1)``, .632) on one attribute by pairs of half tables.

With one attribute, ``alpha = 0`` and ties ``random`` the prediction at input ``x`` is the largest
count of the row ``T[x, .]`` (ties shared equally, every class keyed 0 on an empty row), and the
ideal bootstrap's miss probability ``q_y`` of a point of class ``y`` at ``x`` is a function of that
row too (:func:`momentbound.exact.bootstrap_rows.bootstrap_row_table`); with ties ``first`` and two
classes, of the row and the class-1 total (:func:`_row_stats`). So every ingredient of .632+
is a sum of row functions over the ``V`` rows: ``N err``, ``N Err(1)``, the class totals ``n_k``,
the predicted counts ``m_k = sum_x T_x g_x(k)`` (``gamma = 1 - sum_k n_k m_k / N^2``) and
``GE_N``; and ``P[T] = N! prod_x prod_k P_xk^T_xk / T_xk!`` is a product of row factors. The
estimate is a nonlinear function of those sums, so its moments are sums over tables, enumerated
as pairs of halves (the rows of the first ``floor(V / 2)`` inputs, the rest) met by their totals;
each half's summed statistics are precomputed, the compiled kernel only adds them and evaluates
.632+ (docs/mathematics.md, ".632+ on one attribute by pairs of half tables").

Pairs of probability below a threshold are skipped: each half of total ``N - s`` is sorted by
probability, the loop over it stops at the first pair below the threshold and the rest of that
half's mass (a suffix sum) is added to ``dropped_mass_bound``. The threshold is the largest (within a
factor ``10^0.1``) whose skipped mass is at most ``tail``; the estimate lies in ``[0, 1]``, so the
mean, the second moment and the joint term with ``GE_N`` each move by at most the dropped mass.

Arithmetic is float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import njit, prange
from scipy.special import gammaln

from momentbound.errors import InvalidArgument
from momentbound.model.cells import CellModel

__all__ = ["HalfTables", "applies", "half_states", "half_work", "pair_count", "half_moments", "threshold",
           "state_moments", "delta_inputs", "delta_seconds", "pair_seconds", "STATISTICS",
           "NS_PER_PAIR", "NS_PER_HALF", "BYTES_PER_HALF", "NS_PER_TOTAL",
           "NS_PER_FIRST_COLUMN", "NS_PER_GROUP_TERM", "NS_PER_GROUP_STATE",
           "NS_PER_GRAM_STATE", "NS_PER_PAIR_COLUMN", "NS_PER_HALF_COLUMN"]

#: statistics of the kernel, by code: resubstitution, ``Err(1)``, .632, .632+
STATISTICS = ("resubstitution", "bootstrap", "632", "632plus")
#: CPU nanoseconds per pair of halves the kernel visits, .632+ (4.0-4.2 on model (b) of
#: ``benchmarks/bench_resub_multiattr.py`` at N = 26-30 and a 3-valued attribute at N = 120 with the default
#: threads, ``benchmarks/bench_632plus_halves_estimate.py``). The estimate counts every pair: skipping a 1e-13
#: tail leaves 97% of them there (N = 30)
NS_PER_PAIR = 4.5
#: CPU nanoseconds per half state and column of its statistics read by the pair loop (its order, tails and
#: columns; 12.7 measured with ties ``first``, where the ``N + 1`` correction columns dominate)
NS_PER_PAIR_COLUMN = 12.7
#: CPU nanoseconds per half state built, plus :data:`NS_PER_HALF_COLUMN` per column of its statistics
#: (measured 290-325 with 8-10 columns, 1340 with 84)
NS_PER_HALF = 180.0
NS_PER_HALF_COLUMN = 14.0
#: bytes per half state and column of its statistics (``5 + 2K`` with the weight) held at the peak: the
#: kept copy and the one being built (measured peak 754 MB at N = 30, K = 3 with 3.9e6 half states)
BYTES_PER_HALF = 16.0
#: CPU nanoseconds per total of the pair loop (starting the compiled kernel's threads; measured 1-16 ms per
#: total on two cores under load 2.2, ``benchmarks/bench_632plus_halves_estimate.py``)
NS_PER_TOTAL = 5e6
#: ties ``first``: CPU nanoseconds per row and class-1 total of the bootstrap's correction columns (59-155)
NS_PER_FIRST_COLUMN = 130.0
#: ties ``first``: CPU nanoseconds per ``(N + 1)^3`` of the Gram matrices per group and class-1 total and of
#: their sums over pairs of groups (:func:`_delta_sums`; measured 179-194 at N = 200-400 with two values), plus
#: :data:`NS_PER_GROUP_STATE` per half state and class-1 total (9 with three values, N = 75)
NS_PER_GROUP_TERM = 180.0
NS_PER_GROUP_STATE = 9.0
#: ties ``random``: CPU nanoseconds per half state of its Gram matrix (60-90)
NS_PER_GRAM_STATE = 70.0
#: halves of the second group per block of the pair loop (512-8192 measure the same)
_BLOCK = 2048


def applies(model: CellModel, clf: Any) -> bool:
    """One attribute and ``alpha = 0``, ties ``random`` (every class count) or ``first`` with two classes:
    the route of ``Err(1)`` on rows (:func:`momentbound.exact.bootstrap_rows.row_bootstrap_applies`)."""
    from momentbound.exact.bootstrap_rows import row_bootstrap_applies

    return row_bootstrap_applies(model, clf)


def _width(model: CellModel, clf: Any, N: int) -> int:
    """Columns of a half state's statistics: ``[N err, N Err(1), coin, GE, n, m]`` and, with ties ``first``,
    the ``N + 1`` values of the bootstrap's correction (:func:`_row_stats`)."""
    return _width_of(model.n_classes, N, clf.ties == "first")


def _width_of(K: int, N: int, first: bool) -> int:
    return 4 + 2 * K + (N + 1 if first else 0)


def _groups(V: int) -> tuple[list[int], list[int]]:
    h = V // 2
    return list(range(h)), list(range(h, V))


def delta_seconds(model: CellModel, N: int, clf: Any = None) -> float:
    """Estimated CPU seconds of :func:`delta_inputs`: the bootstrap-row table, the row statistics (ties
    ``first``: their ``N + 1`` columns), the half tables and the sums over pairs of groups (ties ``first``;
    ``clf=None`` assumes ``first`` with two classes, as :func:`momentbound.exact.resub_states.memory_estimate`)."""
    from momentbound.exact.bootstrap_rows import ROWS_NS

    K = model.n_classes
    first = K == 2 and (clf is None or clf.ties == "first")
    rows, halves = math.comb(N + K, K), half_work(model, N)
    ns = (ROWS_NS["row_table"] * math.comb(N - 1 + K, K) * rows * (2 * K + 4)
          + (NS_PER_HALF + NS_PER_HALF_COLUMN * _width_of(K, N, first)) * halves)
    if first:
        ns += (NS_PER_FIRST_COLUMN * rows * (N + 1) + NS_PER_GROUP_TERM * (N + 1) ** 3
               + NS_PER_GROUP_STATE * halves * (N + 1))
    else:
        ns += NS_PER_GRAM_STATE * halves
    return 1e-9 * ns


def pair_seconds(model: CellModel, N: int, clf: Any = None) -> float:
    """Estimated CPU seconds of the loop over pairs of halves (:func:`threshold`, :func:`half_moments`): every
    pair, every half state's columns, and the kernel's start per total."""
    K = model.n_classes
    first = K == 2 and (clf is None or clf.ties == "first")
    return 1e-9 * (NS_PER_PAIR * pair_count(model, N) + NS_PER_TOTAL * (N + 1)
                   + NS_PER_PAIR_COLUMN * _width_of(K, N, first) * half_work(model, N))


def half_work(model: CellModel, N: int) -> int:
    """Half states of both groups (all totals ``0..N``): ``C(N + |g| K, |g| K)`` per group."""
    K = model.n_classes
    return sum(math.comb(N + len(g) * K, len(g) * K) for g in _groups(model.n_inputs))


def pair_count(model: CellModel, N: int) -> int:
    """Pairs of halves without skipping: the number of count tables ``C(N + VK - 1, VK - 1)``."""
    cells = model.n_inputs * model.n_classes
    return math.comb(N + cells - 1, cells - 1)


def _compositions(n: int, K: int) -> np.ndarray:
    """Every ``K``-vector of nonnegative integers with sum at most ``n`` (rows)."""
    from momentbound.exact.bootstrap_rows import compositions_at_most

    return np.array(compositions_at_most(n, K), dtype=np.int64).reshape(-1, K)


def _row_stats(fm: CellModel, clf: Any, N: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per input, over the rows ``r`` of sum at most ``N`` and positive probability: the log factor
    ``sum_k r_k log P_xk - log r_k!``, the statistics ``[N err, N Err(1), coin, GE, n_0.., m_0..]``
    (``coin`` the tie coins' variance of ``N err``, ``GE`` the row's share of ``GE_N``) and the row sums.

    Ties ``first`` (two classes): the rows decide ``0`` when ``r_0 >= r_1``, as when both classes are
    present. A bootstrap sample without class 0 predicts 1 instead where it drew no point at ``x``, with
    probability ``((n_1 - r_1) / (N - 1))^N`` given the data (every draw a class-1 point away from ``x``):
    ``N Err(1)`` gains ``sum_x (r_0 - r_1) ((n_1 - r_1) / (N - 1))^N``, a function of the row and the class-1
    total, appended as ``N + 1`` columns (one per ``n_1``). A table without class 0 predicts 1 everywhere
    (``GE_N = P[Y = 0]``, set by the kernel)."""
    from momentbound.classifiers.naive_bayes import decision_shares
    from momentbound.exact.bootstrap_rows import bootstrap_row_table

    V, K = fm.n_inputs, fm.n_classes
    P = fm.as_array(float).reshape(V, K)
    wrong = P.sum(axis=1, keepdims=True) - P  # P[X = x, Y != k]
    rows = _compositions(N, K)
    g, scale = decision_shares(clf, (K,), [N] * K, [rows[:, k:k + 1] for k in range(K)])
    D = (g / scale).T  # (rows, K): the classifier's share of every class at an input with this row
    r = rows.astype(float)
    miss = 1.0 - D
    resub = (r * miss).sum(axis=1)
    coin = (r * miss * D).sum(axis=1)
    W = bootstrap_row_table(clf, N, K)
    q = np.zeros(r.shape)
    for y in range(K):
        b = rows.copy()
        b[:, y] -= 1
        ok = b[:, y] >= 0
        idx = tuple(np.where(ok, b[:, k], 0) for k in range(K))
        q[:, y] = np.where(ok, 1.0 - W[idx + (y,)], 0.0)
    err1 = (r * q).sum(axis=1)
    m = r.sum(axis=1)[:, None] * D
    lf = gammaln(rows + 1.0).sum(axis=1)
    out = []
    for x in range(V):
        with np.errstate(divide="ignore"):
            logp = np.log(P[x])
        possible = np.all((rows == 0) | (P[x] > 0), axis=1)
        logw = np.where(possible, (rows * np.where(P[x] > 0, logp, 0.0)).sum(axis=1) - lf, -np.inf)
        stats = np.column_stack([resub, err1, coin, D @ wrong[x], r, m] + _first_columns(clf, rows, N))
        out.append((logw[possible], stats[possible], rows[possible].sum(axis=1)))
    return out


def _first_columns(clf: Any, rows: np.ndarray, N: int) -> list[np.ndarray]:
    """Ties ``first``: ``(r_0 - r_1) ((n_1 - r_1) / (N - 1))^N`` for ``n_1 = 0..N`` (0 below ``r_1``)."""
    if clf.ties != "first":
        return []
    n1 = np.arange(N + 1)[None, :]
    r0, r1 = rows[:, :1], rows[:, 1:2]
    share = np.clip(n1 - r1, 0, None) / max(N - 1, 1)
    return [(r0 - r1) * share ** N]


@dataclass
class HalfTables:
    """The half states of one group of inputs, per total ``s``: ``logw[s]`` (the log of
    ``s! prod P^T / T!`` over its rows, at most 0), ``stats[s]`` (summed row statistics) and their
    row sums ``s``; sorted by probability, largest first."""

    logw: list[np.ndarray]
    stats: list[np.ndarray]
    #: ties ``first``: ``GE_N`` of the tables without class 0 (``P[Y = 0]``); ``None`` for ties ``random``
    ge0: float | None = None


def half_states(fm: CellModel, clf: Any, N: int) -> tuple[HalfTables, HalfTables]:
    """The two groups' half states (float model)."""
    width = _width(fm, clf, N)
    per = _row_stats(fm, clf, N)
    halves = []
    for group in _groups(fm.n_inputs):
        logw: list[np.ndarray] = [np.zeros(1)] + [np.zeros(0)] * N
        stats: list[np.ndarray] = [np.zeros((1, width))] + [np.zeros((0, width))] * N
        for x in group:
            lw_x, st_x, sum_x = per[x]
            new_w: list[list[np.ndarray]] = [[] for _ in range(N + 1)]
            new_s: list[list[np.ndarray]] = [[] for _ in range(N + 1)]
            by_total = [np.nonzero(sum_x == u)[0] for u in range(N + 1)]
            for t in range(N + 1):
                if len(logw[t]) == 0:
                    continue
                for u in range(N + 1 - t):
                    sel = by_total[u]
                    if len(sel) == 0:
                        continue
                    a, b = len(logw[t]), len(sel)
                    new_w[t + u].append((logw[t][:, None] + lw_x[sel][None, :]).reshape(-1))
                    new_s[t + u].append((stats[t][:, None, :] + st_x[sel][None, :, :]).reshape(a * b, -1))
            logw = [np.concatenate(w) if w else np.zeros(0) for w in new_w]
            stats = [np.concatenate(s) if s else np.zeros((0, width)) for s in new_s]
        for s in range(N + 1):
            order = np.argsort(-logw[s], kind="stable")
            logw[s] = logw[s][order] + gammaln(s + 1.0)
            stats[s] = np.ascontiguousarray(stats[s][order])
        ge0 = float(fm.as_array(float).reshape(-1, fm.n_classes)[:, 0].sum()) if clf.ties == "first" else None
        halves.append(HalfTables(logw, stats, ge0))
    return halves[0], halves[1]


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def _pairs(ca, SA, wB, SB, stop, order, N, K, code, block, first, ge0):  # pragma: no cover - compiled
    """Per half ``a``: sums over ``b < stop[a]`` (``b`` sorted by ``w_b`` descending) of ``w_b``, ``w_b f``,
    ``w_b (f^2 + coin)``, ``w_b f GE``, ``w_b GE``, ``w_b GE^2``; ``b`` in blocks of ``block`` (the inner
    loops run over a block), the halves ``a`` in the ``order`` that deals the long loops to every thread.
    ``first``: ties ``first`` with two classes (the correction columns of ``Err(1)``; ``GE_N = ge0`` without
    class 0)."""
    nA = ca.shape[0]
    nB = wB.shape[0]
    a632 = 0.632
    b368 = 1.0 - a632
    inv = 1.0 / N
    inv2 = inv * inv
    acc = np.zeros((nA, 6))
    for ii in prange(nA):
        i = order[ii]
        rA = SA[i, 0]
        eA = SA[i, 1]
        cA = SA[i, 2]
        gA = SA[i, 3]
        dA = 0.0
        for k in range(K):
            dA += SA[i, 4 + k] * SA[i, 4 + K + k]
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        s4 = 0.0
        s5 = 0.0
        nm = np.empty(block)
        ex = np.empty(block)
        gx = np.empty(block)
        for j0 in range(0, stop[i], block):
            jend = min(j0 + block, stop[i])
            if first:  # Err(1)'s correction at n_1 and GE_N without class 0, in place in the block's columns
                for j in range(j0, jend):
                    n1 = int(SA[i, 5] + SB[5, j] + 0.5)
                    ex[j - j0] = (eA + SB[1, j] + SA[i, 8 + n1] + SB[9 + n1, j]) * inv  # K = 2
                    gx[j - j0] = ge0 if SA[i, 4] + SB[4, j] == 0.0 else gA + SB[3, j]
            else:
                for j in range(j0, jend):
                    ex[j - j0] = (eA + SB[1, j]) * inv
                    gx[j - j0] = gA + SB[3, j]
            if code == 3:
                # gamma = 1 - n.m / N^2 with n.m = nA.mA + nB.mB + nA.mB + nB.mA: innermost loops over j
                for j in range(j0, jend):
                    nm[j - j0] = dA + SB[4 + 2 * K, j]
                for k in range(K):
                    na = SA[i, 4 + k]
                    ma = SA[i, 4 + K + k]
                    for j in range(j0, jend):
                        nm[j - j0] += na * SB[4 + K + k, j] + ma * SB[4 + k, j]
                for j in range(j0, jend):
                    wb = wB[j]
                    r = (rA + SB[0, j]) * inv
                    e = ex[j - j0]
                    ge = gx[j - j0]
                    gam = 1.0 - nm[j - j0] * inv2
                    # R' = u / v: (Err1' - err) .368 .632 R' / (1 - .368 R') = ab u^2 / (v - b u), without branches
                    u = (e if e < gam else gam) - r
                    v = gam - r
                    ok = 1.0 if (e > r) & (v > 0.0) else 0.0
                    den = v - b368 * u
                    f = b368 * r + a632 * e + ok * (b368 * a632 * u * u / (den if ok > 0.0 else 1.0))
                    s0 += wb
                    s1 += wb * f
                    s2 += wb * f * f
                    s3 += wb * f * ge
                    s4 += wb * ge
                    s5 += wb * ge * ge
            else:
                wr = 1.0 if code == 0 else (b368 if code == 2 else 0.0)
                we = 1.0 if code == 1 else (a632 if code == 2 else 0.0)
                for j in range(j0, jend):
                    wb = wB[j]
                    f = wr * (rA + SB[0, j]) * inv + we * ex[j - j0]
                    coin = wr * wr * (cA + SB[2, j]) * inv2
                    ge = gx[j - j0]
                    s0 += wb
                    s1 += wb * f
                    s2 += wb * (f * f + coin)
                    s3 += wb * f * ge
                    s4 += wb * ge
                    s5 += wb * ge * ge
        acc[i, 0] = s0
        acc[i, 1] = s1
        acc[i, 2] = s2
        acc[i, 3] = s3
        acc[i, 4] = s4
        acc[i, 5] = s5
    return acc


def _log_choose(N: int, s: int) -> float:
    return float(gammaln(N + 1.0) - gammaln(s + 1.0) - gammaln(N - s + 1.0))


def _tails(A: HalfTables, B: HalfTables, N: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Per total ``s``: the sorted ``-w_b`` of the half of total ``N - s``, its suffix sums, ``log C(N, s)``."""
    out = []
    for s in range(N + 1):
        wB = np.exp(B.logw[N - s])
        tail = np.concatenate([np.cumsum(wB[::-1])[::-1], [0.0]])
        out.append((-wB, tail, _log_choose(N, s)))
    return out


def _stops(A: HalfTables, tails: list, s: int, thr: float) -> tuple[np.ndarray, np.ndarray]:
    """``C(N, s) w_a`` of the halves of total ``s`` and, per half, the number of halves ``b`` of the other
    total with ``C(N, s) w_a w_b >= thr``."""
    neg, _, lc = tails[s]
    ca = np.exp(lc + A.logw[s])
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        stop = np.searchsorted(neg, -thr / ca, side="right") if thr > 0 else np.full(len(ca), len(neg))
    return ca, stop


def _skipped(A: HalfTables, tails: list, N: int, thr: float) -> tuple[float, int]:
    """The mass of the pairs below ``thr`` and the number of pairs at or above it."""
    dropped, kept = 0.0, 0
    for s in range(N + 1):
        if len(A.logw[s]) == 0 or len(tails[s][0]) == 0:
            continue
        ca, stop = _stops(A, tails, s, thr)
        dropped += float((ca * tails[s][1][stop]).sum())
        kept += int(stop.sum())
    return dropped, kept


def threshold(A: HalfTables, B: HalfTables, N: int, tail: float) -> tuple[float, float, int]:
    """``(thr, dropped, kept pairs)``: the largest threshold on a 0.1-decade grid whose skipped mass is at
    most ``tail`` (``0``: every pair, when ``tail`` is 0)."""
    tails = _tails(A, B, N)
    if tail <= 0:
        return 0.0, 0.0, _skipped(A, tails, N, 0.0)[1]
    lo, hi = -400.0, 0.0  # log10 thresholds: lo skips nothing (of this mass), hi everything
    best = (0.0, 0.0, _skipped(A, tails, N, 0.0)[1])
    for _ in range(12):
        mid = (lo + hi) / 2
        dropped, kept = _skipped(A, tails, N, 10.0**mid)
        if dropped <= tail:
            lo, best = mid, (10.0**mid, dropped, kept)
        else:
            hi = mid
        if hi - lo < 0.1:
            break
    return best


def _columns(stats: np.ndarray, K: int) -> np.ndarray:
    """The half statistics column by column, with ``n . m`` inserted as row ``4 + 2K`` (the correction
    columns of ties ``first``, if any, after it)."""
    dot = (stats[:, 4:4 + K] * stats[:, 4 + K:4 + 2 * K]).sum(axis=1)
    return np.ascontiguousarray(np.column_stack([stats[:, :4 + 2 * K], dot, stats[:, 4 + 2 * K:]]).T)


def half_moments(A: HalfTables, B: HalfTables, N: int, K: int, statistic: str,
                 thr: float) -> tuple[np.ndarray, float]:
    """``[sum p, E[est], E[est^2], E[est GE_N], E[GE_N], E[GE_N^2]]`` over the pairs at or above ``thr``,
    and the skipped mass."""
    if statistic not in STATISTICS:
        raise InvalidArgument(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    code = STATISTICS.index(statistic)
    first = A.ge0 is not None
    ge0 = A.ge0 if first else 0.0
    tails = _tails(A, B, N)
    total = np.zeros(6)
    dropped = 0.0
    for s in range(N + 1):
        if len(A.logw[s]) == 0 or len(tails[s][0]) == 0:
            continue
        ca, stop = _stops(A, tails, s, thr)
        threads = numba.get_num_threads()
        order = np.concatenate([np.arange(t, len(ca), threads) for t in range(threads)])  # a round-robin deal
        acc = _pairs(ca, A.stats[s], -tails[s][0], _columns(B.stats[N - s], K), stop.astype(np.int64), order,
                     float(N), K, code, _BLOCK, first, ge0)
        total += ca @ acc
        dropped += float((ca * tails[s][1][stop]).sum())
    return total, dropped


def state_moments(fm: CellModel, clf: Any, N: int, statistic: str = "632plus", tail: float = 1e-13) -> Any:
    """``E[est]``, ``E[est^2]`` and ``E[est GE_N]`` (with ``E[GE_N]``, ``E[GE_N^2]``) of ``statistic``
    (:data:`STATISTICS`) for a float model, as a :class:`momentbound.exact.bootstrap_rows.StateMoments`; the
    refusals and guards are :func:`momentbound.exact.resub_states.state_moments`'. The skipped mass is at
    most ``tail``. .632+ also keeps the inputs of its delta-method approximation (:func:`delta_inputs`,
    from the same half tables, every table counted)."""
    from momentbound.exact.bootstrap_rows import StateMoments

    if not applies(fm, clf):
        raise InvalidArgument("pairs of half tables need one attribute, alpha = 0 and ties 'random' (or 'first' "
                              "with two classes)")
    A, B = half_states(fm, clf, N)
    thr, _, _ = threshold(A, B, N, tail)
    total, dropped = half_moments(A, B, N, fm.n_classes, statistic, thr)
    _, m, s2, j, g1, g2 = (float(v) for v in total)
    delta = _delta_sums(A, B, N, fm.n_classes) if statistic == "632plus" else None
    return StateMoments(m, s2, j, "row-halves", float(dropped), g1, g2, delta)


# ----------------------------------------------------------------------------- delta-method inputs
def _features(stats: np.ndarray, K: int) -> np.ndarray:
    """Per half state ``phi = [1, N err, N Err(1), n_0.., m_0.., n . m]`` (``L = 4 + 2K`` columns)."""
    dot = (stats[:, 4:4 + K] * stats[:, 4 + K:4 + 2 * K]).sum(axis=1)
    return np.column_stack([np.ones(len(stats)), stats[:, :2], stats[:, 4:4 + 2 * K], dot])


def _forms(N: int, K: int) -> np.ndarray:
    """``C[X]`` with ``X(a, b) = phi_a' C[X] phi_b`` for ``X = err, Err(1), gamma`` of the table of halves
    ``a`` and ``b``: ``gamma = 1 - (n_a . m_a + n_b . m_b + n_a . m_b + m_a . n_b) / N^2``."""
    L = 4 + 2 * K
    C = np.zeros((3, L, L))
    C[0, 1, 0] = C[0, 0, 1] = 1.0 / N
    C[1, 2, 0] = C[1, 0, 2] = 1.0 / N
    C[2, 0, 0] = 1.0
    C[2, L - 1, 0] = C[2, 0, L - 1] = -1.0 / N**2
    for k in range(K):
        C[2, 3 + k, 3 + K + k] = C[2, 3 + K + k, 3 + k] = -1.0 / N**2
    return C


def _gram(H: HalfTables, s: int, N: int, K: int, first: bool) -> tuple[np.ndarray, np.ndarray]:
    """``M[g, t] = sum_a w_a phi_a phi_a'`` over the halves of total ``s``, ``g`` their class-1 total (ties
    ``first``; else one group ``0``) and ``t`` the table's class-1 total that ``N Err(1)`` is read at (``phi``'s
    Err(1) column with the correction of that ``n_1``; else one ``t = 0``); and the groups present."""
    L = 4 + 2 * K
    stats, w = H.stats[s], np.exp(H.logw[s])
    phi = _features(stats, K)
    if not first:
        return ((phi * w[:, None]).T @ phi)[None, None], np.zeros(1, dtype=np.int64)
    n1 = np.rint(stats[:, 5]).astype(np.int64)
    groups = np.unique(n1)
    M = np.zeros((len(groups), N + 1, L, L))
    for i, g in enumerate(groups):
        sel = n1 == g
        p, wg = phi[sel], w[sel]
        E = stats[sel, 1:2] + stats[sel, 8:9 + N]  # N Err(1) of the half at every class-1 total of the table
        base = (p * wg[:, None]).T @ p
        Q = (p * wg[:, None]).T @ E  # (L, N + 1)
        M[i] = base
        M[i, :, :, 2] = Q.T
        M[i, :, 2, :] = Q.T
        M[i, :, 2, 2] = wg @ (E * E)
    return M, groups


def delta_inputs(fm: CellModel, clf: Any, N: int) -> tuple[np.ndarray, np.ndarray]:
    """``E[v]`` and ``E[v v']`` of ``v = (err, Err(1), gamma)`` (tie coins as their probabilities), the inputs
    of the delta-method approximation of .632+, from the same half tables as :func:`state_moments`.

    Each of the three is a bilinear form ``phi_a' C phi_b`` in the features of the two halves, so over the
    pairs of totals ``s`` and ``N - s`` (ties ``first``: and class-1 totals) the sums factor:
    ``sum_{a,b} w_a w_b X Y = tr(C_X M_B C_Y' M_A)`` with ``M = sum w phi phi'`` (docs/mathematics.md,
    "The delta-method approximation past the table limit"). Every table counts: no pair is skipped."""
    if not applies(fm, clf):
        raise InvalidArgument("pairs of half tables need one attribute, alpha = 0 and ties 'random' (or 'first' "
                              "with two classes)")
    return _delta_sums(*half_states(fm, clf, N), N, fm.n_classes)


def _terms(C: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The products the sums read, as ``M_A[l, i] M_B[j, k]`` with a weight and an output.

    With ``C`` sparse, ``tr(C_X M_B C_Y' M_A) = sum C_X[i, j] C_Y[l, k] M_A[l, i] M_B[j, k]`` over the nonzero
    entries, ``phi_a' C_X phi_b`` summed is ``sum C_X[i, j] M_A[i, 0] M_B[j, 0]`` and the mass is
    ``M_A[0, 0] M_B[0, 0]``. Returns the indices ``(l, i, j, k)`` (rows), the weights and the outputs
    (``0..2`` the mean, ``3 + 3 X + Y`` the second moment, ``12`` the mass)."""
    X, I, J = np.nonzero(C)
    idx, wts, outs = [(0, 0, 0, 0)], [1.0], [12]
    for x, i, j in zip(X, I, J):
        idx.append((i, 0, j, 0)), wts.append(C[x, i, j]), outs.append(x)
        for y, l, k in zip(X, I, J):
            idx.append((l, i, j, k)), wts.append(C[x, i, j] * C[y, l, k]), outs.append(3 + 3 * x + y)
    return np.array(idx, dtype=np.int64), np.array(wts), np.array(outs, dtype=np.int64)


@njit(cache=True)
def _pair_terms(MA, gA, MB, gB, first, idx, wts, outs):  # pragma: no cover - compiled
    """``sum_{pairs of groups} w M_A[g_A, t][l, i] M_B[g_B, t][j, k]`` per output (ties ``first``: ``t = g_A + g_B``,
    else ``0``)."""
    out = np.zeros(13)
    for a in range(len(gA)):
        for b in range(len(gB)):
            t = gA[a] + gB[b] if first else 0
            A, B = MA[a, t], MB[b, t]
            for e in range(len(wts)):
                out[outs[e]] += wts[e] * A[idx[e, 0], idx[e, 1]] * B[idx[e, 2], idx[e, 3]]
    return out


def _delta_sums(A: HalfTables, B: HalfTables, N: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`delta_inputs` from the two groups' half states: per pair of totals, the products of the entries
    of the Gram matrices that :func:`_terms` names, summed over the pairs of groups (:func:`_pair_terms`)."""
    first = A.ge0 is not None
    idx, wts, outs = _terms(_forms(N, K))
    out = np.zeros(13)
    for s in range(N + 1):
        if len(A.logw[s]) == 0 or len(B.logw[N - s]) == 0:
            continue
        MA, gA = _gram(A, s, N, K, first)
        MB, gB = _gram(B, N - s, N, K, first)
        out += math.exp(_log_choose(N, s)) * _pair_terms(MA, gA, MB, gB, first, idx, wts, outs)
    mean, second, mass = out[:3], out[3:12].reshape(3, 3), out[12]
    if not math.isclose(mass, 1.0, rel_tol=1e-9):  # pragma: no cover - a broken half table
        raise AssertionError(f"the pairs of half tables hold mass {mass!r}, not 1")
    return mean, (second + second.T) / 2
