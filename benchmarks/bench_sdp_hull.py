"""How close ``sdp`` comes to the optimum of its own program on grids, and how far that is from sharp.

On a grid ``sdp`` solves the interval-hull relaxation (docs/bounds.md, "``sdp`` on grids").  For
random grid problems (seeded; spread Dirichlet laws on ``0..n <= 40`` with 2-8 moments, and
concentrated binomial laws on ``0..n <= 200`` with 4-10 moments) the script encloses that
program's two optima independently, by exact LPs on finite subsets of the hull and their dual
polynomials checked on the whole hull (``tests/_sdp_hull_reference.py``), and reports

* how many ``sdp`` bounds lie farther than ``1e-6`` from their program's optimum (the larger of
  the two sides, at worst over the reference enclosure, whose width is reported as well), the
  largest such distance, and the solver status counts;
* how far the hull optimum is from the sharp discrete bound (``lp``, status ``optimal``):
  the mean and largest widening of the interval.

Usage: ``python benchmarks/bench_sdp_hull.py [--spread 70] [--concentrated 30] [--seed 0] [--json] [--quick]``
(``--quick``: 3 spread problems and 1 concentrated one).
The references take most of the time (seconds each for spread laws, up to a minute for a
concentrated one with many moments).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _sdp_hull_reference import distance, hull_optimum, random_grid_problem  # noqa: E402

from momentbound.bounds import bound  # noqa: E402
from momentbound.errors import SolverFailed  # noqa: E402


def run(spread: int, concentrated: int, seed: int, start_at: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(spread + concentrated):
        conc = i >= spread
        problem = random_grid_problem(rng, concentrated=conc)
        if i < start_at:  # drawn (the sequence stays the same) but not measured
            continue
        try:
            ref = hull_optimum(problem, K=2 if conc else 4)
        except SolverFailed as exc:
            print(f"{i:3d} no reference: {exc}", file=sys.stderr, flush=True)
            continue
        start = time.perf_counter()
        r = bound(problem, "sdp", allow_unverified=True)
        seconds = time.perf_counter() - start
        du = distance(r.exact_upper, ref["upper"]) if r.exact_upper is not None else 1.0
        dl = distance(r.exact_lower, ref["lower"]) if r.exact_lower is not None else 1.0
        sharp = bound(problem, "lp")
        widen = float((ref["upper"][0] - sharp.exact_upper) + (sharp.exact_lower - ref["lower"][1]))
        refw = float(max(ref["upper"][1] - ref["upper"][0], ref["lower"][1] - ref["lower"][0]))
        rows.append({"family": "concentrated" if conc else "spread", "problem": str(problem.support) + " " + str(problem.event),
                     "order": problem.order, "distance": max(du, dl), "reference_width": refw, "status": r.status.value,
                     "solver_status": r.diagnostics.solver_status, "seconds": seconds, "hull_minus_sharp": widen,
                     "sharp_width": float(sharp.exact_upper - sharp.exact_lower)})
        print(f"{i:3d} {rows[-1]['family']:12s} {rows[-1]['problem']:28s} m={problem.order:2d} "
              f"dist={rows[-1]['distance']:.2e} {r.status.value:8s} {r.diagnostics.solver_status} "
              f"hull-sharp={widen:.2e} refw={refw:.1e}", file=sys.stderr, flush=True)
    out = {}
    for fam in ("spread", "concentrated", "all"):
        sel = [r for r in rows if fam == "all" or r["family"] == fam]
        if not sel:
            continue
        d = [r["distance"] for r in sel]
        w = [r["hull_minus_sharp"] for r in sel]
        out[fam] = {"problems": len(sel), "farther_than_1e-6": sum(x > 1e-6 for x in d), "max_distance": max(d),
                    "statuses": dict(Counter(r["status"] for r in sel)),
                    "mean_widening": float(np.mean(w)), "max_widening": max(w),
                    "mean_sdp_seconds": float(np.mean([r["seconds"] for r in sel]))}
    return {"summary": out, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spread", type=int, default=70)
    ap.add_argument("--concentrated", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start-at", type=int, default=0, help="measure from this problem index on (resume a run)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="3 spread problems and 1 concentrated one")
    args = ap.parse_args()
    if args.quick:
        args.spread, args.concentrated = 3, 1
    res = run(args.spread, args.concentrated, args.seed, args.start_at)
    if args.json:
        print(json.dumps(res, indent=2, sort_keys=True))
        return
    for fam, s in res["summary"].items():
        print(f"{fam:12s} {s['problems']:3d} problems: {s['farther_than_1e-6']} farther than 1e-6 from the program's "
              f"optimum (max {s['max_distance']:.3g}); statuses {s['statuses']}; hull optimum wider than sharp by "
              f"{s['mean_widening']:.3g} on average (max {s['max_widening']:.3g}); sdp {s['mean_sdp_seconds']:.3f} s each")


if __name__ == "__main__":
    main()
