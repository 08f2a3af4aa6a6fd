"""Benchmark of the exact laws (the ``exact`` truth of the bounds and the exact GE moments).

Workloads (timed in one run, wall-clock and CPU seconds):

1. ``P[Z > 0]`` for the 2x2x2 model with equal cells at ``x = (0, 0)`` (the paper's Table 4
   statistic), N = 10 (exact rationals), 100 and 1000 (floats, split tail <= 1e-13).
   Baseline: the paper's "Direct" method, a sum over all count tables, timed at N = 8 and
   N = 10 in the same run and extrapolated by the number of tables (C(N + 7, 7)).
2. Exact ``E[GE]`` and ``Var[GE]`` of the 2x2x2 naive Bayes (paper's second model, random
   ties) at N = 100 (and optionally 1000) from the ``exact`` backend's single and pair
   probabilities. Baseline: brute force over count tables at N = 8, extrapolated.
3. The 1-D cross-validation ingredients of the paper's sweep (N = 100, prior 0.4, x
   independent of y): every ``cross`` term for folds 2..100 and LOO, and the pair terms.

   Var[GE] at N = 100 by the all-pairs dominance path and by the previous row method
   (baseline, same run, ratio printed); at N = 1000 (``--big``) the dominance path in full and
   the row method estimated from one class split.

Run: ``.venv/bin/python benchmarks/bench_exact.py [--big] [--quick]`` (``--big`` adds Var[GE] at
N = 1000; ``--quick`` leaves out every N = 1000 row).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import time
from fractions import Fraction

import numpy as np

from momentbound.exact import NaiveBayes, prob_z_positive
from momentbound.model import equal_cells_model, independent_1d_model, second_nb_model
from momentbound.model.enumeration import count_tables, multinomial_pmf
from momentbound.probability.exact_backend import ExactBackend


class RowsBackend(ExactBackend):
    """The exact backend with the previous pair path (row method for every input pair)."""

    def _pair(self, model, n, x, x2, clf):
        from momentbound.exact import two_class_predictions

        tables = self._two_class_tables(model, (x, x2), n, clf)
        out = two_class_predictions.pair_two_class_rows(model, n, x, x2, clf, tables, tail=self.tail)
        self._note_tail(model, n, tables)
        return out


class Timer:
    def __enter__(self) -> "Timer":
        self.w, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.w
        self.cpu = time.process_time() - self.c


def direct_z_positive(model, N: int, x) -> tuple[Fraction, int]:
    """The paper's Direct method: enumerate every count table, evaluate Z exactly."""
    shape = model.arities + (model.n_classes,)
    total, count = Fraction(0), 0
    for counts in count_tables(model.n_cells, N):
        t = np.array(counts).reshape(shape)
        n0, n1 = int(t[..., 0].sum()), int(t[..., 1].sum())
        a0 = int(t[x[0], :, 0].sum()) * int(t[:, x[1], 0].sum())
        a1 = int(t[x[0], :, 1].sum()) * int(t[:, x[1], 1].sum())
        if n1 * a0 - n0 * a1 > 0:
            total += multinomial_pmf(counts, model.cells)
        count += 1
    return total, count


def ge_moments(model, N: int, backend, clf) -> tuple[float, float]:
    inputs = list(model.inputs())
    K = model.n_classes
    w = {x: [float(sum(model.p(x, k) for k in range(K) if k != y)) for y in range(K)] for x in inputs}
    m1 = sum(float(np.dot(backend.single(model, N, x, clf), w[x])) for x in inputs)
    m2 = 0.0
    for i, x in enumerate(inputs):
        for x2 in inputs[i:]:
            p = np.asarray(backend.pair(model, N, x, x2, clf), dtype=float)
            term = float(np.asarray(w[x]) @ p @ np.asarray(w[x2]))
            m2 += term if x == x2 else 2 * term
    return m1, m2 - m1 * m1


