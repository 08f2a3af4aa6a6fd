"""Vectorised exact prediction probabilities for two classes (floating-point sums).

Same sums as :mod:`momentbound.exact.predictions`, organised for speed when ``K = 2``: for each
class split ``(n_0, n_1)`` the two classes are independent, so

* ``single``: ``P[u > v]``, ``P[u = v]`` with ``u``, ``v`` the integer score keys of the classes,
  from one sort and ``searchsorted`` (``O(S log S)`` per split);
* ``pair``: the class-1 states form a dense grid on which each score is monotone along the
  last coordinate, so ``P1[v < u, v2 < u2]`` for every class-0 state is a sum over grid rows
  of one interval each (``O(S_0 * rows)`` per split, no ``S_0 * S_1`` outer product);
* ``pair`` for models whose inputs all share one component grid (two binary attributes, or
  one attribute): every input pair at once by 2-D dominance counting
  (:mod:`momentbound.exact.dominance`, :class:`AllPairs`), with the smallest class states
  pruned within a reported budget.

Score comparisons are exact integer comparisons (keys are checked to fit in int64).
"""

from __future__ import annotations

import math

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes, keys_fit_int64, tie_shares
from momentbound.exact.dft_laws import PowerLaw, class_point_law, dft_window_size, hoeffding_window
from momentbound.exact.predictions import ComponentSpace, class_laws
from momentbound.model.cells import CellModel

__all__ = [
    "AllPairs",
    "TwoClassTables",
    "all_pairs_two_class",
    "fits_int64",
    "pair_two_class",
    "pair_two_class_rows",
    "shares_component_space",
    "single_two_class",
]

Input = tuple[int, ...]
_CHUNK = 4_000_000


def _pq(clf: NaiveBayes) -> tuple[int, int]:
    a = clf.alpha_exact
    return a.numerator, a.denominator


def fits_int64(model: CellModel, n: int, clf: NaiveBayes) -> bool:
    """Whether every score key of a two-class split of ``n`` points fits in int64."""
    return keys_fit_int64(clf.alpha_exact, model.arities, n, 2)


def binomial_pmf(n: int, prob: float) -> np.ndarray:
    """Binomial(n, prob) pmf in floating point (log-space recursion; exact 0/1 edge cases)."""
    k = np.arange(n + 1)
    if prob <= 0.0:
        return (k == 0).astype(float)
    if prob >= 1.0:
        return (k == n).astype(float)
    logc = np.concatenate([[0.0], np.cumsum(np.log((n - k[1:] + 1) / k[1:]))])
    return np.exp(logc + k * math.log(prob) + (n - k) * math.log1p(-prob))


class TwoClassTables:
    """Dense class laws and per-state integer score numerators for a tuple of inputs."""

    #: above this size, class laws come from DFT powers (memory O(n^D)) instead of a
    #: recursion that keeps every size (memory O(n^(D+1)))
    RECURSION_MAX = 160

    def __init__(
        self, model: CellModel, inputs: tuple[Input, ...], n_max: int, clf: NaiveBayes, tail: float = 0.0
    ) -> None:
        self.model = model
        self.inputs = inputs
        self.clf = clf
        self.n_max = n_max
        self.tail = tail
        self.space = ComponentSpace(model.arities, inputs)
        self.p, self.q = _pq(clf)
        self.max_outside = 0.0  # largest mass outside a DFT window used so far
        self._nums: dict[tuple[int, int], tuple[np.ndarray, list[np.ndarray]]] = {}
        if n_max <= self.RECURSION_MAX:
            self.laws = [class_laws(model, self.space, k, n_max, "float") for k in range(2)]
            self._power = None
        else:
            size = dft_window_size(n_max, self.space.dim, tail)
            self.laws = None
            self._power = [
                PowerLaw(class_point_law(model, self.space, k), size) if float(model.prior(k)) > 0 else None
                for k in range(2)
            ]

    def law(self, k: int, n: int) -> tuple[np.ndarray, tuple[int, ...]]:
        """Dense law of the component counts and the grid origin (window start per axis)."""
        D = self.space.dim
        if self.laws is not None:
            return self.laws[k][n], (0,) * D
        pw = self._power[k]
        if pw is None:  # prior 0: all mass on the empty state, only n = 0 possible
            out = np.zeros((n + 1,) * D)
            out[(0,) * D] = 1.0 if n == 0 else 0.0
            return out, (0,) * D
        if n < pw.size:
            return pw.law(n), (0,) * D
        lo, outside = pw.window(n)
        self.max_outside = max(self.max_outside, outside)
        return pw.window_law(n, lo), lo

    def den(self, n: int) -> int:
        if n == 0:
            return 1
        return math.prod(self.q * n + self.p * a for a in self.model.arities)

    def grid_nums(self, k: int, n: int) -> tuple[np.ndarray, list[np.ndarray]]:
        """Law (dense, shape ``(n+1,)*D``) and score numerators per input on the same grid.

        Numerator of class ``k`` at input ``r``: ``n * prod_j (q A_j(r) + p)`` with agreement
        counts clamped at 0 on impossible grid points (those have probability 0).
        """
        key = (k, n)
        if key in self._nums:
            return self._nums[key]
        law, origin = self.law(k, n)
        D = self.space.dim
        coords = np.indices(law.shape).reshape(D, -1).T.astype(np.int64) + np.array(origin, dtype=np.int64)
        nums = []
        for r in self.inputs:
            A = np.maximum(self.space.agreements(coords, n, r), 0)
            nums.append((n * (self.q * A + self.p).prod(axis=1)).reshape(law.shape))
        if self.laws is None and len(self._nums) >= 8:  # large sizes: bounded memory
            self._nums.pop(next(iter(self._nums)))
        self._nums[key] = (law, nums)
        return law, nums


