"""Many moments of a concentrated law: the discrete LP and Prekopa's method stay sharp and exact.

Witnesses: the exact binomial cdf (closed form, ``math.comb``); two independent exact
algorithms (the LP's exact finish and Prekopa's dual simplex) agreeing on the sharp value;
the exact pmf the random moment sequences come from (so they are feasible by construction).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from momentbound.bounds import Event, MomentProblem, Support, bound
from momentbound.bounds.prekopa import exact_feasibility
from momentbound.bounds.result import Status
from momentbound.errors import InfeasibleMoments

FAST = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def _binomial(n: int, p: F) -> list[tuple[int, F]]:
    return [(k, math.comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]


def _moments(pmf: list[tuple[int, F]], order: int) -> tuple[F, ...]:
    return tuple(sum((q * F(x) ** j for x, q in pmf), F(0)) for j in range(order + 1))


_PMF = _binomial(200, F(3, 10))
_TRUTH = sum((q for k, q in _PMF if k <= 50), F(0))


@pytest.fixture(scope="module")
def binomial_results() -> dict[tuple[int, str], object]:
    out = {}
    for order in (16, 20, 24):
        problem = MomentProblem(_moments(_PMF, order), Support.grid(0, 200), Event.le(50))
        for method in ("lp", "prekopa", "sdp"):
            out[(order, method)] = bound(problem, method)
    return out


@pytest.mark.parametrize("order", [16, 20, 24])
@pytest.mark.parametrize("method", ["lp", "prekopa", "sdp"])
def test_binomial_200_contains_the_exact_cdf(binomial_results, order: int, method: str) -> None:
    r = binomial_results[(order, method)]
    assert r.certified and r.status.is_proven
    assert r.exact_lower <= _TRUTH <= r.exact_upper
    assert r.upper - r.lower < 1  # not the trivial bound
    if method in ("lp", "prekopa"):
        assert r.status is Status.OPTIMAL, r.message


@pytest.mark.parametrize("order", [16, 20, 24])
def test_binomial_200_lp_and_prekopa_are_sharp_and_equal(binomial_results, order: int) -> None:
    lp, pk, sdp = (binomial_results[(order, m)] for m in ("lp", "prekopa", "sdp"))
    assert abs(lp.lower - pk.lower) <= 1e-9 and abs(lp.upper - pk.upper) <= 1e-9
    assert (lp.exact_lower, lp.exact_upper) == (pk.exact_lower, pk.exact_upper)
    # the interval relaxation (sdp) is valid but cannot be sharper than the discrete optimum
    assert sdp.exact_lower <= lp.exact_lower and lp.exact_upper <= sdp.exact_upper


def test_more_moments_never_widen_the_sharp_bound(binomial_results) -> None:
    widths = [binomial_results[(m, "lp")].exact_upper - binomial_results[(m, "lp")].exact_lower for m in (16, 20, 24)]
    assert widths[0] > widths[1] > widths[2]


def test_exact_feasibility_decides_both_ways() -> None:
    feasible = MomentProblem(_moments(_PMF, 24), Support.grid(0, 200), Event.le(50))
    assert exact_feasibility(feasible) is True
    # two atoms between the integers: Hankel-feasible on [0, 300] but on no integer grid
    atoms = [(F(1, 2), F(1, 2)), (F(3, 2), F(1, 2))]
    bad = MomentProblem(_moments(atoms, 4), Support.grid(0, 300), Event.le(1))
    with pytest.raises(InfeasibleMoments, match="Farkas"):
        exact_feasibility(bad)
    for method in ("lp", "prekopa"):
        with pytest.raises(InfeasibleMoments, match="Farkas"):
            bound(bad, method)


@st.composite
def discrete_laws(draw: st.DrawFn) -> tuple[list[tuple[int, F]], int, int, Event]:
    if draw(st.booleans()):
        n = draw(st.integers(30, 150))
        p = F(draw(st.integers(1, 19)), 20)
        pmf = [(k, q) for k, q in _binomial(n, p)]
    else:
        n = draw(st.integers(20, 120))
        weights = draw(st.lists(st.integers(0, 30), min_size=n + 1, max_size=n + 1).filter(lambda w: sum(1 for v in w if v) >= 3))
        total = sum(weights)
        pmf = [(k, F(w, total)) for k, w in enumerate(weights) if w]
    order = draw(st.integers(8, 20))
    t = draw(st.integers(1, n - 1))
    kind = draw(st.sampled_from(["le", "gt"]))
    return pmf, n, order, Event.parse(f"{kind}:{t}")


@settings(max_examples=12, **FAST)
@given(discrete_laws())
def test_feasible_sequences_are_never_called_infeasible(case) -> None:
    pmf, n, order, event = case
    problem = MomentProblem(_moments(pmf, order), Support.grid(0, n), event)
    truth = sum((q for x, q in pmf if event.indicator(x)), F(0))
    results = {}
    for method in ("lp", "prekopa"):
        r = bound(problem, method)  # InfeasibleMoments here would fail the test
        assert r.certified
        assert r.exact_lower <= truth <= r.exact_upper
        results[method] = r
    if results["lp"].status is Status.OPTIMAL and results["prekopa"].status is Status.OPTIMAL:
        assert results["lp"].exact_upper == results["prekopa"].exact_upper
        assert results["lp"].exact_lower == results["prekopa"].exact_lower
