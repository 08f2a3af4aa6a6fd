"""Exact ideal .632+ on one attribute (pairs of half tables) against a vectorised simulation.

Workloads: models (b) and (c) of ``benchmarks/bench_resub_multiattr.py`` (one 4-valued attribute, three
and two classes, naive Bayes with ties ``random``, ``alpha = 0``) at ``N = 30`` (3.16e9 count tables) and
``N = 60`` (8.7e8 count tables).

Exact: ``estimator_accuracy(model, N, Point632Plus())`` (mean, variance, RMS against ``GE_N``) in a fresh
child process, timed (CPU, wall) with its peak resident memory and its route.

Simulation (the baseline): datasets drawn point by point, naive Bayes fitted on each (the integer class
keys of ``bench_resub_multiattr.Sim``); the .632+ of Efron & Tibshirani (1997) from its definition, with
the tie coins at their probabilities as the estimator takes them: ``err`` the expected share of training
points misclassified, ``gamma = sum_k p_k (1 - q_k)`` (``p_k`` the class shares, ``q_k`` the mean
prediction probability of class ``k`` over the training inputs), the ideal ``Err(1)`` of every dataset
(the classifier of a bootstrap sample drawn from the other ``N - 1`` points predicts at ``x_i`` from the
sample's counts at ``x_i`` alone, ``Multinomial(N; b / (N - 1), rest)`` with ``b`` the other points' counts
there: summed over every such count vector, here in numpy), ``R = (Err1' - err) / (gamma - err)`` when
``Err(1) > err`` and ``gamma > err`` (else 0),
``.632+ = .368 err + .632 Err(1) + (Err1' - err) .368 .632 R / (1 - .368 R)`` (their eq. 32,
``Err1' = min(Err(1), gamma)``); ``GE_N`` the population error of the fitted classifier. The per-dataset ``Err(1)`` is itself checked
against the real procedure: on ``--draws-check`` datasets, one bootstrap sample per point (two independent
rounds), whose mean loss is an unbiased draw of it (z of the mean difference and of ``E[Err1^2]``).

Ties ``first`` (two classes; ``--first N``, model (c)): the exact moments against the library's own
Monte Carlo (``backend="montecarlo"``: tables drawn, each one's ideal ``Err(1)`` in the closed form of
``momentbound.exact.tables.bootstrap_fast``, a route independent of the half tables), z from its 95%
intervals.

z-scores of the exact mean, second moment and mean square against ``GE_N``. The simulation is timed to a
1% standard error of the mean (the CPU ratio is to the exact CPU) and extrapolated to a 1e-4 standard error.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_632plus_rows.py [--cases b c] [--N 30 60] [--witness 200000]
[--draws-check 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from math import lgamma

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_resub_multiattr import Sim, model_of, z  # noqa: E402

def exact_child(case: str, N: int, ties: str = "random") -> None:
    from momentbound.classifiers.naive_bayes import NaiveBayes
    from momentbound.estimators import estimator_accuracy
    from momentbound.splitters.bootstrap import Point632Plus

    cpu, wall = time.process_time(), time.perf_counter()
    acc = estimator_accuracy(model_of(case).to_float(), N, Point632Plus(), classifier=NaiveBayes(ties=ties))
    out = {"mean": float(acc.mean), "variance": float(acc.variance), "mean_square": float(acc.mean_square),
           "rms": float(acc.rms), "route": acc.route, "cpu": time.process_time() - cpu,
           "wall": time.perf_counter() - wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    print(json.dumps(out))


def miss_table(N: int, K: int) -> np.ndarray:
    """``Q[b..., y]``: the probability that a bootstrap sample's classifier misses class ``y`` at an input
    where the other ``N - 1`` points have counts ``b`` (``sum(b) <= N - 1``)."""
    grids = np.stack(np.meshgrid(*[np.arange(N + 1)] * K, indexing="ij"), axis=-1).reshape(-1, K)
    s = grids[grids.sum(axis=1) <= N]  # the sample's counts at the input
    rest = N - s.sum(axis=1)
    top = s.max(axis=1, keepdims=True)
    share = (s == top) / (s == top).sum(axis=1, keepdims=True)  # ties shared (an empty row: every class)
    lf = np.array([lgamma(i + 1.0) for i in range(N + 1)])
    coef = lf[N] - lf[s].sum(axis=1) - lf[rest]
    Q = np.zeros((N,) * K + (K,))
    bases = grids[grids.sum(axis=1) <= N - 1]
    bases = bases[(bases < N).all(axis=1)]
    for start in range(0, len(bases), 200):
        b = bases[start:start + 200]
        p = np.concatenate([b, (N - 1 - b.sum(axis=1))[:, None]], axis=1) / (N - 1)
        counts = np.concatenate([s, rest[:, None]], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = np.where(counts[None] > 0, counts[None] * np.log(p[:, None, :]), 0.0).sum(axis=2)
        pmf = np.exp(coef[None] + logp)  # (bases, s)
        Q[tuple(b.T)] = 1.0 - pmf @ share
    return Q


def plus(err: np.ndarray, err1: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """Efron & Tibshirani (1997), eq. (32): ``.632 + (Err1' - err) .368 .632 R' / (1 - .368 R')``."""
    e1 = np.minimum(err1, gamma)
    ok = (err1 > err) & (gamma > err)
    R = np.where(ok, (e1 - err) / np.where(ok, gamma - err, 1.0), 0.0)
    return 0.368 * err + 0.632 * err1 + (e1 - err) * 0.368 * 0.632 * R / (1 - 0.368 * R)


def batch(sim: Sim, Q: np.ndarray, R: int, check: bool) -> dict[str, np.ndarray]:
    N, K, rng = sim.N, sim.K, sim.rng
    cells = rng.choice(sim.p.size, size=(R, N), p=sim.p)
    tables = np.zeros((R, sim.p.size), dtype=np.int64)
    np.add.at(tables, (np.repeat(np.arange(R), N), cells.ravel()), 1)
    _, share = sim.decide(sim.keys(tables), np.zeros((R, sim.X)))  # (R, X, K) prediction probabilities
    x, y = cells // K, cells % K
    at = share[np.arange(R)[:, None], x]  # (R, N, K)
    err = 1.0 - np.take_along_axis(at, y[..., None], axis=2)[..., 0].mean(axis=1)
    q = at.mean(axis=1)
    p = np.stack([(y == k).mean(axis=1) for k in range(K)], axis=1)
    gamma = (p * (1 - q)).sum(axis=1)
    t = tables.reshape(R, sim.X, K)
    row = t[np.arange(R)[:, None], x]  # (R, N, K): the row at every point's input
    row = row - (np.arange(K)[None, None, :] == y[..., None])  # without the point itself
    err1 = Q[tuple(np.moveaxis(row, -1, 0)) + (y,)].mean(axis=1)
    out = {"plus": plus(err, err1, gamma), "ge": (share * sim.wrong).sum(axis=(1, 2)), "err1": err1, "err": err,
           "gamma": gamma}
    if check:
        out["draw_a"], out["draw_b"] = sim.err1(cells), sim.err1(cells)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="*", default=["b", "c"])
    ap.add_argument("--N", type=int, nargs="*", default=[30, 60], help="one size per case")
    ap.add_argument("--witness", type=int, default=200_000)
    ap.add_argument("--draws-check", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--first", type=int, default=60, help="N of model (c) with ties 'first' (0: skip)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="models (b) and (c) at N = 12 and 20, ties 'first' at "
                    "N = 20, 20,000 simulated datasets")
    args = ap.parse_args()
    if args.quick:
        args.N, args.first, args.witness, args.draws_check = [12, 20], 20, 20_000, 2_000
    if args.child:
        exact_child(args.child[0], int(args.child[1]), args.child[2])
        return
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()}")
    for case, N in zip(args.cases, args.N):
        run_case(case, N, args)
    if args.first:
        run_first(args.first, args)
    print(f"\nload after: {os.getloadavg()}")


