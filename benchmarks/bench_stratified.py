"""Exact moments of scikit-learn's StratifiedKFold CV error of naive Bayes: timings and a check
against real scikit-learn runs.

* ``--exact``: stratified 10-fold moments of the one-attribute paper model (cells 0.2, 0.3,
  0.2, 0.3) at N = 100, both tie rules (target <= 1 s);
* ``--sweep``: the same model over folds 2..100 with one shared term cache (target <= 10 s);
* ``--sklearn R``: R real ``cross_val_score(CategoricalNB(alpha=1, min_categories=[3]), X, y,
  cv=5)`` runs at N = 30 for a three-class model with one 3-valued attribute
  (``p[x, y] = 1/6`` if ``x == y`` else ``1/12``), against the exact moments
  (``average="folds"``, tie rule ``first``); prints the differences in standard errors.

Times are CPU seconds (``time.process_time``) and wall seconds (the machine is a shared 2-core box).

Usage: ``python benchmarks/bench_stratified.py [--exact] [--sweep] [--sklearn 20000] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time
import warnings
from fractions import Fraction

import numpy as np

from momentbound import CellModel
from momentbound.exact import NaiveBayes
from momentbound.exact.class_terms import ClassCountTerms
from momentbound.exact.stratified import stratified_cv_moments

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


def bench_sweep() -> None:
    clf = NaiveBayes(ties="random", alpha=0)
    terms = ClassCountTerms(PAPER, clf, "float")
    c0, w0 = clocks()
    for v in range(2, 101):
        r = stratified_cv_moments(PAPER, 100, v, classifier=clf, arithmetic="float", terms=terms)
        if v % 10 == 0 or v == 2:
            c1, w1 = clocks()
            print(f"  v={v}: mean {r.mean:.5f} var {r.variance:.3e} P[possible] {r.prob_possible:.3g} "
                  f"(cumulative cpu {c1 - c0:.1f} s)", flush=True)
    c1, w1 = clocks()
    print(f"sweep v=2..100 at N=100: cpu {c1 - c0:.1f} s wall {w1 - w0:.1f} s", flush=True)


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
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.exact:
        bench_exact()
    if args.sweep:
        bench_sweep()
    if args.sklearn:
        bench_sklearn(args.sklearn, args.seed)


if __name__ == "__main__":
    main()
