"""Exact cross-validation cross term of naive Bayes on reduced states (any ``d``, any ``K``).

For a test point ``t`` of fold ``i`` and ``u`` of fold ``j``, the classifier of fold ``i`` is
trained on ``T_i = C + B' + u`` and that of fold ``j`` on ``T_j = C + A' + t``: ``C`` the points of
the other folds (``n_common``), ``A'`` and ``B'`` the other points of folds ``i`` and ``j``. Given
``C``, ``t`` and ``u`` the two private parts are independent, so (docs/mathematics.md, section
'The multi-attribute cross term')::

    P[err_t(T_i) and err_u(T_j)] = sum_C P(C) h_t(C + u) h'_u(C + t),
    h_t(D) = P[err_t(D + S)],  S an iid sample of |B'| points (h' of |A'| points).

Naive Bayes sees a training set only through its *reduced state*: the class totals ``n_k`` and,
per class, the marginal counts of every attribute value. The prediction at an input ``x`` needs
even less: the class totals and the agreement counts ``A_jk(x) = N_{j, x^j, k}``, so ``h_x`` lives
on the grid ``prod_k [0, n_k]^d`` (all of it is feasible), whatever the arities. On that grid
``h`` is computed by the lower recursion ``U_m(D) = sum_k pi_k sum_sigma q_{k,x}(sigma)
U_{m+1}(D + (k, sigma))`` (``sigma`` the set of attributes on which an added class-``k`` point
agrees with ``x``, ``q_{k,x}`` its class-conditional probability), from the training size down
``|S|`` steps; the top level is the classifier's own decision (:func:`decide_grid`, exact integer
score keys and the tie rule). Two classes are streamed slice by slice over the class-0 total (at
most one slice per level is held), so memory stays small. The sum over ``C`` runs over the class
splits and the per-class marginal-count laws of ``C`` (:func:`momentbound.exact.predictions.class_laws`)
in a compiled kernel that looks ``h`` up at ``C + u`` for every cell ``u``.

Arithmetic is float64 (the comparisons of scores stay exact integer comparisons); the
``rational`` mode of the exact backend keeps using :func:`momentbound.exact.predictions.cross_probabilities`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np
from numba import njit, prange

from momentbound.classifiers.naive_bayes import NaiveBayes, keys_fit_int64, score_keys
from momentbound.exact.predictions import ComponentSpace, class_count_splits, class_laws, decide_grid
from momentbound.model.cells import CellModel

__all__ = ["applies", "cross_error_matrix", "cross_errors", "CrossErrors", "holds_dense", "memory_estimate",
           "work_estimate", "DENSE_BYTES", "NS_PER_OP", "NS_PER_OP_DENSE", "ns_per_op"]

Input = tuple[int, ...]

#: cost of one multiply-add of the compiled kernels while the slices are small (CPU nanoseconds;
#: 1.55-1.8 measured on two-attribute models, 10-fold CV at N = 80-100, on a loaded 2-core machine,
#: before the levels were computed in bands from packed slices; with the bands the paper's 2x2x2
#: model took 1.29 times the 1.8 ns estimate at N = 100 and 2.05 times at N = 200, so 2.9);
#: :func:`ns_per_op` scales it for large slices
NS_PER_OP = 2.9

#: the same with every level held dense (:data:`DENSE_BYTES`): no packing or unpacking of slices
#: (1.55-1.8 ns measured on two-attribute models at N = 80-100 before the packed levels)
NS_PER_OP_DENSE = 1.8

#: bytes of ``h`` the two-class stream may hold dense (every level's slice whole, no packing):
#: below this estimate (:func:`memory_estimate`) the levels are held dense, above it packed
DENSE_BYTES = 2**31


def ns_per_op(model: CellModel, n_common: int, n_a: int, n_b: int, dense_budget: float | None = None) -> float:
    """CPU nanoseconds per multiply-add of :func:`work_estimate` for these sizes: :data:`NS_PER_OP`
    (:data:`NS_PER_OP_DENSE` when the levels are held dense, :func:`holds_dense`), times
    ``(B / 64 MiB)^0.45`` when the largest slice of the recursion holds ``B > 64 MiB`` (memory
    bound; fitted to 2.42 and 4.8 ns measured at 134 and 549 MiB, 10-fold CV of the paper's 2x2x2
    model at N = 140 and 200)."""
    r = max(n_a, n_b)
    top = n_common + 1 + r
    XU = 1 if r == 0 else _setup(model, NaiveBayes()).XU
    nbytes = 8.0 * float((top // 2 + 1) * (top - top // 2 + 1)) ** model.d * XU
    base = NS_PER_OP_DENSE if holds_dense(model, n_common, n_a, n_b, dense_budget) else NS_PER_OP
    return base * max(1.0, nbytes / 2**26) ** 0.45


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def _add_class_step(out, src, gmap, offs, coef):  # pragma: no cover - compiled
    """``out[p, g, s, xv] += sum_sig coef[sig, xv] src[p, gmap[g] + offs[sig], s, xv]``."""
    P, G, S, XV = out.shape
    nsig = offs.shape[0]
    for p in range(P):
        for g in range(G):
            base = gmap[g]
            for s in range(S):
                for xv in range(XV):
                    acc = 0.0
                    for sg in range(nsig):
                        acc += coef[sg, xv] * src[p, base + offs[sg], s, xv]
                    out[p, g, s, xv] += acc


@njit(cache=True, inline="always")
def _row_range(pmax, smax, base, side, limit):  # pragma: no cover - compiled
    """First and last position of a grid row (``side`` entries from ``base``) whose value can
    reach ``limit``: ``pmax`` / ``smax`` are the running maxima from the row's start / end."""
    lo, hi = 0, side
    while lo < hi:  # first i with pmax[base + i] >= limit (pmax nondecreasing along the row)
        mid = (lo + hi) // 2
        if pmax[base + mid] >= limit:
            hi = mid
        else:
            lo = mid + 1
    first = lo
    lo, hi = 0, side
    while lo < hi:  # first i with smax[base + i] < limit (smax nonincreasing along the row)
        mid = (lo + hi) // 2
        if smax[base + mid] >= limit:
            lo = mid + 1
        else:
            hi = mid
    return first, lo - 1


@njit(cache=True, parallel=True)
def _step_two(out, src0, src1, map0, off0, c0, rowbase1, off1, c1, have0, have1,
              lw0, lw0max, lw1, side1, pmax1, smax1, before1, after1, psplit, thr, dropped):  # pragma: no cover - compiled
    """Two classes, both class steps in one pass: ``out[g0, g1, xv] = sum_sig c0[sig, xv]
    src0[map0[g0] + off0[sig], g1, xv] + c1[sig, xv] src1[g0, map1[g1] + off1[sig], xv]``, with
    ``map1[g1] = rowbase1[g1 // side1] + g1 % side1`` (a row of the class-1 grid is contiguous in
    the larger grid too). The arrays are flat (C order); the sums run along grid rows, so each
    is a contiguous multiply-add the compiler vectorises.

    States whose probability bound ``psplit lw0[g0, xv] lw1[g1, xv]`` (the law of a training set
    of this size) is below ``thr > 0`` are set to 0 and their bounds are summed in
    ``dropped[g0]``. Along each row of the class-1 grid (``side1`` entries) only the stretch that
    can pass is computed (:func:`_row_range` on the running maxima ``pmax1`` / ``smax1`` of
    ``max_xv lw1``); ``before1`` / ``after1`` hold the row sums of ``lw1`` before / after each
    entry, for what is left out.
    """
    G0, G1, XV = out.shape
    out_f = out.reshape(-1)
    s0_f = src0.reshape(-1)
    s1_f = src1.reshape(-1)
    G1p = src1.shape[1]
    nsig = off0.shape[0]
    R1 = G1 // side1
    for g0 in prange(G0):
        b0 = map0[g0]
        drop = 0.0
        base = psplit * lw0max[g0]
        for row in range(R1):
            rb = row * side1
            lo, hi = 0, side1 - 1
            if thr > 0.0:
                if base > 0.0:
                    lo, hi = _row_range(pmax1, smax1, rb, side1, thr / base)
                else:
                    lo, hi = side1, side1 - 1
                if lo > hi:
                    for xv in range(XV):
                        drop += psplit * lw0[g0, xv] * (before1[rb + side1 - 1, xv] + lw1[rb + side1 - 1, xv])
                    out[g0, rb:rb + side1, :] = 0.0
                    continue
                for xv in range(XV):
                    drop += psplit * lw0[g0, xv] * (before1[rb + lo, xv] + after1[rb + hi, xv])
                out[g0, rb:rb + lo, :] = 0.0
                out[g0, rb + hi + 1:rb + side1, :] = 0.0
            o = (g0 * G1 + rb) * XV
            for xv in range(XV):
                for j in range(lo, hi + 1):
                    out_f[o + j * XV + xv] = 0.0
                if have0:
                    for sg in range(nsig):
                        c = c0[sg, xv]
                        s = ((b0 + off0[sg]) * G1 + rb) * XV + xv
                        for j in range(lo, hi + 1):
                            out_f[o + j * XV + xv] += c * s0_f[s + j * XV]
                if have1:
                    for sg in range(nsig):
                        c = c1[sg, xv]
                        s = (g0 * G1p + rowbase1[row] + off1[sg]) * XV + xv
                        for j in range(lo, hi + 1):
                            out_f[o + j * XV + xv] += c * s1_f[s + j * XV]
                if thr > 0.0:
                    l0 = psplit * lw0[g0, xv]
                    for j in range(lo, hi + 1):
                        pb = l0 * lw1[rb + j, xv]
                        if pb < thr:
                            drop += pb
                            out_f[o + j * XV + xv] = 0.0
        dropped[g0] += drop


