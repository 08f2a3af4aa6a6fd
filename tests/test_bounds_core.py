"""Core of the bounds layer: problem/support/event validation, exact conversions,
feasibility, certificate verification, registry and the bound() entry point."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest

from momentbound.bounds import (
    METHODS,
    BoundMethod,
    BoundResult,
    Certificate,
    Event,
    Kind,
    MomentProblem,
    Status,
    Support,
    bound,
    check_feasible,
    verify_polynomial_dominates,
)
from momentbound.bounds.basis import (
    chebyshev_to_monomial_coeffs,
    chebyshev_to_monomial_moments,
    chebyshev_values_exact,
    monomial_to_chebyshev_moments,
    PolyBasis,
)
from momentbound.bounds.certificate import certify, slack_minimum
from momentbound.bounds.feasibility import is_psd_exact
from momentbound.bounds.problem import AffineMap
from momentbound.errors import InfeasibleMoments, InvalidArgument, SolverFailed, UnknownMethod


def moments_of(pmf, order):
    return tuple(sum(F(p) * F(x) ** k for x, p in pmf) for k in range(order + 1))


# -- Support / Event / MomentProblem -----------------------------------------------------


def test_support_constructors_and_errors():
    g = Support.grid(-3, 4)
    assert g.size == 8 and g.contains(4) and not g.contains(F(1, 2)) and not g.contains(5)
    assert Support.grid(0, 10**9).size == 10**9 + 1  # never enumerated
    assert Support.finite([3, 1, 1]).points == (F(1), F(3))
    assert Support.interval(0, F(5, 2)).contains(F(5, 2))
    assert Support.real().contains(10**30)
    assert Support.parse("grid:-2:5") == Support.grid(-2, 5)
    assert Support.parse("interval:0:1/2") == Support.interval(0, F(1, 2))
    with pytest.raises(InvalidArgument, match="lo <= hi"):
        Support.grid(3, 1)
    with pytest.raises(InvalidArgument, match="must be integers"):
        Support.grid(F(1, 2), 3)
    with pytest.raises(InvalidArgument, match="at least one point"):
        Support.finite([])
    with pytest.raises(InvalidArgument, match="support must look like"):
        Support.parse("grid:1")
    with pytest.raises(InvalidArgument, match="a <= c"):
        Support.interval(2, 1)


def test_event_indicator_complement_parse():
    for ev, inside, outside in [
        (Event.gt(0), [1, F(1, 10)], [0, -1]),
        (Event.ge(0), [0, 2], [-1]),
        (Event.lt(2), [1], [2, 3]),
        (Event.le(2), [2], [3]),
        (Event.between(1, 3), [1, 2, 3], [0, 4]),
        (Event.outside(1, 3), [0, 4], [1, 3]),
    ]:
        for x in inside:
            assert ev.indicator(x) and not ev.complement().indicator(x)
        for x in outside:
            assert not ev.indicator(x) and ev.complement().indicator(x)
        assert ev.complement().complement() == ev
        assert Event.parse(str(ev)) == ev
    with pytest.raises(InvalidArgument, match="event must look like"):
        Event.parse("gte:1")
    with pytest.raises(InvalidArgument, match="between needs a <= b"):
        Event.between(2, 1)


def test_grid_pieces_cover_support_exactly():
    sup = Support.grid(-5, 7)
    for ev in [Event.gt(F(1, 2)), Event.ge(2), Event.lt(-5), Event.le(100), Event.between(0, 3), Event.outside(-1, 1)]:
        pieces = ev.pieces(sup)
        covered = [x for p in pieces for x in range(int(p.lo), int(p.hi) + 1)]
        assert covered == list(range(-5, 8))
        for p in pieces:
            for x in range(int(p.lo), int(p.hi) + 1):
                assert ev.indicator(x) == bool(p.target)


def test_moment_problem_validation():
    sup, ev = Support.grid(0, 6), Event.ge(5)
    p = MomentProblem([1, 3, 11], sup, ev)
    assert p.order == 2 and p.is_exact and p.moments == (F(1), F(3), F(11))
    assert not MomentProblem((1.0, 3.0, 11.0), sup, ev).is_exact
    with pytest.raises(InvalidArgument, match=r"moments\[0\] \(m0\) must be 1"):
        MomentProblem((2, 3), sup, ev)
    with pytest.raises(InvalidArgument, match="at least m0"):
        MomentProblem((), sup, ev)
    with pytest.raises(InvalidArgument, match="must be finite"):
        MomentProblem((1, math.inf), sup, ev)
    with pytest.raises(InvalidArgument, match="support must be a Support"):
        MomentProblem((1,), "grid:0:1", ev)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="outside the support"):
        MomentProblem((1, 7), sup, ev, pmf=((7, 1),))
    with pytest.raises(InvalidArgument, match="sum to 1"):
        MomentProblem((1, 1), sup, ev, pmf=((1, F(1, 2)),))


def test_affine_and_chebyshev_moments_are_exact():
    pmf = [(0, F(1, 5)), (2, F(1, 2)), (7, F(3, 10))]
    p = MomentProblem(moments_of(pmf, 5), Support.grid(0, 7), Event.gt(1))
    amap, umom = p.affine_to_unit()
    assert amap == AffineMap(F(7, 2), F(7, 2))
    for k in range(6):
        assert umom[k] == sum(q * ((x - F(7, 2)) / F(7, 2)) ** k for x, q in pmf)
    cheb = p.chebyshev_moments()
    for k in range(6):
        assert cheb[k] == sum(q * chebyshev_values_exact((x - F(7, 2)) / F(7, 2), 5)[k] for x, q in pmf)
    assert chebyshev_to_monomial_moments(monomial_to_chebyshev_moments(umom)) == umom
    q = MomentProblem.from_chebyshev(cheb, amap, p.support, p.event)
    assert q.moments == p.moments


def test_chebyshev_coefficient_conversion_matches_numpy():
    c = [F(1, 3), F(-2), F(5, 7), F(1, 11), F(3)]
    mono = chebyshev_to_monomial_coeffs(c)
    ref = np.polynomial.chebyshev.cheb2poly([float(v) for v in c])
    assert np.allclose([float(v) for v in mono], ref)


def test_hermite_basis_values_and_moments_exact():
    pmf = [(-3, F(1, 4)), (1, F(1, 2)), (4, F(1, 4))]
    mom = moments_of(pmf, 4)
    pb = PolyBasis("hermite", F(1, 2), F(3, 2), mom)
    he = [lambda v: 1, lambda v: v, lambda v: v * v - 1, lambda v: v**3 - 3 * v, lambda v: v**4 - 6 * v * v + 3]
    for k in range(5):
        assert pb.moments[k] == sum(q * he[k]((x - F(1, 2)) / F(3, 2)) for x, q in pmf)
    # monomial_in maps back to the problem variable exactly
    coeffs = [F(1), F(-2), F(3), F(1, 2), F(1, 7)]
    mono = pb.monomial_in(coeffs, F(0), F(1))
    for x in (-3, 0, 2, F(5, 3)):
        direct = sum(c * he[k]((F(x) - F(1, 2)) / F(3, 2)) for k, c in enumerate(coeffs))
        assert sum(m * F(x) ** j for j, m in enumerate(mono)) == direct


# -- feasibility ---------------------------------------------------------------------------


def test_psd_exact():
    assert is_psd_exact([[1, 1], [1, 1]])
    assert not is_psd_exact([[1, 2], [2, 1]])
    assert not is_psd_exact([[0, 1], [1, 5]])
    assert is_psd_exact([[0, 0], [0, 5]])


@pytest.mark.parametrize(
    "moments, support, condition",
    [
        ((1, 3, 8), Support.grid(0, 6), "hankel"),  # variance 8 - 9 < 0
        ((1, 7), Support.grid(0, 6), "support"),  # mean outside
        ((1, 1, 2, 10), Support.interval(0, 2), "localizing"),
        ((1, 1, 1, 2), Support.real(), "point-mass"),  # zero variance, inconsistent third moment
    ],
)
def test_infeasible_moments_name_the_condition(moments, support, condition):
    p = MomentProblem(moments, support, Event.gt(0))
    with pytest.raises(InfeasibleMoments, match="moments|mean|variance") as info:
        check_feasible(p)
    assert info.value.condition == condition
    with pytest.raises(InfeasibleMoments, match="moments|mean|variance"):
        bound(p, "closed-form" if support.kind.value == "real" else "lp")


def test_feasible_moments_pass_and_brute_force_agrees():
    rng = np.random.default_rng(1)
    for _ in range(30):
        w = rng.random(6)
        pmf = [(x, F(v).limit_denominator(1000)) for x, v in enumerate(w / w.sum())]
        tot = sum(q for _, q in pmf)
        pmf = [(x, q / tot) for x, q in pmf]
        check_feasible(MomentProblem(moments_of(pmf, 6), Support.grid(0, 5), Event.gt(2)))


# -- certificates --------------------------------------------------------------------------


def _cert(coeffs, side, amap=AffineMap(F(0), F(1)), basis="monomial"):
    return Certificate(side, tuple(F(c) for c in coeffs), basis, amap, F(0), False, 0.0, "")


def test_verifier_on_a_huge_grid_finds_the_single_bad_integer():
    # p(x) = ((x - 10^8 - 1/2)^2 - 1/4) / 10^16 >= 0 at every integer (zero at 10^8, 10^8+1)
    c = F(10**8) + F(1, 2)
    s = F(10**16)
    poly = [(c * c - F(1, 4)) / s, -2 * c / s, 1 / s]
    sup = Support.grid(-(10**9), 10**9)
    empty = Event.gt(10**10)  # indicator 0 everywhere: checks p >= 0
    assert verify_polynomial_dominates(_cert(poly, "upper"), sup, empty).ok
    # lowering it by any positive amount fails exactly at the two touching integers
    bad = [poly[0] - F(1, 10**30)] + poly[1:]
    ver = verify_polynomial_dominates(_cert(bad, "upper"), sup, empty)
    assert not ver.ok and ver.worst_point in (F(10**8), F(10**8 + 1))
    assert ver.min_slack == -F(1, 10**30)


def test_verifier_continuous_rational_touching_is_exact():
    prob = MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5))
    # SumOfSquares.jl example: certificate (12x - 11)^2 / 37^2 in x; in u = (x - 5/2)/(5/2): (30u + 19)^2/37^2
    cert, shifted = certify([F(361, 1369), F(1140, 1369), F(900, 1369)], "upper", prob, basis="monomial")
    assert cert.verified and not shifted and cert.value == F(1, 37)
    too_low, shifted = certify([F(361, 1369) - F(1, 10**6), F(1140, 1369), F(900, 1369)], "upper", prob,
                               basis="monomial", allow_shift=False)
    assert not too_low.verified


def test_shifted_certificate_is_valid_and_reports_shift():
    prob = MomentProblem((1, 0, F(1, 2)), Support.grid(-10, 10), Event.gt(0))
    cert, shifted = certify([F(0)], "upper", prob, basis="monomial")
    assert shifted and cert.verified and cert.value == 1
    # brute-force witness of domination
    assert all(cert.evaluate_exact(x) >= int(x > 0) for x in range(-10, 11))


def test_lower_side_and_real_line_leading_coefficient():
    sup = Support.real()
    assert not verify_polynomial_dominates(_cert([0, 0, -1], "upper"), sup, Event.gt(0)).ok
    assert verify_polynomial_dominates(_cert([0, 0, -1], "lower"), sup, Event.gt(0)).ok
    assert not verify_polynomial_dominates(_cert([0, 1], "upper"), sup, Event.gt(0)).ok  # odd degree


# -- registry and entry point ----------------------------------------------------------------


def test_unknown_method_lists_registered():
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(UnknownMethod, match="registered methods: lp, lp-dual"):
        bound(p, "simplex")


def test_unknown_option_and_bad_option_values():
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(InvalidArgument, match=r"unknown option\(s\) \['tolerance'\]"):
        bound(p, "lp", tolerance=1e-3)
    with pytest.raises(InvalidArgument, match="max_iter must be >= 1"):
        bound(p, "lp", max_iter=0)
    with pytest.raises(InvalidArgument, match=r"options \['tolerance'\] are declared by no method"):
        bound(p, "all", tolerance=1e-3)


def test_all_routes_each_option_to_the_methods_that_declare_it():
    from momentbound.model.z_sampler import naive_bayes_sampler
    from momentbound.model import equal_cells_model

    p = MomentProblem((1,), Support.grid(-147, 147), Event.gt(0),
                      statistic_sampler=naive_bayes_sampler(equal_cells_model((2, 2)), 10, (0, 0)))
    a = {r.method: r for r in bound(p, "all", rng=3, draws=500)}
    b = {r.method: r for r in bound(p, "all", rng=3, draws=500)}
    assert a["sampling"].samples == 500 and (a["sampling"].lower, a["sampling"].upper) == (b["sampling"].lower, b["sampling"].upper)
    with pytest.raises(InvalidArgument, match="must be a non-negative integer, got -1"):
        bound(p, "sampling", rng=-1)


def test_not_applicable_raises_and_all_skips():
    p = MomentProblem((1, 0, 1), Support.real(), Event.gt(1))
    with pytest.raises(InvalidArgument, match="does not apply"):
        bound(p, "prekopa")
    with pytest.raises(InvalidArgument, match="does not apply"):
        bound(p, "lp")
    names = [r.method for r in bound(p, "all")]
    assert "lp" not in names and "prekopa" not in names and "closed-form" in names


def test_degenerate_point_mass_and_order_zero():
    r = bound(MomentProblem((1, 2, 4, 8), Support.grid(0, 6), Event.gt(1)), "lp")
    assert (r.exact_lower, r.exact_upper, r.status) == (1, 1, Status.OPTIMAL)
    r = bound(MomentProblem((1, 0), Support.interval(0, 1), Event.gt(0)), "lp")
    assert (r.exact_lower, r.exact_upper) == (0, 0)  # mean at the lower end: a point mass at 0
    r = bound(MomentProblem((1,), Support.grid(0, 6), Event.ge(5)), "lp")
    assert (r.exact_lower, r.exact_upper) == (0, 1)
    r = bound(MomentProblem((1,), Support.grid(5, 6), Event.ge(5)), "lp")
    assert (r.exact_lower, r.exact_upper) == (1, 1)
    with pytest.raises(InfeasibleMoments, match="point mass") as info:
        bound(MomentProblem((1, F(1, 2), F(1, 4)), Support.grid(0, 6), Event.ge(5)), "lp")
    assert info.value.condition == "support"


def test_solver_failure_carries_partial_result():
    p = MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(SolverFailed, match="HiGHS returned") as info:
        bound(p, "lp", highs_options={"simplex_iteration_limit": 0})
    res = info.value.result
    assert isinstance(res, BoundResult) and res.status is Status.FAILED
    assert res.diagnostics.solver_status == "kIterationLimit"
    with pytest.raises(InvalidArgument, match="HiGHS rejected option"):
        bound(p, "lp", highs_options={"no_such_option": 1})


class _Unverified(BoundMethod):
    name = "test-unverified"
    kind = Kind.BOUND
    options = {}

    def _solve(self, problem, **options):
        return BoundResult(0.3, 0.4, self.name, Kind.BOUND, Status.UNVERIFIED, "test stub")


def test_unverified_bounds_are_never_returned_silently():
    p = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    with pytest.raises(SolverFailed, match="unverified bound") as info:
        bound(p, _Unverified())
    assert info.value.result.status is Status.FAILED and (info.value.result.lower, info.value.result.upper) == (0, 1)
    r = bound(p, _Unverified(), allow_unverified=True)
    assert r.status is Status.UNVERIFIED and not r.certified


def test_result_helpers_and_status_messages():
    r = BoundResult(0.25, 0.5, "x", Kind.BOUND, Status.VALID, exact_lower=F(1, 4), exact_upper=F(1, 2))
    assert r.width == 0.25 and r.contains(F(1, 3)) and not r.contains(0.6) and r.contains(0.6, tol=0.2)
    assert all(s.message for s in Status)
    assert replace(r, seconds=1.0).seconds == 1.0
    assert set(r.summary()) == {"method", "kind", "lower", "upper", "certified", "status", "seconds"}
    assert list(METHODS)[:2] == ["lp", "lp-dual"]


def test_importing_momentbound_bounds_does_not_import_cvxpy():
    import subprocess
    import sys

    code = "import sys, momentbound.bounds; print('cvxpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
