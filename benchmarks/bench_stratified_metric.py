"""Exact stratified 10-fold balanced error against a vectorised simulation of the same scorer.

Workload: a one-attribute two-class model with class prior 1/5 (cells ``(x=0, y=0) = 9/50``,
``(0, 1) = 2/25``, ``(1, 0) = 1/50``, ``(1, 1) = 18/25``: the attribute agrees with the class 9 times
in 10 in either class, the classes are imbalanced; population balanced error of the Bayes rule 0.1), ``N = 100``, scikit-learn's ``StratifiedKFold(10)`` and ``CategoricalNB(alpha=1)``,
scored by ``balanced_accuracy`` fold by fold as ``cross_val_score(..., scoring="balanced_accuracy")``
does; the statistic is one minus the mean fold score.

* Exact: ``estimator_moments(model, 100, StratifiedKFold(10), classifier=NaiveBayes("sklearn", 1),
  metric="balanced_error")`` (float sums over the class counts), timed cold in this process (CPU and
  wall); its peak Python memory in a second run under ``tracemalloc``.
* Simulation: datasets drawn as cell indices in numpy batches; scikit-learn's fold assignment
  (classes encoded in order of first appearance, sorted encoded labels dealt ``j mod v``, each class's
  points given to folds in data order); ``CategoricalNB``'s float log scores and argmax; balanced
  accuracy of every fold (the mean recall of the classes present in its test part). Datasets
  scikit-learn cannot split are redrawn (the exact moments condition on a split). It runs until the
  standard error of the mean is 1% of the mean, timed; then ``--witness`` more draws give the z-scores
  of the exact mean and variance. The simulator is checked first against real
  ``cross_val_score(CategoricalNB(alpha=1), X, y, cv=10, scoring="balanced_accuracy")`` on
  ``--check`` datasets (equal to 1e-12).

``--table DRAWS`` instead checks the table of ``docs/beyond-accuracy.md`` (balanced error and recall
of class 0 at N = 40 and 100, 5 and 10 folds) against ``DRAWS`` simulated datasets per row.

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_stratified_metric.py [--witness 200000] [--check 30]
     PYTHONPATH=src .venv/bin/python benchmarks/bench_stratified_metric.py --table 100000
``--quick``: the same comparison with 5 checked datasets and 20,000 witness draws.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import resource
import time
import tracemalloc
import warnings
from typing import Any

import numpy as np

from momentbound import CellModel
from momentbound.classifiers import NaiveBayes
from momentbound.estimators import StratifiedKFold, estimator_moments

MODEL = CellModel((2,), ["9/50", "2/25", "1/50", "18/25"])
N, V = 100, 10


def fold_of_points(cells: np.ndarray, K: int, v: int) -> np.ndarray:
    """scikit-learn's ``StratifiedKFold(v)`` (no shuffle) test fold of every point, ``(r, N)``."""
    r, n = cells.shape
    y = cells % K
    onehot = y[:, :, None] == np.arange(K)  # (r, N, K)
    counts = onehot.sum(axis=1)
    first = np.where(counts > 0, onehot.argmax(axis=1), n)
    rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1)  # class -> encoded label
    enc_counts = np.zeros_like(counts)
    np.put_along_axis(enc_counts, rank, counts, axis=1)
    # sorted encoded labels: position j holds label e when cum[e-1] <= j < cum[e]; fold j mod v
    j = np.arange(n)
    label_at = (j[None, :, None] >= np.cumsum(enc_counts, axis=1)[:, None, :]).sum(axis=2)  # (r, N)
    alloc_enc = np.zeros((r, v, K), dtype=np.int64)
    np.add.at(alloc_enc, (np.arange(r)[:, None], j[None, :] % v, label_at), 1)
    alloc = np.take_along_axis(alloc_enc, np.broadcast_to(rank[:, None, :], alloc_enc.shape), axis=2)  # by class
    within = np.cumsum(onehot, axis=1)[np.arange(r)[:, None], j[None, :], y] - 1  # rank within its class
    cum = np.cumsum(alloc, axis=1)  # (r, v, K)
    bounds = cum[np.arange(r)[:, None], :, y]  # (r, N, v)
    return (bounds <= within[:, :, None]).sum(axis=2)


def cv_scores(cells: np.ndarray, model: CellModel, v: int) -> tuple[np.ndarray, np.ndarray]:
    """``cross_val_score(CategoricalNB(alpha=1), X, y, cv=v, scoring=s).mean()`` per row for
    ``s = "balanced_accuracy"`` and for the recall of class 0 (0 on a fold without class 0)."""
    return fold_scores(cells, fold_of_points(cells, model.n_classes, v), model, v)