@njit(cache=True)
def _pack_rows(a, rowlen, bits, rowoff):  # pragma: no cover - compiled
    """First pass of packing the rows of ``a`` (flat, ``rowlen`` entries a row): bit ``i % 64`` of
    ``bits[row, i // 64]`` set where entry ``i`` of the row is nonzero; ``rowoff[row + 1]`` = the
    nonzero entries of rows ``0..row`` (``rowoff[0] = 0``). Rows start on a word, so rows are
    packed in parallel; the loops are branch-free."""
    R, WPR = bits.shape
    counts = np.zeros(R, dtype=np.int64)
    for row in range(R):
        n = 0
        o = row * rowlen
        for w in range(WPR):
            word = np.uint64(0)
            for i in range(w * 64, min(w * 64 + 64, rowlen)):
                nz = a[o + i] != 0.0
                word |= np.uint64(nz) << np.uint64(i - w * 64)
                n += np.int64(nz)
            bits[row, w] = word
        counts[row] = n
    rowoff[0] = 0
    for row in range(R):
        rowoff[row + 1] = rowoff[row] + counts[row]


@njit(cache=True)
def _pack_vals(a, rowlen, rowoff, vals):  # pragma: no cover - compiled
    """Second pass: ``vals[:-1]`` = the nonzero entries of ``a`` in order (``rowoff`` from
    :func:`_pack_rows`). Branch-free: every entry is stored and the position moves on the nonzero
    ones; a zero after a row's last value goes to the spare last entry of ``vals``."""
    R = rowoff.shape[0] - 1
    spare = vals.shape[0] - 1
    for row in range(R):
        k = rowoff[row]
        end = rowoff[row + 1]
        o = row * rowlen
        for i in range(rowlen):
            v = a[o + i]
            vals[k if k < end else spare] = v
            k += np.int64(v != 0.0)


@njit(cache=True)
def _unpack_rows(out, bits, vals, rowoff, r0, r1, rowlen):  # pragma: no cover - compiled
    """Rows ``r0..r1 - 1`` of a packed chunk, dense into ``out`` (flat, zeros included; ``vals``
    with its spare entry, read branch-free)."""
    for row in range(r0, r1):
        k = rowoff[row]
        o = (row - r0) * rowlen
        for w in range(bits.shape[1]):
            word = bits[row, w]
            for i in range(w * 64, min(w * 64 + 64, rowlen)):
                bit = np.int64((word >> np.uint64(i - w * 64)) & np.uint64(1))
                v = vals[k]
                out[o + i] = v if bit else 0.0
                k += bit


@njit(cache=True, parallel=True)
def _decide_two(out, key0, key1, present0, present1, random):  # pragma: no cover - compiled
    """Two classes: ``out[g0, g1, :] = g(0)`` from the integer keys of the class-0 and class-1
    states (the rules of :func:`momentbound.classifiers.naive_bayes.tie_shares`)."""
    G0, G1, XV = out.shape
    for g0 in prange(G0):
        k0 = key0[g0]
        for g1 in range(G1):
            k1 = key1[g1]
            if random:
                v = 1.0 if k0 > k1 else (0.0 if k0 < k1 else 0.5)
            elif present0:
                v = 1.0 if (not present1 or k0 >= k1) else 0.0
            else:
                v = 0.0 if present1 else 1.0
            for xv in range(XV):
                out[g0, g1, xv] = v


@njit(cache=True, inline="always")
def _gather_row(F, hA, hB, a0, b0, P1, Pp1, first, L, xu, x, cx):  # pragma: no cover - compiled
    """``F[y, yu, xu, x, j]``: the error of cell ``(x, y)`` at ``C + (xu, yu)`` along one row of
    ``L`` entries of the class-1 grid (``g(0)`` read from ``hA`` for ``yu = 0``, ``hB`` for 1)."""
    for j in range(L):
        ga = hA[a0 + P1[first + j, x], cx]
        gb = hB[b0 + Pp1[first + j, x], cx]
        F[0, 0, xu, x, j] = 1.0 - ga
        F[1, 0, xu, x, j] = ga
        F[0, 1, xu, x, j] = 1.0 - gb
        F[1, 1, xu, x, j] = gb


@njit(cache=True, parallel=True, fastmath=True)
def _cross_sum_two(X, G0, G1, w0, w1, P0, Pp0, P1, Pp1, offp0, offp1, S1a, S1b, sig,
                   hA, hB, h2A, h2B, col, weight, M, symmetric, thr, dropped,
                   side1, pmax1, smax1, before1, after1, ga, gb, mapA, mapB, rows, finish):  # pragma: no cover - compiled
    """Two classes: :func:`_cross_sum` with the class-0 grid index outer (parallel) and the rows of
    the class-1 grid inner, each row one pass of contiguous multiply-adds.

    ``hA`` / ``hB``: ``g(0)`` on the splits ``(a + 1, b)`` / ``(a, b + 1)``, shape ``(states, XU)``;
    ``S1a = (b + 1)^d`` and ``S1b = (b + 2)^d`` are their class-0 strides. States of ``C`` with
    probability below ``thr`` are skipped; their probabilities are summed in ``dropped[g0]``
    (along each row of the class-1 grid only the stretch that can pass is visited, as in
    :func:`_step_two`). Per row, ``F[y, yu, xu, x, j] = err of cell (x, y) at C + (xu, yu)`` is
    gathered for the row's entries ``j``, then ``M[t, u] += sum_j W_j F[t at u]_j F'[u at t]_j``.

    Banded: only the class-0 states ``ga..gb - 1`` are summed, into ``rows[g0]``; ``hA`` / ``hB``
    (and ``h2A`` / ``h2B``) hold only the rows of their class-0 grids that these states read, row
    ``i`` of the grid at row ``mapA[i]`` / ``mapB[i]``. ``finish``: add the sum of ``rows`` to ``M``.
    """
    n_cells = 2 * X
    R1 = G1 // side1
    w1sum = w1.sum()
    for g0 in prange(ga, gb):
        W0 = weight * w0[g0]
        if W0 == 0.0:
            continue
        if W0 < thr:  # w1 <= 1: every state with this class-0 part is below thr
            dropped[g0] += W0 * w1sum
            continue
        drop = 0.0
        acc = rows[g0]
        Wv = np.empty(side1)
        F = np.empty((2, 2, X, X, side1))
        F2 = F if symmetric else np.empty((2, 2, X, X, side1))
        ra = np.empty((X, X), dtype=np.int64)
        rb = np.empty((X, X), dtype=np.int64)
        for xu in range(X):
            for x in range(X):
                ra[xu, x] = mapA[Pp0[g0, x] + offp0[sig[xu, x]]] * S1a
                rb[xu, x] = mapB[P0[g0, x]] * S1b + offp1[sig[xu, x]]
        for row in range(R1):
            base = row * side1
            lo, hi = 0, side1 - 1
            if thr > 0.0:
                lo, hi = _row_range(pmax1, smax1, base, side1, thr / W0)
                if lo > hi:
                    drop += W0 * (before1[base + side1 - 1, 0] + w1[base + side1 - 1])
                    continue
                drop += W0 * (before1[base + lo, 0] + after1[base + hi, 0])
            L = hi - lo + 1
            first = base + lo
            for j in range(L):
                W = W0 * w1[first + j]
                if W < thr:
                    drop += W
                    W = 0.0
                Wv[j] = W
            for xu in range(X):
                for x in range(X):
                    cx = col[x]
                    a0 = ra[xu, x]
                    b0 = rb[xu, x]
                    _gather_row(F, hA, hB, a0, b0, P1, Pp1, first, L, xu, x, cx)
                    if not symmetric:
                        _gather_row(F2, h2A, h2B, a0, b0, P1, Pp1, first, L, xu, x, cx)
            for t in range(n_cells):
                x, y = t // 2, t % 2
                for u in range(t if symmetric else 0, n_cells):
                    xu, yu = u // 2, u % 2
                    fa = F[y, yu, xu, x]    # error of t at C + u
                    fb = F2[yu, y, x, xu]   # error of u at C + t
                    s = 0.0
                    for j in range(L):
                        s += Wv[j] * fa[j] * fb[j]
                    acc[t, u] += s
        dropped[g0] += drop
    if not finish:
        return
    total = rows.sum(axis=0)
    for t in range(n_cells):
        for u in range(n_cells):
            if symmetric and u < t:
                M[t, u] += total[u, t]
            else:
                M[t, u] += total[t, u]


