"""Exact resubstitution, Err(1) and .632 on sufficient statistics against a vectorised simulation.

Workloads (naive Bayes, the paper's tie rule ``random``, ``alpha = 0``):

* (a) two attributes of 2 and 3 values (dependent given the class), two classes, ``N = 40``:
  resubstitution (84.7 million count tables at N = 20; 4.8e10 at N = 40);
* (b) one 4-valued attribute, three classes, ``N = 30``: resubstitution, ``Err(1)`` and .632 (3.16e9 count tables);
* (c) one 4-valued attribute, two classes, ``N = 60``: resubstitution, the ideal bootstrap ``Err(1)``
  and .632 (8.7e8 count tables).

Exact: ``estimator_accuracy(model, N, splitter)`` (mean, variance, RMS against ``GE_N``), each in a
fresh child process, timed (CPU, wall) with its peak resident memory.

Simulation (the baseline, the real procedure in numpy batches): datasets drawn point by point; naive
Bayes fitted on each (class totals and per-attribute class counts), every class scored by the
integer key ``prod_j A_jk prod_{i != k} max(n_i, 1)^(d - 1)`` (ordered like the scores
``(n_k / N) prod_j A_jk / n_k``, exact comparisons), a tie broken by a coin among the tied classes;
resubstitution is the share of training points misclassified, ``GE_N`` the population error of the
fitted classifier (ties at their probabilities). ``Err(1)``: for every point ``i``, one bootstrap
sample of ``N`` draws from the other ``N - 1`` points, the classifier trained on it predicts point
``i``; the mean loss is an unbiased draw of the ideal ``Err(1)``, and two independent draws give
``E[Err(1)^2]`` by their product. z-scores of the exact mean, second moment and mean square
against ``GE_N``. The simulation runs until the standard error of the mean is 1% of the mean (timed;
the ratio is to the exact CPU time), then ``--witness`` draws in all give the z-scores.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_resub_multiattr.py [--witness 100000] [--cases a b c] [--quick]

``--quick`` runs the same three cases at N = 20, 15 and 30 with 10,000 witness draws (seconds).
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

WEIGHTS = {
    "a": ((2, 3), 2, [6, 2, 4, 3, 2, 5, 5, 1, 1, 4, 3, 7]),
    "b": ((4,), 3, [5, 2, 1, 2, 5, 2, 1, 2, 5, 3, 3, 2]),
    "c": ((4,), 2, [6, 2, 4, 3, 2, 5, 1, 4]),
}
SIZES = {"a": 40, "b": 30, "c": 60}
QUICK_SIZES = {"a": 20, "b": 15, "c": 30}
STATS = {"a": ("Resubstitution",), "b": ("Resubstitution", "Bootstrap", "Point632"), "c": ("Resubstitution", "Bootstrap", "Point632")}


def model_of(case: str):
    from fractions import Fraction

    from momentbound import CellModel

    arities, K, w = WEIGHTS[case]
    return CellModel.normalized(arities, [Fraction(v) for v in w], K)


def exact_child(case: str, stat: str, N: int) -> None:
    from momentbound.estimators import estimator_accuracy
    from momentbound.splitters import bootstrap

    cpu, wall = time.process_time(), time.perf_counter()
    acc = estimator_accuracy(model_of(case).to_float(), N, getattr(bootstrap, stat)())
    out = {"mean": float(acc.mean), "variance": float(acc.variance), "mean_square": float(acc.mean_square),
           "rms": float(acc.rms), "route": acc.route, "cpu": time.process_time() - cpu,
           "wall": time.perf_counter() - wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    print(json.dumps(out))


# ----------------------------------------------------------------------------- simulation
class Sim:
    def __init__(self, case: str, N: int, rng: np.random.Generator) -> None:
        arities, K, w = WEIGHTS[case]
        self.arities, self.K, self.N = arities, K, N
        p = np.array(w, dtype=float)
        self.p = p / p.sum()
        self.X = int(np.prod(arities))
        self.coords = np.array(np.unravel_index(np.arange(self.X), arities)).T  # (X, d)
        P = self.p.reshape(self.X, K)
        self.wrong = P.sum(axis=1, keepdims=True) - P  # P[X = x, Y != k]
        self.rng = rng

    def keys(self, tables: np.ndarray) -> np.ndarray:
        """Integer class keys at every input for count tables ``(..., X * K)``: ``(..., X, K)``."""
        d, K = len(self.arities), self.K
        t = tables.reshape(tables.shape[:-1] + (self.X, K))
        n = t.sum(axis=-2)  # (..., K)
        shaped = t.reshape(tables.shape[:-1] + tuple(self.arities) + (K,))
        lead = tables.ndim - 1
        key = np.ones(tables.shape[:-1] + (self.X, K), dtype=np.int64)
        for j in range(d):
            marg = shaped.sum(axis=tuple(lead + i for i in range(d) if i != j))  # (..., a_j, K)
            key = key * marg[..., self.coords[:, j], :]  # A_jk at every input
        base = np.maximum(n, 1) ** (d - 1)
        for k in range(K):
            factor = np.prod(np.delete(base, k, axis=-1), axis=-1)
            key[..., k] = key[..., k] * factor[..., None]
        return key

    def decide(self, key: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A coin-broken prediction (``u`` uniform, shape of ``key[..., 0]``) and the tie shares."""
        tied = key == key.max(axis=-1, keepdims=True)
        count = tied.sum(axis=-1)
        pick = np.floor(u * count).astype(np.int64)  # the pick-th tied class
        label = (np.cumsum(tied, axis=-1) <= pick[..., None]).sum(axis=-1)
        return label, tied / count[..., None]

    def batch(self, R: int, bootstrap: bool) -> dict[str, np.ndarray]:
        N, K, rng = self.N, self.K, self.rng
        cells = rng.choice(self.p.size, size=(R, N), p=self.p)
        tables = np.zeros((R, self.p.size), dtype=np.int64)
        np.add.at(tables, (np.repeat(np.arange(R), N), cells.ravel()), 1)
        key = self.keys(tables)  # (R, X, K)
        x, y = cells // K, cells % K
        kp = key[np.arange(R)[:, None], x]  # (R, N, K): the keys at every point's input
        label, _ = self.decide(kp, rng.random((R, N)))
        resub = (label != y).mean(axis=1)
        _, share = self.decide(key, np.zeros(key.shape[:-1]))
        ge = (share * self.wrong).sum(axis=(1, 2))
        out = {"resub": resub, "ge": ge}
        if bootstrap:
            out["err1_a"], out["err1_b"] = self.err1(cells), self.err1(cells)
        return out

    def err1(self, cells: np.ndarray) -> np.ndarray:
        """One unbiased draw of the ideal ``Err(1)`` per dataset."""
        R, N = cells.shape
        K, rng = self.K, self.rng
        idx = rng.integers(0, N - 1, size=(R, N, N))
        idx = idx + (idx >= np.arange(N)[None, :, None])  # N draws from the points other than i
        sample = np.take_along_axis(cells[:, None, :].repeat(N, axis=1), idx, axis=2)  # (R, N_i, N)
        tables = np.zeros((R, N, self.p.size), dtype=np.int64)
        np.add.at(tables, (np.repeat(np.arange(R), N * N), np.tile(np.repeat(np.arange(N), N), R), sample.ravel()), 1)
        key = self.keys(tables)  # (R, N, X, K)
        x, y = cells // K, cells % K
        kp = np.take_along_axis(key, x[:, :, None, None].repeat(K, axis=3), axis=2)[:, :, 0, :]
        label, _ = self.decide(kp, rng.random((R, N)))
        return (label != y).mean(axis=1)


