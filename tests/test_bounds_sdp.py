"""Tests of the Bertsimas-Popescu SDP bounds (bounds/sdp.py).

Witnesses: closed forms (docs/mathematics.md, section 'Closed-form bounds'), exact sums of random pmfs on small
grids, the exact binomial cdf, and an independent exact law of the 2x2x2 naive Bayes
statistic (written here from its structure, checked against brute-force enumeration).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound.bounds import Event, MomentProblem, Status, Support, bound
from momentbound.bounds import sdp as sdp_mod
from momentbound.bounds.sdp import UnitPiece, sos_dual, unit_pieces
from momentbound.errors import InvalidArgument, SolverFailed


def moments_of(pmf: list[tuple[F, F]], order: int) -> tuple[F, ...]:
    return tuple(sum((p * x**k for x, p in pmf), F(0)) for k in range(order + 1))


def prob(pmf: list[tuple[F, F]], event: Event) -> F:
    return sum((p for x, p in pmf if event.indicator(x)), F(0))


def binomial_pmf(n: int, p: F) -> list[tuple[F, F]]:
    return [(F(k), F(math.comb(n, k)) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]


def z_law_equal_cells(N: int) -> dict[int, float]:
    """Exact law of Z_(0,0) for the 2x2x2 equal-cells model (floats), from its structure.

    Class counts (n0, n1) are binomial(N, 1/2); within a class of size n the two attribute
    agreement counts are independent binomial(n, 1/2) (equal cells), so
    Z = n1 * A0 * B0 - n0 * A1 * B1 with independent binomial factors.
    """
    from scipy.stats import binom

    law: dict[int, float] = {}
    for n0 in range(N + 1):
        n1 = N - n0
        w = binom.pmf(n0, N, 0.5)
        a0 = np.arange(n0 + 1)
        a1 = np.arange(n1 + 1)
        p0 = binom.pmf(a0, n0, 0.5)
        p1 = binom.pmf(a1, n1, 0.5)
        prod0 = np.multiply.outer(a0, a0).ravel()
        w0 = np.multiply.outer(p0, p0).ravel()
        prod1 = np.multiply.outer(a1, a1).ravel()
        w1 = np.multiply.outer(p1, p1).ravel()
        z = (n1 * prod0)[:, None] - (n0 * prod1)[None, :]
        ww = w * w0[:, None] * w1[None, :]
        vals, inv = np.unique(z.ravel(), return_inverse=True)
        acc = np.bincount(inv, weights=ww.ravel())
        for v, p in zip(vals.tolist(), acc.tolist()):
            law[v] = law.get(v, 0.0) + p
    return law


def z_summary_equal_cells(N: int) -> tuple[float, float, float]:
    """``(P[Z > 0], P[Z = 0], E[Z^2])`` for Z_(0,0) of the 2x2x2 equal-cells model, in
    O(N^3 log N) from the same structure: given the class counts, A = A0 B0 and
    B = A1 B1 are independent, each a product of two independent binomial(n, 1/2)."""
    from scipy.stats import binom

    pos = zero = m2 = 0.0
    for n0 in range(N + 1):
        n1 = N - n0
        w = binom.pmf(n0, N, 0.5)
        laws = []
        for n in (n0, n1):
            a = np.arange(n + 1)
            pa = binom.pmf(a, n, 0.5)
            vals = np.multiply.outer(a, a).ravel()
            laws.append(np.bincount(vals, weights=np.multiply.outer(pa, pa).ravel()))
        la, lb = laws  # law of A (class 0 product) and of B (class 1 product)
        va, vb = np.arange(len(la)), np.arange(len(lb))
        ea, eb = la @ va, lb @ vb
        m2 += w * (n1**2 * (la @ va**2) - 2 * n0 * n1 * ea * eb + n0**2 * (lb @ vb**2))
        # P[n1 * A > n0 * B] and P[n1 * A == n0 * B]: compare n0 * B with each n1 * a (exact ints)
        cum = np.concatenate([[0.0], np.cumsum(lb)])
        left = np.searchsorted(n0 * vb, n1 * va, side="left")  # #b with n0 b < n1 a
        right = np.searchsorted(n0 * vb, n1 * va, side="right")
        pos += w * float(la @ cum[left])
        zero += w * float(la @ (cum[right] - cum[left]))
    return pos, zero, m2


def test_z_summary_matches_full_law() -> None:
    law = z_law_equal_cells(6)
    pos, zero, m2 = z_summary_equal_cells(6)
    assert pos == pytest.approx(math.fsum(p for v, p in law.items() if v > 0), abs=1e-13)
    assert zero == pytest.approx(law[0], abs=1e-13)
    assert m2 == pytest.approx(math.fsum(p * v * v for v, p in law.items()), rel=1e-12)


def test_z_law_witness_matches_enumeration() -> None:
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.model.enumeration import count_tables, multinomial_pmf

    model = equal_cells_model((2, 2))
    z = naive_bayes_statistic(model, (0, 0))
    N = 5
    brute: dict[int, F] = {}
    for counts in count_tables(8, N):
        v = z.evaluate(counts)
        brute[v] = brute.get(v, F(0)) + multinomial_pmf(counts, model.cells)
    law = z_law_equal_cells(N)
    assert set(brute) == set(law)
    for v, p in brute.items():
        assert law[v] == pytest.approx(float(p), abs=1e-14)


# ----------------------------------------------------------------------------- closed forms
def test_sostools_example_one_over_37() -> None:
    """docs/mathematics.md, section 'Closed-form bounds': support [0, 5], mean 1, sd 1/2, event [4, 5]: sharp upper bound 1/37."""
    p = MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5))
    r = bound(p, method="sdp")
    assert r.certified and r.status in (Status.VALID, Status.SHIFTED)
    assert F(1, 37) <= r.exact_upper <= F(1, 37) + F(1, 10**7)
    assert r.lower == 0.0
    up = r.certificates[1]
    assert up.side == "upper" and up.verified and up.basis == "chebyshev"
    # the certificate is the known polynomial (12x - 11)^2 / 37^2 up to solver accuracy
    xs = np.linspace(0, 5, 11)
    assert np.allclose(up.evaluate(xs), (12 * xs - 11) ** 2 / 37**2, atol=1e-5)


def test_chebyshev_markov_stieltjes_normal_on_real_line() -> None:
    """Chebyshev-Markov-Stieltjes: moments (1, 0, 1, 0, 3) on R give 1/6 <= F(0-) <= F(0) <= 5/6."""
    mom = (1, 0, 1, 0, 3)
    le = bound(MomentProblem(mom, Support.real(), Event.le(0)), method="sdp")
    lt = bound(MomentProblem(mom, Support.real(), Event.lt(0)), method="sdp")
    for r in (le, lt):
        assert r.certified
        assert r.exact_lower <= F(1, 6) and r.exact_upper >= F(5, 6)
        assert r.lower == pytest.approx(1 / 6, abs=1e-7) and r.upper == pytest.approx(5 / 6, abs=1e-7)


@pytest.mark.parametrize("mu,s2", [(F(-1), F(1)), (F(-1, 2), F(2)), (F(-3), F(4))])
def test_cantelli_on_real_line(mu: F, s2: F) -> None:
    """Cantelli: mu < 0 gives sup P(X > 0) = s2 / (s2 + mu^2)."""
    r = bound(MomentProblem((1, mu, s2 + mu**2), Support.real(), Event.gt(0)), method="sdp")
    target = s2 / (s2 + mu**2)
    assert r.exact_upper >= target
    assert r.upper == pytest.approx(float(target), abs=1e-7)


def test_two_moment_interval_formula() -> None:
    """Two moments on an interval: sup P(X >= t) on [a, b] is the smallest of three closed forms."""
    a, b, mu, s2, t = F(0), F(10), F(3), F(4), F(6)
    m2 = s2 + mu**2
    target = min(s2 / (s2 + (t - mu) ** 2), (mu - a) / (t - a), 1 - (m2 - (t + b) * mu + t * b) / ((t - a) * (b - a)))
    r = bound(MomentProblem((1, mu, m2), Support.interval(a, b), Event.ge(t)), method="sdp")
    assert r.exact_upper >= target
    assert r.upper == pytest.approx(float(target), abs=1e-7)


def test_small_exact_instance_is_relaxed_on_grid() -> None:
    """docs/mathematics.md, section 'Closed-form bounds': the sharp discrete bounds are [0, 1/3] and [1/20, 4/15]; the interval
    relaxation must contain them (it is valid but weaker)."""
    r2 = bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5)), method="sdp")
    assert r2.exact_lower <= 0 and r2.exact_upper >= F(1, 3)
    assert r2.upper == pytest.approx(1 / 3, abs=1e-7)
    r3 = bound(MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5)), method="sdp")
    assert r3.exact_lower <= F(1, 20) and r3.exact_upper >= F(4, 15)
    assert r3.upper < 0.3 and r3.lower > 0.04  # still informative


# ----------------------------------------------------------------------------- random truths
@pytest.mark.parametrize("seed", range(6))
def test_random_pmfs_contain_truth(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lo, hi = -int(rng.integers(1, 6)), int(rng.integers(1, 8))
    xs = list(range(lo, hi + 1))
    w = rng.integers(0, 20, size=len(xs)) + 1
    pmf = [(F(x), F(int(wi), int(w.sum()))) for x, wi in zip(xs, w)]
    order = int(rng.integers(2, 7))
    t = int(rng.integers(lo, hi + 1))
    for event in (Event.gt(t), Event.le(t), Event.between(lo + 1, hi - 1)):
        r = bound(MomentProblem(moments_of(pmf, order), Support.grid(lo, hi), event), method="sdp")
        truth = prob(pmf, event)
        assert r.certified
        assert r.exact_lower <= truth <= r.exact_upper


def test_finite_support_relaxation_contains_truth() -> None:
    pmf = [(F(-2), F(1, 4)), (F(0), F(1, 4)), (F(1, 2), F(1, 4)), (F(3), F(1, 4))]
    p = MomentProblem(moments_of(pmf, 3), Support.finite([-2, 0, F(1, 2), 3]), Event.gt(0))
    pieces = unit_pieces(p)
    assert [q.target for q in pieces] == [0, 1]
    r = bound(p, method="sdp")
    assert r.certified and r.exact_lower <= F(1, 2) <= r.exact_upper


def test_binomial_16_moments_certified() -> None:
    """Works to 16 moments on a binomial(40, 0.3) cdf."""
    pmf = binomial_pmf(40, F(3, 10))
    event = Event.le(12)
    truth = prob(pmf, event)
    widths = []
    for order in (4, 8, 16):
        r = bound(MomentProblem(moments_of(pmf, order), Support.grid(0, 40), event), method="sdp")
        assert r.certified
        assert r.exact_lower <= truth <= r.exact_upper
        widths.append(r.width)
    assert widths[2] < widths[0]  # more moments help


def test_naive_bayes_z_12_moments_at_N100() -> None:
    """12 moments of Z_x for the 2x2x2 model at N = 100, against the exact law."""
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = equal_cells_model((2, 2))
    z = naive_bayes_statistic(model, (0, 0))
    N = 100
    mom = raw_moments(z, model, N, 12)
    lo, hi = z.support(N)
    truth, _, m2 = z_summary_equal_cells(N)
    assert m2 == pytest.approx(float(mom.values[2]), rel=1e-9)  # the witness matches the engine
    r = bound(MomentProblem(tuple(mom.values), Support.grid(lo, hi), Event.gt(0)), method="sdp")
    assert r.certified
    assert r.lower - 1e-12 <= truth <= r.upper + 1e-12
    assert r.width < 0.7


# ----------------------------------------------------------------------------- internals
def test_unit_pieces_grid_moves_boundary() -> None:
    p = MomentProblem((1, 0, 1), Support.grid(-4, 4), Event.gt(0))
    pieces = unit_pieces(p)
    assert [(q.a, q.b, q.target) for q in pieces] == [(-1.0, 0.0, 0), (0.25, 1.0, 1)]
    assert all(q.step == 0.25 for q in pieces)


def test_sos_dual_point_piece() -> None:
    """A piece of one point becomes a linear constraint; moments of a point mass at 1/2."""
    c = np.polynomial.chebyshev.chebvander(np.array([0.5]), 3)[0]
    sol = sos_dual(c, ((-1.0, 1.0, 0.0), (0.5, 0.5, 1.0)))
    assert sol.solver_status in ("Solved", "AlmostSolved")
    assert sol.objective == pytest.approx(1.0, abs=1e-7)


def test_unit_piece_is_frozen() -> None:
    piece = UnitPiece(-1.0, 1.0, 0)
    with pytest.raises(AttributeError):
        piece.a = 0.0  # type: ignore[misc]


# ----------------------------------------------------------------------------- errors
def test_bad_options_raise() -> None:
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(InvalidArgument, match="tol must be in"):
        bound(p, method="sdp", tol=0.5)
    with pytest.raises(InvalidArgument, match="max_iter must be a positive integer"):
        bound(p, method="sdp", max_iter=0)
    with pytest.raises(InvalidArgument, match="unknown option"):
        bound(p, method="sdp", bogus=1)


def test_solver_failure_raises_with_partial_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> sdp_mod.SOSSolution:
        return sdp_mod.SOSSolution((math.nan,) * 3, math.nan, "NumericalError", 3)

    monkeypatch.setattr(sdp_mod, "sos_dual", broken)
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(SolverFailed, match="Clarabel returned NumericalError") as info:
        bound(p, method="sdp")
    assert isinstance(info.value.result, sdp_mod.SOSSolution)


def test_bad_candidate_is_never_reported_as_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong candidate is shifted by the verifier: the reported numbers stay valid, and since the
    verified values (the trivial 0 and 1) contradict the solver's "Solved" optimum, it is a failure."""

    def wrong(c: np.ndarray, pieces: tuple, **kwargs: object) -> sdp_mod.SOSSolution:
        return sdp_mod.SOSSolution((0.0,) * len(c), 0.0, "Solved", 1)  # p = 0 violates p >= 1_E

    monkeypatch.setattr(sdp_mod, "sos_dual", wrong)
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(SolverFailed, match="failed"):
        bound(p, method="sdp")
    r = bound(p, method="sdp", allow_unverified=True)
    assert r.status is Status.FAILED and not r.certified
    assert r.exact_upper == 1 and r.exact_lower == 0