@njit(cache=True)
def _cross_sum(K, X, V, cell_x, cell_y, gsize, gstart, w_cat, P_cat, Pp_cat, offp, strides, sig,
               h_cat, h_start, h2_cat, h2_start, col, weight, M, cells_u):  # pragma: no cover - compiled
    """Add ``weight * P(C) E1[t, u] E2[u, t]`` over every state ``C`` of one class split to ``M``.

    ``E1[t, u] = err_t`` looked up in ``h`` at ``C + u`` and ``E2[u, t] = err_u`` in ``h2`` at
    ``C + t``; the state of ``C`` is one grid index per class (``gsize[k]`` of them), read through
    the per-class arrays ``w`` (law), ``P`` / ``Pp`` (index of ``A_k(x)`` on the grids of side
    ``n_k + 1`` / ``n_k + 2``).
    """
    n_cells = cell_x.shape[0]
    idx = np.zeros(K, dtype=np.int64)
    base = np.empty((K, X), dtype=np.int64)
    H1 = np.empty((n_cells, X, V))
    H2 = np.empty((n_cells, X, V))
    E1 = np.empty((n_cells, n_cells))
    E2 = np.empty((n_cells, n_cells))
    total = 1
    for k in range(K):
        total *= gsize[k]
    for flat in range(total):
        # odometer over the per-class grid indices (last class fastest)
        rem = flat
        for k in range(K - 1, -1, -1):
            idx[k] = rem % gsize[k]
            rem //= gsize[k]
        W = weight
        for k in range(K):
            W *= w_cat[gstart[k] + idx[k]]
        if W == 0.0:
            continue
        for y in range(K):
            for x in range(X):
                b = 0
                for k in range(K):
                    r = gstart[k] + idx[k]
                    if k == y:
                        b += strides[y, k] * Pp_cat[r, x]
                    else:
                        b += strides[y, k] * P_cat[r, x]
                base[y, x] = b
        for u in range(n_cells):
            xu = cell_x[u]
            yu = cell_y[u]
            for x in range(X):
                i = base[yu, x] + strides[yu, yu] * offp[yu, sig[xu, x]]
                for v in range(V):
                    H1[u, x, v] = h_cat[h_start[yu] + i, col[x], v]
                    H2[u, x, v] = h2_cat[h2_start[yu] + i, col[x], v]
        for t in range(n_cells):
            xt = cell_x[t]
            yt = cell_y[t]
            for u in range(n_cells):
                if V == 1:  # two classes: the stored value is g(0)
                    g1 = H1[u, xt, 0]
                    g2 = H2[u, xt, 0]
                    E1[t, u] = 1.0 - g1 if yt == 0 else g1
                    E2[u, t] = 1.0 - g2 if yt == 0 else g2
                else:
                    E1[t, u] = 1.0 - H1[u, xt, yt]
                    E2[u, t] = 1.0 - H2[u, xt, yt]
        # E2[u, t] above holds h2 at C + u for the cell t's prediction: transpose roles
        for t in range(n_cells):
            for u in range(cells_u):
                M[t, u] += W * E1[t, u] * E2[t, u]


# ----------------------------------------------------------------------------- set-up
@dataclass(frozen=True)
class _Setup:
    model: CellModel
    clf: NaiveBayes
    K: int
    d: int
    X: int
    V: int
    inputs: tuple[Input, ...]
    priors: np.ndarray  # (K,)
    coef: np.ndarray  # (K, nsig, XU): pi_k q_{k,x}(sigma) per distinct column
    sig: np.ndarray  # (X, X): agreement bitmask of input x' with input x
    bits: np.ndarray  # (nsig, d): sigma's bits (attribute 0 most significant)
    XU: int  # distinct signature laws among the inputs
    col: np.ndarray  # (X,): the column of h that serves input x


def _setup(model: CellModel, clf: NaiveBayes) -> _Setup:
    K, d = model.n_classes, model.d
    inputs = tuple(model.inputs())
    X = len(inputs)
    nsig = 2**d
    bits = np.array([[(s >> (d - 1 - j)) & 1 for j in range(d)] for s in range(nsig)], dtype=np.int64)
    sig = np.zeros((X, X), dtype=np.int64)
    for a, za in enumerate(inputs):
        for b, xb in enumerate(inputs):
            sig[a, b] = sum(int(za[j] == xb[j]) << (d - 1 - j) for j in range(d))
    coef = np.zeros((K, nsig, X))
    for k in range(K):
        for a, z in enumerate(inputs):
            pz = float(model.p(z, k))
            for b in range(X):
                coef[k, sig[a, b], b] += pz  # pi_k q_{k,x}(sigma) = P[Z = z, Y = k] summed
    priors = np.array([float(model.prior(k)) for k in range(K)])
    # inputs with the same signature law share h (h_x depends on x only through q_{k,x})
    cols = coef.reshape(K * nsig, X).T
    uniq, col = np.unique(cols, axis=0, return_inverse=True)
    coef_u = np.ascontiguousarray(uniq.T.reshape(K, nsig, len(uniq)))
    return _Setup(model, clf, K, d, X, 1 if K == 2 else K, inputs, priors, coef_u, sig, bits,
                  len(uniq), col.reshape(-1).astype(np.int64))


def _powers(side: int, d: int) -> np.ndarray:
    return np.array([side ** (d - 1 - j) for j in range(d)], dtype=np.int64)


def _grid_coords(side: int, d: int) -> np.ndarray:
    return np.indices((side,) * d).reshape(d, -1).T.astype(np.int64)


_MAPS: dict[tuple[int, int], np.ndarray] = {}


def _grid_map(side: int, d: int) -> np.ndarray:
    """Index on the grid of side ``side + 1`` of every point of the grid of side ``side``."""
    key = (side, d)
    if key not in _MAPS:
        if len(_MAPS) > 4096:
            _MAPS.clear()
        _MAPS[key] = _grid_coords(side, d) @ _powers(side + 1, d)
    return _MAPS[key]


def _top_block(st: _Setup, totals: tuple[int, ...], buffers: "_Buffers | None" = None) -> np.ndarray:
    """The decision on the per-input grid of one class split: ``(states, X, V)``."""
    K, d = st.K, st.d
    if K == 2 and st.clf.ties != "sklearn" and keys_fit_int64(st.clf.alpha_exact, st.model.arities, sum(totals), K):
        c0, c1 = _grid_coords(totals[0] + 1, d), _grid_coords(totals[1] + 1, d)
        k0, k1 = score_keys(st.clf.alpha_exact, st.model.arities, [int(n) for n in totals],
                            [c0[:, None, :], c1[None, :, :]])
        n = len(c0) * len(c1) * st.XU
        out = (np.empty(n) if buffers is None else buffers.take(n)).reshape(len(c0), len(c1), st.XU)
        _decide_two(out, k0[:, 0].copy(), k1[0, :].copy(),
                    totals[0] > 0, totals[1] > 0, st.clf.ties == "random")
        return out.reshape(len(c0) * len(c1), st.XU, 1)
    agree = []
    for k in range(K):
        coords = _grid_coords(totals[k] + 1, d)
        shape = [1] * K
        shape[k] = len(coords)
        agree.append(coords.reshape(tuple(shape) + (d,)))
    g, scale = decide_grid(st.clf, st.model.arities, totals, agree)
    g = g.reshape(K, -1)
    vals = (g[:1] if K == 2 else g).T / scale  # (states, V)
    return np.ascontiguousarray(np.broadcast_to(vals[:, None, :], (vals.shape[0], st.XU, st.V)))


