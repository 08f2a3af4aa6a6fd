"""Exact cross-validation moments of naive Bayes on several attributes (reduced-state cross term).

Targets (2-core machine): the paper's 2x2x2 model at N = 100, 10-fold (E, Var and the fold
covariance of CE); three binary attributes at N = 25, leave-one-out; three classes with one
3-valued attribute at N = 30, 5-fold; and, measured piece by piece and extrapolated, every fold
count 2..100 at N = 100 and 10-fold at N = 200. Each exact run is a fresh subprocess, so its peak
resident memory (``ru_maxrss``) and CPU time are its own; wall-clock time depends on the load of
the shared machine, which is printed.

Witness: at the largest exact size, a vectorised numpy simulation of real 10-fold CV (the
baseline of ``bench_montecarlo_vs_simulation.py``, ``ties="first"``, ``alpha = 0``): E[CE] and
Var(CE) must agree within 4 standard errors.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_multiattr.py [--quick] [--large] [--pieces] [--sim R]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def three_attribute_model():
    """Three binary attributes, two classes, no symmetry."""
    from fractions import Fraction

    from momentbound import CellModel

    return CellModel((2, 2, 2), [Fraction(k + 1, 136) for k in range(16)])


def three_class_model():
    from momentbound import CellModel

    return CellModel((3,), ["3/20", "1/10", "2/25", "1/10", "3/20", "2/25", "2/25", "1/10", "4/25"])


def models():
    from momentbound.model import equal_cells_model, second_nb_model

    return {"2x2x2": second_nb_model, "222-equal": lambda: equal_cells_model((2, 2, 2)),
            "222-skew": three_attribute_model, "3class": three_class_model}


def run_one(model: str, N: int, splitter: str, ties: str) -> None:
    """Child process: one exact estimator_moments call (or, ``splitter="sweep"``, every fold count
    2..N through one engine); prints one JSON line."""
    from momentbound.estimators import KFold, LeaveOneOut, estimator_moments, sweep
    from momentbound.exact import NaiveBayes
    from momentbound.probability.exact_backend import ExactBackend

    m = models()[model]()
    backend = ExactBackend(max_work=math.inf)  # the run is asked for: no work refusal
    wall, cpu = time.perf_counter(), time.process_time()
    if splitter == "sweep":
        res = sweep(m, "folds", list(range(2, N + 1)), N=N, classifier=NaiveBayes(ties=ties), backend=backend,
                    max_seconds=None)
        rows = {int(v): row for v, row in zip(res.values, res.rows)}
        r = rows[10]
        extra = {"folds": len(rows), "variance_by_folds": {v: float(rows[v].variance) for v in (2, 5, 10, 20, 50, N)}}
    else:
        est = LeaveOneOut() if splitter == "loo" else KFold(int(splitter))
        r = estimator_moments(m, N, est, classifier=NaiveBayes(ties=ties), backend=backend, max_seconds=None)
        extra = {}
    out = {"model": model, "N": N, "splitter": splitter, "ties": ties,
           "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
           "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
           "mean": float(r.mean), "variance": float(r.variance), "fold_covariance": float(r.fold_covariance),
           "dropped_mass_bound": backend.dropped_mass_bound, **extra}
    print(json.dumps(out), flush=True)


def child(model: str, N: int, splitter: str, ties: str = "first") -> dict:
    env = dict(os.environ)
    cmd = [sys.executable, __file__, "--one", model, str(N), splitter, ties]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        raise SystemExit(f"child failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    print(f"{model:10s} N={N:4d} {splitter:>4s} ties={ties:6s} wall {out['wall']:7.1f} s  cpu {out['cpu']:7.1f} s  "
          f"peak {out['rss_gb']:.2f} GB  E={out['mean']:.10f} Var={out['variance']:.6e} "
          f"Cov={out['fold_covariance']:.6e}  dropped <= {out['dropped_mass_bound']:.1g}  "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)
    if "variance_by_folds" in out:
        print(f"  sweep over {out['folds']} fold counts; Var(CE) by folds: {out['variance_by_folds']}", flush=True)
    return out


def simulate(N: int, v: int, R: int, seed: int) -> None:
    """Compare the exact 2x2x2 value (from a child) with the numpy simulation of real CV."""
    sys.path.insert(0, HERE)
    from bench_montecarlo_vs_simulation import simulate_cv

    from momentbound.model import second_nb_model

    exact = child("2x2x2", N, str(v), "first")
    t = time.perf_counter()
    ce = simulate_cv(second_nb_model(), N, v, R, np.random.default_rng(seed))
    secs = time.perf_counter() - t
    mean, var = float(ce.mean()), float(ce.var(ddof=1))
    se_mean = math.sqrt(var / R)
    se_var = float(((ce - mean) ** 2).std(ddof=1)) / math.sqrt(R)
    zm = (exact["mean"] - mean) / se_mean
    zv = (exact["variance"] - var) / se_var
    print(f"simulation of real {v}-fold CV, N = {N}, {R} datasets ({secs:.1f} s): E[CE] {mean:.6f} +- {se_mean:.1e} "
          f"(exact {exact['mean']:.6f}, z = {zm:+.2f}); Var(CE) {var:.6e} +- {se_var:.1e} "
          f"(exact {exact['variance']:.6e}, z = {zv:+.2f})", flush=True)
    if abs(zm) > 4 or abs(zv) > 4:
        raise SystemExit("exact and simulated moments differ by more than 4 standard errors")


def pieces() -> None:
    """Time single cross terms, calibrate seconds per multiply-add, extrapolate the sweeps."""
    from momentbound.exact import NaiveBayes
    from momentbound.exact import reduced_states as rs
    from momentbound.model import second_nb_model
    from momentbound.splitters.basic import kfold_sizes

    m = second_nb_model()
    clf = NaiveBayes(ties="first")
    tail = 1e-13  # the exact backend's default
    rs.cross_errors(m, 8, 1, 1, clf, tail)  # compile
    rates = []
    for nc, na, nb in [(60, 9, 9), (90, 2, 2), (96, 1, 1), (97, 1, 0), (50, 24, 24)]:
        wall, cpu = time.perf_counter(), time.process_time()
        r = rs.cross_errors(m, nc, na, nb, clf, tail)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        work = rs.work_estimate(m, nc, na, nb, tail=tail)
        rates.append(cpu / work)
        print(f"cross term (n_common, n_a, n_b) = ({nc}, {na}, {nb}): work {work:.3g}, wall {wall:.1f} s, "
              f"cpu {cpu:.1f} s, {1e9 * cpu / work:.2f} cpu-ns per multiply-add, dropped <= "
              f"{r.dropped_mass_bound:.1g} (load {os.getloadavg()[0]:.1f})", flush=True)
    ns = 1e9 * max(rates)

    def cv_work(N: int, v: int) -> float:
        sizes = kfold_sizes(N, v)
        distinct = sorted(set(sizes))
        total = 0.0
        for i, s in enumerate(distinct):
            for t in distinct[i:]:
                if s == t and sizes.count(s) < 2:
                    continue
                total += rs.work_estimate(m, N - s - t, t - 1, s - 1, tail=1e-13)
        return total

    seen: dict = {}
    sweep = 0.0
    for v in range(2, 101):
        sizes = kfold_sizes(100, v)
        distinct = sorted(set(sizes))
        for i, s in enumerate(distinct):  # the engine caches each fold-size pair across the sweep
            for t in distinct[i:]:
                if (s, t) in seen or (s == t and sizes.count(s) < 2):
                    continue
                seen[(s, t)] = rs.work_estimate(m, 100 - s - t, t - 1, s - 1, tail=1e-13)
                sweep += seen[(s, t)]
    print(f"every fold count 2..100 at N = 100: {len(seen)} distinct fold-size pairs, work {sweep:.3g} -> about "
          f"{sweep * ns * 1e-9:.0f} cpu-s at {ns:.2f} ns per multiply-add (the slowest rate measured)")
    w200 = cv_work(200, 10)
    print(f"10-fold at N = 200: work {w200:.3g} -> about {w200 * ns * 1e-9:.0f} cpu-s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (about a minute)")
    ap.add_argument("--pieces", action="store_true", help="time single cross terms and extrapolate the sweeps")
    ap.add_argument("--sim", type=int, default=200_000, help="simulated datasets of the witness")
    ap.add_argument("--large", action="store_true",
                    help="also run every fold count 2..100 at N = 100 and 10-fold at N = 200 (about 10-20 minutes)")
    ap.add_argument("--one", nargs=4, metavar=("MODEL", "N", "SPLITTER", "TIES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        model, N, splitter, ties = args.one
        run_one(model, int(N), splitter, ties)
        return
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()}", flush=True)
    if args.quick:
        child("2x2x2", 60, "10")
        child("222-skew", 16, "loo", "random")  # above rational_max_n: float, reduced states
        child("3class", 30, "5", "random")
        simulate(60, 10, max(20_000, args.sim // 10), 1)
        return
    child("2x2x2", 100, "10", "random")
    child("222-equal", 25, "loo", "random")
    child("222-skew", 25, "loo", "first")
    child("3class", 30, "5", "random")
    simulate(100, 10, args.sim, 2026)
    if args.large:
        child("2x2x2", 100, "sweep", "random")
        simulate(200, 10, args.sim, 2027)
    if args.pieces:
        pieces()


if __name__ == "__main__":
    main()
