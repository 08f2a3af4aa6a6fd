"""Mean 0, variance 1, unimodal, mode unknown, ``P(X >= 1.14844)``: the unknown-mode bound
``(3 - t^2) / (3 (1 + t^2)) = 0.241648`` is attained, so it is the maximum over the modes, and the
value at the mode 1 (0.171912) is not.

Witnesses: explicit unimodal laws in Khinchine's form (uniforms on intervals with one end at the
mode, plus an atom at the mode), their mean, variance and probability computed in exact rational
arithmetic (the law with the atom) or at 50 digits with mpmath, its moments also by numerical
integration of the density (the law without an atom).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from momentbound.bounds import Event, MomentProblem, Shape, Support, bound

T = F(28711, 25000)  # 1.14844
EVENT = Event.ge(T)


def _unknown_mode(method: str) -> float:
    return bound(MomentProblem((1, 0, 1), Support.real(), EVENT, shape=Shape.unimodal()), method)


def _atom_law(m: F) -> tuple[F, F, F]:
    """Atom ``p`` at the mode ``m`` and weight ``q = 1 - p`` uniform on ``[m - b, m]``: mean 0 and
    variance 1 fix ``b = 3 (1 + m^2) / (2 m)`` and ``q = 4 m^2 / (3 (1 + m^2))``."""
    b = 3 * (1 + m * m) / (2 * m)
    q = 4 * m * m / (3 * (1 + m * m))
    return 1 - q, q, b


def test_a_law_with_mode_t_attains_the_unknown_mode_bound_exactly():
    m = T
    p, q, b = _atom_law(m)
    assert p > 0 and q > 0 and b > 0 and p + q == 1
    # a uniform on [m - b, m] (density q / b, nondecreasing up to m) and an atom at m: unimodal about m
    mean = p * m + q * (m - b / 2)
    second = p * m * m + q * (m * m - m * b + b * b / 3)
    assert (mean, second) == (0, 1)
    prob = p + q * max(F(0), m - T) / b  # P(X >= T): the atom, and the part of [m - b, m] right of T
    assert prob == (3 - T * T) / (3 * (1 + T * T)) == F(1050678479, 4347964563)
    assert prob > F(203812, 10**6)
    closed = _unknown_mode("shape-closed-form")
    assert closed.exact_upper == prob  # the theorem's bound is reached: sharp
    assert prob <= closed.upper < prob + 1e-12


def test_an_atomless_law_with_mode_near_1_15_beats_the_mode_1_value():
    """Mode 23/20, a uniform on [m - b, m] (weight q) and on [m, m + 1/1000] (weight 1 - q), mean 0 and
    variance 1 solved at 50 digits; P(X >= 1.14844) = 0.24099..., above 0.203812 and within 1e-3 of
    the toolkit's unknown-mode bound, which is not below it; the toolkit's own bound at the mode 1
    is below this law's probability."""
    with mpmath.workdps(50):
        _atomless_law_check()


def _atomless_law_check():
    m, c, t = mpmath.mpf(23) / 20, mpmath.mpf(1) / 1000, mpmath.mpf(28711) / 25000

    def equations(q, b):
        mean = q * (m - b / 2) + (1 - q) * (m + c / 2)
        second = q * (m * m - m * b + b * b / 3) + (1 - q) * (m * m + m * c + c * c / 3)
        return [mean, second - 1]

    q, b = mpmath.findroot(equations, (mpmath.mpf("0.76"), mpmath.mpf("3")))
    assert 0 < q < 1 and b > m - t > 0  # a density: q / b on [m - b, m), (1 - q) / c on [m, m + c]
    assert q / b < (1 - q) / c  # nondecreasing up to the mode and zero after m + c: unimodal about m
    assert max(abs(e) for e in equations(q, b)) < mpmath.mpf(10) ** -40

    def density(x):
        return q / b if m - b <= x < m else ((1 - q) / c if m <= x <= m + c else 0)

    for k, target in ((0, 1), (1, 0), (2, 1)):  # the moments again, by integrating the density
        value = mpmath.quad(lambda x: x**k * density(x), [m - b, m, m + c])
        assert abs(value - target) < mpmath.mpf(10) ** -30
    prob = float((1 - q) + q * (m - t) / b)
    assert 0.2409 < prob
    toolkit = {name: _unknown_mode(name).upper for name in ("shape-closed-form", "sos")}
    assert all(prob <= v <= prob + 1e-3 for v in toolkit.values()), (prob, toolkit)
    at_mode_1 = bound(MomentProblem((1, 0, 1), Support.real(), EVENT, shape=Shape.unimodal(1)), "sos").upper
    assert at_mode_1 == pytest.approx(0.171912, abs=1e-5) and at_mode_1 < prob
