"""Sharp discrete LP (``lp`` / ``lp-dual``: scaled basis, column generation, exact finish) against
the baseline "plain LP over the fully enumerated integer grid in raw monomials" (scipy HiGHS),
timed in the same run.

Workloads: the binomial(40, 0.3) cdf at 8, 12, 16 moments (small grid, ill-conditioned moments)
and ``P[Z_(0,0) > 0]`` of the 2x2x2 equal-cells naive Bayes model (6 moments at N = 10, 100, 1000;
12 moments at N = 100).  The baseline runs only where the enumerated grid fits in memory
(N = 10); its answer is compared with the exact sharp value.

``prekopa`` (exact dual simplex from the rounded continuous extremal measure) is timed on the same
workloads, with its previous start (``start="coarse"``: coarse-to-fine sub-grids, then pairs next
to the threshold, the code before the continuous-measure start) as its own before/after baseline.

Usage: ``python benchmarks/bench_bounds_lp.py [--repeats 1] [--skip-slow] [--skip-prekopa-before] [--quick]``
(``--quick``: 8 and 12 moments, N = 10 and 100, without the two slow rows.)
Timings are wall-clock seconds on whatever machine runs this (RESULTS.md says which).
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from momentbound.bounds import Event, MomentProblem, Support, bound


def baseline_raw_lp(problem: MomentProblem, max_points: int = 10**6) -> tuple[float, float, str, float]:
    """(lower, upper, status, seconds) of the plain LP in raw powers over every grid point."""
    from scipy.optimize import linprog

    lo, hi = int(problem.support.lo), int(problem.support.hi)
    if hi - lo + 1 > max_points:
        return math.nan, math.nan, f"not run ({hi - lo + 1:.2e} columns)", math.nan
    t0 = time.perf_counter()
    xs = np.arange(lo, hi + 1, dtype=float)
    A = np.vstack([xs**k for k in range(problem.order + 1)])
    b = np.array([float(m) for m in problem.moments])
    ind = np.array([1.0 if problem.event.indicator(int(x)) else 0.0 for x in xs])
    vals, msgs = [], []
    for sign in (1.0, -1.0):  # +1: minimise (lower), -1: maximise (upper)
        res = linprog(sign * ind, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
        vals.append(sign * res.fun if res.status == 0 else math.nan)
        msgs.append("optimal" if res.status == 0 else res.message.split(".")[0])
    return vals[0], vals[1], "/".join(msgs), time.perf_counter() - t0


def binomial_problem(order: int, t: int) -> tuple[MomentProblem, Fraction]:
    n, p = 40, Fraction(3, 10)
    pmf = [(k, math.comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]
    mom = tuple(sum(q * Fraction(k) ** j for k, q in pmf) for j in range(order + 1))
    return MomentProblem(mom, Support.grid(0, n), Event.le(t)), sum(q for k, q in pmf if k <= t)


def z_problem(N: int, order: int) -> tuple[MomentProblem, Any]:
    from momentbound.exact import prob_z_positive
    from momentbound.model import equal_cells_model
    from momentbound.model.statistics import naive_bayes_statistic
    from momentbound.moments.core import raw_moments

    model = equal_cells_model((2, 2, 2))
    z = naive_bayes_statistic(model, (0, 0, 0))
    lo, hi = z.support(N)
    prob = MomentProblem(tuple(raw_moments(z, model, N, order).values), Support.grid(lo, hi), Event.gt(0))
    # the exact value is another module's job (bench_exact.py); here it is only a sanity check
    return prob, (prob_z_positive(model, N, (0, 0, 0)).positive if N <= 100 else None)


def table4(N: int) -> tuple[MomentProblem, Any]:
    """The Table 4 workload exactly as ``momentbound compare`` / bench_bounds.py build it."""
    from momentbound.studies.method_comparison import table4_problem
    from momentbound.exact import prob_z_positive
    from momentbound.model import equal_cells_model

    prob, _ = table4_problem(N, 6)
    return prob, (prob_z_positive(equal_cells_model((2, 2)), N, (0, 0)).positive if N <= 100 else None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--skip-slow", action="store_true", help="skip the 12-moment N = 100 workload")
    ap.add_argument("--skip-prekopa-before", action="store_true",
                    help="do not time prekopa's previous start (about 70 s at N = 1000)")
    ap.add_argument("--quick", action="store_true",
                    help="8 and 12 moments, N = 10 and 100; implies --skip-slow --skip-prekopa-before")
    args = ap.parse_args()
    if args.quick:
        args.skip_slow = args.skip_prekopa_before = True
    orders, sizes = ((8, 12), (10, 100)) if args.quick else ((8, 12, 16), (10, 100, 1000))
    work = [(f"binomial(40,0.3) F(12), {k} moments", *binomial_problem(k, 12)) for k in orders]
    work += [(f"Z_(0,0) > 0, N = {N}, 6 moments", *z_problem(N, 6)) for N in sizes]
    work += [(f"Table 4 (compare.table4_problem), N = {N}", *table4(N)) for N in sizes]
    if not args.skip_slow:
        work.append(("Z_(0,0) > 0, N = 100, 12 moments", *z_problem(100, 12)))
    header = ("workload", "grid points", "baseline [lo, hi]", "baseline status", "baseline s",
              "lp [lo, hi]", "lp status", "lp s", "lp-dual s", "truth", "ratio baseline/lp",
              "prekopa [lo, hi]", "prekopa status", "prekopa s", "prekopa pivots", "prekopa before [lo, hi]",
              "prekopa before s", "ratio before/prekopa")
    print(" | ".join(header), flush=True)
    print("|".join("---" for _ in header))
    for name, prob, truth in work:
        blo, bhi, bstat, bsec = baseline_raw_lp(prob)
        times = {}
        res = {}
        for method in ("lp", "lp-dual"):
            best = math.inf
            for _ in range(max(1, args.repeats)):
                t0 = time.perf_counter()
                r = bound(prob, method)
                best = min(best, time.perf_counter() - t0)
            times[method], res[method] = best, r
        r = res["lp"]
        assert (r.exact_lower, r.exact_upper) == (res["lp-dual"].exact_lower, res["lp-dual"].exact_upper)
        assert truth is None or r.lower <= float(truth) <= r.upper
        base_ok = ""
        if not math.isnan(blo):
            wrong = abs(blo - r.lower) > 1e-6 or abs(bhi - r.upper) > 1e-6
            base_ok = " (WRONG)" if wrong else " (correct)"
        ratio = f"{bsec / times['lp']:.2f}" if not math.isnan(bsec) else "-"
        pk, pk_s = None, math.inf
        for _ in range(max(1, args.repeats)):
            t0 = time.perf_counter()
            pk = bound(prob, "prekopa")
            pk_s = min(pk_s, time.perf_counter() - t0)
        # prekopa is sharp and exact wherever lp proves optimality: the same rationals
        if r.status.value == "optimal":
            assert (pk.exact_lower, pk.exact_upper) == (r.exact_lower, r.exact_upper)
        before, before_s = "-", math.nan
        if not args.skip_prekopa_before:
            t0 = time.perf_counter()
            old = bound(prob, "prekopa", start="coarse")
            before_s = time.perf_counter() - t0
            before = f"[{old.lower:.6g}, {old.upper:.6g}] {old.status.value}"
        print(" | ".join([
            name, f"{prob.support.size:.3g}", f"[{blo:.6g}, {bhi:.6g}]{base_ok}", bstat,
            "-" if math.isnan(bsec) else f"{bsec:.3f}", f"[{r.lower:.6g}, {r.upper:.6g}]", r.status.value,
            f"{times['lp']:.3f}", f"{times['lp-dual']:.3f}", "-" if truth is None else f"{float(truth):.6g}", ratio,
            f"[{pk.lower:.6g}, {pk.upper:.6g}]", pk.status.value, f"{pk_s:.3f}", str(pk.diagnostics.iterations),
            before, "-" if math.isnan(before_s) else f"{before_s:.3f}",
            "-" if math.isnan(before_s) else f"{before_s / pk_s:.1f}",
        ]), flush=True)


if __name__ == "__main__":
    main()