def fold_scores(cells: np.ndarray, fold: np.ndarray, model: CellModel, v: int) -> tuple[np.ndarray, np.ndarray]:
    """The mean over the ``v`` test folds (``fold``: the test fold of every point, ``(r, N)``) of
    ``CategoricalNB(alpha=1)``'s balanced accuracy and recall of class 0, per row."""
    K, arity = model.n_classes, model.arities[0]
    r, n = cells.shape
    x, y = cells // K, cells % K
    tab = np.zeros((r, v, arity, K))
    np.add.at(tab, (np.arange(r)[:, None], fold, x, y), 1)
    train = tab.sum(axis=1, keepdims=True) - tab  # (r, v, arity, K)
    n_c = train.sum(axis=2)  # (r, v, K)
    with np.errstate(divide="ignore"):
        prior = np.log(n_c) - np.log(n_c.sum(axis=2, keepdims=True))
        feat = np.log(train + 1.0) - np.log(train.sum(axis=2, keepdims=True) + 1.0 * arity)  # (r, v, arity, K)
    jll = feat + prior[:, :, None, :]
    jll = np.where(n_c[:, :, None, :] > 0, jll, -np.inf)  # classes absent from training are not predicted
    pred = jll.argmax(axis=3)  # (r, v, arity)
    right = (tab * (pred[..., None] == np.arange(K))).sum(axis=2)  # (r, v, K) right predictions per class
    a = tab.sum(axis=2)  # test points per fold and class
    present = a > 0
    recall = np.where(present, right / np.where(present, a, 1), 0.0)
    ba = recall.sum(axis=2) / present.sum(axis=2)
    return ba.mean(axis=1), recall[:, :, 0].mean(axis=1)


def cv_balanced_accuracy(cells: np.ndarray, model: CellModel, v: int) -> np.ndarray:
    """``cross_val_score(CategoricalNB(alpha=1), X, y, cv=v, scoring="balanced_accuracy").mean()`` per row."""
    return cv_scores(cells, model, v)[0]


def draw(model: CellModel, r: int, rng: np.random.Generator, n: int = N, v: int = V) -> np.ndarray:
    """``r`` datasets of ``n`` points scikit-learn can split (some class with at least ``v`` members)."""
    p = np.array([float(c) for c in model.cells])
    K = model.n_classes
    cells = rng.choice(len(p), size=(r, n), p=p)
    ok = ((cells % K)[:, :, None] == np.arange(K)).sum(axis=1).max(axis=1) >= v
    while not ok.all():
        cells[~ok] = rng.choice(len(p), size=(int((~ok).sum()), n), p=p)
        ok = ((cells % K)[:, :, None] == np.arange(K)).sum(axis=1).max(axis=1) >= v
    return cells


def table(model: CellModel, draws: int, rng: np.random.Generator) -> None:
    """The exact balanced error and recall of class 0 (docs/beyond-accuracy.md) against ``draws``
    simulated datasets per row: z of the mean and of the variance."""
    from momentbound.estimators import LinearMetric, estimator_accuracy

    clf = NaiveBayes("sklearn", 1)
    for n in (40, 100):
        for v in (5, 10):
            values = [np.concatenate(x) for x in zip(*(cv_scores(draw(model, 5000, rng, n, v), model, v)
                                                        for _ in range(math.ceil(draws / 5000))))]
            for name, metric, sim in (("balanced_error", LinearMetric.balanced_error(), 1.0 - values[0]),
                                      ("recall[0]", LinearMetric.recall(0), values[1])):
                r = estimator_accuracy(model, n, StratifiedKFold(v), classifier=clf, metric=metric)
                m, var = sim.mean(), sim.var(ddof=1)
                se_v = math.sqrt((np.mean((sim - m) ** 4) - var * var) / len(sim))
                print(f"N={n} v={v} {name}: exact mean {float(r.mean):.4f} std {float(r.variance) ** 0.5:.4f} "
                      f"population {float(r.ge_full_mean):.4f} rms {r.rms:.4f} corr {r.correlation_with_ge:.2f}; "
                      f"simulation ({len(sim)}) z mean {(m - float(r.mean)) / math.sqrt(var / len(sim)):+.2f}, "
                      f"z variance {(var - float(r.variance)) / se_v:+.2f}")


