"""Exact moments of scikit-learn's StratifiedKFold CV error of naive Bayes: timings and a check
against real scikit-learn runs.

* ``--exact``: stratified 10-fold moments of the one-attribute paper model (cells 0.2, 0.3,
  0.2, 0.3) at N = 100, both tie rules (target <= 1 s);
* ``--sweep``: the same model over folds 2..100 with one shared term cache (target <= 10 s);
* ``--sklearn R``: R real ``cross_val_score(CategoricalNB(alpha=1, min_categories=[3]), X, y,
  cv=5)`` runs at N = 30 for a three-class model with one 3-valued attribute
  (``p[x, y] = 1/6`` if ``x == y`` else ``1/12``), against the exact moments
  (``average="folds"``, tie rule ``first``); prints the differences in standard errors.

* ``--baseline``: a vectorised numpy simulation of the same procedure (datasets drawn as cell
  indices, scikit-learn's fold allocation, per-fold counts by ``bincount``, naive Bayes predictions
  from the training tables, ``CE = errors / N``; datasets where the split is impossible are
  dropped, as the exact moments are conditional on the split being possible), for ties ``first``,
  alpha 1 at v = 10 and over the sweep v = 2..100: the simulated Var(CE) against the exact value
  (in standard errors), the number of datasets for a 1% relative standard error on Var(CE) (from
  the pilot's kurtosis), the extrapolated simulation time, its ratio to the exact time and the
  peak traced memory of both (``tracemalloc``).
* ``--repeated``: exact ``RepeatedStratifiedKFold(10, 5)`` moments of the same model at N = 100
  (ties ``random``, alpha 0): the variance of one partition and the covariance of two.
* ``--quick``: the exact v = 10 moments, the sweep over v = 2..10, and the baseline (v = 10,
  sweep v = 2..6) with small pilots (seconds).

Times are CPU seconds (``time.process_time``) and wall seconds (the machine is a shared 2-core box).

Usage: ``python benchmarks/bench_stratified.py [--exact] [--sweep] [--repeated] [--sklearn 20000] [--baseline] [--quick] [--seed 0]``
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
import warnings
from fractions import Fraction

import numpy as np

from momentbound import CellModel
from momentbound.exact import NaiveBayes
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.exact.stratified import repeated_stratified_cv_moments, stratified_cv_moments
from momentbound.splitters.repeated import _labels_by_counts, _stratified_allocation

PAPER = CellModel((2,), ["0.2", "0.3", "0.2", "0.3"])
THREE = CellModel((3,), [Fraction(1, 6) if x == y else Fraction(1, 12) for x in range(3) for y in range(3)], 3)


def clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def bench_exact() -> None:
    for ties, alpha in [("random", 0), ("first", 1)]:
        c0, w0 = clocks()
        r = stratified_cv_moments(PAPER, 100, 10, classifier=NaiveBayes(ties=ties, alpha=alpha), arithmetic="float")
        c1, w1 = clocks()
        print(f"exact N=100 v=10 ties={ties} alpha={alpha}: mean {r.mean:.6f} var {r.variance:.6e} "
              f"fold cov {r.fold_covariance:.6e}  cpu {c1 - c0:.2f} s wall {w1 - w0:.2f} s", flush=True)


def bench_sweep(last: int = 100) -> None:
    clf = NaiveBayes(ties="random", alpha=0)
    terms = ClassCountTerms(PAPER, clf, "float")
    c0, w0 = clocks()
    for v in range(2, last + 1):
        r = stratified_cv_moments(PAPER, 100, v, classifier=clf, arithmetic="float", terms=terms)
        if v % 10 == 0 or v == 2:
            c1, w1 = clocks()
            print(f"  v={v}: mean {r.mean:.5f} var {r.variance:.3e} P[possible] {r.prob_possible:.3g} "
                  f"(cumulative cpu {c1 - c0:.1f} s)", flush=True)
    c1, w1 = clocks()
    print(f"sweep v=2..{last} at N=100: cpu {c1 - c0:.1f} s wall {w1 - w0:.1f} s", flush=True)


def bench_repeated() -> None:
    c0, w0 = clocks()
    r = repeated_stratified_cv_moments(PAPER, 100, 10, 5, classifier=NaiveBayes(ties="random", alpha=0),
                                       arithmetic="float")
    c1, w1 = clocks()
    print(f"repeated stratified N=100 v=10 R=5: Var(one) {float(r.single.variance):.4e} C {float(r.repeat_covariance):.4e} "
          f"Var(mean of 5) {float(r.variance):.4e}  cpu {c1 - c0:.1f} s wall {w1 - w0:.1f} s", flush=True)


def simulate_stratified(model: CellModel, N: int, v: int, R: int, rng: np.random.Generator,
                        clf: NaiveBayes, chunk: int = 5_000) -> np.ndarray:
    """CE of scikit-learn's ``StratifiedKFold(v)`` for up to ``R`` i.i.d. datasets (impossible splits
    dropped).  Cells are indexed ``x * K + y``."""
    K, C = model.n_classes, model.n_cells
    p = np.array([float(q) for q in model.cells])
    out = []
    for s in range(0, R, chunk):
        r = min(chunk, R - s)
        cells = rng.choice(C, size=(r, N), p=p)
        y = cells % K
        counts = np.stack([(y == k).sum(axis=1) for k in range(K)], axis=1)
        ok = counts.max(axis=1) >= v  # scikit-learn raises otherwise
        cells, y = cells[ok], y[ok]
        r = len(y)
        if r == 0:
            continue
        alloc = _stratified_allocation(y, K, v)  # (r, v, K)
        cum = np.cumsum(alloc, axis=1).transpose(0, 2, 1)  # (r, K, v)
        fold = _labels_by_counts(y, cum, rng)  # (r, N)
        flat = (np.arange(r)[:, None] * v + fold) * C + cells
        folds = np.bincount(flat.ravel(), minlength=r * v * C).reshape(r, v, C)
        train = (folds.sum(axis=1, keepdims=True) - folds).reshape(r * v, C)
        g = clf.predict_tables(model, train).reshape(r, v, C // K, K)  # g_x(y | T)
        correct = g[:, :, np.arange(C) // K, np.arange(C) % K]  # (r, v, C): P[predict y at x]
        out.append((folds * (1.0 - correct)).sum(axis=(1, 2)) / N)
    return np.concatenate(out) if out else np.empty(0)


def var_rse(x: np.ndarray) -> float:
    """Relative standard error of the sample variance: sqrt((kurtosis - 1) / R)."""
    d2 = (x - x.mean()) ** 2
    return float(d2.std(ddof=1) / math.sqrt(len(x)) / d2.mean())


def traced(f):
    tracemalloc.start()
    c0, w0 = clocks()
    out = f()
    c1, w1 = clocks()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, c1 - c0, w1 - w0, peak


def bench_baseline(pilot: int, last: int, sweep_pilot: int, seed: int) -> None:
    clf = NaiveBayes(ties="first", alpha=1)
    rng = np.random.default_rng(seed)
    exact, cpu_e, wall_e, mem_e = traced(lambda: stratified_cv_moments(PAPER, 100, 10, classifier=clf, arithmetic="float"))
    ce, cpu_s, wall_s, mem_s = traced(lambda: simulate_stratified(PAPER, 100, 10, pilot, rng, clf))
    var, rse = float(ce.var(ddof=1)), var_rse(ce)
    need = len(ce) * (rse / 0.01) ** 2
    t_need = cpu_s * need / len(ce)
    print(f"[v=10] exact ties=first alpha=1: var {exact.variance:.6e}  cpu {cpu_e:.3f} s wall {wall_e:.3f} s "
          f"peak {mem_e:.1f} MiB", flush=True)
    print(f"[v=10] simulation pilot R={len(ce)}: mean {ce.mean():.6f} var {var:.6e} (rel s.e. {rse:.2%}; "
          f"{(var - exact.variance) / (rse * var):+.2f} s.e. from exact)  cpu {cpu_s:.2f} s peak {mem_s:.1f} MiB",
          flush=True)
    print(f"[v=10] datasets for 1% rel s.e. on Var(CE): {need:.0f}; extrapolated cpu {t_need:.1f} s; "
          f"ratio to exact {t_need / cpu_e:.2f}x", flush=True)
    terms = ClassCountTerms(PAPER, clf, "float")
    cpu_x = cpu_sim = 0.0
    worst = 0.0
    skipped = []
    mem_x = mem_sim = 0.0
    for v in range(2, last + 1):
        ex, c, _, m = traced(lambda: stratified_cv_moments(PAPER, 100, v, classifier=clf, arithmetic="float", terms=terms))
        cpu_x, mem_x = cpu_x + c, max(mem_x, m)
        if float(ex.prob_possible) < 0.5:
            skipped.append(v)
            continue
        ce, c, _, m = traced(lambda: simulate_stratified(PAPER, 100, v, sweep_pilot, rng, clf))
        mem_sim = max(mem_sim, m)
        rse = var_rse(ce)
        cpu_sim += c * (rse / 0.01) ** 2  # time for 1% relative s.e. at this v
        worst = max(worst, abs(float(ce.var(ddof=1)) - float(ex.variance)) / (rse * float(ce.var(ddof=1))))
    print(f"[sweep v=2..{last}] exact cpu {cpu_x:.1f} s peak {mem_x:.1f} MiB; simulation at 1% rel s.e. "
          f"(extrapolated from pilots of {sweep_pilot}) cpu {cpu_sim:.0f} s peak {mem_sim:.1f} MiB; ratio "
          f"{cpu_sim / cpu_x:.2f}x; largest |sim - exact| {worst:.2f} s.e.; v skipped (P[possible] < 0.5): "
          f"{skipped[0] if skipped else '-'}..{skipped[-1] if skipped else '-'} ({len(skipped)})", flush=True)


def bench_sklearn(runs: int, seed: int) -> None:
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    c0, w0 = clocks()
    exact = stratified_cv_moments(THREE, 30, 5, classifier=NaiveBayes(ties="first", alpha=1), average="folds")
    c1, w1 = clocks()
    print(f"exact 3-class N=30 cv=5: mean {float(exact.mean):.5f} var {float(exact.variance):.6f} "
          f"P[warn] {float(exact.prob_warning):.4f}  cpu {c1 - c0:.1f} s", flush=True)
    rng = np.random.default_rng(seed)
    p = np.array([float(THREE.p((x,), y)) for x in range(3) for y in range(3)])
    ce = np.empty(runs)
    c0, w0 = clocks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "least populated class" (as a user sees)
        for r in range(runs):
            cells = rng.choice(9, size=30, p=p)
            X, y = (cells // 3)[:, None], cells % 3
            acc = cross_val_score(CategoricalNB(alpha=1, min_categories=[3]), X, y, cv=5, error_score="raise")
            ce[r] = 1.0 - acc.mean()
    c1, w1 = clocks()
    m, v = ce.mean(), ce.var(ddof=1)
    se_m = np.sqrt(v / runs)
    se_v = np.sqrt(max(np.mean((ce - m) ** 4) - v * v, 0.0) / runs)
    print(f"{runs} cross_val_score runs: mean {m:.5f} +- {se_m:.5f} ({(m - float(exact.mean)) / se_m:+.2f} SE), "
          f"var {v:.6f} +- {se_v:.6f} ({(v - float(exact.variance)) / se_v:+.2f} SE)  cpu {c1 - c0:.0f} s "
          f"wall {w1 - w0:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--sklearn", type=int, default=0, metavar="R")
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--repeated", action="store_true")
    ap.add_argument("--quick", action="store_true", help="exact, sweep v=2..20 and a small baseline (seconds)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.quick:
        bench_exact()
        bench_sweep(10)
        bench_baseline(20_000, 6, 2_000, args.seed)
        return
    if args.exact:
        bench_exact()
    if args.sweep:
        bench_sweep()
    if args.repeated:
        bench_repeated()
    if args.baseline:
        bench_baseline(200_000, 100, 20_000, args.seed)
    if args.sklearn:
        bench_sklearn(args.sklearn, args.seed)


if __name__ == "__main__":
    main()