def _tie_winner(clf: NaiveBayes, n0: int, n1: int) -> np.ndarray:
    """``g`` when the two class scores tie (the classifier's own tie rule)."""
    tied = [np.array(1), np.array(1)]
    g, scale = tie_shares(tied, [n0 > 0, n1 > 0], clf.ties)
    return g / scale


def _outcome_vectors(clf: NaiveBayes, n0: int, n1: int) -> np.ndarray:
    """Rows: g for outcomes (class 0 wins, tie, class 1 wins)."""
    return np.stack([np.array([1.0, 0.0]), _tie_winner(clf, n0, n1), np.array([0.0, 1.0])])


def _splits(model: CellModel, n: int, tail: float = 0.0) -> tuple[list[tuple[int, float]], float]:
    """Class-0 counts with their binomial probabilities, and a bound on the dropped mass.

    With ``tail > 0`` only a window whose Hoeffding tail bound is at most ``tail`` is kept.
    """
    probs = binomial_pmf(n, float(model.prior(0)))
    lo, hi, dropped = hoeffding_window(n, float(model.prior(0)), tail)
    return [(n0, float(probs[n0])) for n0 in range(lo, hi + 1)], dropped


def single_two_class(
    model: CellModel, n: int, x: Input, clf: NaiveBayes, tables: TwoClassTables | None = None, tail: float = 0.0
) -> np.ndarray:
    """``E[g_x(. | T)]`` for two classes, floating point (class-count splits with total
    probability below the Hoeffding bound ``tail`` are skipped when ``tail > 0``)."""
    tables = tables or TwoClassTables(model, (x,), n, clf)
    r = tables.inputs.index(x)
    out = np.zeros(2)
    for n0, ps in _splits(model, n, tail)[0]:
        if ps == 0:
            continue
        n1 = n - n0
        outc = split_outcomes_single(tables, n0, n1, r)
        out += ps * (outc @ _outcome_vectors(clf, n0, n1))
    return out


def split_outcomes_single(tables: TwoClassTables, n0: int, n1: int, r: int) -> np.ndarray:
    """``(P[u > v], P[u = v], P[u < v])`` at input ``tables.inputs[r]`` for one split."""
    law0, nums0 = tables.grid_nums(0, n0)
    law1, nums1 = tables.grid_nums(1, n1)
    m0, m1 = law0 > 0, law1 > 0
    w0, w1 = law0[m0], law1[m1]
    u = nums0[r][m0] * tables.den(n1)
    v = nums1[r][m1] * tables.den(n0)
    order = np.argsort(v, kind="stable")
    vs, cw = v[order], np.concatenate([[0.0], np.cumsum(w1[order])])
    lt = cw[np.searchsorted(vs, u, side="left")]
    le = cw[np.searchsorted(vs, u, side="right")]
    total1 = cw[-1]
    gt_ = float(w0 @ lt)
    eq_ = float(w0 @ (le - lt))
    lt_ = float(w0 @ (total1 - le))
    return np.array([gt_, eq_, lt_])


