"""The ``montecarlo`` backend against a vectorised numpy simulation of real cross-validation.

Baseline: what a user writes by hand in numpy. Draw many datasets at once as cell indices (inverse
cdf of uniforms), count every fold with ``bincount``, train naive Bayes (``ties="first"``, exact
integer score keys) on the other folds' counts, compare its predictions with the test fold's
labels; ``CE`` per dataset; ``Var(CE)`` is the sample variance with the usual fourth-moment 95%
interval. ``montecarlo``: ``monte_carlo_moments(..., KFold(10))`` with the same classifier.

Both are timed in the same run; the figure of merit is time-per-unit-precision,
``seconds * half_width(Var CE)^2`` (the half-width shrinks as ``1 / sqrt(draws)``), and the ratio
of the baseline's to the backend's is the speed-up at equal interval width (best of 5 runs each; the
machine is shared). Peak memory: tracemalloc (numpy allocations) per method, in a separate run. The exact ``Var(CE)`` is printed where it is cheap, as a check.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_montecarlo_vs_simulation.py [--quick]
"""

from __future__ import annotations

import math
import os
import sys
import time
import tracemalloc
from statistics import NormalDist

import numpy as np

from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.estimators import KFold
from momentbound.splitters.basic import kfold_sizes
from momentbound.estimators.montecarlo import monte_carlo_moments
from momentbound.model.cells import CellModel
from momentbound.model.paper import second_nb_model

Z95 = NormalDist().inv_cdf(0.975)


def simulate_cv(model: CellModel, N: int, v: int, datasets: int, rng: np.random.Generator,
                chunk: int = 20_000) -> np.ndarray:
    """``CE`` of ``datasets`` simulated runs of ``v``-fold CV of naive Bayes (ties 'first', alpha 0)."""
    p = np.array([float(c) for c in model.cells])
    K, ar = model.n_classes, tuple(model.arities)
    C, d = p.size, len(ar)
    cum = np.cumsum(p)
    cum[-1] = 1.0
    digits = np.array(list(np.ndindex(*ar)))  # (inputs, d)
    sizes = kfold_sizes(N, v)
    fold_of = np.repeat(np.arange(v), sizes)  # KFold: consecutive blocks of i.i.d. points
    cell_x, cell_y = np.arange(C) // K, np.arange(C) % K
    out = np.empty(datasets)
    for start in range(0, datasets, chunk):
        r = min(chunk, datasets - start)
        idx = np.searchsorted(cum, rng.random((r, N)), side="right")  # cell of every point
        key = (np.arange(r)[:, None] * v + fold_of) * C + idx
        F = np.bincount(key.ravel(), minlength=r * v * C).reshape(r, v, C)  # fold count tables
        T = (F.sum(axis=1, keepdims=True) - F).reshape(r, v, -1, K)  # training tables (r, v, inputs, K)
        Nk = T.sum(axis=2)  # (r, v, K)
        scores = np.empty(T.shape, dtype=np.int64)  # integer keys N_k prod_j A_jk prod_{i != k} N_i^d
        for ix, x in enumerate(digits):
            A = np.ones((r, v, K), dtype=np.int64)
            for j in range(d):
                sel = (digits[:, j] == x[j])
                A *= T[:, :, sel, :].sum(axis=2)
            scores[:, :, ix, :] = A * Nk
        den = np.where(Nk > 0, Nk ** d, 1)
        for k in range(K):
            for i in range(K):
                if i != k:
                    scores[..., k] *= den[:, :, None, i]
        scores = np.where((Nk > 0)[:, :, None, :], scores, -1)  # only present classes
        pred = scores.argmax(axis=-1)  # lowest index among ties
        wrong = pred[:, :, cell_x] != cell_y  # (r, v, C)
        out[start:start + r] = (F * wrong).sum(axis=(1, 2)) / N
    return out


def var_interval(ce: np.ndarray) -> tuple[float, float]:
    """Sample variance and its 95% half-width (fourth central moment)."""
    R = ce.size
    dev = (ce - ce.mean()) ** 2
    return float(dev.sum() / (R - 1)), Z95 * float(dev.std(ddof=1)) / math.sqrt(R)


def timed(fn, repeats: int = 5):
    """Result, best wall-clock seconds of ``repeats`` runs (the machine is shared) and peak memory."""
    secs = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        secs = min(secs, time.perf_counter() - t)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, secs, peak


def three_class_model() -> CellModel:
    return CellModel((3,), ["3/20", "1/10", "2/25", "1/10", "3/20", "2/25", "2/25", "1/10", "4/25"])


def main() -> None:
    quick = "--quick" in sys.argv
    clf = NaiveBayes(ties="first")
    cases = [
        ("2x2x2, N = 100", second_nb_model(), 100, 200_000, 200_000),
        ("2x2x2, N = 1000", second_nb_model(), 1000, 40_000, 200_000),
        ("3 classes x (3,), N = 100", three_class_model(), 100, 200_000, 200_000),
    ]
    if quick:
        cases = [(a, b, c, d // 20, e // 20) for a, b, c, d, e in cases]
    # compile the kernels outside the timings
    monte_carlo_moments(second_nb_model(), 20, KFold(10), classifier=clf, draws=500,
                        rng=np.random.default_rng(0))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (at the start)")
    print("| model | method | draws | seconds | Var(CE) | 95% half-width | peak MB | s x hw^2 |")
    print("|---|---|---|---|---|---|---|---|")
    for label, model, N, n_sim, n_mc in cases:
        ce, t_sim, peak_sim = timed(lambda: simulate_cv(model, N, 10, n_sim, np.random.default_rng(2026)))
        v_sim, h_sim = var_interval(ce)
        r, t_mc, peak_mc = timed(lambda: monte_carlo_moments(
            model, N, KFold(10), classifier=clf, draws=n_mc, rng=np.random.default_rng(7)))
        v_mc = r.variance.estimate
        h_mc = (r.variance.upper - r.variance.lower) / 2
        cost_sim, cost_mc = t_sim * h_sim**2, t_mc * h_mc**2
        for name, n, t, v, h, peak, cost in (
            ("numpy simulation", n_sim, t_sim, v_sim, h_sim, peak_sim, cost_sim),
            ("montecarlo", n_mc, t_mc, v_mc, h_mc, peak_mc, cost_mc),
        ):
            print(f"| {label} | {name} | {n:,} | {t:.2f} | {v:.6g} | {h:.3g} ({100 * h / v:.2f}%) | "
                  f"{peak / 2**20:.0f} | {cost:.3g} |")
        agree = abs(v_sim - v_mc) / math.hypot(h_sim, h_mc) * Z95
        print(f"| {label} | **ratio** (simulation / montecarlo, equal width) | | | "
              f"difference {agree:.1f} sd | | | **{cost_sim / cost_mc:.1f}x** |")


if __name__ == "__main__":
    main()
    print(f"load average {os.getloadavg()[0]:.1f} (at the end)")
