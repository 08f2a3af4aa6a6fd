"""Compiled naive Bayes on count tables (numba), and the fused cross-validation draw kernel.

Same score keys and tie rules as :func:`momentbound.classifiers.naive_bayes.score_keys` and
:func:`~momentbound.classifiers.naive_bayes.tie_shares`, in int64 (callers check
:func:`~momentbound.classifiers.naive_bayes.keys_fit_int64` first): with ``alpha = pa / qa`` the key
of class ``k`` at input ``x`` is ``N_k prod_j (qa A_jk + pa) prod_{i != k} den_i`` with
``den_i = prod_j (qa N_i + pa a_j)`` (1 for an absent class). The ``sklearn`` rule decides on the
float64 joint log-likelihood of :func:`~momentbound.classifiers.naive_bayes.sklearn_shares`, from the
same logarithm tables (:func:`~momentbound.classifiers.naive_bayes.sklearn_logs`).

:func:`cv_draws` draws ``R`` sets of independent fold tables ``F_i ~ Multinomial(s_i, p)`` from a
``numpy.random.Generator`` and returns, per draw, each fold's expected error count, coin variance
and the exact GE of its classifier, and the control variates of ``docs/mathematics.md``
("Monte Carlo control variates"), all with known mean zero. A fold with few possible count tables
(:func:`aliased`) is drawn with one uniform from the alias table of all of them (:func:`alias_tables`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

__all__ = [
    "Layout", "predict_tables", "cv_draws", "inverted", "aliased", "alias_tables", "n_controls", "gram",
    "psd_inverse", "residuals", "bin_sums",
]


class Layout:
    """Index arrays of a cell model for the kernels (cells: input major, class fastest)."""

    def __init__(self, arities: tuple[int, ...], K: int, alpha_num: int, alpha_den: int, ties: str) -> None:
        self.arities = np.asarray(arities, dtype=np.int64)
        self.K = int(K)
        n_inputs = int(np.prod(self.arities))
        digits = np.array(list(np.ndindex(*arities)), dtype=np.int64).reshape(n_inputs, len(arities))
        # offset of attribute j's marginal block in the flat marginal array (values * K each)
        self.offsets = np.concatenate([[0], np.cumsum(self.arities * self.K)[:-1]]).astype(np.int64)
        # digits[ix, j]: where input ix's attribute-j value starts in that array (+ k for class k)
        self.digits = self.offsets + digits * self.K
        self.n_marg = int((self.arities * self.K).sum())
        self.pa = int(alpha_num)
        self.qa = int(alpha_den)
        #: 0 random, 1 first, 2 sklearn
        self.rule = {"random": 0, "first": 1, "sklearn": 2}[ties]
        self._logs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def logs(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``sklearn`` rule's logarithm tables for training sets of up to ``n`` points (a one-entry
        placeholder for the other rules, which never read them)."""
        from fractions import Fraction

        from momentbound.classifiers.naive_bayes import sklearn_logs

        if self.rule != 2:
            return np.zeros(1), np.zeros((len(self.arities), 1)), np.zeros(1)
        if self._logs is None or self._logs[0].shape[0] <= n:
            ar = tuple(int(a) for a in self.arities)
            grown = 0 if self._logs is None else 2 * (self._logs[0].shape[0] - 1)
            self._logs = sklearn_logs(Fraction(self.pa, self.qa), ar, max(int(n), grown))
        return self._logs


@njit(cache=True, inline="always")
def _factors(T, arities, digits, n_marg, K, pa, qa, marg, tot, den, cls):
    """Class totals ``tot``, the factors ``qa A_jk + pa`` of every attribute value and class (in
    ``marg``, indexed as in :class:`Layout`) and the class factors ``cls[k] = N_k prod_{i != k} den_i``
    of one table ``T`` (flat cells), so that the key of class ``k`` at input ``ix`` is
    ``cls[k] prod_j marg[digits[ix, j] + k]``."""
    n_inputs, d = digits.shape
    for m in range(n_marg):
        marg[m] = 0
    for k in range(K):
        tot[k] = 0
    for ix in range(n_inputs):  # no branches on the data: they are mispredicted half the time
        for k in range(K):
            c = T[ix * K + k]
            tot[k] += c
            for j in range(d):
                marg[digits[ix, j] + k] += c
    for m in range(n_marg):
        marg[m] = qa * marg[m] + pa
    for k in range(K):
        v = 1
        if tot[k] > 0:  # an absent class keys 0 (its den is 1)
            for j in range(d):
                v *= qa * tot[k] + pa * arities[j]
        den[k] = v
    for k in range(K):
        v = tot[k]
        for i in range(K):
            if i != k:
                v *= den[i]
        cls[k] = v


