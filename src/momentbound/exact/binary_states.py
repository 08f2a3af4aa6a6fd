"""Class-count error terms of naive Bayes on the per-class states of binary attributes.

With every attribute binary, the whole training information naive Bayes keeps about class ``c``
is its *state* ``s_c = (s_c1..s_cd)``, ``s_cj`` the number of class-``c`` points whose attribute
``j`` is 0 (the other value has ``n_c - s_cj``): the per-attribute class-value marginals, the
sufficient statistic of the reduced-states route (:mod:`momentbound.exact.reduced_states`). The
agreement vector of class ``c`` at an input ``x`` is the state reflected on the attributes where
``x_j = 1`` (``a_cj = n_c - s_cj``), so the decision at every input is one decision grid
(:func:`~momentbound.exact.predictions.decide_grid`) read in ``2^d`` orientations, and the states
of the classes are independent given the class counts, with law ``prod_c L_c^{n_c}(s_c)``
(``docs/mathematics.md``, "Stratified cross-validation on binary attributes"). On the state grid:

* one training set ``m``: ``V_k(s) = sum_x q_k(x) E_x[k](s)`` (the error of a fresh class-``k``
  point), ``err1 = sum_s P_m(s) V_k(s)`` and, the two test points being independent given the
  training set, ``err2 = sum_s P_m(s) V_k(s) V_l(s)``, with no sum over pairs of inputs;
* two training sets ``T_1 = C + B_1``, ``T_2 = C + B_2`` sharing ``C``: the private parts add
  independent states, so averaging over them is a correlation with their state law, and a test
  point that trains the other classifier shifts that classifier's state of its class by
  ``(x_j = 0)_j``; the term is a sum over ``C``'s states of ``P_C`` times the two averages.

In float arithmetic the sum with both test points in the other training set (the cross-fold term
of cross-validation, ``2^(2d) K^2`` shifted products over ``C``'s states) runs in a compiled
kernel; in rational arithmetic every sum is over Python integers.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numba import njit

__all__ = ["BinaryStates", "applies"]

Counts = tuple[int, ...]


def applies(arities: Sequence[int]) -> bool:
    """The state route covers models whose attributes are all binary."""
    return len(arities) > 0 and all(int(r) == 2 for r in arities)


def grid_bytes(n_classes: int, d: int, N: int) -> float:
    """Memory of the state route at ``N`` points: the largest state grid (every class count ``N / K``),
    ``P = (N / K + 1)^(d K)``, held about ``3 K + 2^d K^2`` times (decisions, ``V`` and one side of
    the cross-fold term, :meth:`BinaryStates.side`), float64."""
    P = (N / n_classes + 1.0) ** (d * n_classes)
    return 8.0 * P * (3 * n_classes + 2**d * n_classes**2)


def side_bytes(n_classes: int, d: int, N: int, v: int) -> float:
    """Bytes of one side of the cross-fold term (:meth:`BinaryStates.side`) of ``v``-fold CV at ``N``
    points with every class count ``N / K``: ``2^d`` inputs, ``K`` classes of ``K`` components on the
    grid of the shared part (``N - 2 N / v`` points) plus one point."""
    shared = (N - 2.0 * N / v) / n_classes
    return 8.0 * 2**d * n_classes**2 * (shared + 1.0) ** (d * (n_classes - 1)) * (shared + 2.0) ** d


def chain_bytes(n_classes: int, d: int, needs: dict) -> float:
    """Bytes of the chains of averaged grids (:meth:`BinaryStates.overlap_needs`) for ``needs``, a down-closed
    set of private parts per training composition: ``2^d K prod_c (m_c - b_c + 1)^d`` floats per part."""
    return 8.0 * 2**d * n_classes * sum(math.prod((m[c] - b[c] + 1.0) ** d for c in range(n_classes))
                                        for m, parts in needs.items() for b in parts)


@njit(cache=True)
def _reflected_copy(Y, rows, reverse, out):  # pragma: no cover - compiled
    """``out[a, r, q] = Y[a, rows[r], q]`` (``q`` reversed with ``reverse``): a grid reflected on some
    axes, row by row (``rows``: the source row of every output row, all axes but the last)."""
    A, R, L = out.shape
    for a in range(A):
        for r in range(R):
            src = rows[r]
            if reverse:
                for q in range(L):
                    out[a, r, q] = Y[a, src, L - 1 - q]
            else:
                for q in range(L):
                    out[a, r, q] = Y[a, src, q]


@njit(cache=True, fastmath=True)
def _pair_both(pc, length, buf1, start1, buf2, start2, size, rowidx, sh, same, acc):  # pragma: no cover - compiled
    """``acc[xt, xu, k, l] += sum_s pc[s] H1_{xt,l}[k](s + shift_l(xu)) H2_{xu,k}[l](s + shift_k(xt))``.

    ``H1_{x,c}`` (``K`` components of ``size[c]`` entries each, on the grid of ``C`` plus one point
    of class ``c``) starts at ``buf1[start1[x, c]]`` (``-1``: absent); ``rowidx[c, r]`` is the flat
    index of row ``r`` of ``C``'s grid (all axes but the last, whose ``length`` entries are
    contiguous) on that grid and ``sh[c, x]`` the flat shift of a point of input ``x`` in class
    ``c``. With ``same`` (both sides one buffer) the term of ``(xt, k; xu, l)`` is that of
    ``(xu, l; xt, k)``, so only one of each such pair is summed. Blocks of rows at a time, so that a
    block stays in cache."""
    I = start1.shape[0]
    K = start1.shape[1]
    R = rowidx.shape[1]
    block = max(1, 512 // length)
    for r0 in range(0, R, block):
        r1 = min(R, r0 + block)
        for xt in range(I):
            for l in range(K):
                s1 = start1[xt, l]
                if s1 < 0:
                    continue
                for xu in range(I):
                    for k in range(K):
                        s2 = start2[xu, k]
                        if s2 < 0 or (same and xt * K + k > xu * K + l):
                            continue
                        total = 0.0
                        for r in range(r0, r1):
                            p = r * length
                            i1 = s1 + k * size[l] + rowidx[l, r] + sh[l, xu]
                            i2 = s2 + l * size[k] + rowidx[k, r] + sh[k, xt]
                            for q in range(length):
                                total += pc[p + q] * buf1[i1 + q] * buf2[i2 + q]
                        acc[xt, xu, k, l] += total
    if same:
        for xt in range(I):
            for k in range(K):
                for xu in range(I):
                    for l in range(K):
                        if xt * K + k > xu * K + l:
                            acc[xt, xu, k, l] = acc[xu, xt, l, k]


@njit(cache=True)
def _correlate(X, base, off, last, w, Y):  # pragma: no cover - compiled
    """``Y[a, r, q] = sum_s w[s] X[a, base[r] + off[s], last[s] + q]``: one class's correlation, its
    last axis (with everything after it) contiguous in the third index."""
    A = X.shape[0]
    Q = Y.shape[2]
    for a in range(A):
        for r in range(base.shape[0]):
            for s in range(off.shape[0]):
                ws = w[s]
                src = base[r] + off[s]
                sh = last[s]
                for q in range(Q):
                    Y[a, r, q] += ws * X[a, src, sh + q]


@njit(cache=True)
def _one_more_pass(X, base, off, last, w, Y):  # pragma: no cover - compiled
    """``Y[a, r, q] = sum_s w[s] X[a, base[r] + off[s], last[s] + q]`` (written, not added; the terms added
    in the order of ``s``, as :func:`_correlate` adds them), all ``s`` in one sweep (two and four terms,
    one and two binary attributes, spelled out), in blocks of ``q`` so that the source rows an output row
    shares with the next stay in cache."""
    A = X.shape[0]
    Q = Y.shape[2]
    S = off.shape[0]
    R = base.shape[0]
    block = 1024
    for a in range(A):
        for q0 in range(0, Q, block):
            q1 = min(Q, q0 + block)
            n = q1 - q0
            for r in range(R):
                y = Y[a, r, q0:q1]
                if S == 4:
                    x0 = X[a, base[r] + off[0], last[0] + q0:last[0] + q1]
                    x1 = X[a, base[r] + off[1], last[1] + q0:last[1] + q1]
                    x2 = X[a, base[r] + off[2], last[2] + q0:last[2] + q1]
                    x3 = X[a, base[r] + off[3], last[3] + q0:last[3] + q1]
                    w0, w1, w2, w3 = w[0], w[1], w[2], w[3]
                    for q in range(n):
                        y[q] = ((w0 * x0[q] + w1 * x1[q]) + w2 * x2[q]) + w3 * x3[q]
                elif S == 2:
                    x0 = X[a, base[r] + off[0], last[0] + q0:last[0] + q1]
                    x1 = X[a, base[r] + off[1], last[1] + q0:last[1] + q1]
                    w0, w1 = w[0], w[1]
                    for q in range(n):
                        y[q] = w0 * x0[q] + w1 * x1[q]
                else:
                    x = X[a, base[r] + off[0], last[0] + q0:last[0] + q1]
                    for q in range(n):
                        y[q] = w[0] * x[q]
                    for s in range(1, S):
                        x = X[a, base[r] + off[s], last[s] + q0:last[s] + q1]
                        ws = w[s]
                        for q in range(n):
                            y[q] += ws * x[q]


@njit(cache=True, fastmath=True)
def _pair_one(pc, length, F1, size, rowidx, sh, buf2, start2, acc):  # pragma: no cover - compiled
    """``acc[x, k] += sum_s pc[s] F1[k](s + shift(x)) H_x(s)``: ``F1`` (``K`` components of ``size`` entries
    on the grid of ``C`` plus one point) read at row ``rowidx[r]`` shifted by ``sh[x]``, ``H_x`` on ``C``'s
    grid at ``buf2[start2[x]]`` (``-1``: absent); blocks of rows, as :func:`_pair_both`."""
    I = start2.shape[0]
    K = acc.shape[1]
    R = rowidx.shape[0]
    block = max(1, 512 // length)
    for r0 in range(0, R, block):
        r1 = min(R, r0 + block)
        for x in range(I):
            s2 = start2[x]
            if s2 < 0:
                continue
            for k in range(K):
                total = 0.0
                for r in range(r0, r1):
                    p = r * length
                    i1 = k * size + rowidx[r] + sh[x]
                    for q in range(length):
                        total += pc[p + q] * F1[i1 + q] * buf2[s2 + p + q]
                acc[x, k] += total


@njit(cache=True, fastmath=True)
def _triple(pc, a, b):  # pragma: no cover - compiled
    """``sum_s pc[s] a[s] b[s]``."""
    total = 0.0
    for s in range(pc.shape[0]):
        total += pc[s] * a[s] * b[s]
    return total


class GridCache:
    """Arrays by key, the least recently used dropped first past a number of bytes.

    :meth:`buffer` hands out float buffers from one pool of ``limit`` bytes, in a ring: a new buffer
    goes after the previous one (back to the start when it does not fit), and the entries whose
    buffers it overwrites are dropped, except the most recently used one, which it goes past (the
    first side of a product stays valid while the second is made). The pool's pages are mapped once
    rather than once per entry."""

    def __init__(self, limit: int, exact: bool) -> None:
        self.limit, self.exact = limit, exact
        self.items: OrderedDict[tuple, tuple[object, int]] = OrderedDict()
        self.bytes = 0
        self.pool = np.empty(0)
        self.head = 0  # where the next buffer of the pool starts
        self.regions: dict[tuple, tuple[int, int]] = {}  # key -> (start, length) of its pool buffer
        self.made: tuple[int, int] | None = None  # the region of the buffer handed out for the entry being made
        self.wraps = 0  # times the ring went back to the start of the pool

    def buffer(self, n: int) -> np.ndarray:
        """A float array of ``n`` entries from the pool (a new array when it cannot hold it)."""
        size = int(self.limit // 8)
        if self.pool.size != size:
            self.pool = np.empty(size)
            self.head = 0
            for key in list(self.regions):
                self._drop(key)
        pin = self.regions.get(next(reversed(self.items))) if self.items else None
        start = self.head
        for _ in range(3):
            if start + n > size:
                start = 0
                self.wraps += 1
            if pin is None or not (start < pin[0] + pin[1] and pin[0] < start + n):
                break
            start = pin[0] + pin[1]
        else:  # the pool holds no n floats beside the most recent entry
            return np.empty(n)
        for key, (at, length) in list(self.regions.items()):
            if start < at + length and at < start + n:
                self._drop(key)
        self.head = start + n
        self.made = (start, n)
        return self.pool[start:start + n]

    def _drop(self, key: tuple | None = None) -> None:
        """Drop an entry (the least recently used by default)."""
        if key is None:
            key = next(iter(self.items))
        _, old = self.items.pop(key)
        self.bytes -= old
        self.regions.pop(key, None)

    def get(self, key: tuple, make) -> object:
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key][0]
        self.made = None
        value = make()
        size = sum(a.nbytes for a in (value if isinstance(value, list) else [value]) if isinstance(a, np.ndarray))
        if self.exact:
            size *= 4  # Python integers behind the object pointers
        self.items[key] = (value, size)
        self.bytes += size
        if self.made is not None:
            self.regions[key] = self.made
            self.made = None
        while self.bytes > self.limit and len(self.items) > 1:
            self._drop()
        return value


class _Arena:
    """Scratch float arrays carved from one buffer, all released at once by :meth:`reset`: the passes
    of a correlation reuse memory already mapped instead of faulting in fresh pages each time."""

    def __init__(self) -> None:
        self.buf = np.empty(0)
        self.at = 0

    def reset(self) -> None:
        self.at = 0

    def zeros(self, shape: tuple[int, ...]) -> np.ndarray:
        n = math.prod(shape)
        if self.at + n > self.buf.size:  # a larger buffer; arrays already handed out keep the old one
            self.buf = np.empty(max(n, 2 * self.buf.size))
            self.at = 0
        out = self.buf[self.at:self.at + n].reshape(shape)
        self.at += n
        out.fill(0.0)
        return out


def down_set(parts: object) -> set[Counts]:
    """Every private part ``b'`` with ``b' <= b`` (class by class) for some ``b`` of ``parts``, ``0`` included."""
    out: set[Counts] = set()
    for b in parts:  # type: ignore[attr-defined]
        out.update(itertools.product(*(range(int(x) + 1) for x in b)))
    return out


class _Chain:
    """The averaged grids ``A(m, x, b)`` of one training composition ``m`` for a down-closed set of private
    parts ``b`` and every input ``x``, in state orientation, each ``K`` components on the grid of
    ``m - b``, contiguous in one buffer (``A(m, x, b)`` starts at ``at[b] + x * size[b]``): a side of the
    cross-fold term is this buffer with the starts of ``A(m, x, b - e_c)``, no copy."""

    def __init__(self, buf: np.ndarray, at: dict, size: dict, shapes: dict) -> None:
        self.buf, self.at, self.size, self.shapes = buf, at, size, shapes
        self.used = buf.size  # entries in use (the buffer may hold more)
        self.nbytes = 8 * self.used
        self.summed: dict[Counts, np.ndarray] = {}
        self.sides: dict[Counts, np.ndarray] = {}

    def view(self, b: Counts, ix: int) -> np.ndarray:
        start = self.at[b] + ix * self.size[b]
        return self.buf[start:start + self.size[b]].reshape(self.shapes[b])


class BinaryStates:
    """The state-grid terms of a :class:`~momentbound.exact.class_terms.ClassCountTerms` on binary
    attributes (same scaling: integer sums over the common denominators, or floats).

    Arrays over a composition ``m`` have the axes ``(k,)`` then, class by class, ``d`` axes of
    length ``m_c + 1``."""

    #: bytes of per-composition arrays (decisions in state orientation, ``V``, ``P_m``) kept
    CACHE_BYTES = 256 * 2**20
    #: bytes of the averaged decision grids of :meth:`side` kept
    SIDE_BYTES = 2048 * 2**20
    #: bytes of the chains of averaged grids of the between-partition terms (:meth:`overlap_needs`) kept
    #: beside those of the class counts in hand; larger needs take the usual route
    CHAIN_BYTES = 1536 * 2**20
    #: bytes of the decision grids read at one input (:meth:`oriented_grid`) kept
    ORIENTED_BYTES = 384 * 2**20

    def __init__(self, terms: object) -> None:
        self.t = terms
        t = terms
        self.K, self.d, self.exact = t.K, t.d, t.exact  # type: ignore[attr-defined]
        self.inputs = list(t.inputs)  # type: ignore[attr-defined]
        self.I = len(self.inputs)
        K, d = self.K, self.d
        self.zero_input = (0,) * d
        self.flips = [tuple(1 + c * d + j for c in range(K) for j in range(d) if x[j]) for x in self.inputs]
        self.bumps = [tuple(int(x[j] == 0) for j in range(d)) for x in self.inputs]
        dtype = object if self.exact else float
        self.nums = np.array(t.num, dtype=dtype)  # type: ignore[attr-defined]  # (K, I)
        self._cache = GridCache(self.CACHE_BYTES, self.exact)
        self._sides = GridCache(self.SIDE_BYTES, self.exact)
        self._grids = GridCache(self.ORIENTED_BYTES, self.exact)
        self._arena = _Arena()
        self._needs: dict[Counts, set[Counts]] | None = None
        self._overlapping = False
        self._chains: OrderedDict[Counts, _Chain] = OrderedDict()
        self._chain_spare: list[np.ndarray] = []  # buffers of dropped chains (pages already mapped), oldest first

    def _get(self, key: tuple, make) -> object:
        return self._cache.get(key, make)

    # ------------------------------------------------------------------ grids
    def shape(self, m: Counts) -> tuple[int, ...]:
        return tuple(m[c] + 1 for c in range(self.K) for _ in range(self.d))

    def law(self, c: int, n: int) -> np.ndarray:
        """Law of the state of ``n`` class-``c`` points (scaled like the term cache's laws)."""
        return self.t.law(c, n, (self.zero_input,))  # type: ignore[attr-defined]

    def weight(self, m: Counts) -> np.ndarray:
        """``P_m(s) = prod_c L_c^{m_c}(s_c)`` on the state grid of ``m`` (no class axis)."""

        def make() -> np.ndarray:
            K, d = self.K, self.d
            out = None
            for c in range(K):
                shape = [1] * (K * d)
                shape[c * d:(c + 1) * d] = [m[c] + 1] * d
                part = self.law(c, m[c]).reshape(shape)
                out = part if out is None else out * part
            return np.ascontiguousarray(out)

        return self._get(("P", m), make)  # type: ignore[return-value]

    def decisions(self, m: Counts) -> tuple[np.ndarray, int]:
        """The error grid of composition ``m`` in agreement coordinates, ``(K,) + shape(m)``, and its scale."""
        err, scale = self.t.errors(m, 0)  # type: ignore[attr-defined]  # the same at every input
        return err.reshape((self.K,) + self.shape(m)), scale

    def oriented(self, m: Counts, ix: int) -> np.ndarray:
        """``E_x[k](s)``: the errors at input ``ix`` on the state grid (a view)."""
        E, _ = self.decisions(m)
        return np.flip(E, axis=self.flips[ix]) if self.flips[ix] else E

    def summed(self, m: Counts) -> np.ndarray:
        """``V[k](s) = sum_x num_k(x) E_x[k](s)``."""

        def make() -> np.ndarray:
            V = None
            for ix in range(self.I):
                w = self.nums[:, ix].reshape((self.K,) + (1,) * (self.K * self.d))
                term = w * self.oriented(m, ix)
                V = term if V is None else V + term
            return V

        return self._get(("V", m), make)  # type: ignore[return-value]

    def averaged(self, m: Counts, ix: int, extra: Sequence[int], rows: slice = slice(None)) -> np.ndarray:
        """``correlate(oriented(m, ix)[rows], extra)`` without reorienting the decision grid: with ``F``
        the reflection of input ``x``, ``corr(F E, L) = F corr(E, F L)``, and ``F L`` is the law of
        the agreements with ``x``."""
        E, _ = self.decisions(m)
        flips = self.flips[ix]
        Y = self.correlate(E[rows], extra, ix)
        return np.flip(Y, axis=flips) if flips else Y

    def averaged_kept(self, m: Counts, ix: int, extra: Sequence[int]) -> np.ndarray:
        """:meth:`averaged` (every class component), kept for the next class counts."""
        key = ("avg", m, ix, tuple(int(e) for e in extra))
        chain = self._chain(m, key[3])
        if chain is not None:
            return chain.view(key[3], ix)
        return self._sides.get(key, lambda: self.averaged(m, ix, extra))  # type: ignore[return-value]

    def summed_kept(self, m: Counts, extra: Sequence[int]) -> np.ndarray:
        """``correlate(summed(m), extra)``, kept for the next class counts."""
        key = ("sum", m, tuple(int(e) for e in extra))
        chain = self._chain(m, key[2])
        if chain is not None:
            return self._chain_summed(chain, key[2])
        return self._sides.get(key, lambda: self.correlate(self.summed(m), extra))  # type: ignore[return-value]

    def correlate(self, X: np.ndarray, extra: Sequence[int], ix: int | None = None,
                  memo: dict | None = None, arena: _Arena | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """``Y(r) = sum_s L^{extra}(s) X(r + s)``: ``X`` averaged over ``extra[c]`` more i.i.d.
        class-``c`` points per class (axis 0 of ``X`` is carried along); with ``ix``, ``L`` is the law of
        the agreements with input ``ix`` instead of the states. ``memo`` keeps the grid after each class
        by the private points so far, for correlations of one ``X`` that share their first classes; float
        results go to ``arena`` when given (scratch memory reused from one call to the next), and the
        last pass's to ``out`` (a flat float array of the result's size) when given."""
        d = self.d
        final = max((c for c in range(self.K) if int(extra[c])), default=-1)
        for c in range(self.K):
            e = int(extra[c])
            if memo is not None:
                key = (ix, tuple(int(x) for x in extra[:c + 1]))
                if key in memo:
                    X = memo[key]
                    continue
            if e == 0:
                if memo is not None:
                    memo[key] = X
                continue
            if e < 0:
                raise ValueError("negative number of extra points")
            L = self.law(c, e)
            if ix is not None and self.flips[ix]:
                L = np.flip(L, axis=[j for j in range(d) if self.inputs[ix][j]])
            axes = range(1 + c * d, 1 + (c + 1) * d)
            if not self.exact:
                X = self._correlate_float(X, c, e, L, arena, out if c == final else None)
                if memo is not None:
                    memo[key] = X
                continue
            out_len = [X.shape[a] - e for a in axes]
            out_shape = list(X.shape)
            for a, n in zip(axes, out_len):
                out_shape[a] = n
            Y = np.zeros(out_shape, dtype=X.dtype)
            for s in itertools.product(range(e + 1), repeat=d):
                w = L[s]
                if not w:
                    continue
                index = [slice(None)] * X.ndim
                for a, sj, n in zip(axes, s, out_len):
                    index[a] = slice(sj, sj + n)
                Y += w * X[tuple(index)]
            X = Y
        return X

    def _correlate_float(self, X: np.ndarray, c: int, e: int, L: np.ndarray, arena: _Arena | None = None,
                         out: np.ndarray | None = None) -> np.ndarray:
        d = self.d
        side = X.shape[1 + c * d]
        lead = int(np.prod(X.shape[:1 + c * d]))
        tail = int(np.prod(X.shape[1 + (c + 1) * d:]))
        base, off, last = self._get(("map", side, e), lambda: self._maps(side, e))  # type: ignore[misc]
        w = np.ascontiguousarray(L, dtype=float).reshape(-1)
        shape_y = (lead, base.size, (side - e) * tail)
        if out is not None:
            Y = out.reshape(shape_y)
            Y.fill(0.0)
        else:
            Y = np.zeros(shape_y) if arena is None else arena.zeros(shape_y)
        _correlate(np.ascontiguousarray(X).reshape(lead, side ** (d - 1), side * tail), base, off, last * tail, w, Y)
        shape = list(X.shape)
        shape[1 + c * d:1 + (c + 1) * d] = [side - e] * d
        return Y.reshape(shape)

    def _maps(self, side: int, e: int) -> list[np.ndarray]:
        """Flat index (over the first ``d - 1`` axes) of every output row and of every kernel state,
        and the kernel state's last coordinate."""
        d = self.d
        strides = np.array([side ** (d - 2 - j) for j in range(d - 1)], dtype=np.int64)
        base = np.indices((side - e,) * (d - 1)).reshape(d - 1, -1).T @ strides if d > 1 else np.zeros(1)
        kernel = np.indices((e + 1,) * d).reshape(d, -1).T
        off = kernel[:, :-1] @ strides if d > 1 else np.zeros(e + 1)
        return [np.ascontiguousarray(x, dtype=np.int64) for x in (base, off, kernel[:, -1])]

    def shifted(self, X: np.ndarray, c: int, bump: Sequence[int], cc: Counts) -> np.ndarray:
        """``X(s + bump on class c's axes)`` for ``s`` on the state grid of ``cc``."""
        d = self.d
        index = [slice(None)] + [slice(0, cc[cls] + 1) for cls in range(self.K) for _ in range(d)]
        for j in range(d):
            index[1 + c * d + j] = slice(bump[j], bump[j] + cc[c] + 1)
        return X[tuple(index)]

    # ------------------------------------------------------------------ one training set
    def err1(self, m: Counts) -> tuple[list[object], int]:
        """``(sum_s P_m V[k], scale)`` per class ``k``."""
        V = self.summed(m)
        P = self.weight(m)
        _, scale = self.decisions(m)
        flat = V.reshape(self.K, -1)
        if self.exact:
            return [int(np.dot(flat[k], P.reshape(-1))) for k in range(self.K)], scale
        return list(flat @ P.reshape(-1)), scale

    def err2(self, m: Counts) -> tuple[np.ndarray, int]:
        """``(sum_s P_m V[k] V[l], scale)`` (``K x K``)."""
        V = self.summed(m).reshape(self.K, -1)
        P = self.weight(m).reshape(-1)
        _, scale = self.decisions(m)
        return np.dot(V * P[None, :], V.T), scale

    def input_pairs(self, m: Counts) -> np.ndarray:
        """``sum_s P_m(s) g_x[y](s) g_x'[y'](s)`` for every pair of inputs ``(x, x')`` and classes ``(y, y')``,
        shape ``(I, K, I, K)`` (float arithmetic, loss-free terms): the pair terms of ``E[GE^2]`` given the
        class counts ``m``, ``g_x = 1 - E_x`` the prediction probabilities at ``x`` on the state grid. One
        slice of the first state axis at a time (memory ``I K`` times a slice)."""
        if self.exact or self.t.loss is not None:  # type: ignore[attr-defined]
            raise ValueError("input_pairs needs float arithmetic and the 0-1 loss")
        K, I = self.K, self.I
        E, _ = self.decisions(m)
        P = self.weight(m)
        views = [self.oriented(m, ix) for ix in range(I)]
        out = np.zeros((I * K, I * K))
        for i in range(E.shape[1]):
            A = 1.0 - np.stack([v[:, i] for v in views]).reshape(I * K, -1)
            out += (A * P[i].reshape(1, -1)) @ A.T
        return out.reshape(I, K, I, K)

    # ------------------------------------------------------------------ two training sets
    def two_sets(self, cc: Counts, b1: Counts, b2: Counts, u_in_1: bool, t_in_2: bool,
                 same_point: bool, ks: Sequence[int], ls: Sequence[int]) -> tuple[np.ndarray, int]:
        """The sums of :meth:`~momentbound.exact.class_terms.ClassCountTerms.two_sets` before the
        common denominators: ``(total, scale)`` with ``total[k, l]`` over ``C``'s states."""
        K = self.K
        m1 = tuple(cc[c] + b1[c] for c in range(K))
        m2 = tuple(cc[c] + b2[c] for c in range(K))
        _, scale = self.decisions(m1)
        P = self.weight(cc)
        total = np.zeros((K, K), dtype=object if self.exact else float)
        if self.exact:
            total[...] = 0
        if same_point:
            chained = not self.exact and self._chain(m1, b1) is not None and self._chain(m2, b2) is not None
            for ix in range(self.I):
                F1 = self.averaged_kept(m1, ix, b1)
                F2 = self.averaged_kept(m2, ix, b2)
                for k in ks:
                    if self.nums[k, ix]:
                        if chained:  # contiguous grids of the chains: one compiled sweep
                            total[k, k] += self.nums[k, ix] * _triple(P.reshape(-1), F1[k].reshape(-1),
                                                                      F2[k].reshape(-1))
                        else:
                            total[k, k] += self.nums[k, ix] * np.sum(P * F1[k] * F2[k])
            return total, scale
        if not u_in_1 and not t_in_2:
            F1 = self.summed_kept(m1, b1).reshape(K, -1)
            F2 = self.summed_kept(m2, b2).reshape(K, -1)
            return np.dot(F1 * P.reshape(1, -1), F2.T), scale
        if t_in_2 and not u_in_1:  # the mirror image of u in T_1 only
            mirror, _ = self.two_sets(cc, b2, b1, True, False, False, ls, ks)
            return mirror.T, scale
        if not t_in_2:  # u trains T_1; t is a fresh test point of T_1
            chain2 = None if self.exact else self._chain(m2, b2)
            if chain2 is not None:
                return self._one_shared(cc, m1, b1, b2, chain2, P, ls), scale
            for l in ls:
                F1 = self.summed_kept(m1, [b1[c] - (c == l) for c in range(K)])
                for iu in range(self.I):
                    if not self.nums[l, iu]:
                        continue
                    A = self.shifted(F1, l, self.bumps[iu], cc).reshape(K, -1) * P.reshape(1, -1)
                    F2 = self.averaged_kept(m2, iu, b2)[l].reshape(-1)
                    total[:, l] += self.nums[l, iu] * np.dot(A, F2)
            return total, scale
        return self._both(cc, b1, b2, m1, m2, P, ks, ls), scale

    def _one_shared(self, cc: Counts, m1: Counts, b1: Counts, b2: Counts, chain2: _Chain, P: np.ndarray,
                    ls: Sequence[int]) -> np.ndarray:
        """:meth:`two_sets` with ``u`` in ``T_1`` only, in float arithmetic, ``T_2``'s grids read from its chain:
        ``total[k, l] = sum_x q_l(x) sum_s P_C(s) V_1[k](s + shift_l(x)) A_2(x)[l](s)``, ``V_1`` the summed
        grid of ``T_1`` averaged over its private part less ``u``."""
        K, I = self.K, self.I
        size, _, sh = self._get(("layout", cc), lambda: self._layout(cc))  # type: ignore[misc]
        total = np.zeros((K, K))
        pc = P.reshape(-1)
        n = chain2.size[b2] // K  # entries of one component on C's grid
        for l in ls:
            runs, length = self._get(("runs", cc, l), lambda: self._runs(cc, l))  # type: ignore[misc]
            F1 = np.ascontiguousarray(self.summed_kept(m1, [b1[c] - (c == l) for c in range(K)])).reshape(-1)
            start2 = np.array([chain2.at[b2] + ix * chain2.size[b2] + l * n if self.nums[l, ix] else -1
                               for ix in range(I)], dtype=np.int64)
            acc = np.zeros((I, K))
            _pair_one(pc, length, F1, size[l], runs, sh[l], chain2.buf, start2, acc)
            total[:, l] = self.nums[l, :].astype(float) @ acc
        return total

    def _runs(self, cc: Counts, l: int) -> tuple[np.ndarray, int]:
        """The grids of ``cc`` and of ``cc + e_l`` agree on every axis after class ``l``'s: their entries are
        runs of that many contiguous entries, one per state of the classes up to ``l``; the flat index of
        every run on the grid of ``cc + e_l``, and the run length."""
        d = self.d
        lead = self.shape(cc)[:(l + 1) * d]
        length = math.prod(self.shape(cc)[(l + 1) * d:])
        grid = self.shape(tuple(cc[x] + (x == l) for x in range(self.K)))[:(l + 1) * d]
        idx = np.indices(lead).reshape(len(lead), -1)
        return np.ravel_multi_index(tuple(idx), grid).astype(np.int64) * length, length

    def _both(self, cc: Counts, b1: Counts, b2: Counts, m1: Counts, m2: Counts, P: np.ndarray,
              ks: Sequence[int], ls: Sequence[int]) -> np.ndarray:
        """Both test points train the other classifier: ``sum_{x_t, x_u} q_k(x_t) q_l(x_u) sum_s P_C(s)
        H1[k](s + shift_l(x_u)) H2[l](s + shift_k(x_t))``, ``H1``, ``H2`` averaged over the private parts."""
        K, I = self.K, self.I
        if not self.exact:
            side1 = self._chain_side(m1, b1) or self.side(m1, b1)
            side2 = side1 if (m1, b1) == (m2, b2) else (self._chain_side(m2, b2) or self.side(m2, b2))
            if side1[0] is side2[0] and (m1, b1) != (m2, b2):  # one chain, two private parts: not one side
                side2 = self.side(m2, b2)
            return self._both_compiled(cc, P, side1, side2, ks, ls)
        H1 = {(it, l): self.averaged(m1, it, [b1[c] - (c == l) for c in range(K)])
              for it in range(I) for l in ls}
        if (m1, b1) == (m2, b2):  # two folds of one composition: the same averages on both sides
            H2 = H1
        else:
            H2 = {(iu, k): self.averaged(m2, iu, [b2[c] - (c == k) for c in range(K)])
                  for iu in range(I) for k in ks}
        total = np.zeros((K, K), dtype=object)
        total[...] = 0
        for it in range(I):
            for iu in range(I):
                for l in ls:
                    if not self.nums[l, iu]:
                        continue
                    A = self.shifted(H1[it, l], l, self.bumps[iu], cc) * P[None]
                    for k in ks:
                        if not self.nums[k, it]:
                            continue
                        B = self.shifted(H2[iu, k][l:l + 1], k, self.bumps[it], cc)[0]
                        total[k, l] += self.nums[k, it] * self.nums[l, iu] * np.sum(A[k] * B)
        return total

    # ------------------------------------------------------------------ chains of the between-partition terms
    def overlap_needs(self, needs: dict[Counts, set[Counts]] | None) -> None:
        """The averaged grids the between-partition terms of the next class counts read: per training
        composition ``m``, the largest private parts ``b`` (every ``b' <= b`` comes with them). Float
        arithmetic: each ``m`` gets one chain (:class:`_Chain`), ``A(m, x, b + e_c)`` computed from
        ``A(m, x, b)`` by one pass with the law of one more class-``c`` point (``2^d`` shifted adds)
        instead of every private part correlated from the decision grid (``docs/mathematics.md``,
        "Stratified cross-validation on binary attributes"). ``None`` ends it. Needs larger than
        :attr:`CHAIN_BYTES` take the usual route."""
        if needs is None or self.exact:
            self._needs = None
            self._overlapping = needs is not None
            return
        if not self._overlapping:  # the sides of a single partition are not read again here
            self._sides = GridCache(self.SIDE_BYTES, self.exact)
            self._overlapping = True
        full = {tuple(m): down_set(bs) for m, bs in needs.items()}
        self._needs = full if chain_bytes(self.K, self.d, full) <= self.CHAIN_BYTES else None

    def _chain(self, m: Counts, b: Counts) -> _Chain | None:
        """The chain of ``m`` when the needs registered cover ``(m, b)`` (computed, or grown, on first use)."""
        if self._needs is None:
            return None
        need = self._needs.get(m)
        if need is None or b not in need:
            return None
        chain = self._chains.get(m)
        if chain is not None and need <= chain.at.keys():
            self._chains.move_to_end(m)
            return chain
        if chain is None:
            chain = self._chains[m] = _Chain(np.empty(0), {}, {}, {})
        self._chains.move_to_end(m)
        self._grow(m, chain, need)
        held = sum(c.nbytes for c in self._chains.values())
        for old in [k for k in self._chains if k not in self._needs]:  # the least recently used first
            if held <= self.CHAIN_BYTES:
                break
            dropped = self._chains.pop(old)
            held -= dropped.nbytes
            self._spare_chain_buffer(dropped.buf)
        return chain

    def _spare_chain_buffer(self, buf: np.ndarray) -> None:
        """Keep a dropped chain's buffer for the next chains (writing into fresh pages costs a page fault per
        4 KiB, more than the passes themselves): at most half of :attr:`CHAIN_BYTES`, the oldest dropped first."""
        self._chain_spare.append(buf)
        while sum(b.nbytes for b in self._chain_spare) > self.CHAIN_BYTES / 2:
            self._chain_spare.pop(0)

    def _grow(self, m: Counts, chain: _Chain, parts: set[Counts]) -> None:
        """Add the private parts ``parts`` to ``chain`` (every parent before its children), in a new buffer
        (a dropped chain's when one fits) that the grids already made are copied to."""
        K, I = self.K, self.I
        order = sorted(parts - chain.at.keys(), key=lambda b: (sum(b), b))
        total = chain.used
        for b in order:
            chain.shapes[b] = (K,) + self.shape(tuple(m[c] - b[c] for c in range(K)))
            chain.size[b] = math.prod(chain.shapes[b])
            chain.at[b] = total
            total += I * chain.size[b]
        if total > chain.buf.size:
            fits = [i for i, buf in enumerate(self._chain_spare) if total <= buf.size <= 1.25 * total]
            buf = (self._chain_spare.pop(min(fits, key=lambda i: self._chain_spare[i].size)) if fits
                   else np.empty(total))
            buf[:chain.used] = chain.buf[:chain.used]
            if chain.buf.size:
                self._spare_chain_buffer(chain.buf)
            chain.buf = buf
        chain.used = total
        chain.nbytes = chain.buf.nbytes
        E, _ = self.decisions(m)
        for b in order:
            for ix in range(I):
                out = chain.view(b, ix)
                if not any(b):
                    self.reflect(E, ix, out)
                else:  # one more point of the first class with private points (the longest contiguous rows)
                    c = min(x for x in range(K) if b[x])
                    self._one_more(chain.view(tuple(v - (x == c) for x, v in enumerate(b)), ix), c, out)

    def _one_more(self, X: np.ndarray, c: int, out: np.ndarray) -> None:
        """``out(s) = sum_r L_c^1(r) X(s + r)`` on class ``c``'s axes (state orientation): ``X`` averaged
        over one more class-``c`` point."""
        d = self.d
        side = X.shape[1 + c * d]
        lead = int(np.prod(X.shape[:1 + c * d]))
        tail = int(np.prod(X.shape[1 + (c + 1) * d:]))
        base, off, last = self._get(("map", side, 1), lambda: self._maps(side, 1))  # type: ignore[misc]
        w = self._get(("law1", c), lambda: np.ascontiguousarray(self.law(c, 1), dtype=float).reshape(-1))
        _one_more_pass(X.reshape(lead, side ** (d - 1), side * tail), base, off, last * tail, w,
                       out.reshape(lead, base.size, (side - 1) * tail))

    def _chain_summed(self, chain: _Chain, b: Counts) -> np.ndarray:
        """``sum_x num_k(x) A(m, x, b)[k]`` (``correlate(summed(m), b)``) from the chain, kept with it."""
        if b not in chain.summed:
            shape = (self.K,) + (1,) * (len(chain.shapes[b]) - 1)
            V = np.multiply(self.nums[:, 0].reshape(shape), chain.view(b, 0))
            term = np.empty_like(V)
            for ix in range(1, self.I):  # the order of summed(): V = w_0 E_0 + w_1 E_1 + ...
                np.multiply(self.nums[:, ix].reshape(shape), chain.view(b, ix), out=term)
                V += term
            chain.summed[b] = V
        return chain.summed[b]

    def _chain_side(self, m: Counts, b: Counts) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`side` read from the chain of ``m`` (its buffer and the starts of ``A(m, x, b - e_c)``)."""
        chain = self._chain(m, b)
        if chain is None:
            return None
        if b not in chain.sides:
            start = -np.ones((self.I, self.K), dtype=np.int64)
            for c in range(self.K):
                if b[c] >= 1:
                    less = tuple(v - (x == c) for x, v in enumerate(b))
                    start[:, c] = [chain.at[less] + ix * chain.size[less] for ix in range(self.I)]
            chain.sides[b] = start
        return chain.buf, chain.sides[b]

    def side(self, m: Counts, b: Counts) -> tuple[np.ndarray, np.ndarray]:
        """One side of :meth:`_both` in float arithmetic: ``H_{x,c} = averaged(m, x, b - e_c)`` for every
        input ``x`` and class ``c`` with ``b_c > 0``, contiguous in one buffer, and their starts
        (``-1``: absent). It depends on ``(m, b)`` only, so neighbouring class counts share it."""

        def make() -> list[np.ndarray]:
            K, I = self.K, self.I
            cc = tuple(m[x] - b[x] for x in range(K))
            sizes = [K * math.prod(self.shape(tuple(cc[x] + (x == c) for x in range(K)))) for c in range(K)]
            start = -np.ones((I, K), dtype=np.int64)
            buf = self._sides.buffer(max(1, sum(I * sizes[c] for c in range(K) if b[c] >= 1)))
            # b - e_c = (b - 1, clipped at 0) + (one point of every other class with private points): the
            # laws convolve, so the correlations compose; the first part is shared by every c
            common = [max(x - 1, 0) for x in b]
            classes = [c for c in range(K) if b[c] >= 1]
            at = {c: sum(I * sizes[x] for x in classes if x < c) for c in classes}
            for ix in range(I):
                # the decision grid read at input ix (kept per composition): correlated with the
                # unflipped laws, its averages are already reflected, and the last pass writes them
                # straight into the side's buffer
                E = self.oriented_grid(m, ix)
                self._arena.reset()  # the passes of the previous input are written out
                G = self.correlate(E, common, arena=self._arena)
                memo: dict = {}  # the classes before c have the same extra points for every later c
                for c in classes:
                    start[ix, c] = at[c] + ix * sizes[c]
                    out = buf[start[ix, c]:start[ix, c] + sizes[c]]
                    Y = self.correlate(G, [int(x != c and b[x] >= 1) for x in range(K)], None, memo,
                                       self._arena, out)
                    if not np.may_share_memory(Y, out):  # no pass wrote it (no other class has private points)
                        out.reshape(Y.shape)[...] = Y
            return [buf, start]

        return tuple(self._sides.get(("side", m, b), make))  # type: ignore[return-value]

    def oriented_grid(self, m: Counts, ix: int) -> np.ndarray:
        """:meth:`oriented` as a contiguous grid (copied row by row, :meth:`reflect`), kept for the
        sides of the next private parts of ``m``."""
        E, _ = self.decisions(m)
        if not self.flips[ix]:
            return E

        def make() -> np.ndarray:
            out = np.empty(E.size)
            self.reflect(E, ix, out)
            return out.reshape(E.shape)

        return self._grids.get(("oriented", m, ix), make)  # type: ignore[return-value]

    def reflect(self, Y: np.ndarray, ix: int, out: np.ndarray) -> None:
        """``out = np.flip(Y, axis=flips[ix])`` flattened (axis 0 carried along), row by row in a
        compiled loop (a copy through numpy's strided views is several times slower)."""
        shape = Y.shape
        if not self.flips[ix]:
            out.reshape(shape)[...] = Y
            return

        def make() -> np.ndarray:
            inner = shape[1:-1]
            idx = np.indices(inner).reshape(len(inner), -1)
            for a in self.flips[ix]:
                if a < len(shape) - 1:
                    idx[a - 1] = inner[a - 1] - 1 - idx[a - 1]
            return np.ravel_multi_index(tuple(idx), inner).astype(np.int64)

        rows = self._get(("rows", shape[1:], ix), make)
        L = shape[-1]
        _reflected_copy(np.ascontiguousarray(Y).reshape(shape[0], -1, L), rows,
                        (len(shape) - 1) in self.flips[ix], out.reshape(shape[0], -1, L))

    def _both_compiled(self, cc: Counts, P: np.ndarray, side1: tuple, side2: tuple, ks: Sequence[int],
                       ls: Sequence[int]) -> np.ndarray:
        """:meth:`_both` in float arithmetic, on the sides' buffers (:meth:`side`)."""
        K, I, d = self.K, self.I, self.d
        layout = self._get(("layout", cc), lambda: self._layout(cc))
        size, rowidx, sh = layout  # type: ignore[misc]
        acc = np.zeros((I, I, K, K))
        same = side1[0] is side2[0]
        _pair_both(P.reshape(-1), cc[K - 1] + 1, side1[0], side1[1], side2[0], side2[1], size, rowidx, sh, same, acc)
        w = self.nums.astype(float)
        total = np.einsum("abkl,ka,lb->kl", acc, w, w)
        mask = np.zeros((K, K))
        mask[np.ix_(list(ks), list(ls))] = 1.0
        return total * mask

    def _layout(self, cc: Counts) -> list[np.ndarray]:
        """Per class ``c``: the size of the grid of ``cc + e_c``, the flat index on it of every row of
        ``cc``'s grid, and the flat shift of one point of each input in class ``c``."""
        K, I, d = self.K, self.I, self.d
        rows = np.indices(self.shape(cc)[:-1]).reshape(K * d - 1, -1).T
        size = np.zeros(K, dtype=np.int64)
        rowidx = np.zeros((K, rows.shape[0]), dtype=np.int64)
        sh = np.zeros((K, I), dtype=np.int64)
        for c in range(K):
            grid = self.shape(tuple(cc[x] + (x == c) for x in range(K)))
            strides = np.cumprod((1,) + grid[::-1])[:-1][::-1].astype(np.int64)
            size[c] = int(np.prod(grid))
            rowidx[c] = rows @ strides[:-1]
            for ix in range(I):
                sh[c, ix] = sum(self.bumps[ix][j] * strides[c * d + j] for j in range(d))
        return [size, rowidx, sh]
