"""An independent reference for the optimum of the ``sdp`` method's own program on a grid.

On a grid support the ``sdp`` method relaxes each run of integers with the same indicator to
the closed interval between its ends (docs/bounds.md): its program is the moment problem on the
union of those intervals (the "interval hull"), whose dual is the sum-of-squares program it
solves.  Here that optimum is enclosed by linear programming and exact arithmetic alone:

* lower end (for the upper bound): the exact, sharp LP optimum (``lp``, status ``optimal``) on a
  finite subset of the hull (every integer, every ``1/K``-point, and the touching points of
  earlier certificates): a smaller support can only give a smaller supremum;
* upper end: that LP's own dual polynomial, checked on every interval of the hull by exact root
  isolation (:func:`momentbound.bounds.certificate.polynomial_minimum`) and shifted by its
  most negative slack: a certificate valid on the whole hull.

The lower bound is enclosed the same way with the roles exchanged.  Points are added where the
certificate dips until the enclosure is narrower than ``width``.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import flint
import numpy as np

from momentbound.bounds import Event, MomentProblem, Support, bound
from momentbound.bounds.certificate import exact_u_poly, polynomial_minimum
from momentbound.bounds.result import Status
from momentbound.errors import SolverFailed


def random_grid_problem(rng: np.random.Generator, concentrated: bool = False) -> MomentProblem:
    """A random feasible problem with an event with integer ends (so the indicator is constant on
    each hull interval).  Spread: a Dirichlet law on ``0..n`` (``4 <= n <= 40``), 2 to 8 moments.
    Concentrated: binomial(n, p) with ``20 <= n <= 200`` (its mass within a few standard
    deviations of a point of a long grid), 4 to 10 moments, thresholds within 3 sd of the mean."""
    if concentrated:
        n = int(rng.integers(20, 201))
        pr = F(int(rng.integers(1, 10)), 10)
        pmf = [math.comb(n, k) * pr**k * (1 - pr) ** (n - k) for k in range(n + 1)]
        order = int(rng.integers(4, 11))
        mean, sd = float(n * pr), math.sqrt(float(n * pr * (1 - pr)))
        a = min(n - 1, max(1, int(round(mean + sd * float(rng.uniform(-3, 3))))))
        event = Event.le(a) if rng.integers(0, 2) else Event.ge(a)
        moments = tuple(sum((p * F(x) ** j for x, p in enumerate(pmf)), F(0)) for j in range(order + 1))
        return MomentProblem(moments, Support.grid(0, n), event)
    n = int(rng.integers(4, 41))
    w = rng.dirichlet(np.full(n + 1, float(rng.choice([0.3, 1.0, 5.0]))))
    q = [F(float(v)).limit_denominator(10**6) + F(1, 10**7) for v in w]
    total = sum(q, F(0))
    pmf = [v / total for v in q]
    order = int(rng.integers(2, 9))
    moments = tuple(sum((p * F(x) ** j for x, p in enumerate(pmf)), F(0)) for j in range(order + 1))
    kind = int(rng.integers(0, 3))
    a = int(rng.integers(1, n))
    if kind == 0:
        event = Event.ge(a)
    elif kind == 1:
        event = Event.le(a)
    else:
        b = int(rng.integers(a, n))
        event = Event.between(a, b)
    return MomentProblem(moments, Support.grid(0, n), event)


def _hull(problem: MomentProblem) -> list[tuple[int, int, int]]:
    return [(int(pc.lo), int(pc.hi), int(pc.target)) for pc in problem.event.pieces(problem.support)]


def hull_optimum(problem: MomentProblem, *, K: int = 4, rounds: int = 25, width: F = F(1, 10**9)) -> dict[str, tuple[F, F]]:
    """``{"upper": (lo, hi), "lower": (lo, hi)}``: exact enclosures of the two optima of the interval-hull program.

    A refinement round whose LP fails keeps the previous round's (valid, wider) enclosures;
    ``SolverFailed`` propagates only when the first round fails."""
    pieces = _hull(problem)
    points: set[F] = set()
    for lo, hi, _t in pieces:
        points.update(lo + F(j, K) for j in range((hi - lo) * K + 1))
    out: dict[str, tuple[F, F]] = {}
    for _ in range(rounds):
        finite = MomentProblem(problem.exact_moments, Support.finite(sorted(points)), problem.event)
        try:
            r = bound(finite, "lp")
        except SolverFailed:
            if not out:
                raise
            break
        if r.status is not Status.OPTIMAL:  # not the sharp value on the subset: no enclosure from it
            if not out:
                raise SolverFailed(f"lp on the hull subset: {r.message}")
            break
        new: set[F] = set()
        for cert in r.certificates:
            poly = exact_u_poly(cert.coefficients, cert.basis)
            amap = cert.domain_map
            worst = F(0)
            for lo, hi, t in pieces:
                slack = poly - flint.fmpq_poly([t]) if cert.side == "upper" else flint.fmpq_poly([t]) - poly
                ulo, uhi = sorted((amap.to_unit(lo), amap.to_unit(hi)))
                worst = min(worst, polynomial_minimum(slack, ulo, uhi))
                # the certificate's local minima on this interval: candidate points for the next round
                coeffs = [float(c) for c in slack.coeffs()] or [0.0]
                crit = np.polynomial.polynomial.polyroots(np.polynomial.polynomial.polyder(coeffs)) if len(coeffs) > 2 else []
                for z in crit:
                    if abs(z.imag) < 1e-9 and float(ulo) < z.real < float(uhi):
                        x = amap.from_unit(F(float(z.real)))
                        if lo < x < hi:
                            new.add(x.limit_denominator(10**7))
            value = cert.value
            if cert.side == "upper":
                out["upper"] = (value, value - worst)
            else:
                out["lower"] = (value + worst, value)
        if all(hi - lo <= width for lo, hi in out.values()) or not (new - points):
            break
        points |= new
    return out


def distance(value: F, enclosure: tuple[F, F]) -> float:
    """How far ``value`` is from an enclosed optimum at worst (0 inside a point enclosure)."""
    lo, hi = enclosure
    return float(max(abs(value - lo), abs(value - hi)))