def pair_two_class(
    model: CellModel,
    n: int,
    x: Input,
    x2: Input,
    clf: NaiveBayes,
    tables: TwoClassTables | None = None,
    tail: float = 0.0,
) -> np.ndarray:
    """``E[g_x(y | T) g_x2(y' | T)]`` for two classes, floating point.

    When one component grid serves every input (two binary attributes, or one attribute:
    :func:`shares_component_space`), all pairs are computed at once by 2-D dominance counting
    (:class:`AllPairs`, cached) and the error bound of its state pruning is folded into
    ``tables.max_outside``; otherwise the row method of :func:`split_outcomes_pair` is used.
    """
    if shares_component_space(model, x, x2):
        ap = all_pairs_two_class(model, n, clf, tail)
        if tables is not None:
            # the caller's bound is hoeffding + 4 * max_outside: make it cover ours
            tables.max_outside = max(tables.max_outside, ap.max_outside + ap.pruned_mass / 4.0)
        return ap.result[(x, x2)].copy()
    return pair_two_class_rows(model, n, x, x2, clf, tables, tail)


def pair_two_class_rows(
    model: CellModel,
    n: int,
    x: Input,
    x2: Input,
    clf: NaiveBayes,
    tables: TwoClassTables | None = None,
    tail: float = 0.0,
) -> np.ndarray:
    """:func:`pair_two_class` by the row method (``O(n^3)`` per class split for two attributes)."""
    tables = tables or TwoClassTables(model, (x, x2), n, clf)
    rx, rx2 = tables.inputs.index(x), tables.inputs.index(x2)
    out = np.zeros((2, 2))
    for n0, ps in _splits(model, n, tail)[0]:
        if ps == 0:
            continue
        n1 = n - n0
        if rx == rx2:  # same input: same outcome, independent coins
            P = np.diag(split_outcomes_single(tables, n0, n1, rx))
        else:
            P = split_outcomes_pair(tables, n0, n1, rx, rx2)  # (3, 3) outcome probabilities
        G = _outcome_vectors(clf, n0, n1)
        out += ps * (G.T @ P @ G)
    return out


