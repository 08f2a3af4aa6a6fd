"""Bounds from a sample (``sample_bound``): coverage and width of the bounds, the previous default
(``auto`` intervals: the narrower of Hoeffding and empirical Bernstein, from 2 moments, the
moment bound alone) against the moment bound of the betting intervals from 4 moments and the
combined bound (the betting box of 4 moments at ``1 - (1 - confidence) / 2`` intersected with
the Clopper-Pearson interval of the count of draws in the event at the same level: the default
now), on the same samples.

Five laws, each with an event whose true probability is known exactly:

* Beta(2, 5) on ``interval:0:1``, ``P(X >= 1/2) = 7/64``;
* uniform on ``interval:0:1``, ``P(X >= 9/10) = 1/10``;
* binomial(20, 3/10) on ``grid:0:20``, ``P(X >= 10)``;
* the three-point law ``{0: 1/2, 1: 3/10, 2: 1/5}`` on ``grid:0:2``, ``P(X >= 2) = 1/5``;
* a skewed discrete law, ``P(X = k)`` proportional to ``2^-k`` on ``grid:0:10``, ``P(X >= 4)``.

For each law and replication: draw ``n`` values, build the box of the first ``K`` moments at
``confidence`` for each configuration ``method:K[:how]`` (``how`` = ``moments``, the default, or
``combined``), bound the event with ``sos`` (the worst case over the box), intersect with the count
interval when combined,
and record whether every true moment lies in its interval (simultaneous coverage), whether
the bound contains the truth (an empty combined bound counts as a miss), how often the moment
bound narrows the count interval (combined), the interval widths and the bound's width; ratios are to the
first configuration.  The floor is the width of the sharp bound from the exact moments: no box
of the same ``K`` moments can do better.  For comparison, the last lines give the Clopper-Pearson interval of the count of draws
in the event at the same confidence (it uses the sample directly, not its moments).

Usage: ``python benchmarks/bench_sample_bounds.py [--reps 250] [--n 400]
[--configs auto:2,betting:4,betting:4:combined] [--confidence 0.95] [--seed 0] [--laws beta,uniform,...] [--quick]``;
``--quick`` runs the same table with 30 samples per law.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from momentbound.bounds import Event, MomentProblem, Support, bound
from momentbound.bounds.problem import SupportKind
from momentbound.bounds.sampling import clopper_pearson, event_mask
from momentbound.bounds.uncertain import sample_bound


@dataclass(frozen=True)
class Law:
    name: str
    support: str
    event: Event
    truth: Fraction
    moments: tuple[Fraction, ...]  # E[X^1..X^8], exact
    draw: object  # (rng, n) -> array


def _discrete(name: str, support: str, pmf: dict[int, Fraction], threshold: int, rng_draw=None) -> Law:
    xs = np.array(sorted(pmf), dtype=float)
    ps = np.array([float(pmf[k]) for k in sorted(pmf)])
    ps = ps / ps.sum()
    moments = tuple(sum((p * Fraction(k) ** j for k, p in pmf.items()), Fraction(0)) for j in range(1, 9))
    truth = sum((p for k, p in pmf.items() if k >= threshold), Fraction(0))

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.choice(xs, size=n, p=ps)

    return Law(name, support, Event.ge(threshold), truth, moments, rng_draw or draw)


def laws() -> dict[str, Law]:
    beta_moments = []
    m = Fraction(1)
    for j in range(8):  # E[X^(j+1)] = prod_{i<=j} (2 + i) / (7 + i)
        m *= Fraction(2 + j, 7 + j)
        beta_moments.append(m)
    binom = {k: math.comb(20, k) * Fraction(3, 10) ** k * Fraction(7, 10) ** (20 - k) for k in range(21)}
    geo_w = {k: Fraction(1, 2**k) for k in range(11)}
    total = sum(geo_w.values())
    geo = {k: w / total for k, w in geo_w.items()}
    return {
        "beta": Law("Beta(2, 5), P(X >= 1/2)", "interval:0:1", Event.ge(Fraction(1, 2)), Fraction(7, 64),
                    tuple(beta_moments), lambda rng, n: rng.beta(2, 5, n)),
        "uniform": Law("uniform(0, 1), P(X >= 9/10)", "interval:0:1", Event.ge(Fraction(9, 10)), Fraction(1, 10),
                       tuple(Fraction(1, j + 1) for j in range(1, 9)), lambda rng, n: rng.random(n)),
        "binomial": _discrete("binomial(20, 0.3), P(X >= 10)", "grid:0:20", binom, 10),
        "three-point": _discrete("{0: .5, 1: .3, 2: .2}, P(X >= 2)", "grid:0:2",
                                 {0: Fraction(1, 2), 1: Fraction(3, 10), 2: Fraction(1, 5)}, 2),
        "geometric": _discrete("2^-k on 0..10, P(X >= 4)", "grid:0:10", geo, 4),
    }


def run_law(law: Law, reps: int, n: int, configs: list[tuple[str, int]], confidence: float,
            rng: np.random.Generator) -> dict:
    support = Support.parse(law.support)
    truth = float(law.truth)
    floors = {}
    for _, order, _ in configs:
        r = bound(MomentProblem((Fraction(1), *law.moments[:order]), support, law.event),
                  "lp" if support.kind is SupportKind.GRID else "sdp")
        floors[order] = r.upper - r.lower
    stats = {c: {"cover": 0, "moments": 0, "width": [], "upper": [], "lower": [], "box": [], "seconds": 0.0, "empty": 0, "cut": 0}
             for c in configs}
    count = {"cover": 0, "width": []}
    for _ in range(reps):
        x = law.draw(rng, n)  # type: ignore[operator]
        c_lo, c_hi = clopper_pearson(int(np.count_nonzero(event_mask(law.event, x))), n, confidence)
        count["cover"] += c_lo <= truth <= c_hi
        count["width"].append(c_hi - c_lo)
        seed = int(rng.integers(2**32))
        for method, order, how in configs:
            true_m = [float(v) for v in law.moments[:order]]
            start = time.perf_counter()
            sb = sample_bound(x, support, law.event, order, confidence, method, rng=seed, how=how)
            s = stats[(method, order, how)]
            s["seconds"] += time.perf_counter() - start
            s["cover"] += bool(not sb.empty and sb.lower <= truth <= sb.upper)
            s["moments"] += all(float(lo) <= m <= float(hi) for (lo, hi), m in zip(sb.moment_box, true_m))
            lower, upper = (math.nan, math.nan) if sb.empty else (sb.lower, sb.upper)
            s["empty"] += sb.empty
            s["cut"] += how == "combined" and not sb.empty and (sb.lower, sb.upper) != sb.count_interval
            s["width"].append(0.0 if sb.empty else upper - lower)
            s["upper"].append(upper)
            s["lower"].append(lower)
            s["box"].append([float(hi - lo) for lo, hi in sb.moment_box])
    return {"floors": floors, "stats": stats, "count": count}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=250)
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--configs", default="auto:2,betting:4,betting:4:combined")
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--laws", default=",".join(laws()))
    ap.add_argument("--quick", action="store_true", help="30 samples per law")
    args = ap.parse_args()
    if args.quick:
        args.reps = 30
    table = laws()
    rng = np.random.default_rng(args.seed)
    configs = [(c.split(":")[0], int(c.split(":")[1]), (c.split(":") + ["moments"])[2]) for c in args.configs.split(",")]
    print(f"n = {args.n}, confidence {args.confidence}, {args.reps} samples per law, seed {args.seed}")
    print("| law | truth | method | bound covers | moments cover | empty | box cuts the count | mean lower | mean upper | mean width "
          "| width / first | exact-moment width | mean box widths (k = 1..K) | box / first (same k) | s per sample |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    counts = []
    for key in args.laws.split(","):
        law = table[key]
        out = run_law(law, args.reps, args.n, configs, args.confidence, rng)
        counts.append((law.name, out["count"]))
        before = out["stats"][configs[0]]
        for method, order, how in configs:
            s = out["stats"][(method, order, how)]
            box = np.mean(s["box"], axis=0)
            box_before = np.mean(before["box"], axis=0)[:order]
            k = min(order, box_before.size)
            print(f"| {law.name} | {float(law.truth):.6g} | {method}:{order}:{how} | {s['cover']}/{args.reps} "
                  f"| {s['moments']}/{args.reps} | {s['empty']} | {s['cut']} | {np.nanmean(s['lower']):.4f} "
                  f"| {np.nanmean(s['upper']):.4f} "
                  f"| {np.mean(s['width']):.4f} | {np.mean(s['width']) / np.mean(before['width']):.2f} "
                  f"| {out['floors'][order]:.4f} | {', '.join(f'{w:.4g}' for w in box)} "
                  f"| {', '.join(f'{w:.2f}' for w in box[:k] / box_before[:k])} | {s['seconds'] / args.reps:.3f} |",
                  flush=True)
    print("\n| law | count interval covers | mean width |\n|---|---|---|")
    for name, c in counts:
        print(f"| {name} | {c['cover']}/{args.reps} | {np.mean(c['width']):.4f} |")


if __name__ == "__main__":
    main()
