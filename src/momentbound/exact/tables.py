"""Exact sums over the count tables of the data: resubstitution, the ideal bootstrap, and GE_N.

Every quantity here is a function of the **count table** ``T`` of a dataset (``T[c]`` points in
cell ``c``, ``T ~ Multinomial(n, p)``), so its moments are finite sums over the tables of size
``n`` (``docs/mathematics.md``, "Resubstitution and the bootstrap"):

* ``e_c(T) = 1 - g_{x_c}(y_c | T)``: the error probability at a point of cell ``c`` of the classifier
  trained on ``T`` (the tie coin as its probability);
* ``GE(T) = sum_c g_{x_c}(y_c' ...)``: ``sum_{x, y} g_x(y | T) P[X = x, Y != y]``;
* resubstitution: conditional mean ``r(T) = sum_c T[c] e_c(T) / n`` and coin variance
  ``v(T) = sum_c T[c] e_c(T) (1 - e_c(T)) / n^2``;
* the ideal leave-one-out bootstrap (``B -> infinity``): ``Err1(T) = sum_c T[c] q_c(T) / n`` with
  ``q_c(T) = E[e_c(S)]``, ``S ~ Multinomial(n, (T - delta_c) / (n - 1))``;
* the no-information rate ``gamma(T) = sum_k (T_k / n) (1 - (1/n) sum_x T_x g_x(k | T))``.

Tables of one size are kept in the colex order of their stars-and-bars bar positions, so the rank
of any table is a closed formula (:func:`table_rank`); :meth:`TableLaw.lower` maps a function of
the tables of size ``m + 1`` to ``U(T) = sum_c p_c U(T + delta_c)`` on size ``m``, the expectation
over one more iid point (applied ``s`` times: ``E[U(T + F)]``, ``F ~ Multinomial(s, p)``).

Arithmetic: exact ``Fraction`` (object arrays) or float64, decided by the caller.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from momentbound.errors import InvalidArgument
from momentbound.model.cells import CellModel

__all__ = ["TableLaw", "bootstrap_fast", "fast_bootstrap_applies", "table_count", "table_rank", "tables_of_size"]

#: default limit on the number of tables of one size (float arithmetic)
MAX_TABLES = 3_000_000
#: limit on the dense tables of the one-attribute joint term with GE_N (bytes)
MAX_DENSE_BYTES = 2 * 2**30
#: exact arithmetic is Python-object arithmetic: a smaller limit
MAX_TABLES_EXACT = 20_000
#: limit on (tables) x (bootstrap tables) x cells of the generic ideal-bootstrap sum
MAX_BOOTSTRAP_WORK = 60_000_000
MAX_BOOTSTRAP_WORK_EXACT = 2_000_000


def table_count(n: int, cells: int) -> int:
    """Number of count tables of ``n`` points over ``cells`` cells, ``C(n + cells - 1, cells - 1)``."""
    return math.comb(n + cells - 1, cells - 1)


@lru_cache(maxsize=64)
def _binomials(top: int, cells: int) -> np.ndarray:
    """``C(b, j)`` for ``b < top``, ``j < cells`` (int64)."""
    out = np.zeros((top + 1, cells), dtype=np.int64)
    for j in range(cells):
        out[:, j] = [math.comb(b, j) for b in range(top + 1)]
    return out


def table_rank(tables: np.ndarray, n: int) -> np.ndarray:
    """Rank of each table of size ``n`` (rows of ``tables``) in :func:`tables_of_size` order.

    The bars of a table sit at ``b_j = T[0] + ... + T[j-1] + j - 1`` (``j = 1..cells-1``); the rank is
    the colex rank ``sum_j C(b_j, j)`` of that subset of ``{0, ..., n + cells - 2}``.
    """
    t = np.asarray(tables, dtype=np.int64)
    cells = t.shape[-1]
    if cells == 1:
        return np.zeros(t.shape[:-1], dtype=np.int64)
    bars = np.cumsum(t[..., :-1], axis=-1) + np.arange(cells - 1)
    binom = _binomials(n + cells, cells)
    return binom[bars, np.arange(1, cells)].sum(axis=-1)


@lru_cache(maxsize=16)
def tables_of_size(n: int, cells: int) -> np.ndarray:
    """All count tables of ``n`` points over ``cells`` cells, ``(count, cells)`` int64, in rank order."""
    out = _compositions(n, cells)
    order = np.empty(len(out), dtype=np.int64)
    order[table_rank(out, n)] = np.arange(len(out))
    res = out[order]
    res.setflags(write=False)
    return res


@lru_cache(maxsize=4096)
def _compositions(n: int, cells: int) -> np.ndarray:
    if cells == 1:
        return np.array([[n]], dtype=np.int64)
    parts = []
    for first in range(n + 1):
        rest = _compositions(n - first, cells - 1)
        parts.append(np.hstack([np.full((len(rest), 1), first, dtype=np.int64), rest]))
    return np.vstack(parts)


class _Level:
    """The tables of one size with their probabilities and the classifier's errors."""

    def __init__(self, tables: np.ndarray, prob: np.ndarray, g: np.ndarray) -> None:
        self.tables = tables
        self.prob = prob  # (count,)
        self.g = g  # (count, cells): g_{x_c}(y_c | T) in cell order


