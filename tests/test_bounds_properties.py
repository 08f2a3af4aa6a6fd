"""Property tests (hypothesis, derandomized) across B2's methods: sdp, sqp, gd, series,
sampling, Frechet joint bounds.  Over 1000 random cases in total.

Witness: the exact event probability of the random pmf the moments come from.
"""

from __future__ import annotations

import warnings
from fractions import Fraction as F

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound.bounds import Event, Kind, MomentProblem, Support, bound
from momentbound.bounds.joint import frechet_bounds
from momentbound.bounds.result import BoundResult, Status
from momentbound.bounds.sampling import clopper_pearson, chebyshev_interval, event_mask
from momentbound.bounds.series import SeriesWarning

FAST = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


@st.composite
def pmf_problems(draw: st.DrawFn, max_order: int = 5) -> tuple[list[tuple[F, F]], int, int, Event, int]:
    lo = draw(st.integers(-6, 0))
    size = draw(st.integers(2, 10))
    hi = lo + size - 1
    weights = draw(st.lists(st.integers(0, 20), min_size=size, max_size=size).filter(lambda w: sum(1 for v in w if v) >= 2))
    total = sum(weights)
    pmf = [(F(lo + i), F(w, total)) for i, w in enumerate(weights) if w]
    kind = draw(st.sampled_from(["gt", "ge", "lt", "le", "between"]))
    t = draw(st.integers(lo, hi))
    if kind == "between":
        event = Event.between(t, draw(st.integers(t, hi)))
    else:
        event = Event.parse(f"{kind}:{t}")
    order = draw(st.integers(1, max_order))
    return pmf, lo, hi, event, order


def problem_of(pmf: list[tuple[F, F]], lo: int, hi: int, event: Event, order: int) -> tuple[MomentProblem, F]:
    mom = tuple(sum((p * x**k for x, p in pmf), F(0)) for k in range(order + 1))
    truth = sum((p for x, p in pmf if event.indicator(x)), F(0))
    return MomentProblem(mom, Support.grid(lo, hi), event), truth


def check_valid(r: BoundResult, truth: F) -> None:
    assert r.kind is Kind.BOUND and r.certified
    assert r.exact_lower is not None and r.exact_upper is not None
    assert r.exact_lower <= truth <= r.exact_upper
    assert 0.0 <= r.lower <= r.upper <= 1.0


@settings(max_examples=260, **FAST)
@given(pmf_problems())
def test_sdp_contains_truth(case: tuple) -> None:
    problem, truth = problem_of(*case)
    check_valid(bound(problem, method="sdp"), truth)


@settings(max_examples=220, **FAST)
@given(pmf_problems())
def test_sqp_contains_truth_and_beats_interval_relaxation(case: tuple) -> None:
    problem, truth = problem_of(*case)
    discrete = bound(problem, method="sqp")
    check_valid(discrete, truth)
    interval = bound(problem, method="sdp")
    # the discrete (grid) semi-infinite bound is never looser than the interval relaxation
    assert discrete.upper <= interval.upper + 1e-7
    assert discrete.lower >= interval.lower - 1e-7


@settings(max_examples=120, **FAST)
@given(pmf_problems(max_order=4))
def test_more_moments_never_loosen_sharp_bound(case: tuple) -> None:
    pmf, lo, hi, event, order = case
    p_small, truth = problem_of(pmf, lo, hi, event, order)
    p_big, _ = problem_of(pmf, lo, hi, event, order + 1)
    small, big = bound(p_small, method="sqp"), bound(p_big, method="sqp")
    check_valid(big, truth)
    assert big.upper <= small.upper + 1e-7
    assert big.lower >= small.lower - 1e-7


@settings(max_examples=50, **FAST)
@given(pmf_problems(max_order=3))
def test_gd_contains_truth(case: tuple) -> None:
    problem, truth = problem_of(*case)
    r = bound(problem, method="gd", max_iter=40)
    check_valid(r, truth)
    assert r.status in (Status.VALID, Status.SHIFTED, Status.OPTIMAL)


@settings(max_examples=200, **FAST)
@given(pmf_problems(), st.sampled_from(["edgeworth", "gram-charlier"]))
def test_series_is_a_probability_and_complements_add_up(case: tuple, expansion: str) -> None:
    pmf, lo, hi, event, order = case
    problem, _ = problem_of(pmf, lo, hi, event, max(order, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeriesWarning)
        r = bound(problem, method="series", expansion=expansion)
        rc = bound(problem.with_event(event.complement()), method="series", expansion=expansion)
    assert r.kind is Kind.APPROXIMATION and not r.certified
    assert 0.0 <= r.lower == r.upper <= 1.0
    if event.kind.value != "between":  # complement of an interval is two pieces: monotone envelope differs
        assert abs(r.lower + rc.lower - 1.0) < 1e-9 or r.lower in (0.0, 1.0) or rc.lower in (0.0, 1.0)


@settings(max_examples=150, **FAST)
@given(st.integers(1, 400), st.data(), st.floats(0.5, 0.999))
def test_sampling_intervals_are_ordered(draws: int, data: st.DataObject, confidence: float) -> None:
    hits = data.draw(st.integers(0, draws))
    lo, hi = clopper_pearson(hits, draws, confidence)
    clo, chi = chebyshev_interval(hits, draws, confidence)
    p = hits / draws
    assert 0.0 <= lo <= p <= hi <= 1.0
    assert 0.0 <= clo <= p <= chi <= 1.0
    lo2, hi2 = clopper_pearson(hits, draws, min(0.9999, confidence + (1 - confidence) / 2))
    assert lo2 <= lo + 1e-12 and hi2 >= hi - 1e-12  # more confidence, wider interval


@settings(max_examples=100, **FAST)
@given(pmf_problems())
def test_event_mask_matches_indicator(case: tuple) -> None:
    pmf, lo, hi, event, _ = case
    xs = np.arange(lo - 2, hi + 3)
    assert event_mask(event, xs).tolist() == [event.indicator(int(x)) for x in xs]


@settings(max_examples=100, **FAST)
@given(st.lists(st.integers(0, 10), min_size=4, max_size=4).filter(lambda w: sum(w) > 0), st.data())
def test_frechet_contains_joint_probability(w: list[int], data: st.DataObject) -> None:
    """Random joint law of two events; Frechet bounds from intervals around the marginals."""
    total = sum(w)
    p11, p10, p01 = F(w[0], total), F(w[1], total), F(w[2], total)
    pa, pb = p11 + p10, p11 + p01
    slack = [F(data.draw(st.integers(0, 5)), 20) for _ in range(4)]

    def res(p: F, s1: F, s2: F) -> BoundResult:
        lo, hi = max(F(0), p - s1), min(F(1), p + s2)
        return BoundResult(float(lo), float(hi), "m", Kind.BOUND, Status.VALID, certified=True, exact_lower=lo, exact_upper=hi)

    r = frechet_bounds(res(pa, slack[0], slack[1]), res(pb, slack[2], slack[3]))
    assert r.exact_lower <= p11 <= r.exact_upper