def exact(case: str, N: int, ties: str) -> dict:
    run = subprocess.run([sys.executable, __file__, "--child", case, str(N), ties], capture_output=True, text=True,
                         check=True, env=dict(os.environ))
    e = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"exact: {e}")
    return e


def run_first(N: int, args: argparse.Namespace) -> None:
    from momentbound.classifiers.naive_bayes import NaiveBayes
    from momentbound.estimators import estimator_accuracy
    from momentbound.splitters.bootstrap import Point632Plus

    e = exact("c", N, "first")
    cpu = time.process_time()
    mc = estimator_accuracy(model_of("c").to_float(), N, Point632Plus(), classifier=NaiveBayes(ties="first"),
                            backend="montecarlo", draws=args.witness, rng=np.random.default_rng(args.seed))
    cpu = time.process_time() - cpu
    zs = []
    for name, value in (("mean", e["mean"]), ("variance", e["variance"]), ("mean_square", e["mean_square"])):
        iv = getattr(mc, name)
        zs.append((value - iv.estimate) / ((iv.upper - iv.lower) / 2 / 1.96))
    print(f"\n## .632+ (ideal), case c, ties 'first', N = {N}: the library's Monte Carlo, {args.witness} tables in "
          f"{cpu:.1f} s CPU")
    print("| statistic | route | exact CPU s (wall) | peak MB | mean exact / MC (z) | variance exact / MC (z) | "
          "E[(est - GE_N)^2] exact / MC (z) |")
    print("|---|---|---|---|---|---|---|")
    print(f"| .632+ | {e['route']} | {e['cpu']:.2f} ({e['wall']:.2f}) | {e['rss_mb']:.0f} | {e['mean']:.5f} / "
          f"{mc.mean.estimate:.5f} ({zs[0]:+.2f}) | {e['variance']:.5e} / {mc.variance.estimate:.5e} ({zs[1]:+.2f}) | "
          f"{e['mean_square']:.5f} / {mc.mean_square.estimate:.5f} ({zs[2]:+.2f}) |")


