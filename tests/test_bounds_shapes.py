"""Half-line supports, unions of intervals, shape constraints and moment boxes.

Witnesses: the closed forms of Markov, Bertsimas-Popescu (1, 2, R+), Chebyshev, Gauss,
Vysochanskij-Petunin and the one-sided unimodal bound; a brute-force LP over every grid
point (scipy); exact event probabilities of random laws built to satisfy each constraint
(nonnegative discrete laws, m + U Y, symmetric atoms, boxes around the true moments).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound.bounds import (
    Event,
    EventKind,
    MomentProblem,
    Shape,
    Span,
    Support,
    SupportKind,
    available_methods,
    bound,
)
from momentbound.bounds.certificate import verify_polynomial_dominates
from momentbound.bounds.shape import (
    gauss_bound,
    mode_range,
    unimodal_farkas,
    unimodal_one_sided_bound,
    vysochanskij_petunin_bound,
)
from momentbound.errors import InfeasibleMoments, InvalidArgument

FAST = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def moments_of(pmf, order):
    return tuple(sum((p * x**k for x, p in pmf), F(0)) for k in range(order + 1))


def prob_of(pmf, event):
    return sum((p for x, p in pmf if event.indicator(x)), F(0))


# ----------------------------------------------------------------------------- supports and events
def test_halfline_support_parse_and_contains():
    s = Support.parse("halfline:-1/2")
    assert s == Support.halfline(F(-1, 2)) and s.kind is SupportKind.HALFLINE and str(s) == "halfline:-1/2"
    assert not s.is_bounded and s.contains(-0.5) and s.contains(10**9) and not s.contains(-0.6)
    with pytest.raises(InvalidArgument, match="halfline:A"):
        Support.parse("halfline")


@pytest.mark.parametrize(
    "text, inside, outside",
    [
        ("union:le:1,ge:5", [-3, 1, 5, 9], [F(3, 2), 3, F(49, 10)]),
        ("dev:2:3", [-1, 5, -10, 50], [0, 2, F(49, 10)]),
        ("union:open:0:1,between:2:3,gt:7", [F(1, 2), 2, 3, 8], [0, 1, F(3, 2), 7]),
        ("union:lopen:0:1,ropen:1:2", [F(1, 100), 1, F(199, 100)], [0, 2]),
    ],
)
def test_union_events_indicator_complement_and_round_trip(text, inside, outside):
    ev = Event.parse(text)
    assert Event.parse(str(ev)) == ev
    for x in inside:
        assert ev.indicator(x) and not ev.complement().indicator(x)
    for x in outside:
        assert not ev.indicator(x) and ev.complement().indicator(x)
    assert ev.complement().complement() == ev


def test_union_merges_and_simplifies():
    assert Event.union(Event.le(1), Event.between(1, 3)) == Event.le(3)
    assert Event.union(Event.lt(1), Event.gt(1)) == Event.outside(1, 1)
    assert Event.parse("dev:0:2").kind is EventKind.UNION
    assert Event.parse("dev:0:2").parts == (Span(None, F(-2)), Span(F(2), None))
    with pytest.raises(InvalidArgument, match="t > 0"):
        Event.deviation(0, 0)
    with pytest.raises(InvalidArgument, match="union:le:1,ge:5"):
        Event.parse("union:")


@given(st.lists(st.tuples(st.sampled_from(["le", "ge", "between", "open", "lopen", "ropen"]),
                          st.integers(-6, 6), st.integers(0, 4)), min_size=1, max_size=4))
@settings(max_examples=60, **FAST)
def test_union_grid_pieces_match_the_indicator(parts):
    text = "union:" + ",".join(f"{k}:{a}" if k in ("le", "ge") else f"{k}:{a}:{a + w}" for k, a, w in parts)
    ev = Event.parse(text)
    covered = {}
    for piece in ev.pieces(Support.grid(-8, 8)):
        for x in range(int(piece.lo), int(piece.hi) + 1):
            assert x not in covered
            covered[x] = piece.target
    assert covered == {x: int(ev.indicator(x)) for x in range(-8, 9)}


def test_union_masks_and_series_use_the_spans():
    from momentbound.bounds.sampling import event_mask

    ev = Event.parse("union:lt:-1,between:0:1,gt:3")
    xs = [-2, -1, 0, 1, 2, 3, 4]
    want = [ev.indicator(x) for x in xs]
    assert event_mask(ev, np.array(xs)).tolist() == want
    assert event_mask(ev, np.array(xs, dtype=float)).tolist() == want
    normal = MomentProblem((1, 0, 1, 0, 3), Support.real(), ev)
    approx = bound(normal, "series")
    # the Edgeworth series of the normal moments is the normal law itself
    from scipy.stats import norm

    truth = norm.cdf(-1) + (norm.cdf(1) - norm.cdf(0)) + norm.sf(3)
    assert approx.kind.value == "approximation" and approx.lower == pytest.approx(truth, abs=1e-6)


def test_union_event_lp_matches_brute_force_lp():
    from scipy.optimize import linprog

    mom = (F(1), F(3), F(11), F(45))
    ev = Event.parse("union:le:1,between:3:4")
    r = bound(MomentProblem(mom, Support.grid(0, 6), ev), "lp")
    xs = np.arange(7.0)
    A = np.vstack([xs**k for k in range(4)])
    c = np.array([float(ev.indicator(int(x))) for x in xs])
    hi = -linprog(-c, A_eq=A, b_eq=[float(m) for m in mom], bounds=(0, None)).fun
    lo = linprog(c, A_eq=A, b_eq=[float(m) for m in mom], bounds=(0, None)).fun
    assert r.certified and abs(r.upper - hi) < 1e-9 and abs(r.lower - lo) < 1e-9


def test_two_sided_deviation_chebyshev_on_the_line():
    p = MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, 2))
    for method in ("closed-form", "sdp"):
        r = bound(p, method)
        assert r.certified and r.upper == pytest.approx(0.25, abs=1e-8) and r.upper >= 0.25


# ----------------------------------------------------------------------------- half-line oracles
def test_markov_on_the_half_line():
    p = MomentProblem((1, 1), Support.halfline(0), Event.ge(4))
    r = bound(p, "closed-form")
    assert r.exact_upper == F(1, 4) and "attained" in r.message
    assert bound(p, "sdp").upper == pytest.approx(0.25, abs=1e-8)


@pytest.mark.parametrize("mean, m2, t", [(1, 4, 2), (1, 2, 3), (2, 5, 3), (2, 5, 7), (1, 3, 2), ("1/2", 1, 4)])
def test_bertsimas_popescu_both_regimes(mean, m2, t):
    M, m2, t = F(mean), F(m2), F(t)
    C2 = (m2 - M * M) / (M * M)
    d = t / M - 1
    sharp = C2 / (C2 + d * d) if d >= C2 else 1 / (1 + d)
    p = MomentProblem((1, M, m2), Support.halfline(0), Event.ge(t))
    cf = bound(p, "closed-form")
    assert cf.exact_upper == sharp
    assert ("not attained" in cf.message) == (d < C2)
    box = MomentProblem.from_box([1, M, m2], [1, M, m2], p.support, p.event)  # sos: a degenerate box
    for r in (bound(p, "sdp"), bound(box, "sos")):
        assert r.certified and sharp <= r.exact_upper <= sharp + F(1, 10**7)


def test_spec_examples_half_line():
    assert bound(MomentProblem((1, 1, 4), Support.halfline(0), Event.ge(2)), "closed-form").exact_upper == F(1, 2)
    assert bound(MomentProblem((1, 1, 2), Support.halfline(0), Event.ge(3)), "closed-form").exact_upper == F(1, 5)


def test_half_line_feasibility():
    with pytest.raises(InfeasibleMoments):
        bound(MomentProblem((1, -1, 2), Support.halfline(0), Event.ge(1)), "sdp")
    with pytest.raises(InfeasibleMoments, match="localizing"):
        bound(MomentProblem((1, 1, 2, 3), Support.halfline(0), Event.ge(1)), "sdp")
    assert "bounded support" in str(pytest.raises(InvalidArgument, bound,
                                                  MomentProblem((1, 1, 2), Support.halfline(0), Event.ge(1)), "lp").value)


# ----------------------------------------------------------------------------- shape oracles
def _upper(p, **kw):
    r = bound(p, "sos", **kw)
    assert r.certified and r.kind.value == "bound"
    return r.upper


@pytest.mark.parametrize("k", [2.0, 1.0, 2 / math.sqrt(3), 3.0])
def test_gauss_mode_known(k):
    kk = F(k)
    p = MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, kk), shape=Shape.unimodal(0))
    truth = gauss_bound(1.0, float(kk))
    assert truth - 1e-9 <= _upper(p) <= truth + 1e-6


def test_gauss_is_below_chebyshev_and_the_unknown_mode_envelope_covers_known_modes():
    p = MomentProblem((1, 0, 1), Support.real(), Event.ge("1/2"), shape=Shape.unimodal(0))
    cantelli = 1 / (1 + 0.25)
    envelope = _upper(MomentProblem(p.moments, p.support, p.event, shape=Shape.unimodal()))
    knowns = [_upper(MomentProblem(p.moments, p.support, p.event, shape=Shape.unimodal(F(m, 4)))) for m in (-4, 0, 3)]
    truth = unimodal_one_sided_bound(0.5)  # (3 - l^2) / (3 (1 + l^2)) below l^2 = 5/3
    assert truth - 1e-9 <= envelope <= truth + 1e-4 and envelope < cantelli - 0.05
    assert all(k <= envelope + 1e-9 for k in knowns) and max(knowns) - min(knowns) > 1e-2


@pytest.mark.parametrize("lam", [2.0, math.sqrt(8 / 3)])
def test_vysochanskij_petunin_mode_unknown(lam):
    p = MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, F(lam)), shape=Shape.unimodal())
    truth = vysochanskij_petunin_bound(float(F(lam)))
    assert truth - 1e-9 <= _upper(p) <= truth + 1e-4


def test_unimodal_one_sided_mode_unknown():
    p = MomentProblem((1, 0, 1), Support.real(), Event.ge(2), shape=Shape.unimodal())
    truth = unimodal_one_sided_bound(2.0)
    assert truth - 1e-9 <= _upper(p) <= truth + 1e-4


def test_symmetric_halves_the_two_sided_chebyshev_tail():
    p = MomentProblem((1, 0, 1), Support.real(), Event.ge(2), shape=Shape.symmetric())
    assert 0.125 - 1e-9 <= _upper(p) <= 0.125 + 1e-7
    assert bound(p.with_event(Event.deviation(0, 2)), "sos").upper == pytest.approx(0.25, abs=1e-7)
    with pytest.raises(InfeasibleMoments, match="odd central"):
        bound(MomentProblem((1, 0, 1, 1), Support.real(), Event.ge(2), shape=Shape.symmetric()), "sos")


def test_shape_problems_only_go_to_methods_that_honour_them():
    p = MomentProblem((1, 0, 1), Support.real(), Event.ge(2), shape=Shape.unimodal(0))
    with pytest.raises(InvalidArgument, match="ignores the problem's shape.*sos"):
        bound(p, "sdp")
    assert [r.method for r in bound(p, "all")] == ["sos"]
    with pytest.raises(InvalidArgument, match="continuous support"):
        bound(MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5), shape=Shape.unimodal()), "sos")
    with pytest.raises(InvalidArgument, match="outside the support"):
        bound(MomentProblem((1, 1, 2), Support.halfline(0), Event.ge(5), shape=Shape.unimodal(-1)), "sos")
    with pytest.raises(InfeasibleMoments, match="unimodal"):
        # variance 1 about a mode 3 standard deviations away: E[Y^2] = 3 E[(X - m)^2] < (E Y)^2
        bound(MomentProblem((1, 0, 1), Support.real(), Event.ge(2), shape=Shape.unimodal(3)), "sos")


@pytest.mark.parametrize(
    "event, shape, formula",
    [
        (Event.deviation(0, 2), Shape.unimodal(0), gauss_bound(1.0, 2.0)),
        (Event.deviation(0, 1), Shape.unimodal(0), gauss_bound(1.0, 1.0)),
        (Event.deviation(F(1, 2), 1), Shape.unimodal(F(1, 2)), gauss_bound(1.25, 1.0)),
        (Event.deviation(0, 2), Shape.unimodal(), vysochanskij_petunin_bound(2.0)),
        (Event.ge(2), Shape.unimodal(), unimodal_one_sided_bound(2.0)),
        (Event.le(-1), Shape.unimodal(), unimodal_one_sided_bound(1.0)),
        (Event.ge(2), Shape.symmetric(), 0.125),
        (Event.ge(F(1, 2)), Shape.symmetric(), 0.5),
    ],
)
def test_shape_closed_forms_and_sos_never_looser(event, shape, formula):
    p = MomentProblem((1, 0, 1), Support.real(), event, shape=shape)
    cf = bound(p, "shape-closed-form")
    assert cf.certified and formula - 1e-12 <= cf.upper <= formula + 1e-12 and cf.certificates == ()
    envelope = shape.kind.value == "unimodal" and shape.mode is None
    assert _upper(p) <= cf.upper + (1e-4 if envelope else 1e-7)  # the envelope is sharp up to its grid


def test_vysochanskij_petunin_second_branch_is_not_sharp():
    """Below l = sqrt(8/3) the certified envelope beats 4/(3 l^2) - 1/3; a law reaching it:
    X = m + U Y found by search attains 16/81 at l = 3/2 (the envelope is 16/81 + 1e-5)."""
    p = MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, F(3, 2)), shape=Shape.unimodal())
    assert F(16, 81) - F(1, 10**9) <= F(_upper(p)) <= F(16, 81) + F(1, 10**4) < F(7, 27)


def test_farkas_excludes_impossible_modes():
    p = MomentProblem((1, 0, 1), Support.real(), Event.ge(2), shape=Shape.unimodal())
    amap, _ = p.affine_to_unit()
    assert unimodal_farkas(p, amap.to_unit(F(5, 2)), amap.to_unit(3))  # |mode - mean| > sqrt(3) s
    assert not unimodal_farkas(p, amap.to_unit(0), amap.to_unit(F(1, 2)))
    lo, hi = mode_range(MomentProblem((1, 1, 4), Support.halfline(0), Event.ge(2), shape=Shape.unimodal()))
    assert (lo, hi) == (0, 2)  # E[Y] = 2 (mu - m) >= -m


def test_shape_parse():
    assert Shape.parse("unimodal:1/2") == Shape.unimodal(F(1, 2)) and Shape.parse("symmetric") == Shape.symmetric()
    with pytest.raises(InvalidArgument, match="unimodal"):
        Shape.parse("bimodal")


# ----------------------------------------------------------------------------- moment boxes
def test_degenerate_box_equals_exact_moments():
    exact = bound(MomentProblem((1, 1, 4), Support.halfline(0), Event.ge(2)), "sdp")
    box = bound(MomentProblem.from_box([1, 1, 4], [1, 1, 4], Support.halfline(0), Event.ge(2)), "sos")
    assert abs(exact.upper - box.upper) < 1e-8 and abs(exact.lower - box.lower) < 1e-8


def test_box_on_a_grid_is_the_discrete_lp():
    ev = Event.parse("union:le:1,between:3:4")
    plain = MomentProblem((1, 3, 11, 45), Support.grid(0, 6), ev)
    assert "sos" not in available_methods(plain) and "shape-closed-form" not in available_methods(plain)
    lp = bound(plain, "lp")
    box = bound(MomentProblem.from_box([1, 3, 11, 45], [1, 3, 11, 45], Support.grid(0, 6), ev), "sos")
    assert lp.status.value == "optimal" and abs(box.upper - lp.upper) < 1e-8 and abs(box.lower - lp.lower) < 1e-8
    assert box.exact_upper >= lp.exact_upper and box.exact_lower <= lp.exact_lower  # verified, so never tighter


def test_box_worst_case_markov_regime():
    # worst case of min(mu/t, Cantelli) over mu in [0.9, 1.1], E[X^2] in [3.9, 4.1]: 1.1 / 2
    r = bound(MomentProblem.from_box([1, "0.9", "3.9"], [1, "1.1", "4.1"], Support.halfline(0), Event.ge(2)), "sos")
    assert r.certified and 0.55 <= r.upper <= 0.55 + 1e-7


def test_box_validation():
    with pytest.raises(InvalidArgument, match="lo_2 <= hi_2"):
        MomentProblem.from_box([1, 0, 2], [1, 1, 1], Support.real(), Event.ge(1))
    with pytest.raises(InvalidArgument, match="one \\(lo, hi\\) pair per moment"):
        MomentProblem((1, 0, 1), Support.real(), Event.ge(1), moment_box=((0, 1),))
    with pytest.raises(InvalidArgument, match="moment-box"):
        bound(MomentProblem.from_box([1, 0, 1], [1, 0, 1], Support.interval(-3, 3), Event.ge(1)), "lp")


# ----------------------------------------------------------------------------- certificates
def test_plain_sos_certificate_checks_independently():
    p = MomentProblem.from_box([1, 1, 4], [1, 1, 4], Support.halfline(0), Event.ge(2))
    r = bound(p, "sos")
    lower, upper = r.certificates
    for cert in (lower, upper):
        assert cert.verified and verify_polynomial_dominates(cert, p.support, p.event).ok
    assert float(upper.value) == pytest.approx(r.upper, abs=1e-12)


def test_unimodal_certificate_integrated_condition_on_a_grid():
    """The dual q of the known-mode bound: int_0^z (q - 1_E) >= 0 for z > 0 (checked in floats)."""
    p = MomentProblem((1, 0, 1), Support.real(), Event.deviation(0, 2), shape=Shape.unimodal(0))
    r = bound(p, "sos")
    upper = r.certificates[1]
    z = np.linspace(1e-3, 30, 20001)
    q = upper.evaluate(z)
    ind = (np.abs(z) >= 2).astype(float)
    G = np.concatenate([[0.0], np.cumsum((q - ind)[1:] * np.diff(z))])
    assert G.min() > -1e-3 * z.max()
    assert not verify_polynomial_dominates(upper, p.support, p.event).ok  # q alone does not dominate 1_E


# ----------------------------------------------------------------------------- property tests
@st.composite
def nonnegative_laws(draw):
    n = draw(st.integers(2, 5))
    xs = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n, unique=True))
    ws = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    pmf = [(F(x, 4), F(w, sum(ws))) for x, w in zip(xs, ws)]
    t = F(draw(st.integers(1, 40)), 4)
    kind = draw(st.sampled_from(["ge", "gt", "dev", "union"]))
    if kind == "dev":
        event = Event.deviation(moments_of(pmf, 1)[1], t)
    elif kind == "union":
        event = Event.parse(f"union:le:{t / 4},ge:{t + 1}")
    else:
        event = Event.parse(f"{kind}:{t}")
    return pmf, event, draw(st.integers(1, 3))


@given(nonnegative_laws())
@settings(max_examples=25, **FAST)
def test_half_line_bounds_contain_the_truth(case):
    pmf, event, order = case
    mom = moments_of(pmf, order)
    p = MomentProblem(mom, Support.halfline(0), event)
    box = MomentProblem.from_box(mom, mom, p.support, event)
    truth = prob_of(pmf, event)
    for r in (bound(p, "sdp"), bound(box, "sos")):
        assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12


def _unimodal_law(draw):
    """X = m + U Y with Y discrete: exact moments and exact P(X in E)."""
    m = F(draw(st.integers(-4, 4)), 2)
    n = draw(st.integers(1, 4))
    ys = draw(st.lists(st.integers(-12, 12), min_size=n, max_size=n, unique=True))
    ws = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    law = [(F(y, 2), F(w, sum(ws))) for y, w in zip(ys, ws)]
    return m, law


def _unimodal_truth(m, law, event):
    total = F(0)
    for y, w in law:
        if y == 0:
            total += w * int(event.indicator(m))
            continue
        a, b = sorted((m, m + y))
        length = F(0)
        for sp in event.spans():
            lo = a if sp.lo is None else max(a, sp.lo)
            hi = b if sp.hi is None else min(b, sp.hi)
            length += max(F(0), hi - lo)
        total += w * length / abs(y)
    return total


def _unimodal_moments(m, law, order):
    central = [sum((w * y**k for y, w in law), F(0)) / (k + 1) for k in range(order + 1)]
    return tuple(sum((math.comb(k, j) * m ** (k - j) * central[j] for j in range(k + 1)), F(0)) for k in range(order + 1))


@given(st.data())
@settings(max_examples=20, **FAST)
def test_unimodal_known_mode_bounds_contain_the_truth(data):
    m, law = _unimodal_law(data.draw)
    order = data.draw(st.integers(1, 4))
    t = F(data.draw(st.integers(-10, 10)), 2)
    event = data.draw(st.sampled_from([Event.ge(t), Event.le(t), Event.deviation(m, abs(t) + 1),
                                       Event.union(Event.le(t), Event.ge(t + 2))]))
    p = MomentProblem(_unimodal_moments(m, law, order), Support.real(), event, shape=Shape.unimodal(m))
    truth = _unimodal_truth(m, law, event)
    r = bound(p, "sos")
    assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12
    plain = bound(p.__class__(p.moments, p.support, p.event), "sdp")
    assert r.upper <= plain.upper + 1e-7 and r.lower >= plain.lower - 1e-7  # the shape only tightens


@given(st.data())
@settings(max_examples=12, **FAST)
def test_unimodal_bounds_on_an_interval_or_half_line_contain_the_truth(data):
    m, law = _unimodal_law(data.draw)
    ends = [m + y for y, _ in law] + [m]
    support = data.draw(st.sampled_from([Support.interval(min(ends) - 1, max(ends)), Support.halfline(min(ends))]))
    t = F(data.draw(st.integers(-10, 10)), 2)
    event = data.draw(st.sampled_from([Event.ge(t), Event.between(t, t + 2), Event.deviation(m, abs(t) + 1)]))
    shape = data.draw(st.sampled_from([Shape.unimodal(m), Shape.unimodal()]))
    p = MomentProblem(_unimodal_moments(m, law, 2), support, event, shape=shape)
    truth = _unimodal_truth(m, law, event)
    r = bound(p, "sos", mode_pieces=4, mode_refine=4)
    assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12


@given(st.data())
@settings(max_examples=6, **FAST)
def test_unimodal_unknown_mode_bounds_contain_the_truth(data):
    m, law = _unimodal_law(data.draw)
    t = F(data.draw(st.integers(-10, 10)), 2)
    event = data.draw(st.sampled_from([Event.ge(t), Event.deviation(m, abs(t) + 1)]))
    p = MomentProblem(_unimodal_moments(m, law, 2), Support.real(), event, shape=Shape.unimodal())
    truth = _unimodal_truth(m, law, event)
    r = bound(p, "sos", mode_pieces=4, mode_refine=4)
    assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12


@given(st.data())
@settings(max_examples=15, **FAST)
def test_symmetric_bounds_contain_the_truth(data):
    c = F(data.draw(st.integers(-4, 4)), 2)
    n = data.draw(st.integers(1, 4))
    ws = data.draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    ds = data.draw(st.lists(st.integers(0, 12), min_size=n, max_size=n, unique=True))
    pmf = []
    for d, w in zip(ds, ws):
        pmf += [(c, F(w, sum(ws)))] if d == 0 else [(c + F(d, 2), F(w, 2 * sum(ws))), (c - F(d, 2), F(w, 2 * sum(ws)))]
    order = data.draw(st.integers(2, 4))
    t = F(data.draw(st.integers(-10, 10)), 2)
    event = data.draw(st.sampled_from([Event.ge(t), Event.lt(t), Event.between(t, t + 1),
                                       Event.union(Event.le(t), Event.ge(t + 3))]))
    reach = max(abs(x - c) for x, _ in pmf)
    support = data.draw(st.sampled_from([Support.real(), Support.interval(c - reach, c + reach + 3),
                                         Support.halfline(c - reach - 1)]))
    p = MomentProblem(moments_of(pmf, order), support, event, shape=Shape.symmetric())
    truth = prob_of(pmf, event)
    r = bound(p, "sos")
    assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12


@given(st.data())
@settings(max_examples=15, **FAST)
def test_box_bounds_contain_the_truth(data):
    n = data.draw(st.integers(2, 5))
    xs = data.draw(st.lists(st.integers(0, 20), min_size=n, max_size=n, unique=True))
    ws = data.draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    pmf = [(F(x, 20), F(w, sum(ws))) for x, w in zip(xs, ws)]
    order = data.draw(st.integers(1, 3))
    mom = moments_of(pmf, order)
    widen = [F(data.draw(st.integers(0, 5)), 100) for _ in range(2 * order)]
    lo = [mom[k + 1] - widen[2 * k] for k in range(order)]
    hi = [mom[k + 1] + widen[2 * k + 1] for k in range(order)]
    t = F(data.draw(st.integers(1, 19)), 20)
    event = data.draw(st.sampled_from([Event.ge(t), Event.le(t), Event.deviation(mom[1], t)]))
    p = MomentProblem.from_box([1, *lo], [1, *hi], Support.interval(0, 1), event)
    truth = prob_of(pmf, event)
    r = bound(p, "sos")
    assert r.certified and r.lower - 1e-12 <= truth <= r.upper + 1e-12