def _step_block(st: _Setup, totals: tuple[int, ...], sources: list[np.ndarray | None],
                prune: "_Pruning | None" = None, buffers: "_Buffers | None" = None) -> np.ndarray:
    """``U(totals) = sum_k pi_k sum_sigma q_{k,x}(sigma) U'(totals + e_k)[shifted]``.

    Two classes with ``prune``: states below its threshold are set to 0 (see :class:`_Pruning`).
    """
    K, d, XV = st.K, st.d, st.XU * st.V
    sides = [n + 1 for n in totals]
    sizes = [s**d for s in sides]
    n_states = int(np.prod(sizes))
    if K == 2:
        out = (np.empty(n_states * XV) if buffers is None else buffers.take(n_states * XV)).reshape(sizes[0], sizes[1], XV)
        s0, s1 = sources
        c0 = np.ascontiguousarray(np.repeat(st.coef[0], st.V, axis=1))
        c1 = np.ascontiguousarray(np.repeat(st.coef[1], st.V, axis=1))
        dummy = np.zeros((1, 1, XV))
        have0, have1 = s0 is not None and st.priors[0] > 0, s1 is not None and st.priors[1] > 0
        if prune is None:
            lw0, lw0max, psplit, thr = np.ones((sizes[0], XV)), np.ones(sizes[0]), 1.0, 0.0
            lw1 = np.ones((sizes[1], XV))
            rows1 = _row_structure(lw1, sides[1])[1:]
        else:
            lw0, lw0max = prune.agreement_law(0, totals[0])[:2]
            lw1, _, *rows1 = prune.agreement_law(1, totals[1])
            psplit, thr = prune.split_prob(totals), prune.thr(sum(totals))
        dropped = np.zeros(sizes[0])
        _step_two(out, s0.reshape((sides[0] + 1) ** d, sizes[1], XV) if have0 else dummy,
                  s1.reshape(sizes[0], (sides[1] + 1) ** d, XV) if have1 else dummy,
                  _grid_map(sides[0], d), st.bits @ _powers(sides[0] + 1, d), c0,
                  _grid_map(sides[1], d)[::sides[1]].copy(), st.bits @ _powers(sides[1] + 1, d), c1, have0, have1,
                  lw0, lw0max, lw1, sides[1], *rows1, psplit, thr, dropped)
        if prune is not None:
            prune.level_dropped += float(dropped.sum())
        return out.reshape(n_states, st.XU, st.V)
    out = np.zeros((n_states, st.XU, st.V))
    for k in range(K):
        src = sources[k]
        if src is None or st.priors[k] == 0:
            continue
        P = int(np.prod(sizes[:k]))
        S = int(np.prod(sizes[k + 1:]))
        G, G2 = sizes[k], (sides[k] + 1) ** d
        offs = st.bits @ _powers(sides[k] + 1, d)
        coef = np.repeat(st.coef[k], st.V, axis=1)  # (nsig, X * V), x major
        _add_class_step(out.reshape(P, G, S, XV), src.reshape(P, G2, S, XV), _grid_map(sides[k], d), offs,
                        np.ascontiguousarray(coef))
    return out


def _compositions(n: int, K: int) -> Iterator[tuple[int, ...]]:
    if K == 1:
        yield (n,)
        return
    for c in range(n + 1):
        for rest in _compositions(n - c, K - 1):
            yield (c,) + rest


def _levels_generic(st: _Setup, bottom: int, r: int) -> dict[tuple[int, ...], np.ndarray]:
    """``h`` on every class split of the bottom level (all levels held; any ``K``)."""
    top = bottom + r
    level = {split: _top_block(st, split) for split in _compositions(top, st.K)}
    for m in range(top - 1, bottom - 1, -1):
        new = {}
        for split in _compositions(m, st.K):
            sources = [level[tuple(n + (i == k) for i, n in enumerate(split))] for k in range(st.K)]
            new[split] = _step_block(st, split, sources)
        level = new
    return level


class _Buffers:
    """Flat float buffers handed out again once released (the smallest free one that is large
    enough; ``size`` the least allocated): the stream's bands are large, and allocating them
    afresh costs a page fault per page every time. At most three are kept free."""

    def __init__(self, size: int = 0) -> None:
        self.size = size
        self.free: list[np.ndarray] = []

    def take(self, n: int) -> np.ndarray:
        sizes = [buf.size for buf in self.free]
        fits = [i for i, size in enumerate(sizes) if size >= n]
        if fits:
            return self.free.pop(min(fits, key=sizes.__getitem__))[:n]
        if self.free:  # too small for this band and likely the next ones
            self.free.pop(int(np.argmax(sizes)))
        return np.empty(max(n, self.size))

    def give(self, arr: np.ndarray | None) -> None:
        while arr is not None and arr.base is not None:
            arr = arr.base
        # only the flat buffers handed out by take() come back: a slice built elsewhere (the
        # generic decision of the top level) is not flat
        if arr is not None and arr.ndim == 1 and all(arr is not buf for buf in self.free):
            self.free.append(arr)
            if len(self.free) > 3:
                self.free.pop(int(np.argmin([buf.size for buf in self.free])))


#: bytes of the dense bands of the two-class stream (a band is a run of values of the first
#: class-0 agreement count, at least one): each level is computed, packed and unpacked band by band
BAND_BYTES = 2**25