def _boundaries(
    a: np.ndarray, b: np.ndarray, u: np.ndarray, T: int, increasing: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Row boundaries of ``{t : a + b t < u}`` (strict) and ``{t : a + b t <= u}``.

    Rows have slopes ``b`` of one sign (or zero). For increasing rows the sets are prefixes and
    the boundary is their size ``hi``; for decreasing rows they are suffixes and the boundary is
    their first index ``lo``. Shape ``(Q, R)``, values in ``0..T``. Quotients are exact: float
    division when every operand is below ``2**51`` (floor/ceil of the correctly rounded quotient
    are then the exact ones), integer division otherwise.
    """
    zero = b == 0
    step = np.where(zero, 1, np.abs(b))
    big = max(int(np.abs(a).max(initial=0)), int(np.abs(u).max(initial=0)), int(step.max(initial=0))) >= 2**51
    if big:
        num = u[:, None] - a[None, :]
        c = -((-num) // step[None, :])
        f = num // step[None, :]
    else:
        q = (u.astype(float)[:, None] - a.astype(float)[None, :]) / step.astype(float)[None, :]
        c = np.ceil(q)
        f = np.floor(q)
    if increasing:
        strict, loose = c, f + 1
    else:
        strict, loose = 1 - c, -f
    strict = np.clip(strict, 0, T, out=strict).astype(np.int64)
    loose = np.clip(loose, 0, T, out=loose).astype(np.int64)
    if zero.any():
        d0 = u[:, None] - a[None, zero]
        if increasing:
            strict[:, zero] = np.where(d0 > 0, T, 0)
            loose[:, zero] = np.where(d0 >= 0, T, 0)
        else:
            strict[:, zero] = np.where(d0 > 0, 0, T)
            loose[:, zero] = np.where(d0 >= 0, 0, T)
    return strict, loose


def split_outcomes_pair(tables: TwoClassTables, n0: int, n1: int, r1: int, r2: int) -> np.ndarray:
    """Joint outcome probabilities (class 0 wins / tie / class 1 wins) at two inputs, one split.

    For every class-0 state (query ``(u1, u2)``) and class-1 grid row, the sets
    ``{t : v1 < u1}`` and ``{t : v2 < u2}`` are a prefix or a suffix of the row, so their
    intersection is an interval and its mass comes from the row's cumulative sums ``C``;
    as ``C`` is non-decreasing, ``C[min(h, h')] = min(C[h], C[h'])``, so every joint mass is
    an elementwise min/max of four gathered arrays.
    """
    law0, nums0 = tables.grid_nums(0, n0)
    law1, nums1 = tables.grid_nums(1, n1)
    m0 = law0 > 0
    den1 = tables.den(n1)
    u1, u2, w0 = nums0[r1][m0] * den1, nums0[r2][m0] * den1, law0[m0]
    T = law1.shape[-1]
    R = law1.size // T
    L1 = law1.reshape(R, T)
    rows_keep = L1.sum(axis=1) > 0
    L1 = L1[rows_keep]
    R = L1.shape[0]
    C = np.concatenate([np.zeros((R, 1)), np.cumsum(L1, axis=1)], axis=1)
    CT = C[:, -1]
    total1 = float(CT.sum())
    flat = C.ravel()
    base = (np.arange(R, dtype=np.int64) * (T + 1))[None, :]
    den0 = tables.den(n0)
    v1 = (nums1[r1] * den0).reshape(-1, T)[rows_keep]
    v2 = (nums1[r2] * den0).reshape(-1, T)[rows_keep]
    # intercept and slope of each row (keys are linear in t on the feasible states)
    a1, a2 = v1[:, 0], v2[:, 0]
    b1 = v1[:, 1] - v1[:, 0] if T > 1 else np.zeros(R, dtype=np.int64)
    b2 = v2[:, 1] - v2[:, 0] if T > 1 else np.zeros(R, dtype=np.int64)
    inc1, inc2 = bool(np.all(b1 >= 0)), bool(np.all(b2 >= 0))
    if not (inc1 or np.all(b1 <= 0)) or not (inc2 or np.all(b2 <= 0)):  # pragma: no cover
        raise AssertionError("row slopes of a score key must share one sign")
    Q = len(w0)
    chunk = max(1, _CHUNK // max(R, 1))
    J = np.zeros((2, 2))  # J[a, b]: a, b = 0 strict, 1 non-strict
    lt = np.zeros(2)
    le = np.zeros(2)
    CT_total = float(CT.sum())
    for start in range(0, Q, chunk):
        sl = slice(start, start + chunk)
        wq = w0[sl]
        G1 = [np.take(flat, base + idx) for idx in _boundaries(a1, b1, u1[sl], T, inc1)]
        G2 = [np.take(flat, base + idx) for idx in _boundaries(a2, b2, u2[sl], T, inc2)]
        wsum = float(wq.sum())
        for which, (G, inc) in enumerate(((G1, inc1), (G2, inc2))):
            for strictness in range(2):
                m = float((wq @ G[strictness]).sum())  # BLAS matrix-vector product
                if not inc:
                    m = CT_total * wsum - m
                (lt if strictness == 0 else le)[which] += m
        for a in range(2):
            for b in range(2):
                g1, g2 = G1[a], G2[b]
                if inc1 and inc2:
                    J[a, b] += float((wq @ np.minimum(g1, g2)).sum())
                elif inc1:
                    J[a, b] += float((wq @ np.maximum(g1 - g2, 0.0)).sum())
                elif inc2:
                    J[a, b] += float((wq @ np.maximum(g2 - g1, 0.0)).sum())
                else:
                    J[a, b] += CT_total * wsum - float((wq @ np.maximum(g1, g2)).sum())
    W0 = float(w0.sum())
    # outcome o = 0: u > v (v < u), 1: tie, 2: u < v ; P[o1, o2]
    P = np.empty((3, 3))
    P[0, 0] = J[0, 0]
    P[1, 0] = J[1, 0] - J[0, 0]
    P[2, 0] = lt[1] - J[1, 0]
    P[0, 1] = J[0, 1] - J[0, 0]
    P[1, 1] = J[1, 1] - J[0, 1] - J[1, 0] + J[0, 0]
    P[2, 1] = (le[1] - lt[1]) - (J[1, 1] - J[1, 0])
    P[0, 2] = lt[0] - J[0, 1]
    P[1, 2] = (le[0] - lt[0]) - (J[1, 1] - J[0, 1])
    P[2, 2] = W0 * total1 - le[0] - le[1] + J[1, 1]
    return P


# ----------------------------------------------------------------------------- all pairs at once
def shares_component_space(model: CellModel, x: Input, x2: Input) -> bool:
    """Whether the component space of all inputs is no larger than that of ``(x, x2)``
    (two binary attributes, one attribute), so every pair can be computed on one grid."""
    whole = ComponentSpace(model.arities, tuple(model.inputs())).dim
    return whole <= ComponentSpace(model.arities, (x, x2)).dim


class AllPairs:
    """``E[g_x(y | T) g_x2(y' | T)]`` for every pair of inputs, from one sweep over class splits.

    For every class split ``(n_0, n_1)`` (Hoeffding window ``tail``, as :func:`pair_two_class`)
    the two class laws are read once on the component grid of all inputs, their smallest
    states are pruned within a budget (split ``j`` of weight ``p_j`` among ``m`` splits may drop
    class states of absolute mass ``tail / (2 m p_j)`` per class, so the pruned mass of all
    splits totals at most ``tail``; the actual total is reported), and the joint law of the two
    score comparisons of each input pair is obtained by 2-D dominance counting
    (:func:`momentbound.exact.dominance.joint_sign_law`) instead of summing over state pairs.

    Attributes
    ----------
    result:
        ``{(x, x2): array (2, 2)}`` for every ordered pair of inputs (``x == x2`` included).
    pruned_mass:
        ``sum_j p_j (delta_0j + delta_1j)``: bound on the error from pruned states.
    dropped_mass_bound:
        Bound on the total error of every entry from truncations: dropped splits (Hoeffding),
        DFT windows (twice the largest outside mass per class), pruned states; plus rounding.
    """

    def __init__(self, model: CellModel, n: int, clf: NaiveBayes, tail: float = 0.0) -> None:
        inputs = tuple(model.inputs())
        self.inputs = inputs
        self.clf = clf
        self.tables = TwoClassTables(model, inputs, n, clf, tail=tail)
        splits, _ = _splits(model, n, tail)
        m = max(1, len(splits))
        I = len(inputs)
        self._acc = {(a, b): np.zeros((2, 2)) for a in range(I) for b in range(a, I)}
        self.pruned_mass = 0.0
        for n0, ps in splits:
            if ps > 0:
                self.add_split(n0, n - n0, ps, tail / (2.0 * m * ps) if tail > 0 else 0.0)
        acc = self._acc
        self.result = {}
        for (a, b), val in acc.items():
            self.result[(inputs[a], inputs[b])] = val
            self.result[(inputs[b], inputs[a])] = val.T.copy()
        self.max_outside = self.tables.max_outside
        self.dropped_mass_bound = (
            hoeffding_window(n, float(model.prior(0)), tail)[2] + 4.0 * self.max_outside + self.pruned_mass
        )

    def add_split(self, n0: int, n1: int, ps: float, allowance: float) -> None:
        """Add class split ``(n0, n1)`` of probability ``ps``; each class may drop states of
        absolute mass ``allowance`` (relative to the split)."""
        from momentbound.exact.dominance import KeyIndex, all_pair_sign_laws, default_buckets, prune_states

        tables, I = self.tables, len(self.inputs)
        law0, nums0 = tables.grid_nums(0, n0)
        law1, nums1 = tables.grid_nums(1, n1)
        k0, d0 = prune_states(law0, allowance)
        k1, d1 = prune_states(law1, allowance)
        self.pruned_mass += ps * (d0 + d1)
        w0, w1 = law0.ravel()[k0], law1.ravel()[k1]
        den0, den1 = tables.den(n0), tables.den(n1)
        M = default_buckets(len(k0), len(k1))
        keys = [KeyIndex(nums0[r].ravel()[k0] * den1, w0, nums1[r].ravel()[k1] * den0, w1, M) for r in range(I)]
        G = _outcome_vectors(self.clf, n0, n1)
        for a in range(I):
            self._acc[(a, a)] += ps * (G.T @ np.diag(keys[a].marginal) @ G)
        for ab, P in all_pair_sign_laws(keys, w0, w1).items():
            self._acc[ab] += ps * (G.T @ P @ G)


_ALL_PAIRS_CACHE: dict[tuple[object, ...], AllPairs] = {}


def all_pairs_two_class(model: CellModel, n: int, clf: NaiveBayes, tail: float = 0.0) -> AllPairs:
    """Cached :class:`AllPairs` (the last few ``(model, n, classifier, tail)``)."""
    key = (model, n, clf, tail, TwoClassTables.RECURSION_MAX)
    hit = _ALL_PAIRS_CACHE.get(key)
    if hit is None:
        hit = AllPairs(model, n, clf, tail)
        if len(_ALL_PAIRS_CACHE) >= 4:
            _ALL_PAIRS_CACHE.pop(next(iter(_ALL_PAIRS_CACHE)))
        _ALL_PAIRS_CACHE[key] = hit
    return hit
