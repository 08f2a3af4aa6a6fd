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


@njit(cache=True, fastmath=True)
def _pair_both(pc, H1, H2, off1, off2, rows, length, acc):  # pragma: no cover - compiled
    """``acc[xt, xu, k, l] += sum_p pc[p] H1[xt, l, k, p + off1[l, xu]] H2[xu, k, l, p + off2[k, xt]]``
    over the rows of the padded grid that hold states (``length`` entries from each of ``rows``),
    a block of rows at a time so that the block stays in cache."""
    I = H1.shape[0]
    K = H1.shape[1]
    n_rows = rows.shape[0]
    block = max(1, 512 // length)
    for r0 in range(0, n_rows, block):
        r1 = min(n_rows, r0 + block)
        for xt in range(I):
            for l in range(K):
                for xu in range(I):
                    o1 = off1[l, xu]
                    for k in range(K):
                        o2 = off2[k, xt]
                        s = 0.0
                        for r in range(r0, r1):
                            p0 = rows[r]
                            for p in range(p0, p0 + length):
                                s += pc[p] * H1[xt, l, k, p + o1] * H2[xu, k, l, p + o2]
                        acc[xt, xu, k, l] += s


@njit(cache=True)
def _correlate(X, base, off, w, Y):  # pragma: no cover - compiled
    """``Y[a, r, b] = sum_s w[s] X[a, base[r] + off[s], b]``: one class's correlation on flat indices."""
    A = X.shape[0]
    B = X.shape[2]
    for a in range(A):
        for r in range(base.shape[0]):
            for s in range(off.shape[0]):
                ws = w[s]
                src = base[r] + off[s]
                for b in range(B):
                    Y[a, r, b] += ws * X[a, src, b]


class BinaryStates:
    """The state-grid terms of a :class:`~momentbound.exact.class_terms.ClassCountTerms` on binary
    attributes (same scaling: integer sums over the common denominators, or floats).

    Arrays over a composition ``m`` have the axes ``(k,)`` then, class by class, ``d`` axes of
    length ``m_c + 1``."""

    #: bytes of per-composition arrays (decisions in state orientation, ``V``, ``P_m``) kept
    CACHE_BYTES = 512 * 2**20

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
        self._cache: OrderedDict[tuple, tuple[object, int]] = OrderedDict()
        self._bytes = 0

    # ------------------------------------------------------------------ cache
    def _get(self, key: tuple, make) -> object:
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key][0]
        value = make()
        size = sum(a.nbytes for a in (value if isinstance(value, list) else [value]) if isinstance(a, np.ndarray))
        if self.exact:
            size *= 4  # Python integers behind the object pointers
        self._cache[key] = (value, size)
        self._bytes += size
        while self._bytes > self.CACHE_BYTES and len(self._cache) > 1:
            _, (_, old) = self._cache.popitem(last=False)
            self._bytes -= old
        return value

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

    def correlate(self, X: np.ndarray, extra: Sequence[int], ix: int | None = None) -> np.ndarray:
        """``Y(r) = sum_s L^{extra}(s) X(r + s)``: ``X`` averaged over ``extra[c]`` more i.i.d.
        class-``c`` points per class (axis 0 of ``X`` is carried along); with ``ix``, ``L`` is the law of
        the agreements with input ``ix`` instead of the states."""
        d = self.d
        for c in range(self.K):
            e = int(extra[c])
            if e == 0:
                continue
            if e < 0:
                raise ValueError("negative number of extra points")
            L = self.law(c, e)
            if ix is not None and self.flips[ix]:
                L = np.flip(L, axis=[j for j in range(d) if self.inputs[ix][j]])
            axes = range(1 + c * d, 1 + (c + 1) * d)
            if not self.exact:
                X = self._correlate_float(X, c, e, L)
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

    def _correlate_float(self, X: np.ndarray, c: int, e: int, L: np.ndarray) -> np.ndarray:
        d = self.d
        side = X.shape[1 + c * d]
        lead = int(np.prod(X.shape[:1 + c * d]))
        tail = int(np.prod(X.shape[1 + (c + 1) * d:]))
        key = ("map", side, e)
        base, off = self._get(key, lambda: self._maps(side, e))  # type: ignore[misc]
        w = np.ascontiguousarray(L, dtype=float).reshape(-1)
        Y = np.zeros((lead, base.size, tail))
        _correlate(np.ascontiguousarray(X).reshape(lead, side**d, tail), base, off, w, Y)
        shape = list(X.shape)
        shape[1 + c * d:1 + (c + 1) * d] = [side - e] * d
        return Y.reshape(shape)

    def _maps(self, side: int, e: int) -> list[np.ndarray]:
        """Flat input index of every output state and of every kernel state (grid side ``side``)."""
        d = self.d
        strides = np.array([side ** (d - 1 - j) for j in range(d)], dtype=np.int64)
        base = np.indices((side - e,) * d).reshape(d, -1).T @ strides
        off = np.indices((e + 1,) * d).reshape(d, -1).T @ strides
        return [np.ascontiguousarray(base, dtype=np.int64), np.ascontiguousarray(off, dtype=np.int64)]

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
            for ix in range(self.I):
                F1 = self.averaged(m1, ix, b1)
                F2 = self.averaged(m2, ix, b2)
                for k in ks:
                    if self.nums[k, ix]:
                        total[k, k] += self.nums[k, ix] * np.sum(P * F1[k] * F2[k])
            return total, scale
        if not u_in_1 and not t_in_2:
            F1 = self.correlate(self.summed(m1), b1).reshape(K, -1)
            F2 = self.correlate(self.summed(m2), b2).reshape(K, -1)
            return np.dot(F1 * P.reshape(1, -1), F2.T), scale
        if t_in_2 and not u_in_1:  # the mirror image of u in T_1 only
            mirror, _ = self.two_sets(cc, b2, b1, True, False, False, ls, ks)
            return mirror.T, scale
        if not t_in_2:  # u trains T_1; t is a fresh test point of T_1
            V1 = self.summed(m1)
            for l in ls:
                F1 = self.correlate(V1, [b1[c] - (c == l) for c in range(K)])
                for iu in range(self.I):
                    if not self.nums[l, iu]:
                        continue
                    A = self.shifted(F1, l, self.bumps[iu], cc).reshape(K, -1) * P.reshape(1, -1)
                    F2 = self.averaged(m2, iu, b2, slice(l, l + 1)).reshape(-1)
                    total[:, l] += self.nums[l, iu] * np.dot(A, F2)
            return total, scale
        return self._both(cc, b1, b2, m1, m2, P, ks, ls), scale

    def _both(self, cc: Counts, b1: Counts, b2: Counts, m1: Counts, m2: Counts, P: np.ndarray,
              ks: Sequence[int], ls: Sequence[int]) -> np.ndarray:
        """Both test points train the other classifier: ``sum_{x_t, x_u} q_k(x_t) q_l(x_u) sum_s P_C(s)
        H1[k](s + shift_l(x_u)) H2[l](s + shift_k(x_t))``, ``H1``, ``H2`` averaged over the private parts."""
        K, I = self.K, self.I
        H1 = {(it, l): self.averaged(m1, it, [b1[c] - (c == l) for c in range(K)])
              for it in range(I) for l in ls}
        if (m1, b1) == (m2, b2):  # two folds of one composition: the same averages on both sides
            H2 = H1
        else:
            H2 = {(iu, k): self.averaged(m2, iu, [b2[c] - (c == k) for c in range(K)])
                  for iu in range(I) for k in ks}
        if not self.exact:
            return self._both_compiled(cc, P, H1, H2, ks, ls)
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

    def _both_compiled(self, cc: Counts, P: np.ndarray, H1: dict, H2: dict, ks: Sequence[int],
                       ls: Sequence[int]) -> np.ndarray:
        """:meth:`_both` in float arithmetic: every array on the grid of ``cc + 1`` in every class, so
        a shift is a constant offset of the flat index."""
        K, I, d = self.K, self.I, self.d
        pad = tuple(cc[c] + 2 for c in range(K) for _ in range(d))
        strides = np.cumprod((1,) + pad[::-1])[:-1][::-1]
        size = int(np.prod(pad))
        extra = int(strides.sum())  # past the end, so every shifted read stays inside
        pc = np.zeros(pad)
        pc[tuple(slice(0, n) for n in P.shape)] = P
        A1 = np.zeros((I, K, K, size + extra))
        A2 = A1 if H2 is H1 else np.zeros((I, K, K, size + extra))
        for A, H in ((A1, H1), (A2, H2)) if H2 is not H1 else ((A1, H1),):
            for (ix, c), X in H.items():
                A[ix, c, :, :size].reshape((K,) + pad)[(slice(None),) + tuple(slice(0, n) for n in X.shape[1:])] = X
        off = np.zeros((K, I), dtype=np.int64)  # the flat shift of a point of input x in class c
        for c in range(K):
            for ix in range(I):
                off[c, ix] = sum(self.bumps[ix][j] * strides[c * d + j] for j in range(d))
        # the rows along the last axis that hold states of cc (the padding has P_C = 0)
        length = cc[K - 1] + 1
        starts = np.indices(pad[:-1]).reshape(len(pad) - 1, -1)
        inside = np.all(starts < np.array([cc[i // d] + 1 for i in range(len(pad) - 1)])[:, None], axis=0)
        rows = np.ascontiguousarray(starts[:, inside].T @ strides[:-1], dtype=np.int64)
        acc = np.zeros((I, I, K, K))
        _pair_both(pc.reshape(-1), A1, A2, off, off, rows, length, acc)
        w = self.nums.astype(float)
        total = np.einsum("abkl,ka,lb->kl", acc, w, w)
        mask = np.zeros((K, K))
        mask[np.ix_(list(ks), list(ls))] = 1.0
        return total * mask