class _Packed:
    """A slice of the two-class stream held packed: per band of its rows (class-0 grid index), the
    nonzero values and a bitmap of their places (lossless; the pruned states and the decisions 0
    take no value). Built band by band (:meth:`add`); any run of rows is unpacked densely
    (:meth:`unpack_rows`)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)
        self.rowlen = int(np.prod(self.shape[1:]))
        self.chunks: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]] = []
        self.rows = 0

    @property
    def nbytes(self) -> int:
        return sum(c[2].nbytes + c[3].nbytes + c[4].nbytes for c in self.chunks)

    @property
    def nnz(self) -> int:
        return sum(int(c[4][-1]) for c in self.chunks)

    def add(self, band: np.ndarray) -> None:
        """Append the next rows (``band`` flat, whole rows)."""
        R = band.size // self.rowlen if self.rowlen else 0
        bits = np.empty((R, (self.rowlen + 63) // 64), dtype=np.uint64)
        rowoff = np.empty(R + 1, dtype=np.int64)
        _pack_rows(band, self.rowlen, bits, rowoff)
        vals = np.empty(int(rowoff[-1]) + 1)
        _pack_vals(band, self.rowlen, rowoff, vals)
        self.chunks.append((self.rows, self.rows + R, bits, vals, rowoff))
        self.rows += R

    def unpack_rows(self, r0: int, r1: int, out: np.ndarray) -> np.ndarray:
        """Rows ``r0..r1 - 1`` dense into the flat ``out`` (returned, ``(r1 - r0) * rowlen``)."""
        out = out[: (r1 - r0) * self.rowlen]
        for g0, g1, bits, vals, rowoff in self.chunks:
            lo, hi = max(r0, g0), min(r1, g1)
            if lo < hi:
                _unpack_rows(out[(lo - r0) * self.rowlen:], bits, vals, rowoff, lo - g0, hi - g0, self.rowlen)
        return out

    @staticmethod
    def of(arr: np.ndarray) -> "_Packed":
        p = _Packed(arr.shape)
        p.add(np.ascontiguousarray(arr).reshape(-1))
        return p

    def unpack(self, buffers: _Buffers) -> np.ndarray:
        return self.unpack_rows(0, self.shape[0], buffers.take(int(np.prod(self.shape)))).reshape(self.shape)


def _band_rows(side: int, d: int, rowlen: int) -> int:
    """Rows of the class-0 grid (side ``side``) in one band: whole runs of the first agreement
    count, ``BAND_BYTES`` of values or one run."""
    inner = side ** (d - 1)
    return inner * max(1, min(side, int(BAND_BYTES // max(8 * inner * rowlen, 1))))


def _top_packed(st: _Setup, totals: tuple[int, int], buffers: _Buffers) -> _Packed:
    """The decision on one class split (:func:`_top_block`), packed band by band."""
    d, XV = st.d, st.XU * st.V
    G0, G1 = (totals[0] + 1) ** d, (totals[1] + 1) ** d
    out = _Packed((G0, G1, XV))
    if not (st.clf.ties != "sklearn" and keys_fit_int64(st.clf.alpha_exact, st.model.arities, sum(totals), 2)):
        out.add(_top_block(st, totals).reshape(-1))
        return out
    c0, c1 = _grid_coords(totals[0] + 1, d), _grid_coords(totals[1] + 1, d)
    k0, k1 = score_keys(st.clf.alpha_exact, st.model.arities, [int(n) for n in totals],
                        [c0[:, None, :], c1[None, :, :]])
    k0, k1 = k0[:, 0].copy(), k1[0, :].copy()
    step = _band_rows(totals[0] + 1, d, G1 * XV)
    for g in range(0, G0, step):
        e = min(G0, g + step)
        band = buffers.take((e - g) * G1 * XV)
        _decide_two(band.reshape(e - g, G1, XV), k0[g:e], k1, totals[0] > 0, totals[1] > 0, st.clf.ties == "random")
        out.add(band)
        buffers.give(band)
    return out


def _step_packed(st: _Setup, totals: tuple[int, int], src0: "_Packed | np.ndarray | None",
                 src1: "_Packed | np.ndarray | None", prune: "_Pruning | None", buffers: _Buffers,
                 dense: bool) -> "_Packed | np.ndarray":
    """:func:`_step_block` of two classes on packed or dense sources, band by band over the
    class-0 grid: a band of rows reads the same rows of ``src1`` and, shifted by the agreement
    bits, a band one run longer of ``src0`` (views of a dense source, unpacked rows of a packed
    one); each entry is the same sum as on dense slices. Returns the level packed, or dense
    (``(states, XU, V)``) when ``dense``."""
    d, XV = st.d, st.XU * st.V
    sides = [n + 1 for n in totals]
    G0, G1 = sides[0] ** d, sides[1] ** d
    G0p, G1p = (sides[0] + 1) ** d, (sides[1] + 1) ** d
    c0 = np.ascontiguousarray(np.repeat(st.coef[0], st.V, axis=1))
    c1 = np.ascontiguousarray(np.repeat(st.coef[1], st.V, axis=1))
    dummy = np.zeros((1, 1, XV))
    have0, have1 = src0 is not None and st.priors[0] > 0, src1 is not None and st.priors[1] > 0
    if prune is None:
        lw0, lw0max, psplit, thr = np.ones((G0, XV)), np.ones(G0), 1.0, 0.0
        lw1 = np.ones((G1, XV))
        rows1 = _row_structure(lw1, sides[1])[1:]
    else:
        lw0, lw0max = prune.agreement_law(0, totals[0])[:2]
        lw1, _, *rows1 = prune.agreement_law(1, totals[1])
        psplit, thr = prune.split_prob(totals), prune.thr(sum(totals))
    map0 = _grid_map(sides[0], d)
    off0 = st.bits @ _powers(sides[0] + 1, d)
    map1 = _grid_map(sides[1], d)[::sides[1]].copy()
    off1 = st.bits @ _powers(sides[1] + 1, d)
    dropped = np.zeros(G0)
    out = np.empty(G0 * G1 * XV) if dense else _Packed((G0, G1, XV))
    step = _band_rows(sides[0], d, G1 * XV)
    for g in range(0, G0, step):
        e = min(G0, g + step)
        s0lo, s0hi = int(map0[g]), int(map0[e - 1] + off0.max()) + 1
        s0 = (_rows_view(src0, s0lo, s0hi, G1 * XV, buffers).reshape(s0hi - s0lo, G1, XV)
              if have0 else dummy)
        s1 = (_rows_view(src1, g, e, G1p * XV, buffers).reshape(e - g, G1p, XV)
              if have1 else dummy)
        band = out[g * G1 * XV:e * G1 * XV] if dense else buffers.take((e - g) * G1 * XV)
        _step_two(band.reshape(e - g, G1, XV), s0, s1, map0[g:e] - s0lo, off0, c0, map1, off1, c1, have0, have1,
                  lw0[g:e], lw0max[g:e], lw1, sides[1], *rows1, psplit, thr, dropped[g:e])
        if have0 and not isinstance(src0, np.ndarray):
            buffers.give(s0)
        if have1 and not isinstance(src1, np.ndarray):
            buffers.give(s1)
        if not dense:
            out.add(band)
            buffers.give(band)
    if prune is not None:
        prune.level_dropped += float(dropped.sum())
    return out.reshape(G0 * G1, st.XU, st.V) if dense else out


def _rows_view(src: "_Packed | np.ndarray", r0: int, r1: int, rowlen: int, buffers: _Buffers) -> np.ndarray:
    """Rows ``r0..r1 - 1`` of a slice's class-0 grid, flat: a view of a dense slice, or unpacked
    from a packed one into a buffer of ``buffers`` (to be given back)."""
    if isinstance(src, np.ndarray):
        return src.reshape(-1)[r0 * rowlen:r1 * rowlen]
    return src.unpack_rows(r0, r1, buffers.take((r1 - r0) * rowlen))


def _stream_two_class(st: _Setup, bottom: int, r: int, prune: "_Pruning | None" = None,
                      dense_bottom: bool = True, dense_levels: bool = False,
                      ) -> Iterator[tuple[int, "np.ndarray | _Packed"]]:
    """Two classes: ``(a, h on the split (a, bottom - a))`` for ``a = 0..bottom``, holding one
    slice per level (level ``l`` holds the split ``(a + l, bottom - a)`` of iteration ``a``).
    Every slice above the bottom is held packed (:class:`_Packed`) and computed band by band over
    the class-0 grid (:func:`_step_packed`), so only a few bands are dense at once; the bottom
    slices are yielded dense, or packed unless ``dense_bottom`` (and ``r > 0``). ``dense_levels``:
    every slice is held dense instead (the same values, no packing; for slices that fit in memory
    whole, :func:`holds_dense`)."""
    if r == 0:
        for a in range(bottom + 1):
            yield a, _top_block(st, (a, bottom - a))
        return
    buffers = _Buffers()
    slots: list[_Packed | None] = [None] * (r + 1)
    for a in range(-r, bottom + 1):
        b = bottom - a
        cur: _Packed | np.ndarray | None = None
        if a + r >= 0:
            cur = _top_block(st, (a + r, b)) if dense_levels else _top_packed(st, (a + r, b), buffers)
        for lv in range(r - 1, -1, -1):
            i0 = a + lv
            # class 0 added: level lv + 1 at (i0 + 1, b) (this iteration); class 1 added: level
            # lv + 1 at (i0, b + 1) (previous iteration, in its slot)
            nxt = None if i0 < 0 else _step_packed(st, (i0, b), cur, slots[lv + 1], prune, buffers,
                                                    dense_levels or (dense_bottom and lv == 0))
            slots[lv + 1] = cur
            cur = nxt
        if a >= 0:
            assert cur is not None
            yield a, cur


# ----------------------------------------------------------------------------- pruning
class _Pruning:
    """Which states of the two-class sums are skipped, and a bound on what that leaves out.

    A state ``D`` of a training set of ``m`` points (class split ``n``, agreement counts on the
    grid of ``h``) is skipped when ``P[split n] prod_k lw_k(D_k)`` is below :meth:`thr`, ``lw_k``
    the law of the agreement counts of ``n_k`` class-``k`` points (the largest over the inputs
    that share a column of ``h``), which bounds the probability that ``m`` iid points have that
    state. A skipped state is read as 0 by the level below; since ``P_m(D) >= p_u P_{m-1}(D - u)``
    for every cell ``u`` of probability ``p_u``, the lookups of ``h`` at ``C + u`` move by at most
    :attr:`level_dropped` ``/ p_min`` in total (docs/mathematics.md, 'The multi-attribute cross
    term').
    """

    def __init__(self, st: _Setup, level_budget: float, laws: list[list[np.ndarray]]) -> None:
        self.st = st
        self.level_budget = float(level_budget)
        self.level_dropped = 0.0
        self.space = ComponentSpace(st.model.arities, st.inputs)
        self.laws = laws  # per class, the laws of n = 0.. points up to the largest level stepped
        self._log_priors = [math.log(p) if p > 0 else -math.inf for p in st.priors]
        self._agree: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        self._thr: dict[int, float] = {}

    def thr(self, m: int) -> float:
        """Threshold of the training sets of ``m`` points: those below it hold at most the level
        budget under the law of ``m`` iid points."""
        if m not in self._thr:
            splits = dict(class_count_splits(self.st.model, m, "float"))
            self._thr[m] = _threshold(self.laws, splits, self.level_budget)
        return self._thr[m]

    def split_prob(self, totals: tuple[int, ...]) -> float:
        m = sum(totals)
        lp = math.lgamma(m + 1)
        for n, l in zip(totals, self._log_priors):
            if n:
                lp += n * l - math.lgamma(n + 1)
        return math.exp(lp) if lp > -math.inf else 0.0

    def agreement_law(self, k: int, n: int) -> tuple[np.ndarray, ...]:
        """``lw`` ``(states, XU)``: per column of ``h``, the largest over its inputs of the law of
        the agreement counts of ``n`` class-``k`` points, followed by its :func:`_row_structure`
        (rows of side ``n + 1``)."""
        key = (k, n)
        if key not in self._agree:
            st = self.st
            law = np.asarray(self.laws[k][n], dtype=float).ravel()
            D = self.space.dim
            coords = np.indices((n + 1,) * D).reshape(D, -1).T.astype(np.int64)
            out = np.zeros(((n + 1) ** st.d, st.XU))
            ok = law > 0
            pw = _powers(n + 1, st.d)
            for ix, x in enumerate(st.inputs):
                idx = np.clip(self.space.agreements(coords[ok], n, x), 0, n) @ pw
                lx = np.bincount(idx, weights=law[ok], minlength=len(out))
                c = st.col[ix]
                np.maximum(out[:, c], lx, out=out[:, c])
            if len(self._agree) > 4 * (n + 2):
                self._agree.pop(next(iter(self._agree)))
            self._agree[key] = (out,) + _row_structure(out, n + 1)
        return self._agree[key]


def _row_structure(lw: np.ndarray, side: int) -> tuple[np.ndarray, ...]:
    """``(lwmax, pmax, smax, before, after)`` of a law ``lw`` ``(states, XV)`` on a grid whose last
    coordinate (``side`` values) varies fastest: ``lwmax`` its largest column, ``pmax`` / ``smax``
    the running maxima of ``lwmax`` from each row's start / end, ``before`` / ``after`` the sums
    of ``lw`` over the row's entries before / after each entry."""
    G, XV = lw.shape
    rows = lw.reshape(G // side, side, XV)
    lwmax = lw.max(axis=1)
    m = lwmax.reshape(G // side, side)
    pmax = np.maximum.accumulate(m, axis=1).ravel()
    smax = np.maximum.accumulate(m[:, ::-1], axis=1)[:, ::-1].ravel()
    inc = np.cumsum(rows, axis=1)
    before = (inc - rows).reshape(G, XV)
    after = (inc[:, -1:, :] - inc).reshape(G, XV)
    return (np.ascontiguousarray(lwmax), np.ascontiguousarray(pmax), np.ascontiguousarray(smax),
            np.ascontiguousarray(before), np.ascontiguousarray(after))


def _p_min(model: CellModel) -> float:
    return min(float(model.p(z, k)) for z in model.inputs() for k in range(model.n_classes) if model.p(z, k) > 0)


def _threshold(laws: list[list[np.ndarray]], splits: dict[tuple[int, ...], float], budget: float) -> float:
    """The largest ``thr`` (within a factor ``e^0.25``) such that the states of a training set
    (two classes: class split ``(a, b)`` and the per-class laws ``laws[k][n]``) with probability
    below ``thr`` hold at most ``budget`` (exact sums over the sorted class laws)."""
    rows = []
    for (a, b), w in splits.items():
        if w <= 0:
            continue
        w0 = np.asarray(laws[0][a], dtype=float).ravel()
        w0 = w0[w0 > 0] * w
        w1 = np.sort(np.asarray(laws[1][b], dtype=float).ravel())
        rows.append((w0, w1, np.concatenate([[0.0], np.cumsum(w1)])))

    def dropped(thr: float) -> float:
        tot = 0.0
        for w0, w1, c1 in rows:
            tot += float(w0 @ c1[np.searchsorted(w1, thr / w0)])
        return tot

    top = max((float(r[0].max() * r[1][-1]) for r in rows), default=0.0)
    if budget <= 0 or top <= 0:
        return 0.0
    hi = math.log(top)
    lo = max(hi - 120.0, -745.0)
    if dropped(math.exp(lo)) > budget:
        return 0.0
    while hi - lo > 0.25:
        mid = 0.5 * (lo + hi)
        if dropped(math.exp(mid)) <= budget:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)


# ----------------------------------------------------------------------------- the C sum
@dataclass
class _CommonGrids:
    """Per class and class total: law of the marginal counts of ``C`` on the component grid of all
    inputs, and the index of ``A_k(x)`` on the per-input grids of side ``n + 1`` and ``n + 2``."""

    st: _Setup
    n_max: int

    def __post_init__(self) -> None:
        st = self.st
        self.space = ComponentSpace(st.model.arities, st.inputs)
        self.laws = [class_laws(st.model, self.space, k, self.n_max, "float") for k in range(st.K)]
        self._cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def row_ranges(self, k: int, n: int) -> tuple[np.ndarray, ...]:
        """:func:`_row_structure` of the law of ``n`` class-``k`` points (rows of side ``n + 1``)."""
        law = self.arrays(k, n)[0]
        return _row_structure(law[:, None], n + 1)[1:]

    def arrays(self, k: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        key = (k, n)
        if key not in self._cache:
            st = self.st
            law = np.asarray(self.laws[k][n], dtype=float).ravel()
            D = self.space.dim
            coords = np.indices((n + 1,) * D).reshape(D, -1).T.astype(np.int64) if D else np.zeros((1, 0), np.int64)
            P = np.zeros((len(law), st.X), dtype=np.int64)
            Pp = np.zeros((len(law), st.X), dtype=np.int64)
            ok = law > 0
            for ix, x in enumerate(st.inputs):
                A = np.clip(self.space.agreements(coords, n, x), 0, n)
                P[:, ix] = np.where(ok, A @ _powers(n + 1, st.d), 0)
                Pp[:, ix] = np.where(ok, A @ _powers(n + 2, st.d), 0)
            self._cache[key] = (law, P, Pp)
        return self._cache[key]


def _rows_of(block: "np.ndarray | _Packed", rows: np.ndarray, rowlen: int, buffers: _Buffers) -> np.ndarray:
    """The rows ``rows`` (sorted) of a slice's class-0 grid (``rowlen`` entries a row), dense and
    one after the other, ``(len(rows) * rowlen / XU, XU)``; runs of consecutive rows are copied
    or unpacked at once."""
    XU = block.shape[-2] if isinstance(block, np.ndarray) else block.shape[2]
    out = buffers.take(len(rows) * rowlen)
    cuts = np.flatnonzero(np.diff(rows) != 1) + 1
    for i, j in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(rows)]])):
        r0, r1 = int(rows[i]), int(rows[j - 1]) + 1
        if isinstance(block, np.ndarray):
            out[i * rowlen:j * rowlen] = block.reshape(-1)[r0 * rowlen:r1 * rowlen]
        else:
            block.unpack_rows(r0, r1, out[i * rowlen:])
    return out.reshape(-1, XU)