@njit(cache=True, inline="always")
def _first_class(ix, digits, K, marg, tot, cls):
    """``ties="first"``: the predicted class at input ``ix`` (the lowest index among the largest keys
    of the present classes; class 0 when no class is present)."""
    d = digits.shape[1]
    best = 0
    top = -1
    for k in range(K):
        v = cls[k]
        for j in range(d):
            v *= marg[digits[ix, j] + k]
        if tot[k] == 0:  # absent classes never win
            v = -1
        if v > top:
            top = v
            best = k
    return best


@njit(cache=True, inline="always")
def _sklearn_class(ix, digits, K, pa, qa, marg, tot, lsm, lcl, lct):
    """``ties="sklearn"``: the first maximum of the float64 joint log-likelihood over the present
    classes (``marg`` holds ``qa A + pa``; ``lsm``, ``lcl``, ``lct``: the tables of ``sklearn_logs``)."""
    d = digits.shape[1]
    n = 0
    for k in range(K):
        n += tot[k]
    best = -1
    top = -np.inf
    for k in range(K):
        if tot[k] == 0:  # not among CategoricalNB's classes_
            continue
        s = 0.0
        for j in range(d):
            s += lsm[(marg[digits[ix, j] + k] - pa) // qa] - lcl[j, tot[k]]
        s += lct[tot[k]] - lct[n]
        if best < 0 or s > top:
            best = k
            top = s
    return max(best, 0)


@njit(cache=True, inline="always")
def _one_class(rule, ix, digits, K, pa, qa, marg, tot, cls, lsm, lcl, lct):
    """The predicted class of the deterministic rules (1 first, 2 sklearn)."""
    if rule == 2:
        return _sklearn_class(ix, digits, K, pa, qa, marg, tot, lsm, lcl, lct)
    return _first_class(ix, digits, K, marg, tot, cls)


@njit(cache=True, inline="always")
def _predict_one(T, arities, digits, n_marg, K, pa, qa, rule, lsm, lcl, lct, marg, tot, den, cls, key, g):
    """``g[x, k]`` (prediction probabilities) for one table ``T`` (flat cells)."""
    n_inputs, d = digits.shape
    _factors(T, arities, digits, n_marg, K, pa, qa, marg, tot, den, cls)
    for ix in range(n_inputs):
        for k in range(K):
            g[ix, k] = 0.0
        if rule > 0:
            g[ix, _one_class(rule, ix, digits, K, pa, qa, marg, tot, cls, lsm, lcl, lct)] = 1.0
            continue
        top = -1
        for k in range(K):
            v = cls[k]
            for j in range(d):
                v *= marg[digits[ix, j] + k]
            key[k] = v
            if v > top:
                top = v
        n_top = 0
        for k in range(K):
            if key[k] == top:
                n_top += 1
        for k in range(K):
            if key[k] == top:
                g[ix, k] = 1.0 / n_top


@njit(cache=True)
def _predict_many(tables, arities, digits, n_marg, K, pa, qa, rule, lsm, lcl, lct, out):
    marg = np.empty(n_marg, dtype=np.int64)
    tot = np.empty(K, dtype=np.int64)
    den = np.empty(K, dtype=np.int64)
    cls = np.empty(K, dtype=np.int64)
    key = np.empty(K, dtype=np.int64)
    for r in range(tables.shape[0]):
        _predict_one(tables[r], arities, digits, n_marg, K, pa, qa, rule, lsm, lcl, lct, marg, tot, den, cls, key, out[r])


def predict_tables(layout: Layout, tables: np.ndarray) -> np.ndarray:
    """``g_x(y | T)`` for flat int tables ``(R, cells)``: ``(R, inputs, K)`` float64."""
    t = np.ascontiguousarray(tables, dtype=np.int64)
    out = np.empty((t.shape[0], layout.digits.shape[0], layout.K))
    L = layout
    lsm, lcl, lct = L.logs(int(t.sum(axis=1).max(initial=0)))
    _predict_many(t, L.arities, L.digits, L.n_marg, L.K, L.pa, L.qa, L.rule, lsm, lcl, lct, out)
    return out


def n_controls(n_cells: int) -> int:
    """Number of control variates :func:`cv_draws` returns per draw."""
    return 3 + 4 * n_cells - 1


@njit(cache=True, inline="always")
def _multinomial(rng, n, p, cum, guide, u, out):
    """``out ~ Multinomial(n, p)``: inversion of the uniforms ``u`` (``n`` of them) for small ``n``,
    conditional binomials otherwise (``u`` empty)."""
    C = p.shape[0]
    for c in range(C):
        out[c] = 0
    if u.shape[0] == n:
        G = guide.shape[0]
        for t in range(n):
            x = u[t]
            c = guide[int(x * G)]  # guide table (Chen 1974): the first cell whose cdf can exceed x
            while c < C - 1 and x >= cum[c]:
                c += 1
            out[c] += 1
        return
    left = n
    mass = 1.0
    for c in range(C - 1):
        if left == 0:
            return
        if p[c] > 0:
            q = p[c] / mass
            if q >= 1.0:
                out[c] = left
                return
            x = rng.binomial(left, q)
            out[c] = x
            left -= x
        mass -= p[c]
        if mass <= 0:
            break
    out[C - 1] += left


def inverted(n: int, n_cells: int) -> bool:
    """Whether a fold of ``n`` points is drawn by inversion of ``n`` uniforms (else binomials)."""
    return n < 4 * n_cells


#: a fold of ``n`` points over ``C`` cells is drawn from an alias table of all its
#: ``comb(n + C - 1, C - 1)`` count tables when there are at most this many (one uniform a fold)
ALIAS_TABLES = 60_000


def aliased(n: int, n_cells: int) -> bool:
    """Whether a fold of ``n`` points is drawn from the alias table of its count tables."""
    return math.comb(n + n_cells - 1, n_cells - 1) <= ALIAS_TABLES


@njit(cache=True)
def _compositions(n, out):
    """Every count table of ``n`` points over ``out.shape[1]`` cells, one a row."""
    C = out.shape[1]
    t = np.zeros(C, dtype=np.int64)
    t[0] = n
    row = 0
    while True:
        for c in range(C):
            out[row, c] = t[c]
        row += 1
        j = C - 2  # the last non-empty cell before the last one
        while j >= 0 and t[j] == 0:
            j -= 1
        if j < 0:
            return row
        t[j] -= 1
        tail = t[C - 1]
        t[C - 1] = 0
        t[j + 1] = tail + 1


@njit(cache=True, inline="always")
def _sort_slot(j, scaled, small, large, ns, nl):
    """Push slot ``j`` on the stack of under-full (``scaled < 1``) or of full slots."""
    if scaled[j] < 1.0:
        small[ns] = j
        return ns + 1, nl
    large[nl] = j
    return ns, nl + 1


@njit(cache=True)
def _vose(pmf, prob, alias):
    """Walker's alias table of ``pmf`` (Vose's construction): draw ``j`` uniform, keep it with
    probability ``prob[j]``, else take ``alias[j]``."""
    M = pmf.shape[0]
    scaled = pmf * M
    small = np.empty(M, dtype=np.int64)
    large = np.empty(M, dtype=np.int64)
    ns = 0
    nl = 0
    for j in range(M):
        ns, nl = _sort_slot(j, scaled, small, large, ns, nl)
    while ns > 0 and nl > 0:
        ns -= 1
        a = small[ns]
        nl -= 1
        b = large[nl]
        prob[a] = scaled[a]
        alias[a] = b
        scaled[b] = (scaled[b] + scaled[a]) - 1.0
        ns, nl = _sort_slot(b, scaled, small, large, ns, nl)
    for k in range(nl):
        prob[large[k]] = 1.0
        alias[large[k]] = large[k]
    for k in range(ns):  # only rounding leaves these
        prob[small[k]] = 1.0
        alias[small[k]] = small[k]


@functools.lru_cache(maxsize=16)
def alias_tables(p: tuple[float, ...], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All count tables of ``n`` points over the cells of ``p`` (``(M, C)``), and the alias table
    (``prob``, ``alias``) of their multinomial probabilities (from log-gamma, normalised)."""
    from scipy.special import gammaln

    C = len(p)
    M = math.comb(n + C - 1, C - 1)
    tables = np.empty((M, C), dtype=np.int64)
    _compositions(n, tables)
    pp = np.asarray(p, dtype=float)
    logp = np.log(np.where(pp > 0, pp, 1.0))
    logpmf = gammaln(n + 1) - gammaln(tables + 1).sum(axis=1) + tables @ logp
    logpmf[(tables[:, pp <= 0] > 0).any(axis=1)] = -np.inf  # a point in an empty cell
    pmf = np.exp(logpmf - logpmf.max())
    pmf /= pmf.sum()
    prob = np.empty(M)
    alias = np.empty(M, dtype=np.int64)
    _vose(pmf, prob, alias)
    small = tables.astype(np.uint8) if n <= 255 else tables.astype(np.int32)
    return small, prob, alias


@njit(cache=True)
def _cv_kernel(rng, U, starts, R, sizes, p, cum, guide, atab, aprob, alias, aoff, acnt, w, arities, digits,
               n_marg, K, pa, qa, rule, lsm, lcl, lct, E, Cv, GE, Z, Tout):
    v = sizes.shape[0]
    C = p.shape[0]
    n_inputs = digits.shape[0]
    N = 0
    for i in range(v):
        N += sizes[i]
    F = np.empty((v, C), dtype=np.int64)
    T = np.empty(C, dtype=np.int64)
    Ti = np.empty(C, dtype=np.int64)
    g = np.empty((n_inputs, K))
    e = np.empty(C)
    marg = np.empty(n_marg, dtype=np.int64)
    tot = np.empty(K, dtype=np.int64)
    den = np.empty(K, dtype=np.int64)
    cls = np.empty(K, dtype=np.int64)
    key = np.empty(K, dtype=np.int64)
    z = np.empty(3 + 3 * C)  # the fold sums of the test-point controls of one draw
    for r in range(R):
        for c in range(C):
            T[c] = 0
        for i in range(v):
            M = acnt[i]
            if M > 0:  # one uniform: a count table from the alias table of the fold's size
                x = U[r, starts[i]] * M
                j = min(int(x), M - 1)
                o = aoff[i]
                row = o + j if x - j < aprob[o + j] else o + alias[o + j]
                for c in range(C):
                    F[i, c] = atab[row, c]
            else:
                _multinomial(rng, sizes[i], p, cum, guide, U[r, starts[i]:starts[i + 1]], F[i])
            for c in range(C):
                T[c] += F[i, c]
        for c in range(C):
            Tout[r, c] = T[c]
        for c in range(C - 1):  # the last cell is N minus the others
            Z[r, 3 + 3 * C + c] = T[c] - N * p[c]
        for c in range(3 + 3 * C):
            z[c] = 0.0
        for i in range(v):
            s = sizes[i]
            for c in range(C):
                Ti[c] = T[c] - F[i, c]
            if rule > 0:  # one class per input: the sums below need only the predicted cells
                _factors(Ti, arities, digits, n_marg, K, pa, qa, marg, tot, den, cls)
                for c in range(C):
                    e[c] = 1.0
                ge = 0.0
                hit = 0
                for ix in range(n_inputs):
                    k = _one_class(rule, ix, digits, K, pa, qa, marg, tot, cls, lsm, lcl, lct)
                    e[ix * K + k] = 0.0
                    ge += w[ix, k]
                    hit += F[i, ix * K + k]
                err = float(s - hit)
                coin = 0.0
                sq = ge  # e_c is 0 or 1
            else:
                _predict_one(Ti, arities, digits, n_marg, K, pa, qa, rule, lsm, lcl, lct, marg, tot, den, cls, key, g)
                ge = 0.0
                err = 0.0
                coin = 0.0
                sq = 0.0
                for ix in range(n_inputs):
                    for k in range(K):
                        c = ix * K + k
                        gk = g[ix, k]
                        ec = 1.0 - gk
                        e[c] = ec
                        ge += gk * w[ix, k]
                        err += F[i, c] * ec
                        coin += F[i, c] * gk * ec
                        sq += p[c] * ec * ec
            E[r, i] = err
            Cv[r, i] = coin
            GE[r, i] = ge
            eta = err - s * ge
            z[0] += eta
            z[1] += eta * eta - s * (sq - ge * ge)
            z[2] += eta * ge
            base = N - s
            for c in range(C):
                dt = Ti[c] - base * p[c]
                ed = eta * dt
                z[3 + c] += ed
                z[3 + C + c] += ed * e[c]
                # eta (F_i[c] - s p_c) has conditional mean s p_c (e_c - GE_i) given the training table
                z[3 + 2 * C + c] += (ed * (F[i, c] - s * p[c])) - s * p[c] * (e[c] - ge) * dt
        for c in range(3 + 3 * C):
            Z[r, c] = z[c]


def cv_draws(layout: Layout, p: np.ndarray, w: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator,
             E: np.ndarray, Cv: np.ndarray, GE: np.ndarray, Z: np.ndarray, T: np.ndarray) -> None:
    """``R = len(E)`` draws of independent fold tables, written into ``E``, the coin variance ``Cv``,
    ``GE`` (each ``(R, v)``), the controls ``Z`` (``(R, n_controls)``; see the module docstring) and
    the full-data count table ``T`` (``(R, cells)``, int64)."""
    R = E.shape[0]
    pp = np.ascontiguousarray(p, dtype=np.float64)
    cum = np.cumsum(pp)
    C = pp.size
    # per fold: its alias table (one uniform), else inversion of s uniforms or binomials (none)
    tabs, probs, aliases, aoff, acnt, counts, offset = [], [], [], [], [], [], 0
    built: dict[int, int] = {}
    for s in sizes:
        if aliased(s, C):
            if s not in built:
                t, pr, al = alias_tables(tuple(float(x) for x in pp), int(s))
                built[s] = offset
                tabs.append(t)
                probs.append(pr)
                aliases.append(al)
                offset += t.shape[0]
            aoff.append(built[s])
            acnt.append(math.comb(s + C - 1, C - 1))
            counts.append(1)
        else:
            aoff.append(0)
            acnt.append(0)
            counts.append(s if inverted(s, C) else 0)
    if tabs:
        atab = np.concatenate(tabs) if len(tabs) > 1 else tabs[0]
        if len({t.dtype for t in tabs}) > 1:
            atab = atab.astype(np.int32)
        aprob = np.concatenate(probs)
        alias = np.concatenate(aliases)
    else:
        atab, aprob, alias = np.zeros((1, C), dtype=np.uint8), np.ones(1), np.zeros(1, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    U = rng.random((R, int(starts[-1])))  # the uniforms of the folds, in bulk (faster than one call each)
    # guide[b]: the first cell c with cum[c] > b / G, so that u in [b/G, (b+1)/G) starts there; with
    # 64 buckets per cell most buckets lie inside one cell and the search ends at once
    G = 64 * C
    guide = np.minimum(np.searchsorted(cum, np.arange(G) / G, side="right"), C - 1).astype(np.int64)
    L = layout
    lsm, lcl, lct = L.logs(int(sum(sizes)))
    _cv_kernel(rng, U, starts, R, np.asarray(sizes, dtype=np.int64), pp, cum, guide, atab, aprob, alias,
               np.asarray(aoff, dtype=np.int64), np.asarray(acnt, dtype=np.int64),
               np.ascontiguousarray(w, dtype=np.float64), L.arities, L.digits, L.n_marg, L.K,
               L.pa, L.qa, L.rule, lsm, lcl, lct, E, Cv, GE, Z, T)


@njit(cache=True, fastmath={"reassoc", "contract"})
def _gram(Z, out):
    # blocks of rows transposed into a small buffer: the inner products run over contiguous memory
    R, q = Z.shape
    B = 128
    buf = np.empty((q, B))
    for start in range(0, R, B):
        n = min(B, R - start)
        for r in range(n):
            for i in range(q):
                buf[i, r] = Z[start + r, i]
        for i in range(q):
            for j in range(i, q):
                s = 0.0
                for r in range(n):
                    s += buf[i, r] * buf[j, r]
                out[i, j] += s
    for i in range(q):
        for j in range(i):
            out[i, j] = out[j, i]


def gram(Z: np.ndarray) -> np.ndarray:
    """``Z^T Z`` of a tall float matrix in one single-threaded pass (a threaded BLAS on tall-and-thin
    matrices can be many times slower on a busy machine)."""
    out = np.zeros((Z.shape[1], Z.shape[1]))
    _gram(np.ascontiguousarray(Z, dtype=np.float64), out)
    return out


@njit(cache=True)
def _psd_inverse(G, tol, out):
    q = G.shape[0]
    L = np.zeros((q, q))
    kept = np.zeros(q, dtype=np.bool_)
    for j in range(q):
        d = G[j, j]
        for k in range(j):
            if kept[k]:
                d -= L[j, k] * L[j, k]
        if not (G[j, j] > 0.0 and d > tol * G[j, j]):
            continue  # (numerically) a combination of the kept columns before it
        kept[j] = True
        L[j, j] = np.sqrt(d)
        for i in range(j + 1, q):
            s = G[i, j]
            for k in range(j):
                if kept[k]:
                    s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    # M = L^{-1} on the kept indices (lower triangular), then out = M^T M
    M = np.zeros((q, q))
    for j in range(q):
        if not kept[j]:
            continue
        M[j, j] = 1.0 / L[j, j]
        for i in range(j + 1, q):
            if kept[i]:
                s = 0.0
                for k in range(j, i):
                    if kept[k]:
                        s += L[i, k] * M[k, j]
                M[i, j] = -s / L[i, i]
    for a in range(q):
        for b in range(q):
            s = 0.0
            for k in range(max(a, b), q):
                s += M[k, a] * M[k, b]
            out[a, b] = s


def psd_inverse(G: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Inverse of a positive semidefinite (Gram) matrix on a maximal set of independent columns
    (Cholesky, dropping a column whose residual pivot is below ``tol`` times its diagonal), zero
    elsewhere: a generalised inverse giving the least-squares fit on the column space. Compiled and
    single-threaded (a threaded LAPACK call on a small matrix can take tens of ms on a busy machine)."""
    out = np.zeros_like(G, dtype=np.float64)
    _psd_inverse(np.ascontiguousarray(G, dtype=np.float64), float(tol), out)
    return out


@njit(cache=True)
def _residuals(y, Z, beta, lo, hi, out):
    q = Z.shape[1]
    for r in range(lo, hi):
        v = y[r]
        for j in range(q):
            v -= Z[r, j] * beta[j]
        out[r] = v


def residuals(y: np.ndarray, Z: np.ndarray, beta: np.ndarray, lo: int, hi: int, out: np.ndarray) -> None:
    """``out[r] = y[r] - Z[r] . beta`` for ``lo <= r < hi``, single-threaded (see :func:`gram`)."""
    _residuals(np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(Z, dtype=np.float64),
               np.ascontiguousarray(beta, dtype=np.float64), int(lo), int(hi), out)


@njit(cache=True)
def _bin_sums(Z, w, index, out_z, out_w):
    for r in range(Z.shape[0]):
        b = index[r]
        out_w[b] += w[r]
        for j in range(Z.shape[1]):
            out_z[b, j] += Z[r, j] * w[r]


def bin_sums(Z: np.ndarray, w: np.ndarray, index: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted sums by bin ``index`` (``0 .. bins - 1``) of the rows of ``Z`` (``sum_r w_r Z_r``,
    ``(bins, q)``) and of the weights ``w`` (``(bins,)``), in one single-threaded pass."""
    out_z = np.zeros((bins, Z.shape[1]))
    out_w = np.zeros(bins)
    _bin_sums(np.ascontiguousarray(Z, dtype=np.float64), np.ascontiguousarray(w, dtype=np.float64),
              np.ascontiguousarray(index, dtype=np.int64), out_z, out_w)
    return out_z, out_w
