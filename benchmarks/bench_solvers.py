"""Direct paths (HiGHS / Clarabel called directly) against the cvxpy route (``bound(..., solver=NAME)``).

For each optimisation method (``lp``, ``lp-dual``, ``sqp``, ``sdp``) and each installed cvxpy
solver, on three workloads (the 3-moment oracle on ``grid:0:6``, the binomial(40, 0.3) cdf at 12
moments, and ``P[Z_(0,0) > 0]`` of the 2x2x2 equal-cells model at N = 100 with 6 moments), the
script prints the direct time, the cvxpy time, their ratio, and whether the cvxpy answer
finished and agrees with the direct one.  Both routes verify their certificates in exact
arithmetic, so the ratio measures the solver path only.  One warm-up solve per solver runs
first (cvxpy's first compile imports the solver interfaces, about 3 s).

Usage: ``python benchmarks/bench_solvers.py [--repeats 3] [--solvers CLARABEL,HIGHS] [--json] [--quick]``
(``--quick``: one repeat, the first two workloads, solvers CLARABEL and HIGHS where installed.)
(SCS and OSQP take minutes on the exchange method for the naive Bayes workload.)
Timings are wall-clock seconds (median over repeats) on whatever machine runs this.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from fractions import Fraction
from typing import Any

from momentbound.bounds import Event, MomentProblem, Support, bound
from momentbound.bounds.formulations import SOLVER_METHODS, installed_solvers, sdp_solvers
from momentbound.errors import MomentboundError


def workloads() -> list[tuple[str, MomentProblem]]:
    from momentbound.studies.method_comparison import table4_problem

    n, p = 40, Fraction(3, 10)
    pmf = [(k, math.comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]
    binom = MomentProblem(tuple(sum(q * Fraction(k) ** j for k, q in pmf) for j in range(13)), Support.grid(0, n), Event.le(8))
    return [
        ("oracle 3 moments, grid:0:6", MomentProblem((1, 3, 11, 45), Support.grid(0, 6), Event.ge(5))),
        ("binomial(40, .3), 12 moments", binom),
        ("P[Z > 0], N = 100, 6 moments", table4_problem(100, 6)[0]),
    ]


def timed(problem: MomentProblem, method: str, solver: str | None, repeats: int) -> tuple[Any, float, str]:
    times, res, err = [], None, ""
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            res = bound(problem, method, allow_unverified=True, **({} if solver is None else {"solver": solver}))
        except MomentboundError as exc:
            err = f"{type(exc).__name__}: {str(exc)[:60]}"
            res = None
        times.append(time.perf_counter() - t0)
        if res is None:
            break
    return res, statistics.median(times), err


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--solvers", default=",".join(installed_solvers()))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one repeat, two small workloads, two solvers (seconds)")
    args = ap.parse_args()
    solvers = [s.strip().upper() for s in args.solvers.split(",") if s.strip()]
    cases = workloads()
    if args.quick:
        args.repeats = 1
        solvers = [s for s in solvers if s in ("CLARABEL", "HIGHS")]
        cases = cases[:2]
    warm = MomentProblem((1, 3, 11), Support.grid(0, 6), Event.ge(5))
    for s in solvers:  # first cvxpy compile per solver: not part of the timings
        try:
            bound(warm, "lp", solver=s)
        except MomentboundError:
            pass
    rows = []
    if not args.json:
        print(f"{'workload':32} {'method':8} {'solver':9} {'direct s':>9} {'cvxpy s':>9} {'ratio':>7}  status / agrees")
    for label, problem in cases:
        for method in SOLVER_METHODS:
            direct, t_direct, derr = timed(problem, method, None, args.repeats)
            for s in solvers:
                if method == "sdp" and s not in sdp_solvers():
                    rows.append(dict(workload=label, method=method, solver=s, direct=t_direct, cvxpy=math.nan,
                                     ratio=math.nan, status="no PSD cone", agrees=None))
                    if not args.json:
                        _print(rows[-1])
                    continue
                res, t_cv, err = timed(problem, method, s, args.repeats)
                agrees = None
                if res is not None and direct is not None:
                    agrees = abs(res.lower - direct.lower) <= 1e-6 and abs(res.upper - direct.upper) <= 1e-6
                rows.append(dict(workload=label, method=method, solver=s, direct=t_direct, cvxpy=t_cv,
                                 ratio=t_cv / t_direct if t_direct > 0 else math.nan,
                                 status=(res.status.value if res is not None else err) or derr, agrees=agrees))
                if not args.json:
                    _print(rows[-1])
    if args.json:
        print(json.dumps(rows, indent=1, default=str))


def _print(r: dict[str, Any]) -> None:
    print(f"{r['workload']:32} {r['method']:8} {r['solver']:9} {r['direct']:9.4f} {r['cvxpy']:9.4f} "
          f"{r['ratio']:7.1f}  {r['status']} / {r['agrees']}", flush=True)


if __name__ == "__main__":
    main()
