"""Brute-force moments of GE, hold-out, v-fold CV and LOO by enumeration (test oracle).

The N points of a dataset are iid, so a hold-out split or a v-fold partition consists of
independent datasets: fold ``i`` (size ``s_i``) has a count table ``D_i ~ Multinomial(s_i, p)``
independent of the other folds, and the classifier of fold ``i`` is trained on the table
``T_i = sum_{j != i} D_j``. Within a fold, which point is which does not matter for the
fold's error count. So every moment is an exact finite sum over the product of per-fold count
tables, with the classifier computed directly (``naive_bayes``) for every training table.

Given all tables, each test point is misclassified with probability
``e_c(T) = 1 - g_{x_c}(y_c | T)`` (``c = (x_c, y_c)`` its cell), and for the ``random`` tie
rule the coins of different predictions are independent, so the error count of fold ``i`` is a
sum of independent Bernoulli variables: conditional mean ``sum_c D_i[c] e_c(T_i)`` and
conditional variance ``sum_c D_i[c] e_c(T_i) (1 - e_c(T_i))`` (zero for the ``first`` rule);
errors of different folds are conditionally independent. Everything is exact: the sums are
accumulated in integers (probabilities over their common denominator ``Q``, so a table of ``n``
points has weight ``multinomial * prod num_c^{n_c}`` over ``Q^n``; error probabilities over
``L = lcm(1..K)``, the denominators of tie coins) and divided once at the end (Fraction).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from oracles.naive_bayes import (
    all_tables,
    cells_of,
    points_from_table,
    predict_distribution,
    table_probability,
)


@dataclass(frozen=True)
class Moments:
    """Mean and variance of an error estimate (GE or hold-out)."""

    mean: Fraction
    variance: Fraction


@dataclass(frozen=True)
class CVMoments:
    """Moments of the cross-validation error CE = (total misclassified) / N.

    Per fold ``i``: ``fold_means[i] = E[HE_i]``, ``fold_second[i] = E[HE_i^2]``;
    ``pair_second_sum = sum over ordered pairs i != j of E[HE_i HE_j]``.
    ``fold_variance`` is the mean over folds of Var(HE_i) and ``fold_covariance`` the mean
    over ordered pairs ``i != j`` of Cov(HE_i, HE_j).
    """

    mean: Fraction
    variance: Fraction
    fold_sizes: tuple[int, ...]
    fold_means: tuple[Fraction, ...]
    fold_second: tuple[Fraction, ...]
    pair_second_sum: Fraction

    @property
    def fold_variance(self) -> Fraction:
        v = len(self.fold_sizes)
        return sum((s - m * m for s, m in zip(self.fold_second, self.fold_means)), Fraction(0)) / v

    @property
    def fold_covariance(self) -> Fraction:
        v = len(self.fold_sizes)
        total_m = sum(self.fold_means, Fraction(0))
        pair_means = total_m * total_m - sum((m * m for m in self.fold_means), Fraction(0))
        return (self.pair_second_sum - pair_means) / (v * (v - 1))


def kfold_sizes(n: int, v: int) -> tuple[int, ...]:
    """scikit-learn KFold fold sizes: the first ``n % v`` folds get one extra point."""
    return tuple(n // v + (1 if i < n % v else 0) for i in range(v))


class BruteForce:
    """Exact enumeration for one model, tie rule and smoothing ``alpha``."""

    def __init__(self, arities: Sequence[int], n_classes: int, cells: Sequence, ties: str, alpha=0):
        self.arities = tuple(arities)
        self.n_classes = n_classes
        self.p = tuple(Fraction(c) for c in cells)
        self.cell_list = cells_of(self.arities, n_classes)
        if len(self.p) != len(self.cell_list) or sum(self.p) != 1:
            raise ValueError("cells must be exact probabilities in CellModel order summing to 1")
        self.ties = ties
        self.alpha = Fraction(alpha)
        self._errors: dict[tuple[int, ...], tuple[Fraction, ...]] = {}
        self._int_err: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._tables: dict[int, list[tuple[tuple[int, ...], Fraction]]] = {}
        self._ge: dict[tuple[int, ...], Fraction] = {}
        self._int_tables: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        self.q = math.lcm(*(pc.denominator for pc in self.p))
        self.lcm_k = math.lcm(*range(1, n_classes + 1))
        # P[X = x, Y != y] for every input x and class y
        self._p_not = {
            x: [
                sum((pc for (xc, yc), pc in zip(self.cell_list, self.p) if xc == x and yc != y),
                    Fraction(0))
                for y in range(n_classes)
            ]
            for x in sorted({x for x, _ in self.cell_list})
        }

    @classmethod
    def from_model(cls, model, ties: str, alpha=0) -> "BruteForce":
        """From a momentbound ``CellModel`` (only its public data attributes are read)."""
        return cls(model.arities, model.n_classes, model.cells, ties, alpha)

    # -------------------------------------------------------------- building blocks
    def tables(self, n: int) -> list[tuple[tuple[int, ...], Fraction]]:
        """All count tables of size ``n`` with their multinomial probabilities."""
        if n not in self._tables:
            self._tables[n] = [
                (t, table_probability(t, self.p)) for t in all_tables(n, len(self.p))
            ]
            assert sum(pr for _, pr in self._tables[n]) == 1
        return self._tables[n]

    def int_tables(self, n: int) -> list[tuple[tuple[int, ...], int]]:
        """The tables of size ``n`` with integer weights ``Q^n * P(table)``."""
        if n not in self._int_tables:
            scale = self.q**n
            out = []
            for t, pr in self.tables(n):
                w = pr * scale
                assert w.denominator == 1
                out.append((t, int(w)))
            assert sum(w for _, w in out) == scale
            self._int_tables[n] = out
        return self._int_tables[n]

    def int_errors(self, table: Sequence[int]) -> tuple[int, ...]:
        """``L * e_c(T)`` as integers (``L = lcm(1..K)`` clears every tie denominator; cached per table)."""
        key = tuple(table)
        if key not in self._int_err:
            out = []
            for e in self.errors(key):
                scaled = e * self.lcm_k
                assert scaled.denominator == 1
                out.append(int(scaled))
            self._int_err[key] = tuple(out)
        return self._int_err[key]

    def g(self, table: Sequence[int], x: Sequence[int]) -> tuple[Fraction, ...]:
        """``g_x(. | table)`` from the explicit list of training points."""
        points = points_from_table(table, self.arities, self.n_classes)
        return predict_distribution(points, self.arities, self.n_classes, x, self.ties, self.alpha)

    def errors(self, table: Sequence[int]) -> tuple[Fraction, ...]:
        """``e_c(T) = 1 - g_{x_c}(y_c | T)`` for every cell ``c`` (cached per training table)."""
        key = tuple(table)
        if key not in self._errors:
            by_x = {}
            out = []
            for x, y in self.cell_list:
                if x not in by_x:
                    by_x[x] = self.g(key, x)
                out.append(1 - by_x[x][y])
            self._errors[key] = tuple(out)
        return self._errors[key]

    def ge(self, table: Sequence[int]) -> Fraction:
        """GE(T) = sum_x sum_y g_x(y|T) P[X=x, Y != y] (literally; cached per table)."""
        key = tuple(table)
        if key not in self._ge:
            self._ge[key] = self._ge_uncached(key)
        return self._ge[key]

    def _ge_uncached(self, table: tuple[int, ...]) -> Fraction:
        total = Fraction(0)
        for x, p_not in self._p_not.items():
            gx = self.g(table, x)
            for y in range(self.n_classes):
                total += gx[y] * p_not[y]
        return total

    # -------------------------------------------------------------- prediction probabilities
    def single(self, n: int, x: Sequence[int]) -> list[Fraction]:
        """E[g_x(y | T)] for every class y, T ~ Multinomial(n, p)."""
        out = [Fraction(0)] * self.n_classes
        for t, pr in self.tables(n):
            g = self.g(t, x)
            out = [o + pr * gy for o, gy in zip(out, g)]
        return out

    def pair(self, n: int, x: Sequence[int], x2: Sequence[int]) -> list[list[Fraction]]:
        """E[g_x(y | T) g_x2(y' | T)] (same training set, independent coins)."""
        k = self.n_classes
        out = [[Fraction(0)] * k for _ in range(k)]
        for t, pr in self.tables(n):
            g, g2 = self.g(t, x), self.g(t, x2)
            for a in range(k):
                for b in range(k):
                    out[a][b] += pr * g[a] * g2[b]
        return out

    def cross(self, n_common: int, n_a: int, n_b: int, point_a, point_b) -> list[list[Fraction]]:
        """E[g_{x_a}(a | C + B' + {point_b}) g_{x_b}(b | C + A' + {point_a})] (the contract's
        CV covariance term), enumerating the independent tables C, A', B'.

        For each table of C the summand ``pa pb g(C + B') g2(C + A')`` is a factor of A' times a
        factor of B', so its sum over (A', B') is the product of the two single sums (the same
        triple sum, every table enumerated)."""
        k = self.n_classes
        ia = self.cell_list.index((tuple(point_a[0]), point_a[1]))
        ib = self.cell_list.index((tuple(point_b[0]), point_b[1]))
        out = [[Fraction(0)] * k for _ in range(k)]
        for c, pc in self.tables(n_common):
            e2 = [Fraction(0)] * k  # sum over A' of pa g_{x_b}(. | C + A' + {point_a})
            for ta, pa in self.tables(n_a):
                train_b = [cc + aa + (i == ia) for i, (cc, aa) in enumerate(zip(c, ta))]
                g2 = self.g(train_b, point_b[0])
                for b in range(k):
                    e2[b] += pa * g2[b]
            e1 = [Fraction(0)] * k  # sum over B' of pb g_{x_a}(. | C + B' + {point_b})
            for tb, pb in self.tables(n_b):
                train_a = [cc + bb + (i == ib) for i, (cc, bb) in enumerate(zip(c, tb))]
                g = self.g(train_a, point_a[0])
                for a in range(k):
                    e1[a] += pb * g[a]
            for a in range(k):
                for b in range(k):
                    out[a][b] += pc * e1[a] * e2[b]
        return out

    # -------------------------------------------------------------- estimators
    def ge_moments(self, n: int) -> Moments:
        m1 = m2 = Fraction(0)
        for t, pr in self.tables(n):
            value = self.ge(t)
            m1 += pr * value
            m2 += pr * value * value
        return Moments(m1, m2 - m1 * m1)

    def holdout_moments(self, n_train: int, n_test: int) -> Moments:
        """HE = (misclassified test points) / n_test, classifier trained on n_train points."""
        lk = self.lcm_k
        s1 = s2 = 0  # integer sums of weight * L * errors and weight * L^2 * errors^2
        for t, wt in self.int_tables(n_train):
            e = self.int_errors(t)
            for te, ws in self.int_tables(n_test):
                mean_err = sum(sc * ec for sc, ec in zip(te, e))  # L * E[errors | T, S]
                var_err = sum(sc * ec * (lk - ec) for sc, ec in zip(te, e))  # L^2 * Var
                w = wt * ws
                s1 += w * mean_err
                s2 += w * (var_err + mean_err * mean_err)
        total = self.q ** (n_train + n_test)
        m1 = Fraction(s1, total * lk * n_test)
        m2 = Fraction(s2, total * lk * lk * n_test * n_test)
        return Moments(m1, m2 - m1 * m1)

    def cv_moments(self, fold_sizes: Sequence[int], *, symmetric: bool = True) -> CVMoments:
        """Enumerate the per-fold count tables; CE = total misclassified / N.

        With ``symmetric=False`` this is the plain product over all folds' tables. With
        ``symmetric=True`` (default, much faster for many folds) folds of equal size are
        exchangeable, so only multisets of their tables are enumerated, each weighted by its
        number of orderings; per-fold sums are then averaged within each group of equal-size
        folds (they are equal by exchangeability). Both give the same exact numbers
        (checked in test_oracles.py).
        """
        sizes = tuple(fold_sizes)
        v = len(sizes)
        n = sum(sizes)
        lk = self.lcm_k
        big = math.lcm(*sizes)  # HE_i * L * big = mean_err_i * (big / s_i), an integer
        groups: dict[int, list[int]] = {}
        for i, s in enumerate(sizes):
            groups.setdefault(s, []).append(i)
        order = [i for s in groups for i in groups[s]]  # fold index of each leaf position
        group_leaves = []
        for s, members in groups.items():
            tabs = self.int_tables(s)
            leaves = []
            if symmetric:
                for idx in itertools.combinations_with_replacement(range(len(tabs)), len(members)):
                    w = math.factorial(len(members))
                    for k in set(idx):
                        w //= math.factorial(idx.count(k))
                    for k in idx:
                        w *= tabs[k][1]
                    leaves.append(([tabs[k][0] for k in idx], w))
            else:
                for combo in itertools.product(range(len(tabs)), repeat=len(members)):
                    w = 1
                    for k in combo:
                        w *= tabs[k][1]
                    leaves.append(([tabs[k][0] for k in combo], w))
            group_leaves.append(leaves)
        fold_m1 = [0] * v  # sum of w * L * s_i * HE_i
        fold_m2 = [0] * v  # sum of w * L^2 * s_i^2 * HE_i^2 (conditional second moment)
        pair_sum = ce1 = ce2 = 0
        for parts in itertools.product(*group_leaves):
            w = 1
            tabs_in_order: list[tuple[int, ...]] = []
            for tabs, pw in parts:
                w *= pw
                tabs_in_order.extend(tabs)
            tabs = [None] * v
            for pos, i in enumerate(order):
                tabs[i] = tabs_in_order[pos]
            total = [sum(col) for col in zip(*tabs)]
            mean_err = []  # L * conditional mean of fold i's error count
            var_err = []  # L^2 * conditional variance (independent coins of the random rule)
            for i in range(v):
                train = tuple(tc - dc for tc, dc in zip(total, tabs[i]))
                e = self.int_errors(train)
                mean_err.append(sum(dc * ec for dc, ec in zip(tabs[i], e)))
                var_err.append(sum(dc * ec * (lk - ec) for dc, ec in zip(tabs[i], e)))
            for i in range(v):
                fold_m1[i] += w * mean_err[i]
                fold_m2[i] += w * (var_err[i] + mean_err[i] * mean_err[i])
            # folds are conditionally independent given the tables: E[HE_i HE_j | .] = he_i he_j
            h = [mean_err[i] * (big // sizes[i]) for i in range(v)]
            sum_h = sum(h)
            pair_sum += w * (sum_h * sum_h - sum(x * x for x in h))
            tot_mean = sum(mean_err)
            ce1 += w * tot_mean
            ce2 += w * (sum(var_err) + tot_mean * tot_mean)
        if symmetric:
            for members in groups.values():
                avg1 = Fraction(sum(fold_m1[i] for i in members), len(members))
                avg2 = Fraction(sum(fold_m2[i] for i in members), len(members))
                for i in members:
                    fold_m1[i], fold_m2[i] = avg1, avg2
        qn = self.q**n
        m1 = Fraction(ce1, qn * lk * n)
        return CVMoments(
            mean=m1,
            variance=Fraction(ce2, qn * lk * lk * n * n) - m1 * m1,
            fold_sizes=sizes,
            fold_means=tuple(Fraction(fold_m1[i]) / (qn * lk * sizes[i]) for i in range(v)),
            fold_second=tuple(
                Fraction(fold_m2[i]) / (qn * lk * lk * sizes[i] * sizes[i]) for i in range(v)
            ),
            pair_second_sum=Fraction(pair_sum, qn * lk * lk * big * big),
        )

    def paper_pair_second(self, n_common: int, s_i: int, s_j: int) -> Fraction:
        """The printed Lemma 2's pair term E[GE(zeta_i) GE(zeta_j)] (docs/mathematics.md, section 'Cross-validation').

        zeta_i is trained on C + D_j and zeta_j on C + D_i (C the n_common points shared by both
        training sets); only the classifiers' generalization errors enter, not the fact that
        D_i is zeta_i's test set. Enumerated over the independent tables C, D_i, D_j.
        """
        total = Fraction(0)
        for c, pc in self.tables(n_common):
            for di, pi in self.tables(s_i):
                for dj, pj in self.tables(s_j):
                    t_i = tuple(a + b for a, b in zip(c, dj))
                    t_j = tuple(a + b for a, b in zip(c, di))
                    total += pc * pi * pj * self.ge(t_i) * self.ge(t_j)
        return total

    def kfold_moments(self, n: int, v: int) -> CVMoments:
        return self.cv_moments(kfold_sizes(n, v))

    def loo_moments(self, n: int) -> CVMoments:
        return self.cv_moments((1,) * n)
