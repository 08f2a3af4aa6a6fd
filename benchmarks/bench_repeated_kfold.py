"""Exact RepeatedKFold balanced error against a vectorised simulation of the same procedure.

Workload: the one-attribute two-class model of ``bench_stratified_metric.py`` (class prior 1/5, the
attribute agrees with the class 9 times in 10), ``N = 40`` points, scikit-learn's
``RepeatedKFold(n_splits=5, n_repeats=10)`` and ``CategoricalNB(alpha=1)`` scored by
``balanced_accuracy`` fold by fold, as ``cross_val_score(..., cv=RepeatedKFold(5, 10),
scoring="balanced_accuracy")``; the statistic is one minus the mean of the 50 fold scores.

* Exact: ``estimator_moments(model, 40, RepeatedKFold(5, 10), classifier=NaiveBayes("sklearn", 1),
  metric="balanced_error")`` (float sums over the class counts and the fold compositions), timed cold
  (CPU and wall); its peak Python memory in a second run under ``tracemalloc``.
* Simulation: datasets drawn as cell indices in numpy batches, ten independent uniform shuffles of each
  into ``KFold``'s fold sizes, ``CategoricalNB``'s float log scores, argmax and the balanced accuracy
  of every fold (``bench_stratified_metric.fold_scores``). It runs until the standard error of the
  sample variance is 1% of the variance (the repetition covariance is what the exact route adds),
  timed; the same draws give the z-scores of the exact mean and variance. The simulator is first
  checked against real ``cross_val_score`` with scikit-learn's ``RepeatedKFold`` on ``--check``
  datasets (its own partitions, equal to 1e-12); ``--witness`` more draws give sharper z-scores.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_repeated_kfold.py [--N 40] [--check 20] [--witness 200000] [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stratified_metric import MODEL, fold_scores, measure, run_batches  # noqa: E402

from momentbound.classifiers import NaiveBayes  # noqa: E402
from momentbound.estimators import estimator_moments  # noqa: E402
from momentbound.splitters.basic import kfold_sizes  # noqa: E402
from momentbound.splitters.repeated import RepeatedKFold  # noqa: E402

V, REPEATS = 5, 10


def repeated_balanced_error(cells: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """One minus the mean fold balanced accuracy over the partitions ``labels`` ``(r, R, N)`` per row."""
    r, R, n = labels.shape
    flat = np.repeat(cells, R, axis=0)  # (r R, N): every partition of a dataset in turn
    ba, _ = fold_scores(flat, labels.reshape(r * R, n), MODEL, V)
    return 1.0 - ba.reshape(r, R).mean(axis=1)


def shuffled_labels(r: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``REPEATS`` independent uniform shuffles into KFold's fold sizes per dataset, ``(r, REPEATS, N)``."""
    block = np.repeat(np.arange(V), kfold_sizes(n, V))
    return rng.permuted(np.broadcast_to(block, (r, REPEATS, n)).copy(), axis=2)


def draw(r: int, n: int, rng: np.random.Generator) -> np.ndarray:
    p = np.array([float(c) for c in MODEL.cells])
    return rng.choice(len(p), size=(r, n), p=p)


