"""Exact naive Bayes error terms when the class count of every sample is fixed.

Stratified splitters fix the class composition of every training and test set once the class
counts of the dataset are known. Given the class counts, the attributes of the points of class
``c`` are i.i.d. from ``q_c(x) = p[x, c] / pi_c`` and independent across classes, and the naive
Bayes score of class ``c`` at ``x`` depends only on the class totals and on the *agreement
vector* ``A_c(x) = (N_{j, x^j, c})_j`` of class ``c``. So every term below is a sum over one
agreement grid per class, and the classes enter through a ``K``-way tensor contraction:

``sum_{u, w} E_x(u) prod_c Q_c[u_c, w_c] E'_{x'}(w)``

where ``E_x(u)`` is the error of the prediction at ``x`` given the per-class agreement vectors
``u = (u_1..u_K)`` (a decision tensor over the product of the per-class grids) and ``Q_c`` is
the joint law of class ``c``'s agreement vectors in the two training sets involved. With a loss matrix ``L``
(a linear statistic of the confusion matrix) the error of a prediction is replaced by its expected
loss ``sum_j L[k, j] P[predict j]`` for a point of class ``k``. Three terms
(``docs/mathematics.md``, "Stratified cross-validation"):

* :meth:`ClassCountTerms.err1` -- one test point of class ``k`` against a training set of class
  composition ``m``;
* :meth:`ClassCountTerms.err2` -- two test points (classes ``k``, ``l``) of one training set
  (independent given it, including the tie coins);
* :meth:`ClassCountTerms.cross` -- a test point ``t`` of fold ``i`` and a test point ``u`` of
  fold ``j``, each in the other's training set: ``T_i = C + B' + u`` and ``T_j = C + A' + t``
  with the shared part ``C`` and the rest ``A'``, ``B'`` of the two folds; per class,
  ``Q_c = S_i J_c S_j^T`` where ``J_c`` is the joint law of ``C``'s agreements at ``(x_t, x_u)``
  and ``S_i``, ``S_j`` add the private parts and the other test point.

Arithmetic is exact (Python integers over known denominators, returned as ``Fraction``) or
floating point (``float64`` sums of the same terms).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.exact.binary_states import BinaryStates, applies as binary_applies
from momentbound.exact.predictions import decide_grid
from momentbound.model.cells import CellModel

__all__ = ["ClassCountTerms", "MODES", "as_loss"]

MODES = ("rational", "float")
Input = tuple[int, ...]
Counts = tuple[int, ...]


def as_loss(loss: Sequence[Sequence[object]] | None, K: int) -> tuple[tuple[Fraction, ...], ...] | None:
    """A ``K x K`` loss matrix as Fractions (rows: true class); ``None`` for the 0-1 error ``1 - I``."""
    if loss is None:
        return None
    rows = [list(row) for row in loss]
    if len(rows) != K or any(len(row) != K for row in rows):
        raise InvalidArgument(f"loss must be a {K} x {K} matrix (rows: true class, columns: prediction)")
    matrix = tuple(tuple(Fraction(v) for v in row) for row in rows)  # type: ignore[arg-type]
    if all(matrix[a][k] == (a != k) for a in range(K) for k in range(K)):
        return None  # the 0-1 error: its own integer route
    return matrix


class ClassCountTerms:
    """Cached exact error terms of naive Bayes for fixed class compositions.

    Parameters
    ----------
    model:
        The data model.
    classifier:
        A :class:`~momentbound.exact.NaiveBayes` (tie rule and ``alpha``).
    mode:
        ``"rational"`` (exact ``Fraction`` results; needs an exact model) or ``"float"``.

    Examples
    --------
    >>> from momentbound import CellModel
    >>> m = CellModel((2,), ["1/5", "3/10", "1/5", "3/10"])
    >>> t = ClassCountTerms(m, NaiveBayes(ties="first"), "rational")
    >>> t.err1((1, 1))  # one training point per class: ties (3 cases in 4) go to class 0
    (Fraction(1, 4), Fraction(3, 4))
    """

    def __init__(self, model: CellModel, classifier: NaiveBayes, mode: str, loss: Sequence[Sequence[object]] | None = None) -> None:
        if mode not in MODES:
            raise InvalidArgument(f"mode must be one of {MODES}, got {mode!r}")
        if mode == "rational" and not model.is_exact:
            raise InvalidArgument("mode='rational' needs an exact model (Fraction cells); use 'float'")
        if not isinstance(classifier, NaiveBayes):
            raise InvalidArgument(
                f"classifier must be a momentbound NaiveBayes, got {type(classifier).__name__}"
            )
        self.model = model
        self.clf = classifier
        self.mode = mode
        self.K = model.n_classes
        self.loss = as_loss(loss, self.K)
        self.d = model.d
        self.arities = tuple(model.arities)
        self.inputs: list[Input] = list(model.inputs())
        self.exact = mode == "rational"
        # q_c(x) = num[c][x] / den[c]; integers in rational mode, den = 1 in float mode
        if self.exact:
            q = math.lcm(*(Fraction(model.p(x, c)).denominator for x in self.inputs for c in range(self.K)))
            self.num = [[int(Fraction(model.p(x, c)) * q) for x in self.inputs] for c in range(self.K)]
            self.den = [sum(row) for row in self.num]
        else:
            self.num = [
                [float(model.p(x, c)) / float(model.prior(c)) if float(model.prior(c)) > 0 else 0.0
                 for x in self.inputs]
                for c in range(self.K)
            ]
            self.den = [1] * self.K
        self._laws: dict[tuple[int, tuple[Input, ...]], list[np.ndarray]] = {}
        self._errs: dict[tuple[Counts, int], tuple[np.ndarray, int]] = {}
        self._shifts: dict[tuple, np.ndarray] = {}
        self._err1: dict[Counts, tuple] = {}
        self._err2: dict[Counts, np.ndarray] = {}
        self._cross: dict[tuple, np.ndarray] = {}
        #: binary attributes: the terms on the per-class states (:mod:`momentbound.exact.binary_states`)
        self.states = BinaryStates(self) if binary_applies(self.arities) else None

    @property
    def local_order(self) -> bool:
        """The terms of neighbouring class counts share averaged grids in a bounded cache (binary
        attributes): a route computes them in :func:`~momentbound.exact.stratified.local_key` order."""
        return self.states is not None

    def overlap_needs(self, needs: dict | None) -> None:
        """Binary attributes: the averaged grids the between-partition terms of the next class counts read
        (:meth:`~momentbound.exact.binary_states.BinaryStates.overlap_needs`); a no-op otherwise."""
        if self.states is not None:
            self.states.overlap_needs(needs)

    @property
    def indicator(self) -> bool:
        """Every loss entry is 0 or 1, so one test point's loss is its own square."""
        return self.loss is None or all(v in (0, 1) for row in self.loss for v in row)

    def squared(self) -> ClassCountTerms:
        """Terms of the entrywise squared loss (one test point with itself); ``self`` for a 0/1 loss."""
        if self.indicator:
            return self
        if not hasattr(self, "_squared"):
            self._squared = ClassCountTerms(self.model, self.clf, self.mode,
                                            [[v * v for v in row] for row in self.loss])  # type: ignore[union-attr]
            self._squared._laws = self._laws  # the agreement laws do not depend on the loss
        return self._squared

    # ------------------------------------------------------------------ arithmetic
    def _zeros(self, shape: tuple[int, ...]) -> np.ndarray:
        return np.zeros(shape, dtype=object if self.exact else float)

    def _ratio(self, numerator: object, denominator: int) -> object:
        if self.exact:
            return Fraction(int(numerator), int(denominator))
        return float(numerator) / float(denominator)

    # ------------------------------------------------------------------ per-class laws
    def law(self, c: int, n: int, inputs: tuple[Input, ...]) -> np.ndarray:
        """Law of the agreement vectors of ``n`` class-``c`` points at ``inputs`` (scaled by ``den_c^n``).

        Dense array of shape ``(n + 1,) * (d * len(inputs))``: axis ``r d + j`` counts the points
        whose attribute ``j`` equals ``inputs[r][j]``.
        """
        key = (c, inputs)
        laws = self._laws.setdefault(key, [])
        D = self.d * len(inputs)
        if not laws:
            first = self._zeros((1,) * D)
            first[(0,) * D] = 1 if self.exact else 1.0
            laws.append(first)
        if len(laws) <= n:
            sig: dict[tuple[int, ...], object] = {}
            for ix, z in enumerate(self.inputs):
                w = self.num[c][ix]
                if w:
                    s = tuple(int(z[j] == r[j]) for r in inputs for j in range(self.d))
                    sig[s] = sig.get(s, 0) + w
            while len(laws) <= n:
                m = len(laws)
                prev = laws[-1]
                new = self._zeros((m + 1,) * D)
                for s, w in sig.items():
                    new[tuple(slice(si, si + m) for si in s)] += w * prev
                laws.append(new)
        return laws[n]

    def _grid(self, n: int) -> np.ndarray:
        """Agreement vectors of the grid ``(n + 1)^d`` in C order, shape ``(G, d)``."""
        return np.indices((n + 1,) * self.d).reshape(self.d, -1).T.astype(np.int64)

    # ------------------------------------------------------------------ decisions
    def errors(self, m: Counts, ix: int) -> tuple[np.ndarray, int]:
        """``Err[k, u] = scale * P[predict != k]`` at input ``ix`` over the product agreement grid.

        Shape ``(K, G_0, ..., G_{K-1})`` with ``G_c = (m_c + 1)^d``; returned with ``scale``.
        """
        key = m  # the decision grid in agreement coordinates is the same at every input
        if key in self._errs:
            self._errs[key] = self._errs.pop(key)  # most recently used last
        else:
            self._trim_errors()
            K, d = self.K, self.d
            agree = []
            for c in range(K):
                g = self._grid(m[c])
                shape = [1] * K + [d]
                shape[c] = g.shape[0]
                agree.append(g.reshape(shape))
            g, scale = decide_grid(self.clf, self.arities, m, agree)
            if self.loss is not None:  # err[k] = sum_j L[k, j] P[predict j], over a common denominator
                den = math.lcm(*(v.denominator for row in self.loss for v in row))
                L = np.array([[int(v * den) for v in row] for row in self.loss], dtype=object)
                if self.exact:
                    err = np.tensordot(L, g.astype(object), axes=([1], [0]))
                    scale = scale * den
                else:
                    err = np.tensordot(L.astype(float) / den, g.astype(float), axes=([1], [0])) / scale
                    scale = 1
                self._errs[key] = (err, scale)
                return self._errs[key]
            err = scale - g
            if self.exact:
                err = err.astype(object)
            else:
                err = err.astype(float) / scale
                scale = 1
            self._errs[key] = (err, scale)
        return self._errs[key]

    #: bytes of decision grids kept (the least recently used are dropped first)
    ERRORS_BYTES = 256 * 2**20

    def _trim_errors(self) -> None:
        sizes = [e.size * (40 if self.exact else e.itemsize) for e, _ in self._errs.values()]
        drop, total = 0, sum(sizes)
        while total > self.ERRORS_BYTES and drop < len(sizes):
            total -= sizes[drop]
            drop += 1
        for key in list(self._errs)[:drop]:
            del self._errs[key]

    @staticmethod
    def _contract(X: np.ndarray, mats: Sequence[np.ndarray]) -> np.ndarray:
        """Apply ``mats[c]`` (``G_c x W_c``) along the class axes ``1..K`` of ``X``."""
        if len(mats) == 2 and X.ndim == 3:  # two classes: M_0^T X[b] M_1 as batched matmuls
            return mats[0].T[None] @ X @ mats[1][None]
        for M in mats:
            X = np.tensordot(X, M, axes=([1], [0]))
        return X

    # ------------------------------------------------------------------ one training set
    def err1(self, m: Counts) -> tuple:
        """``P[a class-k test point is misclassified]`` for every ``k`` (training composition ``m``)."""
        m = tuple(int(c) for c in m)
        if m not in self._err1 and self.states is not None:
            K = self.K
            sums, scale = self.states.err1(m)
            den = scale * math.prod(self.den[c] ** m[c] for c in range(K))
            self._err1[m] = tuple(self._ratio(sums[k], den * self.den[k]) for k in range(K))
        if m not in self._err1:
            K = self.K
            total = [0] * K
            for ix, x in enumerate(self.inputs):
                err, scale = self.errors(m, ix)
                mats = [self.law(c, m[c], (x,)).reshape(-1, 1) for c in range(K)]
                vals = self._contract(err, mats).reshape(K)
                for k in range(K):
                    total[k] = total[k] + vals[k] * self.num[k][ix]
            den = scale * math.prod(self.den[c] ** m[c] for c in range(K))
            self._err1[m] = tuple(self._ratio(total[k], den * self.den[k]) for k in range(K))
        return self._err1[m]

    def err2(self, m: Counts) -> np.ndarray:
        """``E[err_t err_u]`` for two test points of classes ``(k, l)`` of one training set (``K x K``)."""
        m = tuple(int(c) for c in m)
        if m not in self._err2:
            K, n_in = self.K, len(self.inputs)
            total = self._zeros((K, K))
            for ix in range(n_in if self.states is None else 0):
                err_x, scale = self.errors(m, ix)
                for jx in range(ix, n_in):
                    err_y, _ = self.errors(m, jx)
                    pair = (self.inputs[ix], self.inputs[jx])
                    mats = []
                    for c in range(K):
                        G = (m[c] + 1) ** self.d
                        mats.append(self.law(c, m[c], pair).reshape(G, G))
                    X = self._contract(err_x, mats).reshape(K, -1)
                    R = X @ err_y.reshape(K, -1).T
                    wx = np.array([self.num[k][ix] for k in range(K)], dtype=object if self.exact else float)
                    wy = np.array([self.num[k][jx] for k in range(K)], dtype=object if self.exact else float)
                    term = R * np.outer(wx, wy)
                    total = total + (term if jx == ix else term + term.T)
            if self.states is not None:
                total, scale = self.states.err2(m)
            den = scale * scale * math.prod(self.den[c] ** m[c] for c in range(K))
            out = self._zeros((K, K))
            for k in range(K):
                for l in range(K):
                    out[k, l] = self._ratio(total[k, l], den * self.den[k] * self.den[l])
            self._err2[m] = out
        return self._err2[m]

    # ------------------------------------------------------------------ two folds
    def _shift(self, c: int, n_base: int, n_extra: int, x: Input, bump: tuple[int, ...], n_target: int) -> np.ndarray:
        """``S[v, r] = P[extra agreements at x = v - r - bump]`` (grid ``n_target`` x grid ``n_base``)."""
        key = (c, n_base, n_extra, x, bump, n_target)
        if key not in self._shifts:
            d = self.d
            law = self.law(c, n_extra, (x,))
            if d == 1:  # Toeplitz band: S[v, r] = law[v - r - bump]
                lag = np.arange(n_target + 1)[:, None] - np.arange(n_base + 1)[None, :] - bump[0]
                inside = (lag >= 0) & (lag <= n_extra)
                S = np.where(inside, law[np.clip(lag, 0, n_extra)], 0 if self.exact else 0.0)
                self._shifts[key] = S
                return S
            base = self._grid(n_base)
            S = self._zeros(((n_target + 1) ** d, base.shape[0]))
            cols = np.arange(base.shape[0])
            strides = np.array([(n_target + 1) ** (d - 1 - j) for j in range(d)], dtype=np.int64)
            b = np.array(bump, dtype=np.int64)
            for s in zip(*np.nonzero(law != 0)):
                tgt = (base + np.array(s, dtype=np.int64) + b) @ strides
                S[tgt, cols] += law[s]
            self._shifts[key] = S
        return self._shifts[key]

    def _given_base(
        self, X: np.ndarray, n_base: Counts, n_extra: Sequence[int], x: Input, bumps: Sequence[tuple[int, ...]]
    ) -> np.ndarray:
        """Average ``X[b, u_0, ..., u_{K-1}]`` over extra points added to a base sample, class by class.

        Class ``c``'s agreements are ``u_c = r_c + s_c + bumps[c]`` with ``r_c`` on the grid of
        ``n_base[c]`` points and ``s_c`` the agreements at ``x`` of ``n_extra[c]`` more i.i.d.
        class-``c`` points; returns ``Y[b, r_0, ..., r_{K-1}] = E[X[b, u] | r]`` (scaled by the
        extra points' denominators).
        """
        sides = [round(X.shape[1 + c] ** (1 / self.d)) for c in range(self.K)]  # axis c's grid is side^d
        if all(sides[c] == n_base[c] + 1 and not n_extra[c] and not any(bumps[c]) for c in range(self.K)):
            return X  # nothing added: Y = X
        mats = []
        for c in range(self.K):
            side = sides[c]
            mats.append(self._shift(c, n_base[c], n_extra[c], x, tuple(bumps[c]), side - 1))
        return self._contract(X, mats)

    def cross(self, common: Counts, fold_i: Counts, fold_j: Counts) -> np.ndarray:
        """``E[err_t err_u]`` for ``t`` of class ``k`` in fold ``i`` and ``u`` of class ``l`` in fold ``j``.

        ``common``: class composition of the points in neither fold; ``fold_i``, ``fold_j``: the
        folds' compositions. Entry ``[k, l]`` (``K x K``; zero where a fold has no point of the
        class). ``T_i = C + fold j`` judges ``t``, ``T_j = C + fold i`` judges ``u``.
        """
        return self.two_sets(common, fold_j, fold_i, u_in_1=True, t_in_2=True)

    def two_sets(
        self,
        common: Counts,
        base1: Counts,
        base2: Counts,
        *,
        u_in_1: bool,
        t_in_2: bool,
        same_point: bool = False,
    ) -> np.ndarray:
        """``E[err_t(T_1) err_u(T_2)]`` for two training sets sharing a part ``C``.

        ``T_1 = C + B_1`` (composition ``common + base1``) judges the test point ``t`` of class
        ``k``; ``T_2 = C + B_2`` (composition ``common + base2``) judges ``u`` of class ``l``.
        With ``u_in_1`` the point ``u`` is one of ``B_1``'s points (so ``B_1`` holds
        ``base1 - e_l`` random points besides it); with ``t_in_2``, ``t`` is one of ``B_2``'s.
        ``same_point``: ``t = u`` (then ``k = l``, neither flag). Entry ``[k, l]`` of a ``K x K``
        array (zero where a flagged set has no point of the class).
        """
        key = (tuple(common), tuple(base1), tuple(base2), bool(u_in_1), bool(t_in_2), bool(same_point))
        if key in self._cross:
            return self._cross[key]
        swapped = (key[0], key[2], key[1], key[4], key[3], key[5])
        if swapped in self._cross:
            return self._cross[swapped].T
        if same_point and (u_in_1 or t_in_2):
            raise InvalidArgument("a point judged by both training sets is in neither (same_point excludes the flags)")
        K, d = self.K, self.d
        cc, b1, b2 = key[:3]
        m1 = tuple(cc[c] + b1[c] for c in range(K))
        m2 = tuple(cc[c] + b2[c] for c in range(K))
        zero = (0,) * d
        prior = [any(row) for row in self.num]
        ks = [k for k in range(K) if (b2[k] if t_in_2 else prior[k])]
        ls = [l for l in range(K) if (b1[l] if u_in_1 else prior[l])]
        total = self._zeros((K, K))
        f_1: dict[tuple[int, int, tuple[int, ...]], np.ndarray] = {}
        # two folds of one composition: both sides average the same tables (computed once)
        f_2: dict[tuple[int, int, tuple[int, ...]], np.ndarray] = f_1 if (b1, u_in_1) == (b2, t_in_2) else {}
        scale = 1
        if self.states is not None:
            total, scale = self.states.two_sets(cc, b1, b2, u_in_1, t_in_2, same_point, ks, ls)
        for it, xt in enumerate(self.inputs if self.states is None else ()):
            if not any(self.num[k][it] for k in ks):
                continue
            err_1, scale = self.errors(m1, it)
            for iu, xu in enumerate(self.inputs):
                if same_point and iu != it:
                    continue
                if not any(self.num[l][iu] for l in ls):
                    continue
                err_2, _ = self.errors(m2, iu)
                delta = tuple(int(xt[j] == xu[j]) for j in range(d))
                # expected errors (every true class at once) given the shared part C: average over
                # the private parts (B_1, and u when it is in T_1; B_2, and t when it is in T_2)
                for l in ls:
                    if (l, it, delta) not in f_1:
                        f_1[(l, it, delta)] = self._given_base(
                            err_1, cc, [b1[c] - (u_in_1 and c == l) for c in range(K)], xt,
                            [delta if (u_in_1 and c == l) else zero for c in range(K)],
                        )
                for k in ks:
                    if (k, iu, delta) not in f_2:
                        f_2[(k, iu, delta)] = self._given_base(
                            err_2, cc, [b2[c] - (t_in_2 and c == k) for c in range(K)], xu,
                            [delta if (t_in_2 and c == k) else zero for c in range(K)],
                        )
                pair = (xt, xu)
                J = [self.law(c, cc[c], pair).reshape((cc[c] + 1) ** d, -1) for c in range(K)]
                for l in ls:
                    if not self.num[l][iu]:
                        continue
                    X = self._contract(f_1[(l, it, delta)], J)  # (K, C-grid of the other side)
                    for k in ks:
                        if not self.num[k][it] or (same_point and k != l):
                            continue
                        val = np.sum(X[k] * f_2[(k, iu, delta)][l])
                        weight = self.num[k][it] if same_point else self.num[k][it] * self.num[l][iu]
                        total[k, l] = total[k, l] + val * weight
        # every class-c point of C, B_1, B_2 and the test points appears once in the weights
        base = scale * scale * math.prod(self.den[c] ** (cc[c] + b1[c] + b2[c]) for c in range(K))
        out = self._zeros((K, K))
        for k in range(K):
            for l in range(K):
                if same_point:
                    den = base * self.den[k]
                else:
                    den = base * (1 if t_in_2 else self.den[k]) * (1 if u_in_1 else self.den[l])
                out[k, l] = self._ratio(total[k, l], den)
        self._cross[key] = out
        return out
