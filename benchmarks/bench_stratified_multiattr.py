"""Exact stratified CV on three classes and two binary attributes against a vectorised simulation.

Workload: the three-class model ``MODEL`` with two binary attributes (cells below, in the order of
``CellModel``: inputs ``(x1, x2)`` in C order, classes within), ``N = 30`` (``N = 20`` for the repeated and shuffled splitters, whose exact routes are estimated past
the default limit of 120 s at N = 30), ``CategoricalNB(alpha=1)``
(``NaiveBayes("sklearn", 1)``), the 0-1 error of ``1 - mean(cross_val_score(...))``:

* ``StratifiedKFold(5)`` and ``StratifiedKFold(10)``, ``RepeatedStratifiedKFold(5, 10)`` and
  ``StratifiedShuffleSplit(10, test_size=N // 5)`` (20 %): ``estimator_moments`` (float sums over the class
  counts, the dry-run work estimate and its guard included), each in a child process (CPU and wall
  seconds, the child's peak resident memory; CPU includes the worker processes that compute the terms
  of large problems, and their largest peak resident memory is printed) next to the dry-run estimate
  of ``estimated_seconds``.
* Simulation (the baseline): datasets drawn as cell indices in numpy batches; scikit-learn's
  ``StratifiedKFold`` fold assignment (``bench_stratified_metric.fold_of_points``: classes encoded in
  order of first appearance, sorted encoded labels dealt ``j mod v``, each class's points given to
  folds in data order); for ``RepeatedStratifiedKFold`` each repetition first permutes the points
  within each class (what ``shuffle=True`` does to the fold labels of a class); ``CategoricalNB``'s
  float64 joint log-likelihood summed in scikit-learn's order and its first argmax among the
  classes present in training. Datasets scikit-learn cannot split are redrawn (for
``StratifiedShuffleSplit``: a class with a single member, or more classes present than test or
training points). The simulator is
  checked against real ``cross_val_score`` with scikit-learn's splitters on ``--check`` datasets
  (equal to 1e-12). It runs until the relative standard error of its variance estimate is
  ``--rel`` (1 %), timed (CPU, wall, peak traced memory); its mean and variance give the z-scores of
  the exact ones.

Run: OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/bench_stratified_multiattr.py
     [--rel 0.01] [--check 20] [--only skf5:30,skf10:30,rskf:20,sss:20] [--quick]
``--quick``: the same four splitters at N = 20, 20, 10 and 20, the variance to 5 %, 3 checked datasets.
Below N = 15 the ``StratifiedShuffleSplit`` test part has fewer than three points: scikit-learn then
splits only the datasets with at most that many classes present, and the exact moments and the
simulation are both conditional on those (``split_probability``; at N = 10 about 0.05).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np

from bench_stratified_metric import fold_of_points
from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import estimator_moments
from momentbound.splitters.repeated import RepeatedStratifiedKFold, StratifiedShuffleSplit
from momentbound.splitters.stratified import StratifiedKFold

#: cells (x1, x2, class): the attributes lean towards class 0 at (0, 0), class 1 at (0, 1) and
#: (1, 0), class 2 at (1, 1); priors 0.35, 0.32, 0.33
MODEL = CellModel((2, 2), ["3/20", "1/25", "1/50", "1/20", "1/10", "1/25",
                           "1/20", "1/10", "1/25", "1/10", "2/25", "23/100"])
N = 30
CLF = NaiveBayes("sklearn", 1)
SPLITTERS = {
    "skf5": lambda: StratifiedKFold(5), "skf10": lambda: StratifiedKFold(10),
    "rskf": lambda: RepeatedStratifiedKFold(5, 10), "sss": lambda: StratifiedShuffleSplit(10, N // 5),
}


def exact_child(name: str) -> None:
    """Run one exact computation and print its figures as JSON (in a child process)."""
    splitter = SPLITTERS[name]()
    c0 = time.process_time()
    estimate = splitter.estimated_seconds(MODEL, N)
    dry = time.process_time() - c0
    def workers() -> float:  # CPU of the worker processes that computed terms (joined by now)
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    c0, w0, k0 = time.process_time(), time.perf_counter(), workers()
    # past the default limit (120 s) the guard would refuse: run it anyway, to measure it
    r = estimator_moments(MODEL, N, splitter, classifier=CLF, **({"max_seconds": None} if estimate > 120 else {}))
    cpu, wall, kids = time.process_time() - c0, time.perf_counter() - w0, workers() - k0
    print(json.dumps({"mean": float(r.mean), "variance": float(r.variance), "cpu": cpu + kids, "wall": wall,
                      "workers_cpu": kids, "estimate": float(estimate), "dry_cpu": dry,
                      "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "workers_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))


def draw(r: int, rng: np.random.Generator, v: int, test: int = 0) -> np.ndarray:
    """``r`` datasets of ``N`` cell indices that scikit-learn's splitter can split: ``StratifiedKFold(v)``
    needs a class with ``v`` members; ``StratifiedShuffleSplit`` (``v = 0``, ``test`` test points) refuses a
    class with a single member and a test or training part with fewer points than the classes present."""
    p = np.array([float(c) for c in MODEL.cells])
    K = MODEL.n_classes
    cells = rng.choice(len(p), size=(r, N), p=p)
    while True:
        counts = ((cells % K)[:, :, None] == np.arange(K)).sum(axis=1)
        present = (counts > 0).sum(axis=1)
        ok = (counts.max(axis=1) >= v if v else
              (counts != 1).all(axis=1) & (present <= test) & (present <= N - test))
        if ok.all():
            return cells
        cells[~ok] = rng.choice(len(p), size=(int((~ok).sum()), N), p=p)


def within_class_shuffle(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Every row with its points permuted uniformly within each class (labels keep their positions)."""
    K = MODEL.n_classes
    y = cells % K
    rows = np.arange(cells.shape[0])[:, None]
    slots = np.argsort(y, axis=1, kind="stable")  # positions grouped by class, in data order
    shuffled = np.lexsort((rng.random(cells.shape), y), axis=1)  # grouped by class, random order
    out = np.empty_like(cells)
    out[rows, slots] = cells[rows, shuffled]
    return out