def z(exact: float, values: np.ndarray) -> tuple[float, float]:
    m, se = values.mean(), values.std(ddof=1) / np.sqrt(len(values))
    return float(m), float((exact - m) / se)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--witness", type=int, default=100_000)
    ap.add_argument("--cases", nargs="*", default=["a", "b", "c"])
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--quick", action="store_true", help="N = 20, 15, 30 for cases a, b, c; 10,000 witness draws")
    args = ap.parse_args()
    if args.child:
        exact_child(args.child[0], args.child[1], int(args.child[2]))
        return
    sizes = QUICK_SIZES if args.quick else SIZES
    if args.quick:
        args.witness = 10_000
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()}")
    rng = np.random.default_rng(args.seed)
    a = 0.632
    for case in args.cases:
        N = sizes[case]
        sim = Sim(case, N, rng)
        boot = len(STATS[case]) > 1
        exact = {}
        for stat in STATS[case]:
            run = subprocess.run([sys.executable, __file__, "--child", case, stat, str(N)], capture_output=True, text=True,
                                 check=True, env=dict(os.environ))
            exact[stat] = json.loads(run.stdout.strip().splitlines()[-1])
        # simulation: timed to a 1% standard error of the mean, then the witness draws
        cpu, wall = time.process_time(), time.perf_counter()
        chunk = max(1, 2_000_000 // (N * N * 8)) if boot else 20_000
        parts: list[dict[str, np.ndarray]] = []
        t_1pct = None
        while sum(len(p["resub"]) for p in parts) < args.witness:
            parts.append(sim.batch(chunk, boot))
            if t_1pct is None:
                r = np.concatenate([p["resub"] for p in parts])
                if len(r) > 100 and r.std(ddof=1) / np.sqrt(len(r)) <= 0.01 * r.mean():
                    t_1pct = time.process_time() - cpu
        sim_cpu, sim_wall = time.process_time() - cpu, time.perf_counter() - wall
        d = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        print(f"\n## case {case}: arities {WEIGHTS[case][0]}, K = {WEIGHTS[case][1]}, N = {N}; "
              f"{len(d['resub'])} simulated datasets in {sim_cpu:.1f} s CPU ({sim_wall:.1f} s wall); "
              f"1% standard error of the resubstitution mean after {t_1pct:.2f} s CPU")
        print("| statistic | route | exact CPU s (wall) | peak MB | mean exact / sim (z) | E[est^2] z | "
              "E[(est - GE_N)^2] exact / sim (z) | CPU ratio sim(1%) / exact | sim CPU s to se 1e-4 |")
        print("|---|---|---|---|---|---|---|---|---|")
        for stat, e in exact.items():
            R, G = d["resub"], d["ge"]
            if stat == "Resubstitution":
                first, second, dev = R, R * R, (R - G) ** 2
            else:
                w = (1 - a) if stat == "Point632" else 0.0
                b = a if stat == "Point632" else 1.0
                e1, e2 = w * R + b * d["err1_a"], w * R + b * d["err1_b"]
                first, second, dev = (e1 + e2) / 2, e1 * e2, (e1 - G) * (e2 - G)
            m, zm = z(e["mean"], first)
            _, zs = z(e["variance"] + e["mean"] ** 2, second)
            ms, zd = z(e["mean_square"], dev)
            print(f"| {stat} | {e['route']} | {e['cpu']:.2f} ({e['wall']:.2f}) | {e['rss_mb']:.0f} | "
                  f"{e['mean']:.5f} / {m:.5f} ({zm:+.2f}) | {zs:+.2f} | {e['mean_square']:.5f} / {ms:.5f} ({zd:+.2f}) | "
                  f"{t_1pct / e['cpu']:.2g} | {sim_cpu / len(first) * (first.std() / 1e-4) ** 2:.3g} |")
    print(f"\nload after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
