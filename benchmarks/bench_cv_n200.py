"""Exact 10-fold CV of naive Bayes at N = 200 on two-attribute, two-class models, against a
vectorised numpy simulation of the real procedure.

Exact: ``estimator_moments(model, N, KFold(10), classifier=NaiveBayes(alpha=1, ties="first"))``
with the default backend and the default guard limits, in a fresh subprocess (its own peak
resident memory ``ru_maxrss`` and CPU time); the estimates of the reduced-state cross term
(:func:`momentbound.exact.reduced_states.work_estimate` times :func:`~momentbound.exact.reduced_states.ns_per_op`, and
:func:`~momentbound.exact.reduced_states.memory_estimate`) are printed next to the measurements.
A refusal by the guard is printed as such.

Baseline: a vectorised numpy simulation of real 10-fold CV (consecutive folds of i.i.d. points,
naive Bayes with Laplace smoothing ``alpha = 1`` and exact integer score keys, ties to the lower
class), run until the standard error of ``Var(CE)`` is ``--rel`` of it (1% by default; a pilot
of 2,000 datasets sizes the run). z-scores of E[CE] and Var(CE) must be within 3.

Models: ``paper`` (:func:`momentbound.model.second_nb_model`, class-0 cells 0.1, class-1 cells
0.15) and ``asym`` (no symmetry of inputs or classes).

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_cv_n200.py [--model asym] [--N 200] [--rel 0.01]
     [--no-exact] [--no-sim] [--lift] [--packed] [--quick]

``--packed`` runs the exact moments a second time with the levels of the cross term held packed
(the form used where they do not fit dense), and compares CPU, peak memory and the moments.

``--quick`` runs the same comparison at N = 60 with the variance to 5% (about 10 s of CPU).
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

ASYM = ["0.12", "0.08", "0.05", "0.15", "0.2", "0.1", "0.07", "0.23"]  # cells input major, class fastest


def make_model(name: str):
    from momentbound.model import second_nb_model
    from momentbound.model.cells import CellModel

    return second_nb_model() if name == "paper" else CellModel((2, 2), ASYM, 2)


def run_exact(name: str, N: int, lift: bool, packed: bool = False) -> None:
    """Child process: one exact run with the default limits (``lift``: none; ``packed``: the levels
    held packed even where they fit dense); prints one JSON line."""
    from momentbound.classifiers.naive_bayes import NaiveBayes
    from momentbound.errors import InvalidArgument
    from momentbound.estimators import KFold, estimator_moments
    from momentbound.exact import reduced_states as rs
    from momentbound.probability.exact_backend import ExactBackend

    if packed:
        rs.DENSE_BYTES = 0
    model = make_model(name)
    nc, r = N - 2 * (N // 10), N // 10 - 1
    est = {"est_seconds": rs.work_estimate(model, nc, r, r, tail=1e-13) * rs.ns_per_op(model, nc, r, r) * 1e-9,
           "est_bytes": rs.memory_estimate(model, nc, r, r)}
    backend = ExactBackend(max_work=math.inf) if lift else ExactBackend()
    limits = {"max_seconds": None} if lift else {}
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        res = estimator_moments(model, N, KFold(10), classifier=NaiveBayes(alpha=1, ties="first"), backend=backend,
                                **limits)
    except InvalidArgument as exc:
        print(json.dumps({"refused": str(exc), **est}), flush=True)
        return
    print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                      "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0,
                      "mean": float(res.mean), "variance": float(res.variance),
                      "dense": rs.holds_dense(model, nc, r, r, rs.DENSE_BYTES),
                      "dropped_mass_bound": backend.dropped_mass_bound, **est}), flush=True)


def simulate_cv(model, N: int, v: int, datasets: int, rng: np.random.Generator, alpha: int = 1,
                chunk: int = 10_000) -> np.ndarray:
    """``CE`` of ``datasets`` simulated runs of ``v``-fold CV of naive Bayes (integer ``alpha``,
    ties to the lower class): score keys ``N_k prod_j (A_jk + alpha) prod_{i != k} den_i`` with
    ``den_i = prod_j (N_i + alpha a_j)``, a class absent from the training set never predicted."""
    from momentbound.splitters.basic import kfold_sizes

    p = np.array([float(c) for c in model.cells])
    K, ar = model.n_classes, tuple(model.arities)
    C, d = p.size, len(ar)
    cum = np.cumsum(p)
    cum[-1] = 1.0
    digits = np.array(list(np.ndindex(*ar)))
    fold_of = np.repeat(np.arange(v), kfold_sizes(N, v))
    cell_x, cell_y = np.arange(C) // K, np.arange(C) % K
    out = np.empty(datasets)
    for start in range(0, datasets, chunk):
        r = min(chunk, datasets - start)
        idx = np.searchsorted(cum, rng.random((r, N)), side="right")
        key = (np.arange(r)[:, None] * v + fold_of) * C + idx
        F = np.bincount(key.ravel(), minlength=r * v * C).reshape(r, v, C)
        T = (F.sum(axis=1, keepdims=True) - F).reshape(r, v, -1, K)
        Nk = T.sum(axis=2)  # (r, v, K)
        den = np.ones_like(Nk)
        for a in ar:
            den = den * (Nk + alpha * a)
        den = np.where(Nk > 0, den, 1)
        scores = np.empty(T.shape, dtype=np.int64)
        for ix, x in enumerate(digits):
            A = np.ones((r, v, K), dtype=np.int64)
            for j in range(d):
                A *= T[:, :, digits[:, j] == x[j], :].sum(axis=2) + alpha
            scores[:, :, ix, :] = A * Nk
        for k in range(K):
            for i in range(K):
                if i != k:
                    scores[..., k] *= den[:, :, None, i]
        scores = np.where((Nk > 0)[:, :, None, :], scores, -1)
        wrong = scores.argmax(axis=-1)[:, :, cell_x] != cell_y
        out[start:start + r] = (F * wrong).sum(axis=(1, 2)) / N
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="asym", choices=["asym", "paper"])
    ap.add_argument("--N", type=int, default=200)
    ap.add_argument("--rel", type=float, default=0.01, help="target standard error of Var(CE), relative")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--no-sim", action="store_true")
    ap.add_argument("--lift", action="store_true", help="exact run without the time and work limits")
    ap.add_argument("--packed", action="store_true",
                    help="also run the exact moments with the levels held packed (the form above 2 GiB), same run")
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="N = 60, Var(CE) to 5%% relative")
    args = ap.parse_args()
    if args.quick:
        args.N, args.rel = 60, 0.05
    if args.one:
        run_exact(args.one[0], int(args.one[1]), args.one[2] == "lift", args.one[3] == "packed")
        return
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; model {args.model}, N = {args.N}, 10-fold, alpha = 1, ties 'first'",
          flush=True)
    exact = None
    runs = {}
    for form in (("default", "packed") if args.packed else ("default",)) if not args.no_exact else ():
        cmd = [sys.executable, __file__, "--one", args.model, str(args.N), "lift" if args.lift else "default", form]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise SystemExit(f"exact child failed:\n{res.stderr[-3000:]}")
        run = json.loads(res.stdout.strip().splitlines()[-1])
        if "refused" in run:
            print(f"exact ({form}): refused by the guard: {run['refused']}")
            continue
        runs[form] = run
        levels = "dense" if run["dense"] else "packed"
        print(f"exact ({form}, levels {levels}): cpu {run['cpu']:.1f} s (estimated {run['est_seconds']:.1f} s, "
              f"measured/estimated {run['cpu'] / run['est_seconds']:.2f}), wall {run['wall']:.1f} s, peak RSS "
              f"{run['rss'] / 2**30:.2f} GiB (estimated {run['est_bytes'] / 2**30:.2f} GiB), "
              f"E[CE] = {run['mean']!r}, Var(CE) = {run['variance']!r}, dropped mass <= "
              f"{run['dropped_mass_bound']:.1g}", flush=True)
    exact = runs.get("default")
    if len(runs) == 2:
        a, b = runs["default"], runs["packed"]
        same = (a["mean"], a["variance"]) == (b["mean"], b["variance"])
        print(f"default / packed: CPU {a['cpu'] / b['cpu']:.2f}, peak RSS {a['rss'] / b['rss']:.2f}; moments "
              f"{'bitwise equal' if same else 'DIFFER'}", flush=True)
        if not same:
            raise SystemExit("the dense and packed levels gave different moments")
    if args.no_sim:
        return
    model = make_model(args.model)
    rng = np.random.default_rng(args.seed)
    cpu, wall = time.process_time(), time.perf_counter()
    ce = simulate_cv(model, args.N, 10, 2000, rng)
    dev = (ce - ce.mean()) ** 2
    rel = float(dev.std(ddof=1) / dev.mean()) / math.sqrt(ce.size)
    R = max(2000, int(math.ceil(ce.size * (rel / args.rel) ** 2)))
    if R > ce.size:
        ce = np.concatenate([ce, simulate_cv(model, args.N, 10, R - ce.size, rng)])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    mean, var = float(ce.mean()), float(ce.var(ddof=1))
    se_mean = math.sqrt(var / R)
    se_var = float(((ce - mean) ** 2).std(ddof=1)) / math.sqrt(R)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0
    print(f"simulation: {R} datasets, cpu {cpu:.1f} s, wall {wall:.1f} s, peak RSS {peak / 2**30:.2f} GiB: "
          f"E[CE] = {mean:.6f} +- {se_mean:.1e}, Var(CE) = {var:.6e} +- {se_var:.1e} "
          f"({se_var / var:.2%})", flush=True)
    if exact is not None:
        zm = (exact["mean"] - mean) / se_mean
        zv = (exact["variance"] - var) / se_var
        print(f"z: E[CE] {zm:+.2f}, Var(CE) {zv:+.2f}; CPU time simulation / exact {cpu / exact['cpu']:.2f}",
              flush=True)
        if abs(zm) > 3 or abs(zv) > 3:
            raise SystemExit("exact and simulated moments differ by more than 3 standard errors")


if __name__ == "__main__":
    main()