def run_case(case: str, N: int, args: argparse.Namespace) -> None:
    e = exact(case, N, "random")
    sim = Sim(case, N, np.random.default_rng(args.seed))
    cpu, wall = time.process_time(), time.perf_counter()
    Q = miss_table(N, sim.K)
    parts: list[dict[str, np.ndarray]] = []
    t_1pct = None
    while sum(len(p["plus"]) for p in parts) < args.witness:
        parts.append(batch(sim, Q, 20_000, False))
        if t_1pct is None:
            v = np.concatenate([p["plus"] for p in parts])
            if v.std(ddof=1) / np.sqrt(len(v)) <= 0.01 * v.mean():
                t_1pct = time.process_time() - cpu
    sim_cpu, sim_wall = time.process_time() - cpu, time.perf_counter() - wall
    d = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    # the per-dataset Err(1) against the real procedure (bootstrap samples drawn point by point)
    chk_cpu = time.process_time()
    step = max(1, 2_000_000 // (N * N * 8))
    checks = [batch(sim, Q, step, True) for _ in range(0, args.draws_check, step)]
    c = {k: np.concatenate([p[k] for p in checks]) for k in checks[0]}
    chk_cpu = time.process_time() - chk_cpu
    _, z1 = z(0.0, (c["draw_a"] + c["draw_b"]) / 2 - c["err1"])
    _, z2 = z(0.0, c["draw_a"] * c["draw_b"] - c["err1"] ** 2)
    f, G = d["plus"], d["ge"]
    m, zm = z(e["mean"], f)
    _, zs = z(e["variance"] + e["mean"] ** 2, f * f)
    ms, zd = z(e["mean_square"], (f - G) ** 2)
    print(f"\n## .632+ (ideal), case {case}, N = {N}: {len(f)} simulated datasets in {sim_cpu:.1f} s CPU "
          f"({sim_wall:.1f} s wall); 1% standard error of the mean after {t_1pct:.2f} s CPU; per-dataset Err(1) "
          f"against {len(c['err1'])} x 2 bootstrap rounds ({chk_cpu:.1f} s CPU): z mean {z1:+.2f}, z square {z2:+.2f}")
    print("| statistic | route | exact CPU s (wall) | peak MB | mean exact / sim (z) | variance exact / sim | E[est^2] z | "
          "E[(est - GE_N)^2] exact / sim (z) | RMS exact | CPU ratio sim(1%) / exact | sim CPU s to se 1e-4 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| .632+ | {e['route']} | {e['cpu']:.2f} ({e['wall']:.2f}) | {e['rss_mb']:.0f} | "
          f"{e['mean']:.5f} / {m:.5f} "
          f"({zm:+.2f}) | {e['variance']:.5e} / {f.var(ddof=1):.5e} | {zs:+.2f} | {e['mean_square']:.5f} / {ms:.5f} "
          f"({zd:+.2f}) | {e['rms']:.5f} | {t_1pct / e['cpu']:.2g} | {sim_cpu / len(f) * (f.std() / 1e-4) ** 2:.3g} |")


if __name__ == "__main__":
    main()