def _sum_split(st: _Setup, grids: _CommonGrids, split: tuple[int, ...], weight: float,
               h_blocks: list, h2_blocks: list, M: np.ndarray, cells_u: int,
               thr: float = 0.0, buffers: "_Buffers | None" = None) -> float:
    """Add the states of ``C`` with this class split to ``M``; returns the probability of the
    states skipped (two classes: those below ``thr``). Two classes: the blocks of ``h`` may be
    packed (:class:`_Packed`); the states of ``C`` are summed in bands over their first class-0
    component, each reading only its rows of ``h`` (about :data:`BAND_BYTES` of them dense)."""
    buffers = _Buffers() if buffers is None else buffers
    K, d = st.K, st.d
    arrs = [grids.arrays(k, split[k]) for k in range(K)]
    if K == 2:
        (w0, P0, Pp0), (w1, P1, Pp1) = arrs
        a, b = split
        G0, cells = len(w0), 2 * st.X
        offA, offB = st.bits @ _powers(a + 2, d), st.bits @ _powers(b + 2, d)
        lenA, lenB = (b + 1) ** d * st.XU, (b + 2) ** d * st.XU  # entries of a row of hA / hB
        rowsA = (Pp0[:, None, :] + offA[st.sig][None, :, :]).reshape(G0, -1)  # the rows of hA read
        dropped = np.zeros(G0)
        rows = np.zeros((G0, cells, cells))
        rows1 = grids.row_ranges(1, b)
        same = all(x is y for x, y in zip(h_blocks, h2_blocks))  # unpacked once, read twice
        blocks = [h_blocks] if same else [h_blocks, h2_blocks]
        run = (a + 1) ** (grids.space.dim - 1)  # class-0 states of C with one first component

        def fresh(mask: np.ndarray, rows: np.ndarray) -> np.ndarray:
            """The rows among ``rows`` not yet marked in ``mask`` (sorted, once each)."""
            u = np.unique(rows)
            return u[~mask[u]]

        g = 0
        while g < G0:  # bands of whole runs whose rows of hA and hB fit in BAND_BYTES (one run at least)
            # the rows of hA and hB the band reads, marked run by run (the union of the runs' rows)
            maskA = np.zeros((a + 2) ** d, dtype=bool)
            maskB = np.zeros((a + 1) ** d, dtype=bool)
            e = min(G0, g + run)
            maskA[fresh(maskA, rowsA[g:e])] = True
            maskB[fresh(maskB, P0[g:e])] = True
            countA, countB = int(maskA.sum()), int(maskB.sum())
            while e < G0:
                e2 = min(G0, e + run)
                nA, nB = fresh(maskA, rowsA[e:e2]), fresh(maskB, P0[e:e2])
                if 8 * ((countA + len(nA)) * lenA + (countB + len(nB)) * lenB) * len(blocks) > BAND_BYTES:
                    break
                maskA[nA] = True
                maskB[nB] = True
                countA, countB, e = countA + len(nA), countB + len(nB), e2
            needA, needB = np.flatnonzero(maskA), np.flatnonzero(maskB)
            mapA = np.zeros((a + 2) ** d, dtype=np.int64)
            mapB = np.zeros((a + 1) ** d, dtype=np.int64)
            mapA[needA] = np.arange(len(needA))
            mapB[needB] = np.arange(len(needB))
            hs = [(_rows_of(blk[0], needA, lenA, buffers), _rows_of(blk[1], needB, lenB, buffers)) for blk in blocks]
            _cross_sum_two(st.X, G0, len(w1), w0, w1, P0, Pp0, P1, Pp1, offA, offB, (b + 1) ** d, (b + 2) ** d,
                           st.sig, *hs[0], *hs[-1], st.col, float(weight), M, h2_blocks is h_blocks, float(thr),
                           dropped, b + 1, *rows1, g, e, mapA, mapB, rows, False)
            for pair in hs:
                for h in pair:
                    buffers.give(h)
            g = e
        empty = np.zeros((1, st.XU))
        _cross_sum_two(st.X, G0, len(w1), w0, w1, P0, Pp0, P1, Pp1, offA, offB, (b + 1) ** d, (b + 2) ** d,
                       st.sig, empty, empty, empty, empty, st.col, float(weight), M, h2_blocks is h_blocks, float(thr),
                       dropped, b + 1, *rows1, G0, G0, np.zeros(1, np.int64), np.zeros(1, np.int64), rows, True)
        return float(dropped.sum())
    gsize = np.array([len(a[0]) for a in arrs], dtype=np.int64)
    gstart = np.concatenate([[0], np.cumsum(gsize)[:-1]]).astype(np.int64)
    w_cat = np.concatenate([a[0] for a in arrs])
    P_cat = np.ascontiguousarray(np.concatenate([a[1] for a in arrs]))
    Pp_cat = np.ascontiguousarray(np.concatenate([a[2] for a in arrs]))
    offp = np.stack([st.bits @ _powers(split[k] + 2, d) for k in range(K)])
    strides = np.zeros((K, K), dtype=np.int64)
    for y in range(K):
        sizes = [(split[i] + 1 + (i == y)) ** d for i in range(K)]
        for k in range(K):
            strides[y, k] = int(np.prod(sizes[k + 1:]))
    h_start = np.concatenate([[0], np.cumsum([len(b) for b in h_blocks])[:-1]]).astype(np.int64)
    h_cat = np.concatenate(h_blocks)
    if h2_blocks is h_blocks:
        h2_cat, h2_start = h_cat, h_start
    else:
        h2_start = np.concatenate([[0], np.cumsum([len(b) for b in h2_blocks])[:-1]]).astype(np.int64)
        h2_cat = np.concatenate(h2_blocks)
    cell_x = np.repeat(np.arange(st.X, dtype=np.int64), K)
    cell_y = np.tile(np.arange(K, dtype=np.int64), st.X)
    _cross_sum(K, st.X, st.V, cell_x, cell_y, gsize, gstart, w_cat, P_cat, Pp_cat, offp, strides, st.sig,
               h_cat, h_start, h2_cat, h2_start, st.col, float(weight), M, cells_u)
    return 0.0


