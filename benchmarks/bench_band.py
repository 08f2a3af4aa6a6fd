"""The cdf band (``cdf_band``: warm-started LP along t) against K independent ``bound`` calls,
timed in the same run.

Workloads: binomial(200, 0.3) with exact moments, F(t) = P[X <= t] at K = 50 and 200 evenly
spaced t, on the grid {0..200} (8 moments, method lp and prekopa) and on the interval
[0, 200] (4 moments, method lp).  For each: band seconds, independent seconds, their
ratio, the largest difference between the two (grid: exact equality expected), and on the
interval how many points the band bounds more tightly than the pointwise lp.

Usage: ``python benchmarks/bench_band.py [--points 50,200] [--repeats 1] [--quick]``
(``--quick``: K = 10 only.)
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

from momentbound.bounds import BoundResult, Event, MomentProblem, Support, bound, cdf_band
from momentbound.errors import SolverFailed


def binomial_moments(n: int, p: Fraction, order: int) -> tuple[Fraction, ...]:
    pmf = [(k, math.comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]
    return tuple(sum((q * Fraction(k) ** j for k, q in pmf), Fraction(0)) for j in range(order + 1))


def independent(problem: MomentProblem, ts, method: str) -> tuple[list[BoundResult | None], float]:
    start = time.perf_counter()
    out: list[BoundResult | None] = []
    for t in ts:
        try:
            r = bound(problem.with_event(Event.le(t)), method)
        except SolverFailed:
            r = None
        out.append(r)  # type: ignore[arg-type]
    return out, time.perf_counter() - start


def run(support: str, order: int, method: str, k: int, repeats: int) -> dict[str, object]:
    mom = binomial_moments(200, Fraction(3, 10), order)
    sup = Support.parse(support)
    best_band, best_ind = math.inf, math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        band = cdf_band(mom, sup, points=k, method=method)
        best_band = min(best_band, time.perf_counter() - start)
        ts = [t for t in band.t if t < sup.hi]  # the top point is F = 1 exactly in the band
        refs, sec = independent(MomentProblem(mom, sup, Event.le(0)), ts, method)
        best_ind = min(best_ind, sec * len(band.t) / len(ts))
    diff, tighter = 0.0, 0
    for r, ref in zip(band.results, refs):
        if ref is None:
            continue
        diff = max(diff, abs(r.lower - ref.lower), abs(r.upper - ref.upper))
        tighter += (r.lower > ref.lower + 1e-9) or (r.upper < ref.upper - 1e-9)
    return {
        "support": support, "order": order, "method": method, "K": k,
        "band_s": best_band, "independent_s": best_ind, "ratio": best_ind / best_band,
        "warm": sum(band.warm), "certified": band.certified, "max_diff": diff, "band_tighter": tighter,
        "failed_independent": sum(r is None for r in refs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", default="50,200")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="K = 10 only (seconds)")
    args = ap.parse_args()
    if args.quick:
        args.points = "10"
    ks = [int(v) for v in args.points.split(",")]
    cases = [("grid:0:200", 8, "lp"), ("grid:0:200", 8, "prekopa"), ("interval:0:200", 4, "lp")]
    cols = ["support", "order", "method", "K", "band_s", "independent_s", "ratio", "warm", "certified",
            "max_diff", "band_tighter", "failed_independent"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for support, order, method in cases:
        for k in ks:
            row = run(support, order, method, k, args.repeats)
            print("| " + " | ".join(f"{row[c]:.3g}" if isinstance(row[c], float) else str(row[c]) for c in cols) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
