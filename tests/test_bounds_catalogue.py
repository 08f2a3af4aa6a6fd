"""Known-answer catalogue: every registered method on every catalogue problem it applies to.

Every bound-kind result must contain the sharp interval (a valid bound can never be
tighter than the sharp one) and the true probability; sharp methods must equal it.
Methods registered by other modules are picked up automatically through the registry; the
applicable (problem, method) pairs are chosen at collection time by `BoundMethod.applies`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction as F

import pytest

from momentbound.bounds import METHODS, Event, Kind, MomentProblem, Status, Support, bound

from test_bounds_lp import brute_force_lp, moments_of

TOL = 1e-12  # float rounding allowance for methods that do not report exact values


@dataclass(frozen=True)
class Entry:
    name: str
    problem: MomentProblem
    sharp: tuple[F, F] | None  # the sharp (lower, upper), independently known
    truth: F | None  # P(E) under a law with these moments
    sharp_methods: tuple[str, ...] = ()


def _binomial_entry() -> Entry:
    n, p = 12, F(1, 3)
    pmf = tuple((k, math.comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1))
    prob = MomentProblem(moments_of(pmf, 4), Support.grid(0, n), Event.le(3), pmf=pmf)
    sharp = brute_force_lp(range(n + 1), prob.moments, prob.event)  # independent: every basis
    return Entry("binomial-12-order4", prob, sharp, sum(q for k, q in pmf if k <= 3), ("lp", "lp-dual", "prekopa"))


def _z_entry() -> Entry:
    from momentbound.exact import z_distribution
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = equal_cells_model((2, 2, 2))
    z = naive_bayes_statistic(model, (0, 0, 0))
    lo, hi = z.support(10)
    law = z_distribution(model, 10, (0, 0, 0), arithmetic="rational")
    pmf = tuple((F(v), F(q)) for v, q in zip(law.values, law.probs))
    prob = MomentProblem(tuple(raw_moments(z, model, 10, 6).values), Support.grid(lo, hi), Event.gt(0), pmf=pmf)
    return Entry("naive-bayes-Z-N10-order6", prob, None, F(law.prob_positive()))


ORACLE7_LAW = ((1, F(1, 4)), (3, F(1, 2)), (5, F(1, 4)))

CATALOGUE = [
    Entry("cantelli-real", MomentProblem((1, 0, 1), Support.real(), Event.ge(2), pmf=((F(-1, 2), F(4, 5)), (2, F(1, 5)))),
          (F(0), F(1, 5)), F(1, 5), ("closed-form",)),
    Entry("sos-interval-1/37",
          MomentProblem((1, 1, F(5, 4)), Support.interval(0, 5), Event.between(4, 5),
                        pmf=((F(11, 12), F(36, 37)), (4, F(1, 37)))),
          (F(0), F(1, 37)), F(1, 37)),
    Entry("cms-standard-normal", MomentProblem((1, 0, 1, 0, 3), Support.real(), Event.le(0)), (F(1, 6), F(5, 6)), None),
    Entry("oracle7-two-moments", MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5), pmf=ORACLE7_LAW),
          (F(0), F(1, 3)), F(1, 4), ("lp", "lp-dual", "prekopa")),
    Entry("oracle7-three-moments", MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5), pmf=ORACLE7_LAW),
          (F(1, 20), F(4, 15)), F(1, 4), ("lp", "lp-dual", "prekopa")),
]

CATALOGUE += [_binomial_entry(), _z_entry()]  # cheap to build (< 1 s), needed at collection time
SLOW = {"naive-bayes-Z-N10-order6"}


def _applicable(entry: Entry, method: str) -> bool:
    """The registry's own applicability check, decided at collection time."""
    return METHODS[method]().applies(entry.problem) is None


PARAMS = [
    pytest.param(e, m, marks=[pytest.mark.slow] if e.name in SLOW else [], id=f"{e.name}-{m}")
    for e in CATALOGUE
    for m in METHODS
    if _applicable(e, m)
]


def _le(a, b) -> bool:
    """a <= b, exactly when both are Fractions, else with the float tolerance."""
    if isinstance(a, F) and isinstance(b, F):
        return a <= b
    return float(a) <= float(b) + TOL


@pytest.mark.parametrize("entry, method", PARAMS)
def test_catalogue(entry, method):
    r = bound(entry.problem, method)
    assert r.method == method
    lower = r.exact_lower if r.exact_lower is not None else r.lower
    upper = r.exact_upper if r.exact_upper is not None else r.upper
    assert 0 <= r.lower <= r.upper <= 1 or r.kind is not Kind.BOUND
    if r.kind is Kind.BOUND:
        assert r.certified and r.status.is_proven, r.message
        if entry.sharp is not None:
            assert _le(lower, entry.sharp[0]) and _le(entry.sharp[1], upper), (lower, upper, entry.sharp)
            if method in entry.sharp_methods or r.status is Status.OPTIMAL:
                assert (lower, upper) == entry.sharp
        if entry.truth is not None:
            assert _le(lower, entry.truth) and _le(entry.truth, upper)
    elif r.kind is Kind.EXACT:
        assert r.exact_lower == r.exact_upper == entry.truth
    elif r.kind is Kind.APPROXIMATION:
        assert 0 <= r.lower <= r.upper <= 1 and not r.certified
    elif r.kind is Kind.ESTIMATE:
        assert 0 <= r.lower <= r.upper <= 1 and r.confidence is not None
