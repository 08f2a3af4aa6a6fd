"""The delta-method approximation of ideal .632+ past the count-table limit, against a vectorised simulation.

Workload: model (b) of ``benchmarks/bench_resub_multiattr.py`` (one 4-valued attribute, three classes, naive
Bayes with ties ``random``, ``alpha = 0``) at ``N = 30`` (3.16e9 count tables, past the 3e6 limit).

Exact, each in a fresh child process timed (CPU, wall) with its peak resident memory:

* ``delta``: ``Point632Plus().delta(engine, N)`` on a new engine: the mean and second moments of
  ``(err, Err(1), gamma)`` from the half tables (``momentbound.exact.row_halves.delta_inputs``), then the delta;
* ``accuracy``: ``estimator_accuracy(model, N, Point632Plus())``, the exact moments on pairs of half tables with
  the approximation beside them (the delta's inputs from the same half tables).

Simulation (the baseline): datasets drawn point by point, naive Bayes fitted on each and ``err``, the ideal
``Err(1)`` and ``gamma`` of every dataset as in ``benchmarks/bench_632plus_rows.py`` (``batch``); their sample
mean and covariance give the simulated delta inputs (z of each mean and of each second moment against the
exact ones) and the simulated delta. Its CPU is timed for ``--witness`` datasets and extrapolated to a 1e-4
standard error of every mean (the exact inputs are exact up to float rounding).

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_632plus_delta.py [--N 30] [--witness 200000]
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

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_632plus_rows import batch, miss_table  # noqa: E402
from bench_resub_multiattr import Sim, model_of, z  # noqa: E402


def child(what: str, N: int) -> None:
    from momentbound.estimators import estimator_accuracy, make_engine
    from momentbound.exact import row_halves
    from momentbound.splitters.bootstrap import Point632Plus

    model = model_of("b").to_float()
    cpu, wall = time.process_time(), time.perf_counter()
    out: dict = {}
    if what == "delta":
        engine = make_engine(model)
        mean, variance = Point632Plus().delta(engine, N)
        mu, second = engine.__dict__["_delta_inputs"][N]
        out.update(delta_mean=mean, delta_variance=variance, mu=mu.tolist(), second=second.tolist(),
                   seconds_estimate=row_halves.delta_seconds(model, N))
    else:
        acc = estimator_accuracy(model, N, Point632Plus())
        out.update(mean=float(acc.mean), variance=float(acc.variance), route=acc.route,
                   delta_mean=acc.approximation.mean, delta_variance=acc.approximation.variance)
    out.update(cpu=time.process_time() - cpu, wall=time.perf_counter() - wall,
               rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(out))


def run_child(what: str, N: int) -> dict:
    run = subprocess.run([sys.executable, __file__, "--child", what, str(N)], capture_output=True, text=True,
                         check=True, env=dict(os.environ))
    out = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"{what}: {out}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--N", type=int, default=30)
    ap.add_argument("--witness", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="N = 12 and 20,000 simulated datasets")
    args = ap.parse_args()
    if args.quick:
        args.N, args.witness = 12, 20_000
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    from momentbound.splitters.bootstrap import _delta

    N = args.N
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()}")
    d = run_child("delta", N)
    a = run_child("accuracy", N)
    sim = Sim("b", N, np.random.default_rng(args.seed))
    cpu = time.process_time()
    Q = miss_table(N, sim.K)
    parts = [batch(sim, Q, 20_000, False) for _ in range(0, args.witness, 20_000)]
    sim_cpu = time.process_time() - cpu
    sim_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    v = np.stack([np.concatenate([p[k] for p in parts]) for k in ("err", "err1", "gamma")], axis=1)
    mu, second = np.array(d["mu"]), np.array(d["second"])
    sim_mu, sim_cov = v.mean(axis=0), np.cov(v, rowvar=False)
    sim_delta = _delta(sim_mu, sim_cov)
    names = ("err", "Err(1)", "gamma")
    print(f"\n## delta-method .632+, case b, N = {N}: {len(v)} simulated datasets in {sim_cpu:.1f} s CPU "
          f"(peak {sim_rss:.0f} MB)")
    print("| input | exact | simulated (z) |")
    print("|---|---|---|")
    for i in range(3):
        m, zi = z(mu[i], v[:, i])
        print(f"| E[{names[i]}] | {mu[i]:.6f} | {m:.6f} ({zi:+.2f}) |")
    for i in range(3):
        for j in range(i, 3):
            m, zij = z(second[i, j], v[:, i] * v[:, j])
            print(f"| E[{names[i]} {names[j]}] | {second[i, j]:.6f} | {m:.6f} ({zij:+.2f}) |")
    se_max = float((v.std(axis=0, ddof=1)).max())
    to_1e4 = sim_cpu / len(v) * (se_max / 1e-4) ** 2
    print(f"\n| run | CPU s (wall) | peak MB | delta mean | delta variance |")
    print("|---|---|---|---|---|")
    print(f"| delta alone (estimate {d['seconds_estimate']:.2f} s) | {d['cpu']:.2f} ({d['wall']:.2f}) | "
          f"{d['rss_mb']:.0f} | {d['delta_mean']:.6f} | {d['delta_variance']:.6e} |")
    print(f"| exact moments + delta ({a['route']}) | {a['cpu']:.2f} ({a['wall']:.2f}) | {a['rss_mb']:.0f} | "
          f"{a['delta_mean']:.6f} | {a['delta_variance']:.6e} |")
    print(f"| simulated inputs, {len(v)} datasets | {sim_cpu:.2f} | {sim_rss:.0f} | {sim_delta[0]:.6f} | "
          f"{sim_delta[1]:.6e} |")
    print(f"\nexact .632+: mean {a['mean']:.6f}, variance {a['variance']:.6e}; simulation CPU to a 1e-4 standard "
          f"error of every input mean: {to_1e4:.3g} s, ratio to the delta alone {to_1e4 / d['cpu']:.3g}")
    print(f"\nload after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
