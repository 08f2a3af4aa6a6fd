"""The cdf band: sharp, certified, equal to pointwise ``bound`` calls, containing the truth."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from momentbound.bounds import Event, MomentProblem, Status, Support, bound, cdf_band, verify_polynomial_dominates
from momentbound.bounds import band as band_mod
from momentbound.cli import main
from momentbound.errors import InfeasibleMoments, InvalidArgument, SolverFailed, UnknownMethod


def binomial_pmf(n: int, p: Fraction) -> list[tuple[int, Fraction]]:
    return [(k, math.comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]


def raw_moments(pmf, order: int) -> tuple[Fraction, ...]:
    return tuple(sum((Fraction(q) * Fraction(x) ** k for x, q in pmf), Fraction(0)) for k in range(order + 1))


def true_cdf(pmf, t) -> Fraction:
    return sum((Fraction(q) for x, q in pmf if Fraction(x) <= t), Fraction(0))


def assert_band_sound(band, pmf) -> None:
    lo = [r.exact_lower for r in band.results]
    hi = [r.exact_upper for r in band.results]
    for t, a, b, r in zip(band.t, lo, hi, band.results):
        assert r.certified and r.status is Status.OPTIMAL
        assert a <= true_cdf(pmf, t) <= b, (t, a, b)
    assert all(x <= y for x, y in zip(lo, lo[1:])) and all(x <= y for x, y in zip(hi, hi[1:]))  # monotone in t


@pytest.mark.parametrize("n,p,order", [(20, Fraction(3, 10), 2), (20, Fraction(3, 10), 4), (30, Fraction(1, 2), 6)])
def test_binomial_band_is_sharp_certified_and_equals_pointwise_lp(n, p, order):
    pmf = binomial_pmf(n, p)
    band = cdf_band(raw_moments(pmf, order), Support.grid(0, n), truth=pmf)
    assert band.t == tuple(Fraction(k) for k in range(n + 1))  # default: every grid point
    assert all(band.warm[:-1]) and band.certified
    assert_band_sound(band, pmf)
    assert band.truth == tuple(float(true_cdf(pmf, t)) for t in band.t)
    problem = MomentProblem(raw_moments(pmf, order), Support.grid(0, n), Event.le(0))
    for i in range(0, n + 1, 3):
        ref = bound(problem.with_event(Event.le(i)), "lp")
        got = band.results[i]
        assert (got.exact_lower, got.exact_upper) == (ref.exact_lower, ref.exact_upper)
        assert abs(got.lower - ref.lower) <= 1e-9 and abs(got.upper - ref.upper) <= 1e-9
        # each point's certificates are verified independently on the whole support
        lower_cert, upper_cert = got.certificates
        assert verify_polynomial_dominates(upper_cert, problem.support, Event.le(i)).ok
        assert verify_polynomial_dominates(lower_cert, problem.support, Event.le(i)).ok


def test_warm_band_equals_independent_band_and_prekopa():
    pmf = binomial_pmf(40, Fraction(1, 4))
    mom = raw_moments(pmf, 5)
    warm = cdf_band(mom, "grid:0:40", points=17, method="prekopa")
    cold = cdf_band(mom, "grid:0:40", points=17, method="prekopa", warm=False)
    assert sum(warm.warm) == 16 and not any(cold.warm)  # the last point is the exact edge F(40) = 1
    for a, b in zip(warm.results, cold.results):
        assert (a.exact_lower, a.exact_upper) == (b.exact_lower, b.exact_upper)
    # non-integer t: F(t) = F(floor t) on the grid
    assert warm.t[1] == Fraction(5, 2)
    assert warm.results[1].exact_upper == cdf_band(mom, "grid:0:40", points=[2]).results[0].exact_upper


def test_random_discrete_laws_on_finite_supports():
    rng = np.random.default_rng(7)
    for trial in range(4):
        pts = sorted({Fraction(int(v), 4) for v in rng.choice(80, size=12, replace=False)})
        w = rng.integers(1, 20, size=len(pts))
        pmf = [(x, Fraction(int(q), int(w.sum()))) for x, q in zip(pts, w)]
        band = cdf_band(raw_moments(pmf, 3), Support.finite(pts), truth=pmf)
        assert band.t == tuple(pts)
        assert_band_sound(band, pmf)
        ref = bound(MomentProblem(raw_moments(pmf, 3), Support.finite(pts), Event.le(pts[4])), "lp")
        assert (band.results[4].exact_lower, band.results[4].exact_upper) == (ref.exact_lower, ref.exact_upper)


def test_interval_band_is_pointwise_bound_and_contains_random_laws():
    rng = np.random.default_rng(3)
    xs = rng.uniform(0, 6, size=7)
    ws = rng.dirichlet(np.ones(7))
    pmf = [(Fraction(float(x)), Fraction(float(q))) for x, q in zip(xs, ws)]
    total = sum(q for _, q in pmf)
    pmf = [(x, q / total) for x, q in pmf]
    mom = raw_moments(pmf, 3)
    band = cdf_band(mom, "interval:0:6", points=7, method="sdp")
    assert not any(band.warm[:-1]) and band.notes
    for t, r in zip(band.t, band.results):
        assert r.certified and r.contains(true_cdf(pmf, t), tol=1e-12)
        if t < 6:
            ref = bound(MomentProblem(mom, Support.interval(0, 6), Event.le(t)), "sdp")
            assert abs(r.lower - ref.lower) <= 1e-9 and abs(r.upper - ref.upper) <= 1e-9
    assert band.results[-1].exact_lower == 1  # F(6) = 1 on [0, 6]


def test_interval_warm_band_is_certified_sharp_and_at_least_as_tight_as_lp():
    mean, var = Fraction(6), Fraction(21, 5)
    mom = (1, mean, var + mean**2)
    band = cdf_band(mom, "interval:0:20", points=15)
    assert all(band.warm[:-1]) and band.certified
    for t, r in zip(band.t, band.results):
        assert r.status in (Status.VALID, Status.SHIFTED, Status.OPTIMAL)
        lower_cert, upper_cert = r.certificates
        if t < 20:
            assert verify_polynomial_dominates(upper_cert, Support.interval(0, 20), Event.le(t)).ok
            ref = bound(MomentProblem(mom, Support.interval(0, 20), Event.le(t)), "lp")
            assert r.lower >= ref.lower - 1e-9 and r.upper <= ref.upper + 1e-9
        s = float(t - mean)
        if t < 20 and s > 0 and float(mean) - float(var) / s >= 0:  # Cantelli's two-point law fits in [0, 20]
            assert abs(r.lower - (1 - float(var) / (float(var) + s * s))) < 1e-9
        if s < 0 and float(mean) - float(var) / s <= 20:
            assert abs(r.upper - float(var) / (float(var) + s * s)) < 1e-9
    assert all(x <= y + 1e-12 for x, y in zip(band.lower, band.lower[1:]))


def test_auto_method_picks_lp_on_bounded_supports_and_sdp_on_the_real_line():
    assert cdf_band((1, 3, 11), "grid:0:6").method == "lp"
    band = cdf_band((1, 0, 1), "real", points=5)
    assert band.method == "sdp" and band.certified
    for t, r in zip(band.t, band.results):
        if t > 0:  # Cantelli, to the SDP's accuracy
            assert abs(r.lower - float(t * t / (1 + t * t))) < 1e-6


def test_problems_with_extra_structure_are_solved_point_by_point():
    from momentbound.bounds import Shape, bound

    # a unimodal X with mode 0, mean 0 and variance 1: the band goes through the shape's method
    problem = MomentProblem((1, 0, 1), Support.real(), Event.le(0), shape=Shape.unimodal(0))
    band = cdf_band(problem, points=[-2, 2], method="sos")
    assert not any(band.warm)
    for t, r in zip(band.t, band.results):
        ref = bound(problem.with_event(Event.le(t)), "sos")
        assert (r.lower, r.upper) == pytest.approx((ref.lower, ref.upper), abs=1e-9)
    # Gauss: P[|X| >= 2] <= 1/9, so F(-2) <= 1/9 and F(2) >= 8/9
    assert band.results[0].upper <= 1 / 9 + 1e-6 and band.results[1].lower >= 8 / 9 - 1e-6


def test_a_failing_point_is_reported_not_hidden(monkeypatch):
    real_bound = band_mod.bound

    def flaky(problem, method, **kw):
        if problem.event.a == 3:
            raise SolverFailed("solver broke at t = 3")
        return real_bound(problem, method, **kw)

    monkeypatch.setattr(band_mod, "bound", flaky)
    band = cdf_band((1, 3, 11), "grid:0:6", warm=False)
    assert band.results[3].status is Status.FAILED and not band.results[3].certified
    assert (band.results[3].lower, band.results[3].upper) == (0.0, 1.0)
    assert not band.certified and band.results[2].certified
    assert band.rows()[3]["status"] == "failed"


def test_plot_and_summary(tmp_path):
    pmf = binomial_pmf(12, Fraction(1, 3))
    band = cdf_band(raw_moments(pmf, 3), "grid:0:12", truth=lambda t: float(true_cdf(pmf, Fraction(t))))
    out = band.plot(tmp_path / "band.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["band.png"]  # no temporary file left behind
    doc = band.summary()
    assert doc["points"] == 13 and doc["certified"] and len(doc["band"]) == 13 and "truth" in doc["band"][0]
    with pytest.raises(InvalidArgument, match="must end in .png"):
        band.plot(tmp_path / "band.svg")


def test_bad_inputs_raise_before_work():
    with pytest.raises(InvalidArgument, match="support is required"):
        cdf_band((1, 3, 11))
    with pytest.raises(InvalidArgument, match="points must be an integer >= 2"):
        cdf_band((1, 3, 11), "grid:0:6", points=1)
    with pytest.raises(UnknownMethod):
        cdf_band((1, 3, 11), "grid:0:6", method="nope")
    with pytest.raises(InvalidArgument, match="truth"):
        cdf_band((1, 3, 11), "grid:0:6", truth=[(0, Fraction(1, 2))])
    with pytest.raises(InfeasibleMoments):
        cdf_band((1, 3, 8), "grid:0:6")
    with pytest.raises(InvalidArgument, match="does not apply to this band"):
        cdf_band((1, 3, 11), "interval:0:6", method="prekopa")
    with pytest.raises(InvalidArgument, match="unknown option"):
        cdf_band((1, 3, 11), "grid:0:6", tol_typo=1)
    problem = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.gt(0))
    with pytest.raises(InvalidArgument, match="differs from the problem's support"):
        cdf_band(problem, "grid:0:7")


def _cli(args):
    return CliRunner().invoke(main, ["band", *args])


def test_cli_json_table_plot_and_errors(tmp_path):
    png = tmp_path / "b.png"
    res = _cli(["--truth", "binomial:10:1/2", "--order", "3", "--support", "grid:0:10", "--plot", str(png), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["points"] == 11 and doc["certified"] and doc["plot"] == str(png) and png.exists()
    for row in doc["band"]:
        assert row["lower"] <= row["truth"] <= row["upper"] and row["status"] == "optimal"
    res = _cli(["--moments", "1,3,11", "--support", "grid:0:6", "--points", "4"])
    assert res.exit_code == 0 and "optimal" in res.output and "P[X <= t]" in res.output
    for args, msg in [
        (["--moments", "1,3,8", "--support", "grid:0:6"], "InfeasibleMoments"),
        (["--support", "grid:0:6"], "give --moments"),
        (["--moments", "1,3,11", "--support", "grid:0:6", "--truth", "poisson:3"], "--truth must look like"),
        (["--moments", "1,3,11", "--support", "grid:0:6", "--points", "1"], "points must be an integer"),
    ]:
        res = _cli(args)
        assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output, res.output


def test_real_line_band_is_pointwise_closed_form():
    band = cdf_band((1, 0, 1), "real", points=9, method="closed-form")
    assert band.t[0] == -4 and band.t[-1] == 4 and not any(band.warm)  # mean +- 4 standard deviations
    for t, r in zip(band.t, band.results):
        s = float(t)
        if t == 0:  # no closed form at the mean: the point is reported as failed, with the trivial [0, 1]
            assert r.status is Status.FAILED and "does not apply at t = 0" in r.message and (r.lower, r.upper) == (0, 1)
            continue
        ref = bound(MomentProblem((1, 0, 1), Support.real(), Event.le(t)), "closed-form")
        assert (r.lower, r.upper) == (ref.lower, ref.upper) and r.certified
        if s > 0:
            assert abs(r.lower - s * s / (1 + s * s)) < 1e-12  # Cantelli