def fold_errors(cells: np.ndarray, fold: np.ndarray, v: int) -> np.ndarray:
    """Test error of ``CategoricalNB(alpha=1)`` trained on the other folds, per row and fold ``(r, v)``."""
    K, arities = MODEL.n_classes, MODEL.arities
    r = cells.shape[0]
    x, y = cells // K, cells % K
    xs = [x // arities[1], x % arities[1]]
    rows = np.arange(r)[:, None]
    feats = []
    for j, a in enumerate(arities):
        tab = np.zeros((r, v, a, K))
        np.add.at(tab, (rows, fold, xs[j], y), 1)
        train = tab.sum(axis=1, keepdims=True) - tab
        feats.append(np.log(train + 1.0) - np.log(train.sum(axis=2, keepdims=True) + 1.0 * a))  # (r, v, a, K)
    n_c = np.zeros((r, v, K))
    np.add.at(n_c, (rows, fold, y), 1)
    n_c = n_c.sum(axis=1, keepdims=True) - n_c
    with np.errstate(divide="ignore"):
        prior = np.log(n_c) - np.log(n_c.sum(axis=2, keepdims=True))
    # each point's joint log-likelihood under its fold's training set, summed as scikit-learn sums it
    jll = np.zeros((r, N, K))
    for j in range(len(arities)):
        jll = jll + feats[j][rows, fold, xs[j]]
    jll = jll + prior[rows, fold]
    jll = np.where(n_c[rows, fold] > 0, jll, -np.inf)
    wrong = jll.argmax(axis=2) != y
    errs = np.zeros((r, v))
    sizes = np.zeros((r, v))
    np.add.at(errs, (rows, fold), wrong)
    np.add.at(sizes, (rows, fold), 1)
    return errs / sizes


def sss_test(cells: np.ndarray, rng: np.random.Generator, test: int) -> np.ndarray:
    """One ``StratifiedShuffleSplit(test_size=test)`` split per row: 1 on the test points, 0 on the training
    points. The training part has ``_approximate_mode``'s class counts (floors of ``n_k / N * n_train``
    in float64, one more for the largest remainders, equal remainders in random order); each class's
    training points are a uniformly random subset of it."""
    K = MODEL.n_classes
    y = cells % K
    r = cells.shape[0]
    counts = (y[:, :, None] == np.arange(K)).sum(axis=1)
    continuous = counts / counts.sum(axis=1, keepdims=True) * (N - test)
    floored = np.floor(continuous)
    need = (N - test) - floored.sum(axis=1).astype(np.int64)
    order = np.lexsort((rng.random((r, K)), -(continuous - floored)), axis=1)  # largest remainders first
    bonus = np.zeros((r, K), dtype=np.int64)
    np.put_along_axis(bonus, order, (np.arange(K)[None, :] < need[:, None]).astype(np.int64), axis=1)
    n_train = floored.astype(np.int64) + bonus
    keys = rng.random(cells.shape) + y  # within a class, a uniformly random order
    rank = np.argsort(np.argsort(keys, axis=1), axis=1) - np.take_along_axis(
        np.cumsum(counts, axis=1) - counts, y, axis=1)
    return (rank >= np.take_along_axis(n_train, y, axis=1)).astype(np.int64)


def simulate_values(name: str, r: int, rng: np.random.Generator) -> np.ndarray:
    """``r`` simulated values of the statistic of splitter ``name``."""
    K = MODEL.n_classes
    if name in ("skf5", "skf10"):
        v = 5 if name == "skf5" else 10
        return simulate_fixed(draw(r, rng, v), v)
    if name == "rskf":
        cells = draw(r, rng, 5)
        return np.mean([simulate_fixed(within_class_shuffle(cells, rng), 5) for _ in range(10)], axis=0)
    cells = draw(r, rng, 0, N // 5)
    return np.mean([fold_errors(cells, sss_test(cells, rng, N // 5), 2)[:, 1] for _ in range(10)], axis=0)


def simulate(name: str, rng: np.random.Generator, rel: float, batch: int = 4000) -> tuple[np.ndarray, float, float]:
    """Values until the relative s.e. of the variance estimate is ``rel``; values, CPU and wall seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    out: list[np.ndarray] = []
    while True:
        out.append(simulate_values(name, batch, rng))
        x = np.concatenate(out)
        m, var = x.mean(), x.var(ddof=1)
        se_v = math.sqrt((np.mean((x - m) ** 4) - var * var) / len(x))
        if se_v <= rel * var:
            return x, time.process_time() - c0, time.perf_counter() - w0


def check_simulator(name: str, datasets: int, rng: np.random.Generator) -> None:
    """The simulated statistic equals ``1 - mean(cross_val_score(CategoricalNB(alpha=1), ...))`` with
    scikit-learn's own splitter, dataset by dataset (the deterministic splitters)."""
    from sklearn.model_selection import StratifiedKFold as SKF, cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    v = 5 if name == "skf5" else 10
    cells = draw(datasets, rng, v)
    ours = simulate_fixed(cells, v)
    K = MODEL.n_classes
    for row, value in zip(cells, ours):
        x = row // K
        X = np.stack([x // 2, x % 2], axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            score = cross_val_score(CategoricalNB(alpha=1, force_alpha=True, min_categories=[2, 2]), X, row % K,
                                    cv=SKF(v)).mean()
        assert abs((1 - score) - value) < 1e-12, (1 - score, value)


def simulate_fixed(cells: np.ndarray, v: int) -> np.ndarray:
    """``1 - mean(cross_val_score(..., cv=StratifiedKFold(v)))`` per row."""
    return fold_errors(cells, fold_of_points(cells, MODEL.n_classes, v), v).mean(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rel", type=float, default=0.01, help="relative s.e. of the simulated variance")
    parser.add_argument("--check", type=int, default=20, help="datasets checked against cross_val_score")
    parser.add_argument("--only", default="skf5:30,skf10:30,rskf:20,sss:20", help="splitter:N,...")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true",
                        help="skf5:20,skf10:20,rskf:10,sss:20, variance to 5%%, 3 checked datasets")
    args = parser.parse_args()
    if args.quick:
        args.only, args.rel, args.check = "skf5:20,skf10:20,rskf:10,sss:20", 0.05, 3
    global N
    if args.child:
        name, N = args.child.split(":")[0], int(args.child.split(":")[1])
        exact_child(name)
        return
    rng = np.random.default_rng(args.seed)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    for item in args.only.split(","):
        name, N = item.split(":")[0], int(item.split(":")[1])
        proc = subprocess.run([sys.executable, __file__, "--child", item], capture_output=True, text=True, check=True,
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        ex = json.loads(proc.stdout.strip().splitlines()[-1])
        kids = (f" ({ex['workers_cpu']:.1f} s of it in worker processes, the largest's peak RSS "
                f"{ex['workers_rss_mib']:.0f} MiB)" if ex["workers_cpu"] else "")
        print(f"{name} at N = {N}: exact mean {ex['mean']:.6f}, variance {ex['variance']:.5e}; {ex['cpu']:.1f} s CPU{kids}, "
              f"{ex['wall']:.1f} s wall (load {os.getloadavg()[0]:.1f}), peak RSS {ex['rss_mib']:.0f} MiB; "
              f"dry-run estimate {ex['estimate']:.1f} s ({ex['dry_cpu']:.2f} s CPU), measured / estimate "
              f"{ex['cpu'] / ex['estimate']:.2f}", flush=True)
        if name in ("skf5", "skf10") and args.check:
            check_simulator(name, args.check, rng)
            print(f"  simulator equals 1 - cross_val_score(cv=StratifiedKFold) on {args.check} datasets", flush=True)
        tracemalloc.start()
        x, cpu, wall = simulate(name, rng, args.rel)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        m, var = x.mean(), x.var(ddof=1)
        se_m = math.sqrt(var / len(x))
        se_v = math.sqrt((np.mean((x - m) ** 4) - var * var) / len(x))
        print(f"  simulation to {args.rel:.0%} relative s.e. of the variance: {len(x)} datasets, mean {m:.6f} "
              f"(z {(ex['mean'] - m) / se_m:+.2f}), variance {var:.5e} (z {(ex['variance'] - var) / se_v:+.2f}); "
              f"{cpu:.1f} s CPU, {wall:.1f} s wall, peak traced {peak:.0f} MiB; simulation / exact "
              f"{cpu / ex['cpu']:.2f} (CPU)", flush=True)


if __name__ == "__main__":
    main()