# ----------------------------------------------------------------------------- public
def applies(model: CellModel, n_total: int, clf: NaiveBayes) -> bool:
    """Whether the reduced-state kernels apply: every score key of a training set of at most
    ``n_total`` points fits in int64 (float arithmetic)."""
    return keys_fit_int64(clf.alpha_exact, model.arities, n_total, model.n_classes)


def _split_sum(K: int, m: int, e: float) -> float:
    """``sum over class splits of m of prod_k (n_k + 1)^e``."""
    f = (np.arange(m + 1) + 1.0) ** e
    poly = np.array([1.0])
    for _ in range(K):
        poly = np.convolve(poly, f)[: m + 1]
    return float(poly[m]) if m < len(poly) else 0.0


@functools.lru_cache(maxsize=32)
def _state_spread(model: CellModel) -> np.ndarray:
    """Positive eigenvalues of the covariance of one point's contribution to the reduced state
    (class indicator and, within its class, the component signature)."""
    K = model.n_classes
    space = ComponentSpace(model.arities, tuple(model.inputs()))
    D = space.dim
    rows, probs = [], []
    for z in model.inputs():
        sig = np.asarray(space.signature(z), dtype=float)
        for k in range(K):
            p = float(model.p(z, k))
            if p > 0:
                v = np.zeros(K * (1 + D))
                v[k * (1 + D)] = 1.0
                v[k * (1 + D) + 1:(k + 1) * (1 + D)] = sig
                rows.append(v)
                probs.append(p)
    V, w = np.array(rows), np.array(probs)
    mean = w @ V
    cov = (V * w[:, None]).T @ V - np.outer(mean, mean)
    lam = np.linalg.eigvalsh(cov)
    return lam[lam > 1e-12 * max(lam.max(), 1e-300)]


def _gaussian_states(model: CellModel, n: int, budget: float) -> float:
    """About how many states of a training set of ``n`` points are kept when the least probable
    ones holding ``budget`` are skipped: the lattice points of the normal approximation's ellipsoid
    that holds all but ``budget`` (``inf`` when the approximation degenerates)."""
    from scipy.special import gammaln
    from scipy.stats import chi2

    K = model.n_classes
    lam = _state_spread(model)
    dim = len(lam)
    if dim == 0 or n < 1 or budget <= 0:
        return math.inf
    r2 = float(chi2.isf(budget, dim))
    log_vol = (dim / 2) * math.log(math.pi) - gammaln(dim / 2 + 1) + (dim / 2) * math.log(r2)
    log_vol += 0.5 * (float(np.log(lam).sum()) + dim * math.log(n))
    return math.exp(log_vol) / math.sqrt(K)


def work_estimate(model: CellModel, n_common: int, n_a: int, n_b: int, tail: float = 0.0) -> float:
    """Multiply-adds of :func:`cross_errors` (the recursions of both private sizes and the sum
    over the states of ``C``); :func:`ns_per_op` converts them to seconds. With ``tail > 0`` (two
    classes) the states skipped are taken out by a normal approximation of the kept ones."""
    K, d = model.n_classes, model.d
    X = model.n_inputs
    V = 1 if K == 2 else K
    XU = 1 if n_a == n_b == 0 else _setup(model, NaiveBayes()).XU  # no recursion: one column (see cross_errors)
    D = ComponentSpace(model.arities, tuple(model.inputs())).dim
    cells = X * K
    prune = tail > 0 and K == 2
    r_max = max(n_a, n_b)
    level_budget = tail * _p_min(model) / (4.0 * max(r_max, 1)) if prune else 0.0

    def kept(m: int, e: int, budget: float) -> float:
        """States of ``m`` points visited (dense grid of dimension ``e`` per class)."""
        total = _split_sum(K, m, e)
        return min(total, _gaussian_states(model, m, budget)) if prune else total

    rec = 0.0
    for r in {n_a, n_b}:
        top = n_common + 1 + r
        rec += _split_sum(K, top, d) * XU * V  # the decision on the top level
        for m in range(n_common + 1, top):
            rec += kept(m, d, level_budget) * XU * V * K * 2**d
    pairs = cells * cells / (2.0 if n_a == n_b else 1.0)
    gathers = cells * X * (1 if n_a == n_b else 2)
    csum = kept(n_common, D, tail / 2) * (gathers * V + pairs)
    return rec + csum


def _packed_share(model: CellModel, top: int, r: int) -> float:
    """About the share of nonzero entries of the largest packed slices of the two-class stream
    (the states kept by the pruning of :func:`cross_errors` at the default ``tail``): the kept
    share of a level by the normal approximation of :func:`work_estimate` (``g``), as
    ``PACKED_FACTOR g^(1/3)``, at most 1 (fitted to the shares measured on two-attribute models,
    10-fold CV at N = 60 and 100: 0.50 and 0.34 of ``r`` middle slices)."""
    if r == 0:
        return 1.0
    m = top - 1
    kept = _gaussian_states(model, m, 1e-13 * _p_min(model) / (4.0 * r))
    return min(1.0, PACKED_FACTOR * (kept / _split_sum(model.n_classes, m, model.d)) ** (1 / 3))


#: the nonzero share of the packed slices over the cube root of the kept share of a level
PACKED_FACTOR = 0.36


def memory_estimate(model: CellModel, n_common: int, n_a: int, n_b: int,
                    dense_budget: float | None = None) -> float:
    """Peak bytes of :func:`cross_errors`, estimated (measured peaks are 0.5-1.3 times this above a
    few MB): the per-class laws of up to ``n_common + 1 + r`` points with their index arrays, and
    the values of ``h`` held at once (two classes, per stream: ``r + 2`` packed slices, one per
    level and the two in flight, each at most the middle split's size, and the two packed bottom
    slices of the sum over ``C`` (:func:`_packed_share`), and about four dense bands of
    :data:`BAND_BYTES`; or, when that fits in ``dense_budget`` (:func:`holds_dense`), ``r + 3``
    dense slices and the rows of ``h`` a band of the sum over ``C`` reads; more classes: two
    whole levels).

    Examples
    --------
    >>> from momentbound.model import second_nb_model
    >>> round(memory_estimate(second_nb_model(), 160, 19, 19) / 2**30, 1)  # N = 200, 10-fold
    2.8
    """
    if holds_dense(model, n_common, n_a, n_b, dense_budget):
        return float(_dense_bytes(model, n_common, n_a, n_b))  # type: ignore[arg-type]
    return _packed_bytes(model, n_common, n_a, n_b)


