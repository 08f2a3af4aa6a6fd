"""Joint sign law of two score comparisons by weighted 2-D dominance counting.

For one class split of a two-class problem the classes are independent: class 0 has states
with weights ``w0`` and integer score keys ``(u1, u2)`` at two inputs, class 1 has states
with weights ``w1`` and keys ``(v1, v2)``. The pair term needs

    P[o1, o2] = sum_{s0, s1} w0(s0) w1(s1) [cmp(v1, u1) = o1] [cmp(v2, u2) = o2]

with outcome ``o = 0`` for ``v < u`` (class 0 wins), ``1`` for a tie and ``2`` for ``v > u``.

Method (coarse 2-D prefix table plus exact strips): the class-1 states are cut into ``M``
buckets of consecutive ``v1`` values and, independently, ``M`` buckets of consecutive ``v2``
values (bucket starts are distinct values, so equal keys never straddle two buckets). A query
``(u1, u2)`` falls in bucket ``(b1, b2)``. Every class-1 state with ``v1 <= u1`` and
``v2 <= u2`` lies in exactly one of

* the block of buckets ``< b1`` and ``< b2``: there ``v1 < u1`` and ``v2 < u2`` (one lookup in
  a 2-D cumulative table of the ``M x M`` bucket histogram);
* the states of ``v1``-bucket ``b1`` (compared exactly with the query, both keys);
* the states of ``v2``-bucket ``b2`` with ``v1``-bucket ``< b1`` (compared exactly).

This gives ``P[o1, o2]`` for ``o1, o2 <= 1``; the other entries follow from the exact 1-D
marginals (sorted cumulative sums). Cost ``O(M^2 + S0 S1 / M)`` elementwise numpy work
instead of the ``S0 S1`` state pairs (``S0``, ``S1``: numbers of states), about
``O(S^{4/3})`` with ``M ~ (S0 S1)^{1/3}``. :func:`all_pair_sign_laws` does every pair of
several keys over the same states, sharing the per-key sorts and strips;
:func:`prune_states` drops the smallest states within a budget and reports the dropped mass.

Every comparison is exact (int64 keys; callers check that they fit). Weights are floats.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "KeyIndex",
    "all_pair_sign_laws",
    "default_buckets",
    "joint_sign_law",
    "joint_sign_law_indexed",
    "prune_states",
]

#: largest number of (query, state) pairs compared elementwise at once (memory bound)
_PAIR_CHUNK = 2_000_000

#: buckets per key: BUCKET_FACTOR * (Q P)^(1/3) (tuned on the 2x2x2 model, N = 100 and 1000)
BUCKET_FACTOR = 0.8


def prune_states(weights: np.ndarray, allowance: float) -> tuple[np.ndarray, float]:
    """Indices of the states kept and the dropped mass ``sum |w|`` (at most ``allowance``
    plus the non-positive weights, which are always dropped).

    The smallest positive weights are dropped while their running total stays within
    ``allowance``. Dropping class states of total absolute weight ``delta`` changes every
    joint probability of a class split by at most ``delta`` (the dropped state pairs weigh at
    most ``delta`` times the other class's total mass, which is at most 1), so the returned
    mass is a rigorous error bound (up to rounding). Non-positive weights (exact zeros, or
    rounding noise of DFT-computed laws) are dropped and counted.

    Examples
    --------
    >>> import numpy as np
    >>> keep, dropped = prune_states(np.array([0.5, 1e-20, 0.5, 0.0]), 1e-18)
    >>> keep.tolist(), dropped
    ([0, 2], 1e-20)
    """
    w = np.asarray(weights, dtype=float).ravel()
    nonpos = w <= 0
    dropped = float(-w[nonpos].sum()) + 0.0  # (no -0.0)
    pos = np.nonzero(~nonpos)[0]
    a = w[pos]
    order = np.argsort(a, kind="stable")
    cs = np.cumsum(a[order])
    n_drop = int(np.searchsorted(cs, max(allowance - dropped, 0.0), side="right"))
    if n_drop:
        dropped += float(cs[n_drop - 1])
    return np.sort(pos[order[n_drop:]]), dropped


def _marginal(u: np.ndarray, w0: np.ndarray, v: np.ndarray, w1: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """``(P[v < u], P[v = u], P[v > u])`` under the product weights (``order``: argsort of ``v``)."""
    if order is None:
        order = np.argsort(v, kind="stable")
    vs = v[order]
    cw = np.concatenate([[0.0], np.cumsum(w1[order])])
    lt = cw[np.searchsorted(vs, u, side="left")]
    le = cw[np.searchsorted(vs, u, side="right")]
    return np.array([float(w0 @ lt), float(w0 @ (le - lt)), float(w0 @ (cw[-1] - le))])


def _buckets(
    v: np.ndarray, u: np.ndarray, M: int, order: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bucket of every point and query, points' order by value, and bucket start positions."""
    P = len(v)
    if order is None:
        order = np.argsort(v, kind="stable")
    vs = v[order]
    starts_val = np.unique(vs[(np.arange(M, dtype=np.int64) * P) // M])
    pb = np.searchsorted(starts_val, v, side="right") - 1  # 0..M'-1
    qb = np.searchsorted(starts_val, u, side="right") - 1  # -1..M'-1 (-1: below every point)
    bounds = np.concatenate([np.searchsorted(vs, starts_val, side="left"), [P]])
    return pb, qb, order, bounds


def _strip_counts(
    sel: np.ndarray,
    qbucket: np.ndarray,
    order: np.ndarray,
    bounds: np.ndarray,
    keep_pred,
    u1: np.ndarray,
    u2: np.ndarray,
    w0: np.ndarray,
    v1: np.ndarray,
    v2: np.ndarray,
    w1: np.ndarray,
) -> np.ndarray:
    """Exact sign counts (3 x 3, weighted) of queries ``sel`` against the points of their bucket."""
    out = np.zeros(9)
    for qq, pi in _bucket_pairs(qbucket, order, bounds, sel):
        ok = keep_pred(pi, qq)
        if ok is not None:
            pi, qq = pi[ok], qq[ok]
        s1 = np.sign(v1[pi] - u1[qq]) + 1  # 0: v < u, 1: v = u, 2: v > u
        s2 = np.sign(v2[pi] - u2[qq]) + 1
        out += np.bincount(s1 * 3 + s2, weights=w1[pi] * w0[qq], minlength=9)
    return out


class KeyIndex:
    """Per-key structures of :func:`joint_sign_law`, reusable for every pair containing the key.

    ``u`` (class-0 keys, queries), ``v`` (class-1 keys, points) with weights ``w0``, ``w1``;
    ``M``: number of buckets.
    """

    def __init__(self, u: np.ndarray, w0: np.ndarray, v: np.ndarray, w1: np.ndarray, M: int) -> None:
        self.u, self.v = u, v
        order = np.argsort(v, kind="stable")
        self.marginal = _marginal(u, w0, v, w1, order) if len(u) and len(v) else np.zeros(3)
        if len(v):
            self.pb, self.qb, self.order, self.bounds = _buckets(v, u, int(np.clip(M, 1, len(v))), order)
        self.n_buckets = len(self.bounds) - 1 if len(v) else 0


def default_buckets(Q: int, P: int) -> int:
    """Bucket count balancing the ``M^2`` table against the ``Q P / M`` exact comparisons."""
    return int(BUCKET_FACTOR * (float(Q) * float(P)) ** (1.0 / 3.0)) + 1


def joint_sign_law(
    u1: np.ndarray,
    u2: np.ndarray,
    w0: np.ndarray,
    v1: np.ndarray,
    v2: np.ndarray,
    w1: np.ndarray,
    buckets: int | None = None,
) -> np.ndarray:
    """``P[o1, o2]`` (shape ``(3, 3)``) of the comparisons ``cmp(v1, u1)`` and ``cmp(v2, u2)``.

    Parameters
    ----------
    u1, u2, w0:
        Integer keys at the two inputs and weights of the class-0 states (the queries).
    v1, v2, w1:
        Integer keys and weights of the class-1 states (the points).
    buckets:
        Number of buckets per key (default :func:`default_buckets`, clipped to ``[1, P]``).

    Returns
    -------
    numpy.ndarray
        ``P[o1, o2]``, ``o = 0`` for ``v < u``, ``1`` for ``v = u``, ``2`` for ``v > u``;
        the entries sum to ``sum(w0) * sum(w1)``.

    Examples
    --------
    >>> import numpy as np
    >>> one = np.array([1.0])
    >>> float(joint_sign_law(np.array([2]), np.array([0]), one, np.array([1]), np.array([0]), one)[0, 1])
    1.0
    """
    if len(u1) == 0 or len(v1) == 0:
        return np.zeros((3, 3))
    M = buckets if buckets is not None else default_buckets(len(u1), len(v1))
    return joint_sign_law_indexed(KeyIndex(u1, w0, v1, w1, M), KeyIndex(u2, w0, v2, w1, M), w0, w1)


def joint_sign_law_indexed(k1: KeyIndex, k2: KeyIndex, w0: np.ndarray, w1: np.ndarray) -> np.ndarray:
    """:func:`joint_sign_law` from prebuilt :class:`KeyIndex` objects of the two keys."""
    out = np.zeros((3, 3))
    if len(k1.u) == 0 or len(k1.v) == 0:
        return out
    u1, u2, v1, v2 = k1.u, k2.u, k1.v, k2.v
    pb1, qb1 = k1.pb, k1.qb
    pb2, qb2 = k2.pb, k2.qb
    M1, M2 = k1.n_buckets, k2.n_buckets
    # block: buckets strictly below the query's in both keys
    hist = np.bincount(pb1 * M2 + pb2, weights=w1, minlength=M1 * M2).reshape(M1, M2)
    T = np.zeros((M1 + 1, M2 + 1))
    T[1:, 1:] = hist.cumsum(axis=0).cumsum(axis=1)
    both = (qb1 >= 0) & (qb2 >= 0)
    counts = np.zeros(9)
    counts[0] += float(w0[both] @ T[qb1[both], qb2[both]])
    # the query's v1-bucket (every v2), then its v2-bucket restricted to lower v1-buckets
    counts += _strip_counts(np.nonzero(qb1 >= 0)[0], qb1, k1.order, k1.bounds, lambda pi, qq: None, u1, u2, w0, v1, v2, w1)
    counts += _strip_counts(
        np.nonzero((qb2 >= 0) & (qb1 >= 1))[0],
        qb2,
        k2.order,
        k2.bounds,
        lambda pi, qq: pb1[pi] < qb1[qq],
        u1,
        u2,
        w0,
        v1,
        v2,
        w1,
    )
    c = counts.reshape(3, 3)
    marg1, marg2 = k1.marginal, k2.marginal
    out[:2, :2] = c[:2, :2]
    out[:2, 2] = marg1[:2] - out[:2, 0] - out[:2, 1]
    out[2, :2] = marg2[:2] - out[0, :2] - out[1, :2]
    out[2, 2] = marg1[2] - out[2, 0] - out[2, 1]
    return out


def _bucket_pairs(qbucket: np.ndarray, order: np.ndarray, bounds: np.ndarray, sel: np.ndarray):
    """Chunks ``(qq, pi)`` of every (query in ``sel``, point of the query's bucket) pair."""
    b = qbucket[sel]
    sizes = bounds[b + 1] - bounds[b]
    csum = np.cumsum(sizes)
    lo = 0
    while lo < len(sel):
        base = int(csum[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(csum, base + _PAIR_CHUNK, side="right")), lo + 1)
        cnt = sizes[lo:hi]
        total = int(cnt.sum())
        if total:
            qi = np.repeat(np.arange(lo, hi), cnt)
            offs = np.cumsum(cnt) - cnt
            pos = np.repeat(bounds[b[lo:hi]] - offs, cnt) + np.arange(total)
            yield sel[qi], order[pos]
        lo = hi


def all_pair_sign_laws(keys: list[KeyIndex], w0: np.ndarray, w1: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
    """:func:`joint_sign_law_indexed` for every pair ``a < b`` of keys over the same states.

    The exact strips are enumerated once per key and shared by the pairs containing it; only
    pairs that can contribute to the outcomes ``o1, o2 <= 1`` are compared.
    """
    I = len(keys)
    counts = {(a, b): np.zeros(9) for a in range(I) for b in range(a + 1, I)}
    if I < 2 or len(w0) == 0 or len(w1) == 0:
        return {ab: np.zeros((3, 3)) for ab in counts}
    # blocks
    for a in range(I):
        ka = keys[a]
        for b in range(a + 1, I):
            kb = keys[b]
            M1, M2 = ka.n_buckets, kb.n_buckets
            hist = np.bincount(ka.pb * M2 + kb.pb, weights=w1, minlength=M1 * M2).reshape(M1, M2)
            T = np.zeros((M1 + 1, M2 + 1))
            T[1:, 1:] = hist.cumsum(axis=0).cumsum(axis=1)
            both = (ka.qb >= 0) & (kb.qb >= 0)
            counts[(a, b)][0] += float(w0[both] @ T[ka.qb[both], kb.qb[both]])
    # strip A of pair (a, b): the query's bucket of key a, every point in it, v_a <= u_a
    for a in range(I - 1):
        ka = keys[a]
        for qq, pi in _bucket_pairs(ka.qb, ka.order, ka.bounds, np.nonzero(ka.qb >= 0)[0]):
            s1 = np.sign(ka.v[pi] - ka.u[qq]) + 1
            ok = s1 <= 1
            qq, pi, s1 = qq[ok], pi[ok], s1[ok]
            ww = w1[pi] * w0[qq]
            for b in range(a + 1, I):
                kb = keys[b]
                s2 = np.sign(kb.v[pi] - kb.u[qq]) + 1
                counts[(a, b)] += np.bincount(s1 * 3 + s2, weights=ww, minlength=9)
    # strip B of pair (a, b): the query's bucket of key b, points in lower buckets of key a
    for b in range(1, I):
        kb = keys[b]
        for qq, pi in _bucket_pairs(kb.qb, kb.order, kb.bounds, np.nonzero(kb.qb >= 0)[0]):
            s2 = np.sign(kb.v[pi] - kb.u[qq]) + 1
            ok = s2 <= 1
            qq, pi, s2 = qq[ok], pi[ok], s2[ok]
            ww = w1[pi] * w0[qq]
            for a in range(b):
                ka = keys[a]
                low = ka.pb[pi] < ka.qb[qq]  # then v_a < u_a: outcome o1 = 0
                counts[(a, b)][:3] += np.bincount(s2[low], weights=ww[low], minlength=3)
    out = {}
    for (a, b), c in counts.items():
        c = c.reshape(3, 3)
        marg1, marg2 = keys[a].marginal, keys[b].marginal
        P = np.zeros((3, 3))
        P[:2, :2] = c[:2, :2]
        P[:2, 2] = marg1[:2] - P[:2, 0] - P[:2, 1]
        P[2, :2] = marg2[:2] - P[0, :2] - P[1, :2]
        P[2, 2] = marg1[2] - P[2, 0] - P[2, 1]
        out[(a, b)] = P
    return out
