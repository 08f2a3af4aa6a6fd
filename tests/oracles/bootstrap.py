"""Brute-force moments of resubstitution, the ideal leave-one-out bootstrap, .632 and of every
estimator's product with GE_N, by enumeration in exact arithmetic (test oracle).

* The full dataset's count table ``T`` runs over every table of ``N`` points (multinomial weights);
  resubstitution's conditional mean and coin variance given ``T`` are read off the classifier
  trained on ``T`` (``BruteForce.errors``).
* Ideal ``Err(1)``: for every point ``i`` (a cell ``c`` with ``T[c] > 0``) the other ``N - 1`` points
  are listed explicitly and every bootstrap sample of ``N`` draws from them is enumerated as its
  multiplicity vector over those points (weight ``N! / prod m_j! / (N - 1)^N``); the sample's
  count table trains the classifier. Nothing of the reduction to ``Multinomial(N, C_{-i}/(N-1))`` is
  used.
* Splitters: the folds are independent count tables (iid points); every product of fold tables is
  enumerated, the fold classifiers and the full-data classifier (trained on the sum of the tables)
  are computed directly.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from oracles.estimators import BruteForce
from oracles.naive_bayes import all_tables


class BootstrapBruteForce:
    def __init__(self, bf: BruteForce) -> None:
        self.bf = bf
        self._err1: dict[tuple[int, ...], Fraction] = {}
        self._draws: dict[int, list[tuple[tuple[int, ...], int]]] = {}

    def draws(self, n: int) -> list[tuple[tuple[int, ...], int]]:
        """Every multiplicity vector of ``n`` draws over ``n - 1`` listed points with its count of
        orderings ``n! / prod m_j!`` (listed once per ``n``)."""
        if n not in self._draws:
            self._draws[n] = [(mult, math.factorial(n) // math.prod(math.factorial(m) for m in mult))
                              for mult in all_tables(n, n - 1)]
        return self._draws[n]

    def resub(self, table: tuple[int, ...]) -> tuple[Fraction, Fraction]:
        n = sum(table)
        e = self.bf.errors(table)
        mean = sum((t * ec for t, ec in zip(table, e)), Fraction(0)) / n
        coin = Fraction(0)
        if self.bf.ties == "random":
            coin = sum((t * ec * (1 - ec) for t, ec in zip(table, e)), Fraction(0)) / (n * n)
        return mean, coin

    def err1(self, table: tuple[int, ...]) -> Fraction:
        if table in self._err1:
            return self._err1[table]
        n = sum(table)
        cells = len(table)
        total = Fraction(0)
        for c in range(cells):
            if table[c] == 0:
                continue
            others = []  # cell of each of the other n - 1 points
            for cc in range(cells):
                others += [cc] * (table[cc] - (cc == c))
            loss = 0  # in units of 1 / lcm(1..K): integer sums
            for mult, coef in self.draws(n):
                sample = [0] * cells
                for m, cc in zip(mult, others):
                    sample[cc] += m
                loss += coef * self.bf.int_errors(tuple(sample))[c]
            total += table[c] * Fraction(loss, self.bf.lcm_k) / (n - 1) ** n
        self._err1[table] = total / n
        return self._err1[table]

    def over_tables(self, n: int, f) -> Fraction:
        return sum((pr * f(t) for t, pr in self.bf.tables(n)), Fraction(0))

    def moments(self, n: int, kind: str) -> dict[str, Fraction]:
        """E[est], E[est^2], E[est GE_N] for ``resub``, ``err1`` or ``632``."""
        a = Fraction(632, 1000)

        def value(t):
            r, v = self.resub(t)
            if kind == "resub":
                return r, v
            if kind == "err1":
                return self.err1(t), Fraction(0)
            return (1 - a) * r + a * self.err1(t), (1 - a) ** 2 * v

        m1 = m2 = joint = Fraction(0)
        for t, pr in self.bf.tables(n):
            val, coin = value(t)
            m1 += pr * val
            m2 += pr * (val * val + coin)
            joint += pr * val * self.bf.ge(t)
        return {"mean": m1, "second": m2, "joint": joint}

    def split_joint(self, sizes: tuple[int, ...], tested: int) -> Fraction:
        """E[est GE_N] for folds of the given sizes, the first ``tested`` of them tested
        (hold-out: ``(Ns, Nt)``, tested 1; cross-validation: every fold tested)."""
        bf = self.bf
        n_test = sum(sizes[:tested])
        total = Fraction(0)
        for combo in itertools.product(*(bf.tables(s) for s in sizes)):
            tabs = [t for t, _ in combo]
            w = Fraction(1)
            for _, pr in combo:
                w *= pr
            full = tuple(sum(col) for col in zip(*tabs))
            errors = 0  # in units of 1 / lcm(1..K): an integer sum
            for i in range(tested):
                train = tuple(f - d for f, d in zip(full, tabs[i]))
                e = bf.int_errors(train)
                errors += sum(d * ec for d, ec in zip(tabs[i], e))
            total += w * Fraction(errors, bf.lcm_k * n_test) * bf.ge(full)
        return total