def brute_ge(model, N: int, clf) -> tuple[Fraction, Fraction, int]:
    shape = model.arities + (model.n_classes,)
    inputs = list(model.inputs())
    m1 = m2 = Fraction(0)
    count = 0
    for counts in count_tables(model.n_cells, N):
        t = np.array(counts, dtype=np.int64).reshape(shape)
        ge = sum(
            g * sum(model.p(x, k) for k in range(model.n_classes) if k != y)
            for x in inputs
            for y, g in enumerate(clf.predict_proba(t, x))
        )
        p = multinomial_pmf(counts, model.cells)
        m1 += p * ge
        m2 += p * ge * ge
        count += 1
    return m1, m2 - m1 * m1, count


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="also Var[GE] of the 2x2x2 model at N = 1000")
    ap.add_argument("--quick", action="store_true", help="leave out every N = 1000 row (and --big)")
    args = ap.parse_args()
    if args.quick:
        args.big = False
    print(f"# bench_exact on {platform.machine()} {platform.system()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores (shared), load average {os.getloadavg()[0]:.1f}")

    # 1. P[Z > 0], equal cells 2x2x2, x = (0, 0)
    model = equal_cells_model((2, 2))
    x = (0, 0)
    print("\n## P[Z > 0], 2x2x2 equal cells, x = (0, 0)")
    with Timer() as tb8:
        d8, n8 = direct_z_positive(model, 8, x)
    with Timer() as tb10:
        d10, n10 = direct_z_positive(model, 10, x)
    per_table = tb10.cpu / n10
    print(f"Direct (all count tables): N=8 {n8} tables {tb8.cpu:.2f} s CPU; N=10 {n10} tables "
          f"{tb10.wall:.2f} s wall / {tb10.cpu:.2f} s CPU ({per_table * 1e6:.1f} us/table)")
    print("| N | P[Z>0] | P[Z=0] | dropped-mass bound | wall s | CPU s | Direct (extrapolated CPU s) | ratio (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for N in (10, 100) if args.quick else (10, 100, 1000):
        with Timer() as t:
            r = prob_z_positive(model, N, x)
        if N == 10:
            assert r.positive == d10, (r.positive, d10)
        tables = math.comb(N + 7, 7)
        direct = per_table * tables
        print(f"| {N} | {float(r.positive):.15f}{' (exact ' + str(r.positive) + ')' if r.exact else ''} | "
              f"{float(r.zero):.3e} | {r.dropped_mass_bound:.1e} | {t.wall:.2f} | {t.cpu:.2f} | "
              f"{direct:.3g} | {direct / max(t.cpu, 1e-9):.3g}x |")

    # 2. E[GE], Var[GE], 2x2x2 second model
    model = second_nb_model()
    clf = NaiveBayes("random", 0)
    print("\n## E[GE], Var[GE], 2x2x2 second model (0.1 / 0.15), random ties")
    with Timer() as tb:
        b1, b2, nt = brute_ge(model, 8, clf)
    exact8 = ge_moments(model, 8, ExactBackend(arithmetic="rational"), clf)
    assert abs(exact8[0] - float(b1)) < 1e-12 and abs(exact8[1] - float(b2)) < 1e-12, (exact8, b1, b2)
    per_table = tb.cpu / nt
    print(f"brute force N=8: {nt} tables, {tb.cpu:.2f} s CPU, equals the exact backend (to 1e-12)")
    # Var[GE]: the all-pairs dominance path (two_class_predictions.AllPairs, the backend's default for this
    # model) against the previous row method (two_class_predictions.pair_two_class_rows), same singles
    print("\n## Var[GE] pair terms: all-pairs dominance counting vs the row method (baseline)")
    print("| N | path | E[GE] | Var[GE] | wall s | CPU s | ratio (CPU, rows / dominance) | error bound |")
    print("|---|---|---|---|---|---|---|---|")
    N = 100
    with Timer() as t_new:
        m1, var = ge_moments(model, N, ExactBackend(arithmetic="float"), clf)
    with Timer() as t_old:
        m1o, varo = ge_moments(model, N, RowsBackend(arithmetic="float"), clf)
    assert abs(var - varo) < 1e-12 and abs(m1 - m1o) < 1e-12, (var, varo)
    ratio = t_old.cpu / t_new.cpu
    print(f"| {N} | dominance (new) | {m1:.12f} | {var:.9e} | {t_new.wall:.2f} | {t_new.cpu:.2f} | {ratio:.2f}x | |")
    print(f"| {N} | rows (old) | {m1o:.12f} | {varo:.9e} | {t_old.wall:.2f} | {t_old.cpu:.2f} | 1x | |")
    direct = per_table * math.comb(N + 7, 7)
    print(f"N=100 brute force extrapolated {direct:.3g} s CPU, ratio {direct / t_new.cpu:.3g}x")
    from momentbound.exact.two_class_predictions import TwoClassTables, _splits, all_pairs_two_class, split_outcomes_pair

    N = 1000
    if args.quick:
        print("(--quick: the N = 1000 rows are left out)")
        one_d_cv_ingredients()
        return
    inputs = list(model.inputs())
    tables = TwoClassTables(model, (inputs[0], inputs[1]), N, clf, tail=1e-13)
    n_splits = len(_splits(model, N, 1e-13)[0])
    with Timer() as t1:
        p_rows = split_outcomes_pair(tables, 400, 600, 0, 1)
    est_old = t1.cpu * n_splits * (len(inputs) * (len(inputs) - 1) // 2)
    print(f"N=1000 rows (old): one class split of one input pair {t1.cpu:.2f} s CPU; {n_splits} splits x 6 "
          f"input pairs -> estimated {est_old:.0f} s CPU")
    # the same split by dominance counting on the same (unpruned) states
    from momentbound.exact.dominance import joint_sign_law

    law0, nums0 = tables.grid_nums(0, 400)
    law1, nums1 = tables.grid_nums(1, 600)
    m0, m1_ = law0 > 0, law1 > 0
    d0, d1 = tables.den(400), tables.den(600)
    with Timer() as t2:
        p_dom = joint_sign_law(nums0[0][m0] * d1, nums0[1][m0] * d1, law0[m0],
                               nums1[0][m1_] * d0, nums1[1][m1_] * d0, law1[m1_])
    print(f"N=1000 same split by dominance counting (no pruning): {t2.cpu:.2f} s CPU, "
          f"ratio {t1.cpu / t2.cpu:.2f}x, max |difference| {np.abs(p_dom - p_rows).max():.1e}")
    if args.big:
        backend = ExactBackend(arithmetic="float")
        with Timer() as t:
            m1, var = ge_moments(model, N, backend, clf)
        ap = all_pairs_two_class(model, N, clf, backend.tail)
        print(f"| {N} | dominance (new) | {m1:.12f} | {var:.9e} | {t.wall:.1f} | {t.cpu:.1f} | "
              f"{est_old / t.cpu:.2f}x (vs estimated rows) | {backend.dropped_mass_bound:.1e} "
              f"(pruned states {ap.pruned_mass:.1e}) |")
    else:
        print("(--big: run Var[GE] at N = 1000)")

    one_d_cv_ingredients()


def one_d_cv_ingredients() -> None:
    """Section 3: every cross and pair term of the paper's 1-D CV sweep (N = 100)."""
    model = independent_1d_model("2/5")
    N = 100
    backend = ExactBackend(arithmetic="float")
    clf = NaiveBayes("random", 0)
    points = [((v,), y) for v in range(2) for y in range(2)]
    configs = set()
    for v in range(2, N + 1):
        sizes_v = [N // v + 1] * (N % v) + [N // v] * (v - N % v)
        for s, t in itertools.combinations_with_replacement(sorted(set(sizes_v)), 2):
            if s == t and sizes_v.count(s) < 2:
                continue
            configs.add((N - s - t, s - 1, t - 1))
    with Timer() as t:
        for nc, na, nb in sorted(configs):
            for pa, pb in itertools.product(points, repeat=2):
                backend.cross(model, nc, na, nb, pa, pb, clf)
    with Timer() as tp:
        train_sizes = {N - N // v for v in range(2, N + 1)} | {N - N // v - 1 for v in range(2, N + 1)}
        for n in sorted(train_sizes):
            for xa, xb in itertools.combinations_with_replacement([(0,), (1,)], 2):
                backend.pair(model, n, xa, xb, clf)
    print(f"\n## 1-D CV sweep ingredients (N = 100): {len(configs)} fold-size configurations, "
          f"{16 * len(configs)} cross terms: wall {t.wall:.2f} s CPU {t.cpu:.2f} s; "
          f"{3 * len(train_sizes)} pair terms: wall {tp.wall:.2f} s CPU {tp.cpu:.2f} s")


if __name__ == "__main__":
    main()
