"""Benchmark of the estimator moments against simulation of the real procedure.

Workloads:

1. The paper's 1-D CV sweep (Figs. 5-9): N = 100, input with 2 values independent of the class,
   prior 0.4, paper tie rule (random), alpha = 0; folds v = 2..100 and leave-one-out; mean,
   variance and fold covariance, exact (floating point), timed in one run.
2. Baseline: scikit-learn ``CategoricalNB(alpha=1, force_alpha=True, min_categories=[2])`` with
   an explicit ``KFold(v)`` on simulated datasets for ONE configuration (v = 10; scikit-learn's
   argmax is the `first` tie rule, and it cannot run alpha = 0). A pilot run estimates the
   relative standard error of the simulated Var(CE); the repetitions needed for 1% relative
   precision follow from 1/sqrt(R) scaling, and the time is extrapolated to the whole sweep
   (a) conservatively: every configuration costs as much as v = 10 (a lower bound on the
   simulation time, since a dataset costs v fits), and (b) proportionally to the number of fits.
   The pilot's Var(CE) is compared with the exact value for the same rule (first, alpha = 1).
3. Exact E[GE], Var[GE] of the 2x2x2 naive Bayes (the paper's second model, class-0 cells 0.1,
   class-1 cells 0.15) at N = 100 and N = 1000 (the latter in a subprocess with a 5-minute limit).

Times are wall-clock and process CPU seconds on whatever machine runs it; the recorded results
were taken on a shared, loaded 2-core machine.
Run: ``.venv/bin/python benchmarks/bench_estimators.py [--pilot R] [--skip-large] [--quick]``
(``--quick``: a 100-dataset pilot, without the N = 1000 run).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import subprocess
import sys
import time

import numpy as np

from momentbound.estimators import GE, KFold, estimator_moments, make_engine, sweep
from momentbound.classifiers.naive_bayes import NaiveBayes
from momentbound.model import independent_1d_model, second_nb_model

N = 100
PRIOR = "2/5"
SIM_FOLDS = 10
TARGET_REL = 0.01


def exact_sweep() -> tuple[float, float, object]:
    model = independent_1d_model(PRIOR)
    values = list(range(2, N + 1)) + ["loo"]
    wall, cpu = time.perf_counter(), time.process_time()
    engine = make_engine(model)  # includes building the backend
    res = sweep(model, "folds", values, N=N, engine=engine)
    return time.perf_counter() - wall, time.process_time() - cpu, res


def simulate_cv(model, v: int, reps: int, rng: np.random.Generator) -> tuple[np.ndarray, float, float]:
    """CE of `reps` simulated datasets with scikit-learn CategoricalNB + KFold; (CE, wall, cpu)."""
    import warnings

    from sklearn.model_selection import KFold as SkKFold
    from sklearn.naive_bayes import CategoricalNB

    probs = np.array([float(c) for c in model.cells])
    K = model.n_classes
    folds = SkKFold(v)
    splits = list(folds.split(np.zeros(N)))
    ce = np.empty(reps)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            idx = rng.choice(len(probs), size=N, p=probs)
            X = (idx // K).reshape(-1, 1)
            y = idx % K
            errors = 0
            for train, test in splits:
                clf = CategoricalNB(alpha=1.0, force_alpha=True, min_categories=[2])
                clf.fit(X[train], y[train])
                errors += int((clf.predict(X[test]) != y[test]).sum())
            ce[r] = errors / N
    return ce, time.perf_counter() - wall, time.process_time() - cpu


def variance_rel_se(x: np.ndarray) -> tuple[float, float]:
    """Sample variance and the relative standard error of it (from the 4th central moment)."""
    s2 = float(np.var(x, ddof=1))
    m4 = float(np.mean((x - x.mean()) ** 4))
    se = math.sqrt(max(m4 - s2 * s2, 0.0) / len(x))
    return s2, se / s2


GE_SNIPPET = """
import time, sys
from momentbound.model import second_nb_model
from momentbound.estimators import estimator_moments, GE
n = int(sys.argv[1])
w, c = time.perf_counter(), time.process_time()
r = estimator_moments(second_nb_model(), n, GE())
print(repr(float(r.mean)), repr(float(r.variance)), time.perf_counter() - w, time.process_time() - c)
"""


def exact_ge(n: int, limit: float) -> tuple[str, float | None, float | None, float | None, float | None]:
    try:
        out = subprocess.run(
            [sys.executable, "-c", GE_SNIPPET, str(n)], capture_output=True, text=True, timeout=limit,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return f"exceeded {limit:.0f} s", None, None, None, None
    except subprocess.CalledProcessError as exc:
        return f"failed: {exc.stderr.strip().splitlines()[-1]}", None, None, None, None
    mean, var, wall, cpu = (float(t) for t in out.stdout.split())
    return "ok", mean, var, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pilot", type=int, default=400, help="pilot datasets for the simulation")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--skip-large", action="store_true", help="skip the N = 1000 2x2x2 run")
    parser.add_argument("--limit", type=float, default=300.0, help="time limit (s) of the N = 1000 run")
    parser.add_argument("--quick", action="store_true", help="--pilot 100 --skip-large")
    args = parser.parse_args()
    if args.quick:
        args.pilot, args.skip_large = 100, True
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores (shared with other jobs), "
          f"python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}")

    # 1. exact sweep
    wall, cpu, res = exact_sweep()
    frame = res.to_frame()
    print(f"\n[1] exact 1-D CV sweep, N={N}, folds 2..{N} and LOO ({len(res.rows)} configurations): "
          f"wall {wall:.2f} s, cpu {cpu:.2f} s")
    show = frame[frame["value"].isin(["2", "3", "5", "10", "20", "50", "100", "loo"])]
    print(show[["value", "mean", "variance", "fold_variance", "fold_covariance", "mean_plus_std"]]
          .to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    best = frame.iloc[int(np.argmin(frame["variance"].to_numpy()))]
    print(f"smallest Var(CE) at v = {best['value']} ({best['variance']:.6f}); smallest E+Std at v = "
          f"{frame.iloc[int(np.argmin(frame['mean_plus_std'].to_numpy()))]['value']}")

    # 2. simulation baseline
    model = independent_1d_model(PRIOR)
    rng = np.random.default_rng(args.seed)
    ce, s_wall, s_cpu = simulate_cv(model, SIM_FOLDS, args.pilot, rng)
    s2, rel = variance_rel_se(ce)
    need = math.ceil(args.pilot * (rel / TARGET_REL) ** 2)
    per_wall, per_cpu = s_wall / args.pilot, s_cpu / args.pilot
    one_wall, one_cpu = need * per_wall, need * per_cpu
    configs = len(res.rows)
    fits = sum(range(2, N + 1)) + N  # folds 2..N, plus LOO's N fits
    cons_wall, cons_cpu = one_wall * configs, one_cpu * configs
    prop_wall, prop_cpu = one_wall * fits / SIM_FOLDS, one_cpu * fits / SIM_FOLDS
    exact_first = estimator_moments(model, N, KFold(SIM_FOLDS), classifier=NaiveBayes(ties="first", alpha=1))
    print(f"\n[2] scikit-learn simulation, KFold({SIM_FOLDS}), CategoricalNB(alpha=1): pilot {args.pilot} "
          f"datasets in wall {s_wall:.1f} s, cpu {s_cpu:.1f} s")
    print(f"    simulated Var(CE) = {s2:.6f} +- {1.96 * rel * s2:.6f} (95%); exact (first, alpha=1) "
          f"= {float(exact_first.variance):.6f}; E[CE] sim {ce.mean():.5f} vs exact {float(exact_first.mean):.5f}")
    print(f"    relative s.e. of Var(CE) at the pilot: {rel:.4f}; datasets for 1%: {need}")
    print(f"    one configuration at 1%: wall {one_wall:.0f} s, cpu {one_cpu:.0f} s")
    print(f"    whole sweep, conservative (every configuration like v={SIM_FOLDS}): wall {cons_wall:.0f} s, "
          f"cpu {cons_cpu:.0f} s")
    print(f"    whole sweep, proportional to fits ({fits} fits per dataset): wall {prop_wall:.0f} s, "
          f"cpu {prop_cpu:.0f} s")

    # 3. 2x2x2 GE
    rows = []
    for n, limit in ((100, args.limit), (1000, args.limit)):
        if n == 1000 and args.skip_large:
            rows.append((n, "skipped", None, None, None, None))
            continue
        rows.append((n, *exact_ge(n, limit)))
    print("\n[3] exact E[GE], Var[GE], 2x2x2 second model (subprocess each, incl. import):")
    for n, status, mean, var, w, c in rows:
        if status == "ok":
            print(f"    N={n}: E[GE]={mean:.8f} Var[GE]={var:.3e}  wall {w:.2f} s, cpu {c:.2f} s")
        else:
            print(f"    N={n}: {status}")

    print("\nsummary (target: exact sweep <= 10 s and >= 1000x faster than the simulation):")
    print(f"{'workload':48s} {'exact wall':>11s} {'baseline wall':>14s} {'ratio':>9s}  (cpu ratio)")
    print(f"{'CV sweep vs simulation, conservative':48s} {wall:11.2f} {cons_wall:14.0f} "
          f"{cons_wall / wall:9.0f}  ({cons_cpu / cpu:.0f})")
    print(f"{'CV sweep vs simulation, proportional to fits':48s} {wall:11.2f} {prop_wall:14.0f} "
          f"{prop_wall / wall:9.0f}  ({prop_cpu / cpu:.0f})")


if __name__ == "__main__":
    main()
