"""Tests of the Gram-Charlier / Edgeworth approximations (bounds/series.py).

Witnesses: the normal law (series = Phi exactly), textbook coefficient formulas
(b3 = kappa3/6, b4 = kappa4/24, Edgeworth b6 = kappa3^2/72), the exact binomial cdf
(the Edgeworth expansion with continuity correction is accurate to ~1e-3 there), and a
two-point law whose series density is badly negative.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.stats import binom, norm

from momentbound.bounds import Event, Kind, MomentProblem, Status, Support, bound
from momentbound.bounds.series import SeriesWarning, series_approximation
from momentbound.errors import InvalidArgument


def binomial_moments(n: int, p: F, order: int) -> tuple[F, ...]:
    pmf = [(k, F(math.comb(n, k)) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]
    return tuple(sum((q * F(x) ** j for x, q in pmf), F(0)) for j in range(order + 1))


@pytest.mark.parametrize("expansion", ["edgeworth", "gram-charlier"])
def test_normal_moments_reproduce_phi(expansion: str) -> None:
    mom = (1, 2, 5, 14, 43)  # N(2, 1): E X^k = 1, 2, 5, 14, 43
    a = series_approximation(mom, expansion)
    xs = np.linspace(-2, 6, 17)
    assert np.allclose(a.cdf(xs), norm.cdf(xs, loc=2), atol=1e-12)
    assert np.allclose(a.pdf(xs), norm.pdf(xs, loc=2), atol=1e-12)
    assert not a.negative_density


def test_coefficients_match_textbook_formulas() -> None:
    mom = binomial_moments(20, F(1, 5), 6)
    gc = series_approximation(mom, "gram-charlier", warn=False)
    ew = series_approximation(mom, "edgeworth", warn=False)
    n, p = 20, 0.2
    sd = math.sqrt(n * p * (1 - p))
    k3 = n * p * (1 - p) * (1 - 2 * p) / sd**3
    k4 = n * p * (1 - p) * (1 - 6 * p * (1 - p)) / sd**4
    assert gc.b[3] == pytest.approx(k3 / 6, rel=1e-10)
    assert gc.b[4] == pytest.approx(k4 / 24, rel=1e-10)
    assert ew.b[3] == pytest.approx(k3 / 6, rel=1e-10)
    # b6 = kappa6/720 + kappa3^2/72 (the eps^4 term adds kappa6 and pieces of other orders)
    assert ew.b[4] == pytest.approx(k4 / 24, rel=1e-10)
    assert len(ew.b) > len(gc.b)  # Edgeworth carries the products kappa3^2, kappa3 kappa4, ...


def test_edgeworth_second_order_b6() -> None:
    """With 4 moments the Edgeworth series is exactly kappa3/6 He3 + kappa4/24 He4 + kappa3^2/72 He6."""
    mom = binomial_moments(15, F(1, 3), 4)
    ew = series_approximation(mom, "edgeworth", warn=False)
    n, p = 15, 1 / 3
    sd = math.sqrt(n * p * (1 - p))
    k3 = n * p * (1 - p) * (1 - 2 * p) / sd**3
    assert len(ew.b) == 7
    assert ew.b[6] == pytest.approx(k3**2 / 72, rel=1e-10)
    assert ew.b[5] == 0.0


@pytest.mark.parametrize("t", [8, 12, 16])
def test_binomial_cdf_accuracy(t: int) -> None:
    mom = binomial_moments(40, F(3, 10), 6)
    r = bound(MomentProblem(mom, Support.grid(0, 40), Event.le(t)), method="series")
    assert r.kind is Kind.APPROXIMATION and r.status is Status.APPROXIMATE and not r.certified
    assert r.lower == r.upper
    assert r.lower == pytest.approx(binom.cdf(t, 40, 0.3), abs=3e-3)
    # the complement adds up to one
    r2 = bound(MomentProblem(mom, Support.grid(0, 40), Event.gt(t)), method="series")
    assert r.lower + r2.lower == pytest.approx(1.0, abs=1e-12)


def test_negative_density_warns_and_cdf_is_clipped_monotone() -> None:
    # a Bernoulli(1/10) law is very skewed: the series density dips below zero on [0, 1]
    pmf = [(F(0), F(9, 10)), (F(1), F(1, 10))]
    mom = tuple(sum((p * x**k for x, p in pmf), F(0)) for k in range(7))
    with pytest.warns(SeriesWarning, match="density is negative"):
        a = series_approximation(mom, "gram-charlier", lo=0.0, hi=1.0)
    assert a.negative_density and a.min_density < 0
    xs = np.linspace(-1, 2, 401)
    vals = a.cdf(xs)
    assert np.all((vals >= 0) & (vals <= 1))
    assert np.all(np.diff(vals) >= 0)
    assert np.all(vals[xs < 0] == 0) and np.all(vals[xs >= 1] == 1)
    free = series_approximation(mom, "gram-charlier", warn=False)
    raw = free.raw_cdf(np.linspace(-5, 5, 2001))
    assert raw.min() < 0 or raw.max() > 1 or np.any(np.diff(raw) < 0)  # the raw series misbehaves
    with pytest.warns(SeriesWarning):
        r = bound(MomentProblem(mom, Support.finite([0, 1]), Event.gt(0)), method="series", expansion="gram-charlier")
    assert "negative density" in r.message
    assert 0.0 <= r.lower <= 1.0


def test_continuity_correction_option() -> None:
    mom = binomial_moments(10, F(1, 2), 4)
    with_cc = bound(MomentProblem(mom, Support.grid(0, 10), Event.le(5)), method="series")
    without = bound(MomentProblem(mom, Support.grid(0, 10), Event.le(5)), method="series", continuity=False)
    assert with_cc.lower == pytest.approx(binom.cdf(5, 10, 0.5), abs=5e-3)
    assert without.lower == pytest.approx(0.5, abs=1e-12)  # symmetric law, no correction: F(mean)


def test_between_and_outside_events() -> None:
    mom = (1, 0, 1, 0, 3)
    r = bound(MomentProblem(mom, Support.real(), Event.between(-1, 1)), method="series")
    assert r.lower == pytest.approx(norm.cdf(1) - norm.cdf(-1), abs=1e-12)
    r2 = bound(MomentProblem(mom, Support.real(), Event.outside(-1, 1)), method="series")
    assert r2.lower == pytest.approx(1 - r.lower, abs=1e-12)


def test_point_mass_and_errors() -> None:
    r = bound(MomentProblem((1, 2, 4, 8), Support.grid(0, 5), Event.ge(2)), method="series")
    assert r.lower == r.upper == 1.0
    with pytest.raises(InvalidArgument, match="expansion must be one of"):
        bound(MomentProblem((1, 0, 1), Support.real(), Event.gt(0)), method="series", expansion="laplace")
    with pytest.raises(InvalidArgument, match="continuity must be True or False"):
        bound(MomentProblem((1, 0, 1), Support.real(), Event.gt(0)), method="series", continuity="yes")
    with pytest.raises(InvalidArgument, match="needs moments up to order 2"):
        bound(MomentProblem((1, 0), Support.real(), Event.gt(0)), method="series")
    with pytest.raises(InvalidArgument, match="positive variance"):
        series_approximation((1, 1, 1))
    with pytest.raises(InvalidArgument, match="moments up to order 2"):
        series_approximation((1, 0))


def test_no_warning_when_density_positive() -> None:
    # Laplace-free check: the moments of N(0, 1) truncated nowhere give the normal density itself;
    # a mildly leptokurtic law (kappa4 > 0, no skew) also keeps a positive Edgeworth density
    mom = (1, 0, 1, 0, F(33, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = series_approximation(mom, "edgeworth")
    assert not a.negative_density
    xs = np.linspace(-12, 12, 2001)
    assert np.all(a.pdf(xs) >= 0)


def test_tail_negativity_is_reported() -> None:
    # a platykurtic law (binomial(40, 1/2), kappa4 < 0): the density is negative far in the tails
    mom = binomial_moments(40, F(1, 2), 4)
    with pytest.warns(SeriesWarning):
        a = series_approximation(mom, "edgeworth", lo=0.0, hi=40.0)
    assert -1e-6 < a.min_density < 0