def check_simulator(n: int, datasets: int, rng: np.random.Generator) -> None:
    from sklearn.model_selection import RepeatedKFold as SkRepeatedKFold
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    K = MODEL.n_classes
    for row in draw(datasets, n, rng):
        cv = SkRepeatedKFold(n_splits=V, n_repeats=REPEATS, random_state=int(rng.integers(2**31)))
        lab = np.empty((1, REPEATS, n), dtype=np.int64)
        for i, (_, test) in enumerate(cv.split(row)):
            lab[0, i // V, test] = i % V
        ours = repeated_balanced_error(row[None, :], lab)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = 1 - cross_val_score(CategoricalNB(alpha=1, force_alpha=True, min_categories=list(MODEL.arities)),
                                         (row // K)[:, None], row % K, cv=cv, scoring="balanced_accuracy").mean()
        assert abs(theirs - ours) < 1e-12, (theirs, ours)


def simulate(n: int, rng: np.random.Generator, *, rel: float | None = None, draws: int | None = None,
             batch: int = 2000) -> tuple[np.ndarray, float, float]:
    """Balanced errors until the s.e. of the sample variance is ``rel`` of it (or ``draws`` of them)."""
    def precision(values: np.ndarray) -> float:
        var = values.var(ddof=1)
        return math.sqrt((np.mean((values - values.mean()) ** 4) - var * var) / len(values)) / var

    return run_batches(lambda size: repeated_balanced_error(draw(size, n, rng), shuffled_labels(size, n, rng)),
                       precision, rel=rel, draws=draws, batch=batch, least=1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--N", type=int, default=40, dest="n")
    parser.add_argument("--check", type=int, default=20, help="datasets checked against cross_val_score")
    parser.add_argument("--witness", type=int, default=200_000, help="draws for the witness z-scores")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--quick", action="store_true", help="N = 20, 3 checked datasets, 20,000 witness draws")
    args = parser.parse_args()
    if args.quick:
        args.n, args.check, args.witness = 20, 3, 20_000
    rng = np.random.default_rng(args.seed)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    clf = NaiveBayes("sklearn", 1)
    split = RepeatedKFold(V, REPEATS)

    exact, exact_cpu, exact_wall, rss, exact_peak = measure(
        lambda: estimator_moments(MODEL, args.n, split, classifier=clf, metric="balanced_error"))
    mean, var = float(exact.mean), float(exact.variance)
    print(f"exact: mean {mean:.6f}, variance {var:.5e} (one partition {float(exact.single_variance):.5e}, "
          f"repetition covariance {float(exact.repetition_covariance):.5e}); {exact_cpu:.2f} s CPU, "
          f"{exact_wall:.2f} s wall; peak traced {exact_peak:.1f} MiB, max RSS so far {rss:.0f} MiB")

    check_simulator(args.n, args.check, rng)
    print(f"simulator equals 1 - cross_val_score(cv=RepeatedKFold({V}, {REPEATS}), scoring='balanced_accuracy') "
          f"on {args.check} datasets")

    values, sim_cpu, sim_wall = simulate(args.n, rng, rel=0.01)
    tracemalloc.start()
    simulate(args.n, np.random.default_rng(args.seed + 1), draws=2000)
    sim_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    R = len(values)
    m, v = values.mean(), values.var(ddof=1)
    se_m, se_v = math.sqrt(v / R), math.sqrt((np.mean((values - m) ** 4) - v * v) / R)
    print(f"simulation to 1% relative s.e. of the variance: {R} datasets, mean {m:.6f} (z {(m - mean) / se_m:+.2f}), "
          f"variance {v:.5e} (z {(v - var) / se_v:+.2f}); {sim_cpu:.1f} s CPU, {sim_wall:.1f} s wall; "
          f"peak traced {sim_peak:.1f} MiB (one batch of 2000); simulation / exact: {sim_cpu / exact_cpu:.1f} (CPU), "
          f"{sim_wall / exact_wall:.1f} (wall)")

    wit, wit_cpu, _ = simulate(args.n, rng, draws=args.witness, batch=5000)
    R = len(wit)
    m, v = wit.mean(), wit.var(ddof=1)
    se_m, se_v = math.sqrt(v / R), math.sqrt((np.mean((wit - m) ** 4) - v * v) / R)
    print(f"witness: {R} datasets ({wit_cpu:.1f} s CPU): mean {m:.6f} (z {(m - mean) / se_m:+.2f}), "
          f"variance {v:.5e} (z {(v - var) / se_v:+.2f}); relative s.e. of the variance {se_v / v:.3%}")


if __name__ == "__main__":
    main()