def test_unverifiable_candidate_is_unverified(monkeypatch: pytest.MonkeyPatch) -> None:
    from momentbound.bounds import certificate as cert_mod

    real = cert_mod.certify

    def never(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        cert, shifted = real(*args, **kwargs)
        from dataclasses import replace

        return replace(cert, verified=False, min_slack=-1.0), shifted

    monkeypatch.setattr(cert_mod, "certify", never)
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(SolverFailed, match="unverified"):
        bound(p, method="sdp")
    r = bound(p, method="sdp", allow_unverified=True)
    assert r.status is Status.UNVERIFIED and not r.certified
    assert (r.lower, r.upper) == (0.0, 1.0)


def test_odd_order_on_real_line_drops_unusable_moment() -> None:
    """On R a certificate has even degree, so the top odd moment cannot help (but must not break)."""
    pmf = [(F(-2), F(1, 2)), (F(0), F(1, 4)), (F(1), F(1, 4))]
    m3 = moments_of(pmf, 3)
    for event in (Event.gt(0), Event.ge(1), Event.between(-1, 1), Event.outside(-1, 1)):
        r3 = bound(MomentProblem(m3, Support.real(), event), method="sdp")
        r2 = bound(MomentProblem(m3[:3], Support.real(), event), method="sdp")
        truth = prob(pmf, event)
        assert r3.certified and r3.exact_lower <= truth <= r3.exact_upper
        assert (r3.lower, r3.upper) == pytest.approx((r2.lower, r2.upper), abs=1e-7)
        assert any("odd moment" in n for n in r3.diagnostics.notes)