def check_simulator(model: CellModel, datasets: int, rng: np.random.Generator) -> None:
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import CategoricalNB

    cells = draw(model, datasets, rng)
    ours = cv_balanced_accuracy(cells, model, V)
    K = model.n_classes
    for row, value in zip(cells, ours):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = cross_val_score(CategoricalNB(alpha=1, force_alpha=True, min_categories=list(model.arities)),
                                     (row // K)[:, None], row % K, cv=V, scoring="balanced_accuracy").mean()
        assert abs(theirs - value) < 1e-12, (theirs, value)


def simulate(model: CellModel, rng: np.random.Generator, *, rel: float | None = None, draws: int | None = None,
             batch: int = 2000) -> tuple[np.ndarray, float, float]:
    """Balanced errors until the s.e. of the mean is ``rel`` of the mean (or ``draws`` of them);
    returns the values, CPU and wall seconds."""
    return run_batches(lambda size: 1.0 - cv_balanced_accuracy(draw(model, size, rng), model, V),
                       lambda values: values.std(ddof=1) / math.sqrt(len(values)) / values.mean(),
                       rel=rel, draws=draws, batch=batch, least=100)


def run_batches(one_batch: Any, precision: Any, *, rel: float | None, draws: int | None, batch: int,
                least: int) -> tuple[np.ndarray, float, float]:
    """``one_batch(size)`` values until ``precision(values) <= rel`` (after ``least`` of them) or ``draws``
    of them; returns the values, CPU and wall seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    out: list[np.ndarray] = []
    total = 0
    while True:
        size = batch if draws is None else min(batch, draws - total)
        out.append(one_batch(size))
        total += size
        values = np.concatenate(out)
        if draws is not None and total >= draws:
            break
        if rel is not None and total >= least and precision(values) <= rel:
            break
    return values, time.process_time() - c0, time.perf_counter() - w0


def measure(call: Any) -> tuple[Any, float, float, float, float]:
    """``call()`` timed cold: its result, CPU and wall seconds, the process's max RSS (MiB) after it, and
    the peak traced Python memory (MiB) of a second call."""
    c0, w0 = time.process_time(), time.perf_counter()
    result = call()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, cpu, wall, rss, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--witness", type=int, default=200_000, help="draws for the z-scores")
    parser.add_argument("--check", type=int, default=30, help="datasets checked against cross_val_score")
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--table", type=int, default=0, metavar="DRAWS",
                        help="only the table of docs/beyond-accuracy.md, each row against DRAWS simulated datasets")
    parser.add_argument("--quick", action="store_true", help="5 checked datasets, 20,000 witness draws")
    args = parser.parse_args()
    if args.quick:
        args.check, args.witness = 5, 20_000
    rng = np.random.default_rng(args.seed)
    if args.table:
        table(MODEL, args.table, rng)
        return
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    clf = NaiveBayes("sklearn", 1)

    exact, exact_cpu, exact_wall, rss_exact, exact_peak = measure(
        lambda: estimator_moments(MODEL, N, StratifiedKFold(V), classifier=clf, metric="balanced_error"))
    mean, var = float(exact.mean), float(exact.variance)
    print(f"exact: mean {mean:.6f}, variance {var:.5e}, split probability {float(exact.split_probability):.6f}; "
          f"{exact_cpu:.2f} s CPU, {exact_wall:.2f} s wall; peak traced {exact_peak:.1f} MiB, "
          f"max RSS so far {rss_exact:.0f} MiB")

    check_simulator(MODEL, args.check, rng)
    print(f"simulator equals cross_val_score(scoring='balanced_accuracy') on {args.check} datasets")

    values, sim_cpu, sim_wall = simulate(MODEL, rng, rel=0.01, batch=200)
    tracemalloc.start()
    simulate(MODEL, np.random.default_rng(args.seed + 1), draws=len(values), batch=200)
    sim_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    se = values.std(ddof=1) / math.sqrt(len(values))
    print(f"simulation to 1% relative s.e. of the mean: {len(values)} datasets, mean {values.mean():.6f} "
          f"(s.e. {se:.2e}, z {(values.mean() - mean) / se:+.2f}); {sim_cpu:.3f} s CPU, {sim_wall:.3f} s wall; "
          f"peak traced {sim_peak:.1f} MiB; simulation / exact: {sim_cpu / exact_cpu:.2f} (CPU), "
          f"{sim_wall / exact_wall:.2f} (wall)")

    wit, wit_cpu, wit_wall = simulate(MODEL, rng, draws=args.witness, batch=5000)
    R = len(wit)
    m, v = wit.mean(), wit.var(ddof=1)
    se_m = math.sqrt(v / R)
    se_v = math.sqrt((np.mean((wit - m) ** 4) - v * v) / R)
    print(f"witness: {R} datasets ({wit_cpu:.1f} s CPU): mean {m:.6f} (z {(m - mean) / se_m:+.2f}), "
          f"variance {v:.5e} (z {(v - var) / se_v:+.2f}); relative s.e. of the variance {se_v / v:.3%}")


if __name__ == "__main__":
    main()
