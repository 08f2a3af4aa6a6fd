"""``P[U > V]`` and ``P[U = V]`` of a trinomial ``(U, V, rest) ~ Multinomial(n; a/(n-1), b/(n-1), .)``
for every ``(a, b)`` (the ideal bootstrap's vote at one input, one attribute): the walk over the
number of draws ``s`` against exact rationals and against scipy's binomial survival function."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy.stats import binom

from momentbound.exact import tables


def _exact(n: int, a: int, b: int) -> tuple[Fraction, Fraction]:
    m1 = n - 1
    p, q = Fraction(a, m1), Fraction(b, m1)
    above = equal = Fraction(0)
    for u in range(n + 1):
        for v in range(n + 1 - u):
            w = comb(n, u) * comb(n - u, v) * p**u * q**v * (1 - p - q) ** (n - u - v)
            if u > v:
                above += w
            elif u == v:
                equal += w
    return above, equal


@pytest.mark.parametrize("n", [2, 3, 12])
def test_every_pair_equals_exact_rationals(n) -> None:
    tables._trinomial_order.cache_clear()
    above, equal = tables._trinomial_order(n)
    for a in range(n):
        for b in range(n - a):
            ea, ee = _exact(n, a, b)
            assert abs(above[a, b] - float(ea)) < 1e-15
            assert abs(equal[a, b] - float(ee)) < 1e-15


def test_large_n_equals_scipy_survival_function() -> None:
    n = 150
    tables._trinomial_order.cache_clear()
    above, equal = tables._trinomial_order(n)
    s = np.arange(n + 1)
    worst = 0.0
    for a, b in [(0, 0), (0, 149), (149, 0), (74, 75), (75, 74), (10, 40), (100, 3), (60, 60)]:
        m = a + b
        w = binom.pmf(s, n, m / (n - 1))
        t = a / m if m else 0.5
        want_above = float((w * binom.sf(s // 2, s, t)).sum())
        want_equal = float((w * np.where(s % 2 == 0, binom.pmf(s // 2, s, t), 0.0)).sum())
        worst = max(worst, abs(above[a, b] - want_above), abs(equal[a, b] - want_equal))
    assert worst < 1e-13
    assert np.all(above[np.add.outer(np.arange(n), np.arange(n)) > n - 1] == 0)  # outside a + b <= n - 1