class TableLaw:
    """Sums over the count tables of a naive Bayes model (one arithmetic, cached by size).

    Parameters
    ----------
    model, classifier:
        A :class:`~momentbound.model.cells.CellModel` and a ``NaiveBayes`` (an exact form).
    exact:
        ``Fraction`` arithmetic (needs an exact model) or float64.
    max_tables:
        Refuse (``InvalidArgument``) sizes with more tables than this.
    """

    def __init__(self, model: CellModel, classifier: Any, exact: bool, max_tables: int | None = None) -> None:
        if exact and not model.is_exact:
            raise InvalidArgument("exact table sums need an exact model (Fraction cells)")
        self.model = model
        self.classifier = classifier
        self.exact = exact
        self.max_tables = max_tables or (MAX_TABLES_EXACT if exact else MAX_TABLES)
        self.cells = model.n_cells
        self.K = model.n_classes
        if exact:
            self.p = np.array([Fraction(c) for c in model.cells], dtype=object)
        else:
            self.p = np.array([float(c) for c in model.cells], dtype=float)
        cells2 = self.p.reshape(-1, self.K)
        self.w = (cells2.sum(axis=1, keepdims=True) - cells2).reshape(-1)  # P[X = x, Y != y]
        self.cell_input = np.repeat(np.arange(model.n_inputs), self.K)
        self.cell_class = np.tile(np.arange(self.K), model.n_inputs)
        self._levels: dict[int, _Level] = {}
        self._cache: dict[Any, Any] = {}

    # ------------------------------------------------------------------ levels
    def check(self, n: int, *, what: str = "") -> None:
        count = table_count(n, self.cells)
        if count > self.max_tables:
            raise InvalidArgument(
                f"the exact sum{what} runs over the {count:.3g} count tables of {n} points in "
                f"{self.cells} cells (limit {self.max_tables:.3g}); use backend='montecarlo', a smaller N "
                "or a model with fewer cells"
            )

    def zero(self) -> Any:
        return Fraction(0) if self.exact else 0.0

    def level(self, n: int) -> _Level:
        if n not in self._levels:
            self.check(n)
            tables = tables_of_size(n, self.cells)
            prob = self._probabilities(tables, n)
            g = self._predictions(tables)
            self._levels[n] = _Level(tables, prob, g)
        return self._levels[n]

    def _probabilities(self, tables: np.ndarray, n: int) -> np.ndarray:
        if self.exact:
            fact = [math.factorial(k) for k in range(n + 1)]
            out = np.empty(len(tables), dtype=object)
            for i, t in enumerate(tables.tolist()):
                coef = fact[n]
                value = Fraction(1)
                for k, pc in zip(t, self.p):
                    coef //= fact[k]
                    if k:
                        value *= pc**k
                out[i] = coef * value
            return out
        lf = _log_factorials(n)
        with np.errstate(divide="ignore"):
            logp = np.log(self.p)
        terms = np.where(tables > 0, tables * np.where(np.isfinite(logp), logp, 0.0), 0.0)
        impossible = ((tables > 0) & ~np.isfinite(logp)).any(axis=1)
        out = np.exp(lf[n] - lf[tables].sum(axis=1) + terms.sum(axis=1))
        out[impossible] = 0.0
        return out

    def _predictions(self, tables: np.ndarray) -> np.ndarray:
        """``g_{x_c}(y_c | T)`` in cell order for each table, exact when asked."""
        out = []
        step = max(1, 2_000_000 // max(1, self.cells))
        for start in range(0, len(tables), step):
            g = self.classifier.predict_tables(self.model, tables[start:start + step])
            out.append(g.reshape(g.shape[0], -1))
        g = np.vstack(out) if out else np.zeros((0, self.cells))
        if not self.exact:
            return g
        scale = math.lcm(*range(1, self.K + 1))
        ints = np.rint(g * scale).astype(np.int64)
        if np.abs(ints - g * scale).max(initial=0.0) > 1e-6:
            raise InvalidArgument("prediction probabilities are not multiples of 1/lcm(1..K)")
        frac = np.array([Fraction(int(v), scale) for v in ints.ravel()], dtype=object)
        return frac.reshape(ints.shape)

    # ------------------------------------------------------------------ per-table functions
    def ge(self, n: int, loss: Any = None) -> np.ndarray:
        """``GE(T)`` for every table of size ``n``; with a ``K x K`` ``loss`` matrix (rows: true class)
        the population value ``E[L(Y, g(X)) | T]`` of that linear statistic."""
        key = ("ge", n) if loss is None else ("ge", n, loss)
        if key not in self._cache:
            lv = self.level(n)
            w = self.w if loss is None else self.loss_weights(loss)
            self._cache[key] = lv.g.dot(w) if not self.exact else _dot_rows(lv.g, w)
        return self._cache[key]

    def loss_weights(self, loss: Any) -> np.ndarray:
        """``w[c] = sum_a P[X = x_c, Y = a] L[a, y_c]`` in cell order (``g`` in cell order is the
        probability of predicting ``y_c`` at ``x_c``)."""
        cells2 = self.p.reshape(-1, self.K)
        L = np.array([[Fraction(v) if self.exact else float(v) for v in row] for row in loss],
                     dtype=object if self.exact else float)
        return (cells2 @ L).reshape(-1)

    def point_losses(self, n: int, loss: Any) -> np.ndarray:
        """``l_c(T) = sum_k g_{x_c}(k | T) L[y_c, k]``: the expected loss at a point of cell ``c``,
        ``(count, cells)`` (``1 - g`` for the 0-1 error)."""
        lv = self.level(n)
        K = self.K
        g = lv.g.reshape(len(lv.g), -1, K)  # g_x(k | T) (same for every class cell of x)
        L = np.array([[Fraction(v) if self.exact else float(v) for v in row] for row in loss],
                     dtype=object if self.exact else float)
        return (g @ L.T).reshape(len(lv.g), -1)

    def errors(self, n: int) -> np.ndarray:
        """``e_c(T)`` for every table of size ``n`` and cell ``c``: ``(count, cells)``."""
        return 1 - self.level(n).g

    def resubstitution(self, n: int, loss: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``(r(T), v(T))``: conditional mean and tie-coin variance of the training error (of the
        linear statistic of a ``K x K`` ``loss``: per point of cell ``c``, mean ``l_c(T)`` and variance
        ``sum_k g_{x_c}(k | T) L[y_c, k]^2 - l_c(T)^2``)."""
        key = ("resub", n) if loss is None else ("resub", n, loss)
        if key not in self._cache:
            lv = self.level(n)
            t = lv.tables
            if loss is None:
                e = 1 - lv.g
                coin = e * lv.g
            else:
                e = self.point_losses(n, loss)
                coin = self.point_losses(n, tuple(tuple(v * v for v in row) for row in loss)) - e * e
            r = (t * e).sum(axis=1) / n
            v = (t * coin).sum(axis=1) / (n * n)
            if self.exact:
                r = np.array([Fraction(x) for x in r], dtype=object)
                v = np.array([Fraction(x) for x in v], dtype=object)
            self._cache[key] = (r, v)
        return self._cache[key]

    def no_information(self, n: int) -> np.ndarray:
        """``gamma(T) = sum_k (T_k / n) (1 - q_k)``, ``q_k`` the share of the training inputs the
        full-data classifier assigns to class ``k`` (prediction probabilities)."""
        key = ("gamma", n)
        if key not in self._cache:
            lv = self.level(n)
            K = self.K
            t = lv.tables.reshape(len(lv.tables), -1, K)
            if self.exact:
                t = t.astype(object)
            g = lv.g.reshape(len(lv.tables), -1, K)  # g_x(k | T) at every input (any class cell)
            per_input = t.sum(axis=2)  # T_x
            q = (per_input[:, :, None] * g).sum(axis=1) / n  # (count, K)
            share = t.sum(axis=1) * (Fraction(1, n) if self.exact else 1.0 / n)  # (count, K)
            gamma = (share * (1 - q)).sum(axis=1)
            if self.exact:
                gamma = np.array([Fraction(x) for x in gamma], dtype=object)
            self._cache[key] = gamma
        return self._cache[key]

    def class_weights(self, n: int, rule: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(W, c)`` for the tables of size ``n``: the statistic of a rule (``rule.test_set_weights(counts)``,
        :class:`~momentbound.estimators.metrics.LinearMetric` or a share of the points) on the ``n`` points of a
        table with class counts ``counts`` is ``c + sum_cells T[cell] W[cell] l_cell`` (``W[cell]`` the weight of
        the cell's class, ``l_cell`` the point's loss under the rule's base matrix), ``(count, cells)`` and ``(count,)``."""
        from momentbound.exact.stratified import test_set_weights

        lv = self.level(n)
        counts = lv.tables.reshape(len(lv.tables), -1, self.K).sum(axis=1)  # (count, K) class counts
        distinct, index = np.unique(counts, axis=0, return_inverse=True)
        per = [test_set_weights(rule, row, self.exact) for row in distinct.tolist()]
        dtype = object if self.exact else float
        w = np.array([list(x) for x, _ in per], dtype=dtype).reshape(len(per), self.K)
        c = np.array([x for _, x in per], dtype=dtype)
        index = np.asarray(index).reshape(-1)
        return w[index][:, self.cell_class], c[index]

    def rule_statistics(self, n: int, rule: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per table of size ``n``, the resubstitution statistic of ``rule`` (conditional mean and tie-coin
        variance: each point's loss under the rule's base matrix ``B``, weighed by :meth:`class_weights`)
        and the ideal bootstrap ``Err1`` of the same rule (each point's loss averaged over the bootstrap
        samples that leave it out, :meth:`bootstrap_losses`): ``(r, v, err1)``."""
        B = tuple(tuple(v for v in row) for row in rule.base_matrix(self.K))
        key = ("rule", n, B, getattr(rule, "rule", "share"), getattr(rule, "classes", ()))
        if key not in self._cache:
            W, c = self.class_weights(n, rule)
            t = self.level(n).tables
            e = self.point_losses(n, B)
            coin = self.point_losses(n, tuple(tuple(v * v for v in row) for row in B)) - e * e
            r = c + (t * W * e).sum(axis=1)
            v = (t * W * W * coin).sum(axis=1)
            err1 = c + (t * W * self.bootstrap_losses(n, B)).sum(axis=1)
            self._cache[key] = (r, v, err1)
        return self._cache[key]  # type: ignore[no-any-return]

    def bootstrap_losses(self, n: int, loss: Any = None) -> np.ndarray:
        """``q_c(T) = E[l_c(S)]``, ``S ~ Multinomial(n, (T - delta_c) / (n - 1))``: the expected loss at a
        point of cell ``c`` left out of a bootstrap sample (the 0-1 error without ``loss``), ``(count, cells)``,
        0 where ``T[c] = 0``."""
        key = ("q", n) if loss is None else ("q", n, loss)
        if key not in self._cache:
            if n < 2:
                raise InvalidArgument(f"the leave-one-out bootstrap needs N >= 2, got N={n}")
            if self._fast_applies() and not self.exact:
                self._cache[key] = bootstrap_fast(self.model, self.classifier, self.level(n).tables, n, loss)
            else:
                self._cache[key] = self._bootstrap_generic(n, loss)
        return self._cache[key]  # type: ignore[no-any-return]

    def bootstrap(self, n: int) -> np.ndarray:
        """``Err1(T)`` of the ideal leave-one-out bootstrap for every table of size ``n >= 2``."""
        key = ("err1", n)
        if key not in self._cache:
            q = self.bootstrap_losses(n)
            lv = self.level(n)
            err1 = (lv.tables * q).sum(axis=1) / n
            if self.exact:
                err1 = np.array([Fraction(x) for x in err1], dtype=object)
            self._cache[key] = err1
        return self._cache[key]

    def _fast_applies(self) -> bool:
        return fast_bootstrap_applies(self.model, self.classifier)

    def _bootstrap_generic(self, n: int, loss: Any = None) -> np.ndarray:
        """``q_c(T)`` by summing over every bootstrap table (``(count, cells)``, 0 where ``T[c] = 0``)."""
        count, cells = table_count(n, self.cells), self.cells
        limit = MAX_BOOTSTRAP_WORK_EXACT if self.exact else MAX_BOOTSTRAP_WORK
        if count * count * cells > limit:
            raise InvalidArgument(
                f"the exact ideal bootstrap for this model sums over {count} x {count} pairs of count "
                f"tables ({cells} cells, N={n}), above the limit {limit:.3g}; use backend='montecarlo' "
                "(or one attribute and alpha = 0 with ties 'random' or two classes, where Err(1), .632 and .632+ "
                "have exact routes on sufficient statistics)"
            )
        lv = self.level(n)
        # l_c(S) for every bootstrap table S (same tables of size n)
        err = 1 - lv.g if loss is None else self.point_losses(n, loss)
        S = lv.tables
        if self.exact:
            return self._bootstrap_generic_exact(n, S, err)
        lf = _log_factorials(n)
        coef = lf[n] - lf[S].sum(axis=1)  # (count,)
        q = np.zeros((count, cells))
        for c in range(cells):
            rows = np.nonzero(lv.tables[:, c] > 0)[0]
            if len(rows) == 0:
                continue
            base = lv.tables[rows].astype(float)
            base[:, c] -= 1
            with np.errstate(divide="ignore"):
                logpi = np.log(base / (n - 1))
            logpi = np.where(np.isfinite(logpi), logpi, -1e30)
            for start in range(0, len(rows), 2048):
                block = logpi[start:start + 2048]
                logw = coef[None, :] + block @ S.T.astype(float)  # (block, count)
                q[rows[start:start + 2048], c] = np.exp(logw) @ err[:, c]
        return q

    def _bootstrap_generic_exact(self, n: int, S: np.ndarray, err: np.ndarray) -> np.ndarray:
        lv = self.level(n)
        count, cells = len(lv.tables), self.cells
        fact = [math.factorial(k) for k in range(n + 1)]
        S_list = S.tolist()
        coefs = []
        for s in S_list:
            coef = fact[n]
            for k in s:
                coef //= fact[k]
            coefs.append(coef)
        denominator = (n - 1) ** n
        q = np.empty((count, cells), dtype=object)
        q[...] = Fraction(0)
        err_list = err.tolist()
        for i, t in enumerate(lv.tables.tolist()):
            for c in range(cells):
                if t[c] == 0:
                    continue
                base = list(t)
                base[c] -= 1
                total = Fraction(0)
                for j, s in enumerate(S_list):
                    e = err_list[j][c]
                    if e == 0:
                        continue
                    weight = coefs[j]
                    for k, b in zip(s, base):
                        if k:
                            if b == 0:
                                weight = 0
                                break
                            weight *= b**k
                    if weight:
                        total += weight * e
                q[i, c] = total / denominator
        return q

    def _full_product_additive(self, N: int, s: int) -> float:
        """:meth:`full_product` for one attribute, two classes, ``alpha = 0`` and random ties: the
        prediction at ``x`` compares ``T[x, 0]`` with ``T[x, 1]``, so ``GE(T) = sum_x phi_x(T[x, 0], T[x, 1])``
        and ``E[GE(T + F)] = sum_x psi_x``, ``psi_x`` the correlation of ``phi_x`` with the trinomial law
        of ``F``'s counts at ``x``."""
        n_in = self.model.n_inputs
        p = self.p.reshape(n_in, 2)
        a = np.arange(N + 1)
        win0 = (a[:, None] > a[None, :]) + 0.5 * (a[:, None] == a[None, :])
        size = N - s + 2  # psi on (T + delta)[x, :] with T of size N - s: entries up to N - s + 1
        psi = []
        for x in range(n_in):
            phi = win0 * self.w[2 * x] + (1.0 - win0) * self.w[2 * x + 1]
            law = _trinomial_grid(s - 1, float(p[x, 0]), float(p[x, 1]))
            acc = np.zeros((size, size))
            for f0, f1 in zip(*np.nonzero(law)):
                acc += law[f0, f1] * phi[f0:f0 + size, f1:f1 + size]
            psi.append(acc)
        n_train = N - s
        self.check(n_train)
        tables = tables_of_size(n_train, self.cells)
        prob = self._probabilities(tables, n_train)
        t = tables.reshape(len(tables), n_in, 2)
        total = 0.0
        for x in range(n_in):
            for y in (0, 1):
                c = 2 * x + y
                if p[x, y] == 0:
                    continue
                mine, other = t[:, x, y], t[:, x, 1 - y]
                err = (mine < other) + 0.5 * (mine == other)
                shifted = t.copy()
                shifted[:, x, y] += 1
                ge = sum(psi[z][shifted[:, z, 0], shifted[:, z, 1]] for z in range(n_in))
                total += float(p[x, y]) * float(np.dot(prob, err * ge))
        return total

    # ------------------------------------------------------------------ expectations
    def expect(self, n: int, values: np.ndarray) -> Any:
        """``E[f(T)]`` for ``f`` given on the tables of size ``n``."""
        prob = self.level(n).prob
        return _dot(prob, values, self.exact)

    def lower(self, values: np.ndarray, m: int) -> np.ndarray:
        """``U(T) = sum_c p_c values(T + delta_c)`` for the tables of size ``m`` (``values`` on ``m + 1``)."""
        self.check(m)
        out = None
        for c, idx in enumerate(_raised_ranks(m, self.cells)):
            if self.p[c] == 0:
                continue
            term = values[idx] * self.p[c]
            out = term if out is None else out + term
        assert out is not None
        return out

    def full_product(self, N: int, s: int, loss: Any = None) -> Any:
        """``E[err(a) GE_N]``: a test point ``a`` of a split whose classifier is trained on the other
        ``N - s`` points, and the GE of the classifier trained on all ``N`` points; with a ``K x K``
        ``loss``, ``E[L(a) GE_N^L]`` for that linear statistic (the one-attribute fast route is the
        0-1 error's: other losses take the table sum)."""
        if loss is None and not self.exact and self._fast_applies() and self.classifier.ties == "random":
            dense = 32.0 * (N + 2) ** 2  # a few dense (N + 1) x (N + 1) float tables
            if dense > MAX_DENSE_BYTES:
                raise InvalidArgument(
                    f"the exact joint term with GE_N at N={N} needs dense tables of about "
                    f"{dense / 2**30:.3g} GiB (limit {MAX_DENSE_BYTES / 2**30:g} GiB); use "
                    "backend='montecarlo' or a smaller N"
                )
            return self._full_product_additive(N, s)
        U = self.ge(N, loss)
        for m in range(N - 1, N - s, -1):  # U on size N - s + 1: E[GE(T + F)], F ~ Mult(s - 1)
            U = self.lower(U, m)
        n_train = N - s
        lv = self.level(n_train)
        e = 1 - lv.g if loss is None else self.point_losses(n_train, loss)
        total = self.zero()
        for c, idx in enumerate(_raised_ranks(n_train, self.cells)):
            if self.p[c] == 0:
                continue
            shifted = U[idx]
            total = total + self.p[c] * _dot(lv.prob, e[:, c] * shifted, self.exact)
        return total


@lru_cache(maxsize=32)
def _raised_ranks(m: int, cells: int) -> tuple[np.ndarray, ...]:
    """For every cell ``c``, the ranks of ``T + delta_c`` among the tables of size ``m + 1``, ``T`` running
    over the tables of size ``m`` in order: adding a point to cell ``c`` moves the bars after it by one,
    so the rank is ``sum_{j <= c} C(b_j, j) + sum_{j > c} C(b_j + 1, j)``."""
    tables = tables_of_size(m, cells)
    if cells == 1:
        return (np.zeros(len(tables), dtype=np.int64),)
    bars = np.cumsum(tables[:, :-1], axis=1) + np.arange(cells - 1)
    binom = _binomials(m + cells + 1, cells)
    j = np.arange(1, cells)
    same = binom[bars, j]
    moved = binom[bars + 1, j]
    zeros = np.zeros((len(tables), 1), dtype=np.int64)
    before = np.hstack([zeros, np.cumsum(same, axis=1)])  # sum over bars j <= c
    after = np.hstack([np.cumsum(moved[:, ::-1], axis=1)[:, ::-1], zeros])  # sum over bars j > c
    return tuple(before[:, c] + after[:, c] for c in range(cells))


def bootstrap_fast(model: CellModel, classifier: Any, tables: np.ndarray, n: int, loss: Any = None) -> np.ndarray:
    """``q_c(T)`` (``(count, cells)``, 0 where ``T[c] = 0``) for one attribute, two classes, ``alpha = 0``.

    The prediction at ``x`` compares the bootstrap counts ``(U, V) = (S[x, 0], S[x, 1])``, a trinomial of
    ``n`` draws with probabilities ``(a, b) / (n - 1)`` (``a, b`` the counts at ``x`` without the left-out
    point); ``first`` ties lose class 0 only when ``U = V = 0`` and no class-0 point was drawn
    (probability ``((T_1 - T[x, 1]) / (n - 1))^n``, ``T_1`` the class-1 total). With a ``2 x 2`` ``loss``
    the expected loss ``L[y, 0] P[predict 0] + L[y, 1] P[predict 1]`` instead of the 0-1 error.
    """
    above, equal = _trinomial_order(n)
    first = classifier.ties == "first"
    t = np.asarray(tables).reshape(len(tables), -1, 2)
    class1 = t[:, :, 1].sum(axis=1)
    q = np.zeros((len(tables), t.shape[1] * 2))
    for x in range(t.shape[1]):
        for y in (0, 1):
            a = t[:, x, 0] - (y == 0)
            b = t[:, x, 1] - (y == 1)
            ok = (a >= 0) & (b >= 0)
            aa, bb = np.where(ok, a, 0), np.where(ok, b, 0)
            if first:
                absent = ((class1 - t[:, x, 1]) / (n - 1)) ** n
                win0 = above[aa, bb] + equal[aa, bb] - absent
            else:
                win0 = above[aa, bb] + 0.5 * equal[aa, bb]
            if loss is None:
                err = (1.0 - win0) if y == 0 else win0
            else:
                err = float(loss[y][0]) * win0 + float(loss[y][1]) * (1.0 - win0)
            q[:, 2 * x + y] = np.where(ok, err, 0.0)
    return q


def fast_bootstrap_applies(model: CellModel, classifier: Any) -> bool:
    """Whether :func:`bootstrap_fast` applies (one attribute, two classes, ``alpha = 0``)."""
    return (model.d == 1 and model.n_classes == 2 and classifier.alpha_exact == 0
            and classifier.ties in ("random", "first"))


def _trinomial_grid(n: int, p0: float, p1: float) -> np.ndarray:
    """``P[(F0, F1) = (i, j)]`` for ``(F0, F1, rest) ~ Multinomial(n; p0, p1, .)``: ``(n + 1, n + 1)``."""
    from scipy.stats import binom

    i = np.arange(n + 1)
    out = binom.pmf(i[:, None], n, p0) * binom.pmf(i[None, :], (n - i)[:, None], p1 / (1.0 - p0) if p0 < 1 else 0.0)
    return np.where(i[:, None] + i[None, :] <= n, out, 0.0)


def _dot(a: np.ndarray, b: np.ndarray, exact: bool) -> Any:
    if exact:
        return sum((x * y for x, y in zip(a.tolist(), b.tolist())), Fraction(0))
    return float(np.dot(a, b))


def _dot_rows(m: np.ndarray, w: np.ndarray) -> np.ndarray:
    out = np.empty(m.shape[0], dtype=object)
    wl = w.tolist()
    for i, row in enumerate(m.tolist()):
        out[i] = sum((a * b for a, b in zip(row, wl)), Fraction(0))
    return out


@lru_cache(maxsize=8)
def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])


@lru_cache(maxsize=4)
def _trinomial_order(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``P[U > V]`` and ``P[U = V]`` for ``(U, V, rest) ~ Multinomial(n; a/(n-1), b/(n-1), .)``,
    indexed ``[a, b]`` for ``a + b <= n - 1``: given ``S = U + V ~ Binomial(n, (a + b)/(n - 1))``,
    ``U ~ Binomial(S, a / (a + b))``.

    Every pair ``(a, b)`` at once, walking ``s = 0..n``: ``c_s = P[Binomial(s, t) <= floor(s/2)]``
    and ``q_s = P[Binomial(s, t) = ceil(s/2)]`` (``t = a / (a + b)``) follow from one point more,
    ``c_{2j+1} = c_{2j} - t q_{2j}``, ``c_{2j+2} = c_{2j+1} + (1 - t) q_{2j+1}``,
    ``q_{2j+1} = q_{2j} t (2j+1)/(j+1)``, ``q_{2j+2} = 2 q_{2j+1} (1 - t)``; the law of ``S`` is
    scipy's binomial pmf on the ``n`` values of ``a + b``. ``O(n^3)`` multiply-adds, ``O(n^2)``
    memory; within 4e-15 of exact rationals at ``n = 300``."""
    from scipy.stats import binom

    m1 = n - 1
    a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = (a + b) <= m1
    a, b = a[keep], b[keep]
    m = a + b
    t = np.where(m > 0, a / np.maximum(m, 1), 0.5)
    u = np.where(m > 0, b / np.maximum(m, 1), 0.5)  # 1 - t, exactly
    # P[S = s] per value of a + b, one row per s
    law = np.ascontiguousarray(binom.pmf(np.arange(n + 1)[:, None], n, (np.arange(n) / max(m1, 1))[None, :]))
    c = np.ones(len(m))
    q = np.ones(len(m))
    above = np.zeros(len(m))
    equal = law[0][m]  # s = 0: U = V = 0
    for s in range(n):
        j = s // 2
        if s % 2 == 0:
            c -= t * q
            q *= t * ((2 * j + 1) / (j + 1))
        else:
            c += u * q
            q *= 2.0 * u
        w = law[s + 1][m]
        above += w * (1.0 - c)
        if s % 2:  # s + 1 even: q is P[U = V | S = s + 1]
            equal += w * q
    out_above = np.zeros((n, n))
    out_equal = np.zeros((n, n))
    out_above[a, b] = above
    out_equal[a, b] = equal
    return out_above, out_equal


def trinomial_order_work(n: int) -> int:
    """Multiply-adds of the walk of :func:`bootstrap_fast` at ``n`` points (``n (n + 1)^2 / 2``, a
    few vectorised operations each)."""
    return n * (n + 1) ** 2 // 2