def _memory_parts(model: CellModel, n_common: int, n_a: int, n_b: int) -> tuple[_Setup, int, float, Callable[[int], float]]:
    """What both memory estimates share: the setup, the largest level ``top``, the bytes of the
    per-class laws up to it with their index arrays, and ``middle(m)``, the entries of the largest
    slice of a level of ``m`` points (two classes)."""
    st = _setup(model, NaiveBayes())
    XU = 1 if n_a == 0 and n_b == 0 else st.XU
    top = n_common + 1 + max(n_a, n_b)
    D = ComponentSpace(model.arities, st.inputs).dim
    laws = 8.0 * st.K * (1 + 2 * st.X) * float(top + 1) ** (D + 1) / (D + 1)

    def middle(m: int) -> float:
        return float((m // 2 + 1) * (m - m // 2 + 1)) ** st.d * XU

    return st, top, laws, middle


def _packed_bytes(model: CellModel, n_common: int, n_a: int, n_b: int) -> float:
    """:func:`memory_estimate` with the levels held packed (and with more classes)."""
    st, top, laws, middle = _memory_parts(model, n_common, n_a, n_b)
    K, d = st.K, st.d
    XU = 1 if n_a == 0 and n_b == 0 else st.XU
    r = max(n_a, n_b)
    streams = 1 if n_a == n_b else 2
    if K == 2:
        # dense: the bands in flight and the two bottom slices of the sum over C; packed: one
        # slice per level and two in flight, 8 bytes per nonzero entry and a bit per entry
        run = float(top // 2 + 2) ** (d - 1) * float(top - top // 2 + 2) ** d * XU  # one run of a band
        # the bands of a level step (its two sources and the level computed), the rows of h a band
        # of the sum over C reads
        dense = 3 * min(max(BAND_BYTES / 8.0, 1.2 * run), middle(top)) + min(BAND_BYTES / 8.0, 2 * middle(n_common + 1))
        share = _packed_share(model, top, r) + 1 / 64
        held = dense + ((r + 2) * middle(top) + 2 * middle(n_common + 1)) * share
    else:
        held = (_split_sum(K, top, d) + _split_sum(K, top - 1, d)) * XU * K  # two levels of the recursion
    return laws + 8.0 * streams * held


def _dense_bytes(model: CellModel, n_common: int, n_a: int, n_b: int) -> float | None:
    """Peak bytes of :func:`cross_errors` with every level held dense (two classes and private
    points; else ``None``): the class laws, per stream ``r + 3`` slices of the middle split's size
    (one per level, the top and the level in flight) and the rows of ``h`` a band of the sum over
    ``C`` reads."""
    if model.n_classes != 2 or max(n_a, n_b) == 0:
        return None
    _, _, laws, middle = _memory_parts(model, n_common, n_a, n_b)
    held = 0.0
    for r in {n_a, n_b}:  # one stream per private size
        held += (r + 3) * middle(n_common + 1 + r) + min(BAND_BYTES / 8.0, 2 * middle(n_common + 1))
    return laws + 8.0 * held


def holds_dense(model: CellModel, n_common: int, n_a: int, n_b: int, budget: float | None = None) -> bool:
    """Whether :func:`cross_errors` holds the levels of ``h`` dense (no packing: faster) for these
    sizes: two classes, private points, and the dense estimate within ``budget`` bytes or below
    the packed one (small slices, where the packed form's dense bands dominate). ``budget = 0``:
    never (always packed)."""
    budget = DENSE_BYTES if budget is None else budget
    dense = _dense_bytes(model, n_common, n_a, n_b)
    return (dense is not None and budget > 0
            and (dense <= budget or dense <= _packed_bytes(model, n_common, n_a, n_b)))


@dataclass(frozen=True)
class CrossErrors:
    """Result of :func:`cross_errors`.

    Attributes
    ----------
    matrix:
        ``M[a, b] = P[err_a(C + B' + b) and err_b(C + A' + a)]``, shape ``(n_cells, n_cells)``.
    dropped_mass_bound:
        Every entry of ``matrix`` is at most this much below the full sum (0 when nothing was
        skipped), plus float rounding.
    """

    matrix: np.ndarray
    dropped_mass_bound: float


def cross_errors(
    model: CellModel, n_common: int, n_a: int, n_b: int, clf: NaiveBayes, tail: float = 0.0,
    on_progress: Callable[[float], None] | None = None, dense_budget: float | None = None,
) -> CrossErrors:
    """``M[a, b] = P[err_a(C + B' + b) and err_b(C + A' + a)]`` for every pair of cells.

    ``a = (x_a, y_a)`` is a test point whose fold has ``n_a`` other points (``A'``), ``b`` one of
    another fold with ``n_b`` other points (``B'``), ``C`` the ``n_common`` shared training points;
    all iid from ``model``. Cells are ordered input major, class fastest (``CellModel`` order).
    Float64 (score comparisons are exact integer comparisons). ``on_progress(fraction)``, if given,
    is called with the fraction of the work done (once per class split of ``C``, last with 1).

    Parameters
    ----------
    tail:
        Two classes: the states of ``C`` whose probabilities sum to at most ``tail / 2`` are
        skipped, and so are, at each size ``m`` of the lower recursion, the least probable
        training sets of ``m`` points holding at most ``tail p_min / (4 r)`` (``p_min`` the
        smallest cell probability, ``r`` the larger private size; see :class:`_Pruning`). The
        bound on what this leaves out, computed from the states actually skipped, is
        :attr:`CrossErrors.dropped_mass_bound` (of order ``tail``). ``0`` sums every state.
    dense_budget:
        Bytes within which the levels of ``h`` are held dense (:func:`holds_dense`; faster, the
        same values); above it they are held packed. ``0``: always packed; ``None``: :data:`DENSE_BYTES`.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> r = cross_errors(equal_cells_model((2,)), 1, 0, 0, NaiveBayes())
    >>> r.matrix.shape, r.dropped_mass_bound
    ((4, 4), 0.0)
    """
    if not 0 <= tail < 1:
        raise ValueError(f"tail must be in [0, 1), got {tail!r}")
    st = _setup(model, clf)
    if n_a == 0 and n_b == 0:
        # no private points: h is the decision itself, the same function of the agreement counts
        # for every input, so one column serves all (fewer bytes per lookup of the sum over C)
        st = replace(st, XU=1, col=np.zeros(st.X, dtype=np.int64), coef=np.ascontiguousarray(st.coef[:, :, :1]))
    K = st.K
    cells = st.X * K
    bottom = n_common + 1
    r = max(n_a, n_b)
    steps = K == 2 and tail > 0 and r > 0  # the recursion's levels are pruned too
    # one set of class laws: the shared points' (n <= n_common) and the pruned levels' (up to
    # bottom + r - 1)
    grids = _CommonGrids(st, bottom + r - 1 if steps else n_common)
    M = np.zeros((cells, cells))
    symmetric = n_a == n_b
    splits = dict(class_count_splits(model, n_common, "float"))
    if K != 2:
        lv1 = _levels_generic(st, bottom, n_b)
        lv2 = lv1 if symmetric else _levels_generic(st, bottom, n_a)
        for i, (split, w) in enumerate(splits.items()):
            if w == 0:
                continue
            up = [tuple(n + (j == y) for j, n in enumerate(split)) for y in range(K)]
            _sum_split(st, grids, split, w, [lv1[s] for s in up], [lv2[s] for s in up], M, cells)
            if on_progress is not None:
                on_progress((i + 1) / len(splits))
        return CrossErrors(M, 0.0)
    thr = _threshold(grids.laws, splits, tail / 2) if tail > 0 else 0.0
    prune = None
    if steps:
        # the level drops count twice (symmetric) and 1 / p_min each: tail / 2 in all
        prune = _Pruning(st, tail * _p_min(model) / (4.0 * r), grids.laws)
    # C split (a, n_common - a) needs h on (a + 1, .) (u of class 0) and (a, .) (u of class 1)
    dense = holds_dense(model, n_common, n_a, n_b, dense_budget)
    stream1 = _stream_two_class(st, bottom, n_b, prune, dense_bottom=False, dense_levels=dense)  # h_a: private part B'
    stream2 = stream1 if symmetric else _stream_two_class(st, bottom, n_a, prune, dense_bottom=False,
                                                          dense_levels=dense)
    buffers = _Buffers()
    prev1 = prev2 = None
    dropped_c = 0.0
    for a, blk1 in stream1:
        blk2 = blk1 if symmetric else next(stream2)[1]
        if prev1 is not None:
            c0 = a - 1
            split = (c0, n_common - c0)
            w = splits.get(split, 0.0)
            if w > 0:
                dropped_c += _sum_split(st, grids, split, w, [blk1, prev1],
                                        [blk1, prev1] if symmetric else [blk2, prev2], M, cells, thr, buffers)
        prev1, prev2 = blk1, blk2
        if on_progress is not None:
            on_progress((a + 1) / (bottom + 1))
    bound = dropped_c
    if prune is not None:
        bound += prune.level_dropped * (2.0 if symmetric else 1.0) / _p_min(model)
    return CrossErrors(M, bound)


def cross_error_matrix(
    model: CellModel, n_common: int, n_a: int, n_b: int, clf: NaiveBayes,
    on_progress: Callable[[float], None] | None = None,
) -> np.ndarray:
    """The matrix of :func:`cross_errors` with every state summed.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_cells, n_cells)``.

    Examples
    --------
    >>> from momentbound.model import equal_cells_model
    >>> M = cross_error_matrix(equal_cells_model((2,)), 1, 0, 0, NaiveBayes())
    >>> M.shape
    (4, 4)
    """
    return cross_errors(model, n_common, n_a, n_b, clf, on_progress=on_progress).matrix
